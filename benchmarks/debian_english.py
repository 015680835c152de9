"""Real English text in bulk from Debian packages (bookworm, main), for the large reference of
scale_corpus.py (``--reference-large``): dictionaries, the King James Bible, fortunes, Debian's
manuals, man pages, info manuals, the HTML manuals of big projects and TeX Live's PDF manuals.

Each :class:`Source` is one package, the files of it to read (globs from the unpacked root) and
how to take them to text:

* ``dictd``: a dictd ``.dict.dz`` (gzip), as is;
* ``text``: plain text (``.gz`` unpacked), as is; ``info`` the same less Texinfo's node headers,
  menus and ``^_`` separators; ``fortune`` less the ``%`` separators;
* ``html`` (and ``xml``: Mallard and DocBook): tags dropped (stdlib ``html.parser``), a line per
  block element, whitespace runs made one space; ``<pre>``, scripts, styles, navigation and
  ``<head>`` dropped whole (code listings and page furniture);
* ``man``: ``groff -mandoc -Tutf8`` without hyphenation, justification or overstrike and with a
  line length of 4,000 ens, so a paragraph is a line;
* ``pdf``: ``pdftotext`` (poppler-utils), NFKC-normalised (ligatures), and only the files whose
  words are English: at least :data:`MIN_ENGLISH_STOPWORDS` of them English stopwords, and twice
  as many as of German, French or Italian/Spanish ones (TeX Live's manuals are in many languages);
* ``kjv``: the ``bible`` program of package ``bible-kjv`` printing ``bible-kjv-text`` whole,
  less the verse numbers.

Every line is stripped of trailing whitespace (and of leading whitespace for ``html``, ``xml``,
``man`` and ``pdf``) and kept if at least :data:`MIN_LETTER_SHARE` of its non-space characters are
letters and at least :data:`MIN_LATIN_SHARE` of its letters are Latin (drops tables of numbers,
rules, the lines of other scripts and code lines dense in symbols; code lines of long names, such as
LaTeX macros, stay), and if the same line was not kept before, by this source
or an earlier one of the list (so a line that every page of a manual repeats is kept once). A
file whose bytes equal an earlier file's of the same package is read once.

The unpacking is of ``apt-get download``'s ``.deb`` files only: nothing is installed, except that
``kjv`` runs ``bible`` from its unpacked package (it needs ``libreadline8``), ``man`` needs
``groff`` (``groff-base``) and ``pdf`` ``pdftotext`` (``apt-get install poppler-utils``).
"""
from __future__ import annotations

import gzip
import hashlib
import html.parser
import os
import re
import subprocess
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

MIN_LETTER_SHARE = 0.6      # letters among the non-space characters of a kept line
MIN_LATIN_SHARE = 0.95      # Latin letters among its letters
MIN_ENGLISH_STOPWORDS = 0.05    # English stopwords among the words of a kept PDF
PDF_TIMEOUT_S = 120
_STOPWORDS = {
    "en": set("the of and to in is that for with this be are as it by on which can you an or not from".split()),
    "de": set("der die und das ist nicht mit den von zu ein eine sich auf für im dem des werden wird".split()),
    "fr": set("le la les des et est une pour dans du que qui au sur avec pas ce sont par".split()),
    "it/es": set("il di che è per una con non sono della del gli el los las por para es se y lo".split()),
}


@dataclass(frozen=True)
class Source:
    """One package's text: ``kind`` (see the module's doc), the globs of the files to read (relative
    to the unpacked root; ``**`` any folders), and the regexes of relative paths to skip."""

    package: str
    kind: str
    include: tuple[str, ...]
    exclude: tuple[str, ...] = field(default=())
    extra_packages: tuple[str, ...] = field(default=())   # needed to extract (not read)


DOC = "usr/share/doc"
MAN = "usr/share/man/man*/*"
SOURCES: tuple[Source, ...] = (
    # dictionaries, scripture, quotations
    Source("dict-gcide", "dictd", ("usr/share/dictd/gcide.dict.dz",)),
    Source("dict-wn", "dictd", ("usr/share/dictd/wn.dict.dz",)),
    Source("dict-foldoc", "dictd", ("usr/share/dictd/foldoc.dict.dz",)),
    Source("dict-jargon", "dictd", ("usr/share/dictd/jargon.dict.dz",)),
    Source("dict-devil", "dictd", ("usr/share/dictd/devil.dict.dz",)),
    Source("bible-kjv-text", "kjv", ("usr/lib/bible.data",), extra_packages=("bible-kjv",)),
    Source("fortunes", "fortune", ("usr/share/games/fortunes/*",), (r"\.(dat|u8)$",)),
    Source("fortunes-bofh-excuses", "fortune", ("usr/share/games/fortunes/*",), (r"\.(dat|u8)$",)),
    # the Linux kernel's documentation (reStructuredText), without its translations
    Source("linux-doc-6.1", "text", (f"{DOC}/linux-doc-6.1/Documentation/**/*.rst*",), (r"/translations/",)),
    # Debian's manuals
    Source("debian-handbook", "html", (f"{DOC}/debian-handbook/html/en-US/*.html",)),
    Source("debian-reference-en", "html", ("usr/share/debian-reference/*.en.html",)),
    Source("developers-reference", "html", ("usr/share/developers-reference/*.html",)),
    Source("debian-policy", "html", (f"{DOC}/debian-policy/**/*.html",), (r"/_sources/|/fhs/",)),
    Source("maint-guide", "html", (f"{DOC}/maint-guide/html/*.en.html",)),
    Source("debmake-doc", "html", (f"{DOC}/debmake-doc/html/*.en.html",)),
    Source("debian-history", "html", (f"{DOC}/debian-history/docs/*.en.html",)),
    Source("installation-guide-amd64", "html", (f"{DOC}/installation-guide-amd64/en/*.html",)),
    # man pages
    Source("manpages", "man", (MAN,)),
    Source("manpages-dev", "man", (MAN,)),
    Source("freebsd-manpages", "man", (MAN,)),
    Source("perl-doc", "man", (MAN,)),
    Source("libssl-doc", "man", (MAN,)),
    Source("libx11-doc", "man", (MAN,)),
    Source("tcl8.6-doc", "man", (MAN,)),
    # info and plain-text manuals
    Source("bash-doc", "info", ("usr/share/info/*.info*",)),
    Source("autoconf-doc", "info", ("usr/share/info/*.info*",)),
    Source("gnu-standards", "info", ("usr/share/info/*.info*",)),
    Source("vim-runtime", "text", ("usr/share/vim/vim90/doc/*.txt",)),
    Source("git-doc", "text", (f"{DOC}/git-doc/*.txt",)),
    Source("ada-reference-manual-2020", "text", (f"{DOC}/ada-reference-manual-2020/aarm2020.txt/*",)),
    # HTML manuals of big projects
    Source("postgresql-doc-15", "html", (f"{DOC}/postgresql-doc-15/html/*.html",)),
    Source("libreoffice-help-en-us", "html", ("usr/share/libreoffice/help/en-US/**/*.html",)),
    Source("gimp-help-en", "html", ("usr/share/gimp/2.0/help/en/**/*.html",)),
    Source("lilypond-doc-html", "html", (f"{DOC}/lilypond/html/Documentation/**/*.html",),
           (r"\.[a-z][a-z](_[A-Z][A-Z])?\.html$|-big-page\.html$",)),
    Source("rust-doc", "html", (f"{DOC}/rust-doc/html/**/*.html",), (r"/(core_)?arch/|/src/",)),
    Source("openjdk-17-doc", "html", ("usr/lib/jvm/openjdk-17/docs/api/**/*.html",
                                      "usr/share/doc/openjdk-17-jre-headless/api/**/*.html"),
           (r"/class-use/|-tree\.html$|index-files/",)),
    Source("cppreference-doc-en-html", "html", ("usr/share/cppreference/doc/html/en/**/*.html",)),
    Source("qtbase5-doc-html", "html", ("usr/share/qt5/doc/**/*.html",), (r"-members\.html$|-obsolete\.html$",)),
    Source("erlang-doc", "html", (f"{DOC}/erlang-doc/**/*.html",), (r"/java/",)),
    Source("ghc-doc", "html", (f"{DOC}/ghc-doc/html/**/*.html",), (r"/src/|/doc-index",)),
    Source("racket-doc", "html", (f"{DOC}/racket/**/*.html",)),
    Source("libboost1.81-doc", "html", (f"{DOC}/libboost1.81-doc/**/*.html",)),
    Source("llvm-15-doc", "html", (f"{DOC}/llvm-15-doc/html/**/*.html",), (r"/_sources/|/doxygen/",)),
    Source("cmake-doc", "html", (f"{DOC}/cmake-data/html/**/*.html",
                                 f"{DOC}/cmake-doc/html/**/*.html"), (r"/_sources/",)),
    Source("apache2-doc", "html", (f"{DOC}/apache2-doc/manual/en/**/*.html",)),
    Source("octave-doc", "html", (f"{DOC}/octave/octave.html/*.html",
                                  "usr/share/doc/octave/octave.html/*.html"),),
    Source("maxima-doc", "html", (f"{DOC}/maxima-doc/html/*.html",)),
    Source("sqlite3-doc", "html", (f"{DOC}/sqlite3/**/*.html",)),
    Source("db5.3-doc", "html", (f"{DOC}/db5.3-doc/**/*.html",), (r"/java/|/csharp/",)),
    Source("fp-docs-3.2.2", "html", (f"{DOC}/fp-docs/3.2.2/**/*.html",)),
    Source("csound-doc", "html", (f"{DOC}/csound-doc/html/*.html",)),
    Source("grass-doc", "html", (f"{DOC}/grass-doc/html/*.html",)),
    Source("freedombox-doc-en", "html", (f"{DOC}/freedombox/*.html", "usr/share/freedombox/manual/**/*.html",
                                         f"{DOC}/freedombox-doc-en/**/*.html"),),
    Source("nodejs-doc", "html", (f"{DOC}/nodejs/api/*.html",)),
    Source("exim4-doc-html", "html", (f"{DOC}/exim4-doc-html/**/*.html",)),
    Source("postfix-doc", "html", (f"{DOC}/postfix-doc/html/*.html", f"{DOC}/postfix/html/*.html")),
    Source("bind9-doc", "html", (f"{DOC}/bind9-doc/arm/*.html",)),
    Source("zsh-doc", "html", (f"{DOC}/zsh-common/*.html", f"{DOC}/zsh-doc/**/*.html", "usr/share/doc/zsh/**/*.html")),
    Source("abs-guide", "html", (f"{DOC}/abs-guide/html/*.html",)),
    Source("gettext-doc", "html", (f"{DOC}/gettext/*.html", f"{DOC}/gettext-doc/**/*.html")),
    Source("gnome-user-docs", "xml", ("usr/share/help/C/**/*.page",)),
    Source("mate-user-guide", "xml", ("usr/share/help/C/**/*.xml",)),
    # the manuals of TeX Live's packages (PDF)
    *(Source(f"texlive-{name}-doc", "pdf", ("usr/share/doc/texlive-doc/**/*.pdf",))
      for name in ("latex-base", "latex-recommended", "latex-extra", "pictures", "science", "publishers",
                   "pstricks", "fonts-extra", "metapost", "humanities")),
)


# --- files to text --------------------------------------------------------------------------------

def read(path: Path) -> str:
    """The text of ``path`` (gzip and dictzip unpacked), UTF-8 with replacement characters."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


class _HTMLText(html.parser.HTMLParser):
    """The text of an HTML (or Mallard/DocBook XML) page, a line per block element."""

    BLOCK = frozenset("""p br div li tr td th h1 h2 h3 h4 h5 h6 dt dd title section article blockquote
        table ul ol dl hr header footer figcaption caption summary details main aside center option
        para listitem entry term item note tip warning simpara formalpara glossterm glossdef
        refpurpose refname step desc tbody thead row""".split())
    SKIP = frozenset("script style pre nav head noscript svg math template button select textarea "
                     "screen programlisting synopsis info credit link-list".split())

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self._skip.append(tag)
        elif tag in self.BLOCK and not self._skip:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        if tag in self.BLOCK and not self._skip:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if self._skip and tag == self._skip[-1]:
            self._skip.pop()
        elif tag in self._skip:             # closes an unclosed skipped tag inside
            del self._skip[self._skip.index(tag):]
        elif tag in self.BLOCK and not self._skip:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


_SPACES = re.compile(r"\s+")


def _html_lines(path: Path) -> list[str]:
    parser = _HTMLText()
    parser.feed(read(path))
    parser.close()
    return [_SPACES.sub(" ", line).strip() for line in "".join(parser.parts).split("\n")]


def _man_lines(path: Path) -> list[str]:
    source = read(path)
    if source.lstrip().startswith(".so "):           # an alias of another page
        return []
    run = subprocess.run(["groff", "-mandoc", "-Tutf8", "-t", "-k", "-rLL=4000n", "-rHY=0", "-dAD=l", "-P-cbou"],
                         input=source.encode("utf-8"), capture_output=True)
    return [line.strip() for line in run.stdout.decode("utf-8", errors="replace").splitlines()]


_INFO_JUNK = re.compile(r"^(File: .*Node: |\* Menu:|Tag Table:|End Tag Table|Indirect:|\x1f)")
_VERSE = re.compile(r"^\s*\d+ ")


_WORD = re.compile(r"[^\W\d_]+")


def is_english_document(text: str) -> bool:
    """True if English stopwords are common among the words of ``text`` and twice as common as
    those of German, French and Italian/Spanish (see :data:`_STOPWORDS`)."""
    words = _WORD.findall(text.lower())
    share = {lang: sum(w in stop for w in words) / max(1, len(words)) for lang, stop in _STOPWORDS.items()}
    english = share.pop("en")
    return english >= MIN_ENGLISH_STOPWORDS and english >= 2 * max(share.values())


def _pdf_lines(path: Path) -> list[str]:
    try:
        run = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", "-nopgbrk", str(path), "-"],
                             capture_output=True, timeout=PDF_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return []
    text = unicodedata.normalize("NFKC", run.stdout.decode("utf-8", errors="replace"))
    return text.splitlines() if is_english_document(text) else []


def file_lines(kind: str, path: Path) -> list[str]:
    """The lines of text of one file of ``kind`` (see the module's doc), unfiltered."""
    if kind == "pdf":
        return _pdf_lines(path)
    if kind in ("html", "xml"):
        return _html_lines(path)
    if kind == "man":
        return _man_lines(path)
    lines = read(path).splitlines()
    if kind == "info":
        return [line for line in lines if not _INFO_JUNK.match(line)]
    if kind == "fortune":
        return [line for line in lines if line.strip() != "%"]
    return lines


def _kjv_lines(root: Path, tool_root: Path) -> list[str]:
    data = root / "usr" / "lib"
    run = subprocess.run([str(tool_root / "usr" / "bin" / "bible"), "-p", str(data), "-l0", "gen1:1-rev22:21"],
                         capture_output=True, check=True)
    return [_VERSE.sub("", line) for line in run.stdout.decode("utf-8", errors="replace").splitlines()]


def _is_english(line: str) -> bool:
    letters = latin = other = 0
    for c in line:
        if c.isalpha():
            letters += 1
            if c < "\u0250" or "LATIN" in unicodedata.name(c, ""):
                latin += 1
        elif not c.isspace():
            other += 1
    return letters > 0 and letters >= MIN_LETTER_SHARE * (letters + other) and latin >= MIN_LATIN_SHARE * letters


def _clean(kind: str, lines: Iterable[str]) -> list[str]:
    lstrip = kind in ("html", "xml", "man", "pdf")
    out = []
    for line in lines:
        line = line.strip() if lstrip else line.rstrip()
        if line and _is_english(line):
            out.append(line)
    return out


def _one_file(job: tuple[str, str]) -> list[str]:
    kind, path = job
    return _clean(kind, file_lines(kind, Path(path)))


def source_files(source: Source, root: Path) -> list[Path]:
    """The files of ``source`` unpacked at ``root``, sorted, less symlinks, ``exclude`` and the files
    whose bytes an earlier one has."""
    found: set[Path] = set()
    for pattern in source.include:
        found.update(p for p in root.glob(pattern) if p.is_file() and not p.is_symlink())
    skip = [re.compile(x) for x in source.exclude]
    seen: set[bytes] = set()
    files = []
    for p in sorted(found):
        if any(x.search("/" + p.relative_to(root).as_posix()) for x in skip):
            continue
        digest = hashlib.blake2b(p.read_bytes(), digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            files.append(p)
    return files


def source_lines(source: Source, root: Path, extra_roots: dict[str, Path], workers: int = 0) -> Iterator[str]:
    """The kept lines (before de-duplication) of ``source`` unpacked at ``root``, in file order;
    ``extra_roots``: its ``extra_packages`` unpacked; files in ``workers`` processes (0: a core each)."""
    if source.kind == "kjv":
        yield from _clean("text", _kjv_lines(root, extra_roots["bible-kjv"]))
        return
    jobs = [(source.kind, str(p)) for p in source_files(source, root)]
    if len(jobs) < 8:
        for job in jobs:
            yield from _one_file(job)
        return
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        for lines in pool.map(_one_file, jobs, chunksize=16):
            yield from lines
