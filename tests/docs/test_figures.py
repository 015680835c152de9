"""Every benchmark figure the documentation quotes is one that ``benchmarks/RESULTS.md`` holds, and
RESULTS.md stays the current figures, at most :data:`RESULTS_LINES` lines (runs it no longer needs
go to a dated archive, ``benchmarks/RESULTS-archive-YYYY-MM.md``, which the site shows too).

A figure is a number with a unit in the prose of ``docs/*.md`` and ``README.md`` (code blocks, code
spans, link targets and HTML comments left out; the output a page shows is checked against what its
code prints by test_code_blocks.py): a percentage (``10.8%``), a ratio (``1.64x``), a speed
(``66.9 MB/s``), a size (``2.3 GB``), a time (``5.1 s``, ``17 ms``), points (``0.3-0.9 points``) or
millions (``28.4M``). Each number of it, both ends of a range included, must be in RESULTS.md as
written or as a more precise number that rounds to it (``17.9%`` quotes ``-17.86%``; the sign is
the page's wording, "fewer" or "more"), either in a table (whose unit is in its header) or in prose
with a unit of the same kind (:data:`KINDS`: a percentage is not held by a time). A figure that is
not a benchmark result (the size of a file shipped in ``examples/``) is in :data:`NOT_BENCHMARKS`,
with the reason.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from corpora import REPO

RESULTS = REPO / "benchmarks" / "RESULTS.md"
RESULTS_LINES = 800

pytestmark = pytest.mark.skipif(not RESULTS.is_file() or not (REPO / "docs").is_dir(),
                                reason="needs the checkout's benchmarks/ and docs/ (not in the sdist)")
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
UNIT = r"%|x\b|×|\s?(?:MB/s|GB/s|KB|MB|MiB|GB|GiB|ms|s|points?|M)\b"
#: the kind of quantity a unit measures: a figure is held by a number of its own kind
KINDS = {"%": "share", "point": "share", "points": "share", "x": "ratio", "×": "ratio", "MB/s": "speed",
         "GB/s": "speed", "KB": "size", "MB": "size", "MiB": "size", "GB": "size", "GiB": "size", "ms": "time",
         "s": "time", "M": "millions"}
# a figure, or a range or pair of figures with one unit: "5.1-6.0 s", "1.5% / 0.7%", "0.97-1.01x"
FIGURE = re.compile(rf"(?<![\w.,/#=-])(?P<first>{NUMBER})(?:\s?(?:{UNIT}))?"
                    rf"(?P<more>(?:\s?(?:-|–|\.\.|/|to)\s?[+-]?(?:{NUMBER})(?:\s?(?:{UNIT}))?)*)"
                    rf"(?<=[%x×sBMt])(?!\w|\.\w)")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1\s*$", re.MULTILINE | re.DOTALL)
HIDDEN = [FENCE, re.compile(r"<!--.*?-->", re.DOTALL), re.compile(r"`[^`\n]*`"),
          re.compile(r"\]\([^)\s]*\)")]

#: (page, figure as written) -> why it is not a benchmark result
NOT_BENCHMARKS = {
    ("docs/getting-started.md", "383 KB"): "the size of examples/data/devils_dictionary.txt",
}


def pages() -> list[Path]:
    return sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "benchmarks.md") + [REPO / "README.md"]


def prose(markdown: str) -> str:
    """The text a reader reads as prose: code, comments and link targets blanked, line numbers kept."""
    for pattern in HIDDEN:
        markdown = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), markdown)
    return markdown


def figures(markdown: str) -> list[tuple[int, str, list[str], str]]:
    """(line, the figure as written, its numbers, their kind) of each figure with a unit in a page's
    prose (tables left out: see :func:`results_numbers`)."""
    text, found = prose(markdown), []
    for m in FIGURE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:].lstrip().startswith("|"):
            continue
        units = re.findall(rf"(?:{UNIT})(?!\w|\.\w)", m.group(0))
        if not units:
            continue
        numbers = re.findall(NUMBER, m.group(0))
        kind = KINDS[units[-1].strip()]
        if kind == "millions":                # 28.4M quotes 28,431,203
            numbers = [f"{n}e6" for n in numbers]
        found.append((text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split()), numbers, kind))
    return found


def results_numbers(markdown: str) -> dict[str, set[str]]:
    """The numbers of RESULTS.md by kind: ``"table"`` for every number in a table row (its unit is
    in the header), else the kind of the unit a number is written with in prose."""
    found: dict[str, set[str]] = {"table": set()}
    for line in prose(markdown).splitlines():
        if line.lstrip().startswith("|"):
            found["table"].update(re.findall(NUMBER, line))
    for _, _, numbers, kind in figures(markdown):
        found.setdefault(kind, set()).update(numbers)
    return found


def _value(number: str) -> Decimal:
    return Decimal(number.replace(",", ""))


def holds(results: set[str], number: str) -> bool:
    """Whether ``number`` is one of ``results``, or a more precise one of them rounds to it
    (``"28.4e6"``, millions as :func:`figures` writes them, is held by ``"28,431,203"``)."""
    quoted = _value(number)
    places = quoted.as_tuple().exponent
    return any(_value(r) == quoted or (_value(r).as_tuple().exponent < places and
                                       _value(r).quantize(Decimal(1).scaleb(places), ROUND_HALF_UP) == quoted)
               for r in results)


def test_figures_are_found_whatever_their_form():
    found = figures("GreedTok takes **10.8% fewer** tokens, 1.64-1.70x as fast, 5.1-6.0 s, within 2.3 GB;\n"
                    "+0.9% / +0.1%, 0.14M of 28.4M candidates; `--vocab-size 2000` and [a](x/1.5x.md) are not.\n"
                    "```text\n42%\n```\n| 7% | in a table |\n")
    assert [(line, text, kind) for line, text, _, kind in found] == [
        (1, "10.8%", "share"), (1, "1.64-1.70x", "ratio"), (1, "5.1-6.0 s", "time"), (1, "2.3 GB", "size"),
        (2, "0.9% / +0.1%", "share"), (2, "0.14M", "millions"), (2, "28.4M", "millions")]
    assert found[1][2] == ["1.64", "1.70"] and found[-1][2] == ["28.4e6"]


def test_results_numbers_keep_their_kind():
    numbers = results_numbers("Ray counts at 1.08x, in 2.2 s.\n\n| MB | s |\n|---|---|\n| 43.4 | 5.52 |\n")
    assert numbers == {"table": {"43.4", "5.52"}, "ratio": {"1.08"}, "time": {"2.2"}}


def test_a_figure_may_round_what_results_md_holds():
    results = {"17.86", "9.02", "21.97", "1,833", "0.40"}
    assert holds(results, "17.9") and holds(results, "9.0") and holds(results, "22.0") and holds(results, "22")
    assert holds(results, "1,833") and holds(results, "1833") and holds(results, "0.4")
    assert not holds(results, "17.8") and not holds(results, "9.02001") and not holds(results, "1,834")
    assert holds({"28,431,203"}, "28.4e6") and not holds({"28,431,203"}, "28.5e6")


def test_every_figure_the_docs_quote_is_in_results_md():
    results = results_numbers(RESULTS.read_text(encoding="utf-8"))
    missing, allowed = [], set()
    for page in pages():
        name = page.relative_to(REPO).as_posix()
        for line, text, numbers, kind in figures(page.read_text(encoding="utf-8")):
            held = results["table"] | results.get(kind, set())
            if (name, text) in NOT_BENCHMARKS:
                allowed.add((name, text))
            elif not all(holds(held, n) for n in numbers):
                missing.append(f"{name}:{line}: {text}")
    assert not missing, "figures the docs quote that benchmarks/RESULTS.md does not hold (measure them and " \
                        "add them there, or quote what it holds):\n" + "\n".join(missing)
    assert allowed == set(NOT_BENCHMARKS), f"NOT_BENCHMARKS lists figures no page quotes: " \
                                           f"{sorted(set(NOT_BENCHMARKS) - allowed)}"


def test_results_md_keeps_to_the_current_figures():
    lines = len(RESULTS.read_text(encoding="utf-8").splitlines())
    assert lines <= RESULTS_LINES, f"benchmarks/RESULTS.md has {lines} lines (at most {RESULTS_LINES}): move " \
                                   f"superseded runs to a dated archive, benchmarks/RESULTS-archive-YYYY-MM.md"
    archives = sorted((REPO / "benchmarks").glob("RESULTS-archive-*.md"))
    shown = "".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md"))
    missing = [a.name for a in archives if f'--8<-- "benchmarks/{a.name}"' not in shown]
    assert not missing, f"archives no page of the site includes: {missing}"
