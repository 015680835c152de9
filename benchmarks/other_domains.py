"""English text of other domains, for held-out compression (issue 31): four texts none of our
tokenizers is trained on, built from Debian packages (this machine reaches Debian's archive).

* ``gcide``: the GNU Collaborative International Dictionary of English (``dict-gcide``):
  definitions with their markup of headwords, etymologies and sources;
* ``linux_docs``: the Linux kernel's documentation, reStructuredText (``linux-doc-6.1``);
* ``fortunes``: the quotations, jokes and dialogues of ``fortunes`` (fortune-mod);
* ``debian_handbook``: The Debian Administrator's Handbook (``debian-handbook``), its English
  HTML pages taken to text.

Each text is ``LINES`` non-empty lines taken at even steps through the whole source (so a
dictionary is not only its "A" words), written once to ``benchmarks/.cache/other_domains/NAME.txt``
and read from there afterwards. Running the module builds them and prints their sizes:

    python benchmarks/other_domains.py
"""
from __future__ import annotations

import gzip
import html.parser
import subprocess
import tempfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache" / "other_domains"
LINES = 40_000
PACKAGES = {"gcide": "dict-gcide", "linux_docs": "linux-doc-6.1", "fortunes": "fortunes",
            "debian_handbook": "debian-handbook"}
NAMES = tuple(PACKAGES)


class _HTMLText(html.parser.HTMLParser):
    """The text of HTML pages, a line per block element (scripts and styles dropped)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("p", "br", "div", "li", "tr", "h1", "h2", "h3", "h4", "dt", "dd", "title"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _read(path: Path) -> str:
    data = gzip.decompress(path.read_bytes()) if path.suffix in (".gz", ".dz") else path.read_bytes()
    return data.decode("utf-8", errors="replace")


def _source_lines(name: str, root: Path) -> list[str]:
    share = root / "usr" / "share"
    if name == "gcide":
        text = _read(share / "dictd" / "gcide.dict.dz")
    elif name == "linux_docs":
        files = sorted((share / "doc" / "linux-doc-6.1" / "Documentation").rglob("*.rst*"))
        text = "\n".join(_read(f) for f in files)
    elif name == "fortunes":
        files = sorted(f for f in (share / "games" / "fortunes").iterdir()
                       if f.is_file() and not f.suffix and not f.is_symlink())
        text = "\n".join(_read(f) for f in files)
        text = "\n".join(line for line in text.splitlines() if line.strip() != "%")
    else:
        parser = _HTMLText()
        for f in sorted((share / "doc" / "debian-handbook" / "html" / "en-US").glob("*.html")):
            parser.feed(_read(f))
        text = "".join(parser.parts)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def build(name: str) -> Path:
    """The path of text ``name`` (one of :data:`NAMES`), built from its Debian package on first use.

    Raises:
        subprocess.CalledProcessError: ``apt-get download`` or ``dpkg-deb`` failed (no network?).
    """
    out = CACHE / f"{name}.txt"
    if out.is_file():
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", PACKAGES[name]], cwd=tmp, check=True, capture_output=True)
        deb = next(Path(tmp).glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(tmp) / "root")], check=True)
        lines = _source_lines(name, Path(tmp) / "root")
    step = max(1, len(lines) // LINES)
    picked = lines[::step][:LINES]
    part = out.with_suffix(".part")
    part.write_text("\n".join(picked) + "\n", encoding="utf-8")
    part.replace(out)
    return out


def texts() -> dict[str, Path]:
    """Every text of :data:`NAMES`, built if needed: name -> path."""
    return {name: build(name) for name in NAMES}


if __name__ == "__main__":
    for name, path in texts().items():
        data = path.read_bytes()
        lines = data.count(b"\n")
        print(f"{name:18s} {lines:7,d} lines {len(data) / 1e6:6.2f} MB  {path}")
