"""Every fenced code block of the documentation (``docs/**/*.md``) and of ``README.md`` runs: one
test per page, its blocks in document order; a failure names the page, the block's line and what
it printed.

The rules for writing a page:

* A fence must have an info string (```` ```python ````, ```` ```text ````, ...): a bare ```` ``` ````
  fails the test, so each block says whether it is code or output.
* ```` ```python ```` blocks are code. On a page of ``docs/`` they run in one namespace per page, in
  order (a later block sees what an earlier one defined: a page is read top to bottom), as
  ``__main__``, in a subprocess of the test's Python. In ``README.md`` each python block runs in a
  fresh namespace (files written by an earlier block stay): a README snippet is copied alone, so
  it must run alone.
* ```` ```bash ```` blocks are code. Each runs with ``bash -euo pipefail`` (a failing command, or
  a failing command in a pipe, fails the block), with the Python environment's ``bin/`` first on
  ``PATH`` (``hf-greedtok``, ``python`` and ``pip`` are the installed ones).
* Both run in the page's own working directory: a fresh temporary folder holding only the
  symlinks ``examples`` and ``tests`` (the repository's), so ``examples/data/devils_dictionary.txt``
  and ``tests/data/...`` are there; whatever a block writes (``--output devil-tokenizer``) lands in
  that folder, and a later block of the same page finds it. Python and bash blocks interleave in
  the page's order and share that folder. Nothing needs the network (``HF_HUB_OFFLINE=1``).
* A ```` ```text ```` block directly after a python or bash block (nothing but blank lines and the
  marker below between them) is that block's output: what the block prints on stdout must be
  exactly the text shown (trailing whitespace and leading or trailing blank lines aside). stderr
  (progress bars, warnings, logs) is not compared. When the output legitimately varies (timings,
  sizes of temporary files), put ``<!-- docs-test: varies -->`` on the line right before the
  ```` ```text ```` fence: then ``...`` (or ``\u2026``) within a line matches any text in that line,
  and a line holding only ``...`` matches any number of lines (use it for "the last lines of the
  output"). Everything else in a marked block is still compared exactly; a marker anywhere else
  fails the test. To show text after a code block that is not its output, put a sentence between
  them.
* Every other info string (``text``, ``console``, ``json``, ``toml``, ``yaml``, ``markdown``,
  ``tsv``, ...) is output or data shown to the reader: not run. Shell or Python spelled any other
  way (``sh``, ``shell``, ``py``, ``python3``, ``pycon``, ...) fails the test: write ``bash`` or
  ``python`` so that it runs.
* A line ``--8<-- "path/from/the/repository/root"`` inside a code block (pymdownx.snippets) is
  replaced by that file's text, as on the site, so the file shown is the file run.
* The install prefix ``python3 -m venv .venv && . .venv/bin/activate && pip install SPEC && `` at
  the start of a bash block (the README's two commands) is left out: the tests run where the
  package is installed. A block whose rest is exactly ``pytest -q`` (the README's test command) is
  not run (it is this run); it must be what ``.ci/run`` runs: the same ``pip install SPEC`` and
  the same test command. A bash block may also start with ``pip install ".[EXTRA,...]" && ``
  (the extras its example needs): that prefix is left out too, and the test fails unless every
  requirement of those extras is installed (CI installs the extras of ``.ci/run``'s line).
* ``<!-- docs-test: slow -->`` on the line right before a block marks the page slow (Ray, long
  runs): its blocks then run only with ``pytest -m slow tests/docs``. There is no way to skip a
  block: every code block runs.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest
from corpora import REPO

RUNNER = Path(__file__).with_name("page_runner.py")
CI = REPO / ".ci" / "run"
RUN = ("python", "bash")
REFUSED = ("py", "python3", "pycon", "ipython", "sh", "shell", "zsh", "console-python")
SLOW = "<!-- docs-test: slow -->"
VARIES = "<!-- docs-test: varies -->"
OUTPUT = "text"             # the info string of a code block's output
PAGE_SECONDS = 300
OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
INSTALL = re.compile(r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install (?P<spec>.+?) && (?P<rest>.+)$",
                     re.DOTALL)
PIP = re.compile(r"^pip install (?P<spec>[^\n]+?) && (?P<rest>.+)$", re.DOTALL)
SNIPPET = re.compile(r'^\s*--8<-- "([^"]+)"\s*$')


@dataclass
class Block:
    language: str       # the info string's first word, lower case ("" for none)
    line: int           # of the opening fence, counted from 1
    source: str         # the code, indentation of the fence removed
    slow: bool
    end: int = 0                    # the line of the closing fence
    expected: str | None = None     # the output the page shows right after the block (python and bash)
    expected_line: int = 0          # the line of that output's opening fence
    varies: bool = False            # the output is marked as varying: its ... are wildcards


def pages() -> list[Path]:
    found = sorted((REPO / "docs").rglob("*.md")) if (REPO / "docs").is_dir() else []
    return found + [REPO / "README.md"]


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file (CommonMark fences, indented ones in lists too)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = OPENING.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"].expandtabs()), m["fence"], m["info"]
        language = info.split()[0].lstrip("{.").rstrip("}").lower() if info.split() else ""
        body, j = [], i + 1
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while j < len(lines) and not closing.match(lines[j]):
            text = lines[j]
            body.append(text[min(indent, len(text) - len(text.lstrip())):])
            j += 1
        slow = i > 0 and lines[i - 1].strip() == SLOW
        found.append(Block(language, i + 1, "\n".join(body) + "\n", slow, end=j + 1))
        i = j + 1
    for code, output in zip(found, found[1:]):
        between = [text.strip() for text in lines[code.end:output.line - 1]]
        if code.language in RUN and output.language == OUTPUT and all(t in ("", VARIES) for t in between):
            code.expected, code.expected_line = output.source, output.line
            code.varies = bool(between) and between[-1] == VARIES
    return found


def expand_snippets(source: str) -> str:
    out = []
    for text in source.splitlines():
        m = SNIPPET.match(text)
        out.append((REPO / m[1]).read_text(encoding="utf-8").rstrip("\n") if m else text)
    return "\n".join(out) + "\n"


def ci_commands() -> tuple[list[str], str]:
    """(the pip install SPEC, the test command) of .ci/run: its install line and its first pytest line."""
    text = CI.read_text(encoding="utf-8")
    spec = re.search(r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install (.+?)\s*$", text, re.MULTILINE)
    test = re.search(r"^(?:env(?: -u \w+)+ )?(pytest\b.*?)\s*$", text, re.MULTILINE)
    assert spec and test, ".ci/run has no `python3 -m venv .venv && ... pip install SPEC` line or no pytest line"
    return shlex.split(spec[1]), test[1]


def missing_extras(spec: str) -> list[str]:
    """The requirements of the extras that ``pip install SPEC`` names (``".[plot,map]"``) that are not installed."""
    from importlib.metadata import PackageNotFoundError, distribution, requires

    from packaging.requirements import Requirement
    wanted = [e.strip() for m in re.finditer(r"\[([^\]]+)\]", spec) for e in m[1].split(",")]
    missing = []
    for text in requires("hf-greedtok") or []:
        req = Requirement(text)
        if req.marker and any(req.marker.evaluate({"extra": e}) for e in wanted):
            try:
                distribution(req.name)
            except PackageNotFoundError:
                missing.append(str(req))
    return missing


def _param(path: Path):
    slow = any(b.slow for b in blocks(path))
    return pytest.param(path, id=path.relative_to(REPO).as_posix(), marks=[pytest.mark.slow] if slow else [])


@pytest.mark.xdist_group("docs")
@pytest.mark.parametrize("page", [_param(p) for p in pages()])
def test_code_blocks_run(page: Path, tmp_path, request):
    name = page.relative_to(REPO).as_posix()
    found = blocks(page)
    if any(b.slow for b in found) and "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip(f"{name} has a block marked {SLOW}: run it with `pytest -m slow tests/docs`")
    bare = [b.line for b in found if not b.language]
    assert not bare, f"{name}: fences without an info string at lines {bare} (say ```python, ```bash, ```text, ...)"
    markers = [i + 1 for i, text in enumerate(page.read_text(encoding="utf-8").splitlines()) if text.strip() == VARIES]
    stray = sorted(set(markers) - {b.expected_line - 1 for b in found if b.varies})
    assert not stray, f"{name}: {VARIES} at lines {stray} is not right before the ```text output of a code block"
    refused = [f"line {b.line}: ```{b.language}" for b in found if b.language in REFUSED]
    assert not refused, f"{name}: code that would not run ({', '.join(refused)}): write ```bash or ```python"
    runnable = []
    for b in (b for b in found if b.language in RUN):
        source = expand_snippets(b.source)
        install = INSTALL.match(source.strip()) if b.language == "bash" else None
        if install:
            if install["rest"].strip() == "pytest -q":
                spec, test = ci_commands()
                assert (shlex.split(install["spec"]), "pytest -q") == (spec, test), \
                    f"{name}:{b.line}: the test command `pip install {install['spec']} && pytest -q` is not what " \
                    f".ci/run runs (`pip install {shlex.join(spec)}`, then `{test}`)"
                continue
            source = install["rest"] + "\n"
        pip = PIP.match(source.strip()) if b.language == "bash" else None
        if pip:        # an extra the example needs: installed here already, or the test says which is missing
            missing = missing_extras(pip["spec"])
            assert not missing, f"{name}:{b.line}: `pip install {pip['spec']}` needs {missing}, which this " \
                                f"environment lacks: add the extra to .ci/run's install line"
            source = pip["rest"] + "\n"
        runnable.append(Block(b.language, b.line, source, b.slow, b.end, b.expected, b.expected_line, b.varies))
    if not runnable:
        return
    work = tmp_path / "page"
    work.mkdir()
    for folder in ("examples", "tests"):
        (work / folder).symlink_to(REPO / folder, target_is_directory=True)
    plan = tmp_path / "blocks.json"
    plan.write_text(json.dumps({"page": name, "fresh": name == "README.md", "blocks": [asdict(b) for b in runnable]}),
                    encoding="utf-8")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               HF_HUB_OFFLINE="1", MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(RUNNER), str(plan)], cwd=work, env=env, capture_output=True,
                              text=True, timeout=PAGE_SECONDS)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"{name}: its blocks ran over {PAGE_SECONDS} s; output so far:\n{out[-6000:]}")
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, f"{name}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'failed'}" \
                                 f" ({seconds:.1f} s)\n--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"


# ---------------------------------------------------------------- the output a page shows

def _runner():
    import importlib.util
    spec = importlib.util.spec_from_file_location("page_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shown_output_is_compared_exactly_unless_marked_as_varying():
    matches = _runner().output_matches
    assert matches("cover 124480 123553\n", "cover 124480 123553\n", varies=False)
    assert not matches("cover 124480 123554\n", "cover 124480 123553\n", varies=False)
    assert not matches("trained in 0.23 s\n", "trained in ... s\n", varies=False)     # not marked: ... is text
    assert matches("trained in 0.23 s\n", "trained in ... s\n", varies=True)
    assert matches("trained in 0.23 s\n", "trained in \u2026 s\n", varies=True)
    assert not matches("learned 1999 tokens; trained in 0.23 s\n", "learned 2000 tokens; trained in ... s\n",
                       varies=True)                                                    # the rest stays exact
    assert matches("a\nb\nc\nlast\n", "...\nlast\n", varies=True)                     # a line of ...: any lines
    assert matches("last\n", "...\nlast\n", varies=True)
    assert not matches("a\nlast\nmore\n", "...\nlast\n", varies=True)
    assert matches("\nx  \n\n", "x\n", varies=False)          # trailing spaces and blank edges aside


def test_a_text_block_right_after_code_is_its_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
                    "```bash\necho 2\n```\n<!-- docs-test: varies -->\n```text\n...\n```\n\n"
                    "```python\nx = 3\n```\nNot its output:\n\n```text\n4\n```\n", encoding="utf-8")
    first, _, second, _, third, _ = blocks(page)
    assert (first.expected, first.expected_line, first.varies) == ("1\n", 5, False)
    assert (second.expected, second.varies) == ("...\n", True)
    assert third.expected is None
