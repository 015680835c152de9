"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors, fast, and its
references are complete: every name of ``hf_greedtok.__all__`` has its entry in the Python API
page, every command and option of the live ``hf-greedtok`` parser is in the CLI page. MkDocs's own
validation fails the build on a broken link or anchor in the pages' Markdown; here every link of
the built HTML is checked too (what templates, mkdocstrings and raw HTML write), and the README's
links, since the README is not part of the site: its relative links must name files of the
repository, and those into docs/ pages and anchors that the site has.

Needs the ``docs`` extra (``pip install ".[docs]"``; CI installs it); without it these tests skip.
"""
from __future__ import annotations

import argparse
import ast
import html
import importlib.util
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from corpora import REPO

import hf_greedtok

CONFIG = REPO / "mkdocs.yml"
BUILD_SECONDS = 60

pytestmark = [
    pytest.mark.xdist_group("docs-site"),     # one build, shared by the module's tests
    pytest.mark.skipif(not CONFIG.is_file(), reason="needs the checkout's mkdocs.yml and docs/ (not in the sdist)"),
    pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("mkdocs", "material", "mkdocstrings_handlers")),
                       reason='the site needs the docs extra: pip install ".[docs]"'),
]


class _Links(HTMLParser):
    """The ids and the href/src targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None and not (tag == "link" and attrs.get("rel") in ("canonical", "alternate")):
                self.targets.append(attrs[key])


class Site:
    def __init__(self, root: Path, seconds: float) -> None:
        self.root, self.seconds = root, seconds
        self._pages: dict[Path, _Links] = {}

    def page(self, path: Path) -> _Links:
        if path not in self._pages:
            parser = _Links()
            parser.feed(path.read_text(encoding="utf-8"))
            self._pages[path] = parser
        return self._pages[path]

    def html_of(self, src: str) -> Path:
        """The built page of the docs/ page ``src`` (directory URLs: training.md -> training/index.html)."""
        stem = src.removesuffix(".md")
        return self.root / ("index.html" if stem in ("index", "README") else f"{stem}/index.html")


def plain(fragment: str) -> str:
    """HTML as plain text: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def sections(page: str) -> dict[str, str]:
    """The article of a built page cut at its headings: heading text -> the text under it."""
    article = page[page.find("<article"):page.find("</article>")]
    heads = list(re.finditer(r"<h([1-6])\b[^>]*>(.*?)</h\1>", article, re.DOTALL))
    ends = [h.start() for h in heads[1:]] + [len(article)]
    return {plain(h.group(2)).rstrip("¶").strip(): plain(article[h.end():end]) for h, end in zip(heads, ends)}


@pytest.fixture(scope="session")      # once per worker, whatever the worker ran in between
def site(tmp_path_factory) -> Site:
    out = tmp_path_factory.mktemp("site")
    # the console script, from outside the checkout: the working directory must not shadow the installed package
    command = [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--config-file", str(CONFIG),
               "--site-dir", str(out)]
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=tmp_path_factory.mktemp("cwd"), env=env, capture_output=True, text=True,
                          timeout=600)
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, f"mkdocs build --strict failed ({seconds:.1f} s):\n{proc.stdout}\n{proc.stderr}"
    return Site(out, seconds)


def test_strict_build_passes_within_a_minute(site):
    assert site.seconds < BUILD_SECONDS, f"mkdocs build --strict took {site.seconds:.1f} s (at most {BUILD_SECONDS})"


def error_classes() -> set[str]:
    """Every exception class a user can meet: the classes of hf_greedtok/errors.py and every
    subclass of one of them anywhere in the package (read from the sources, so a new module's
    error is found without being imported)."""
    package = Path(hf_greedtok.__file__).parent
    classes: dict[str, set[str]] = {}
    errors = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if path == package / "errors.py":
                    errors.add(node.name)
    while grown := {name for name, bases in classes.items() if bases & errors} - errors:
        errors |= grown
    return {name for name in errors if not name.startswith("_")}


def public_names() -> set[str]:
    """What the Python API page must document (its introduction says so): ``hf_greedtok.__all__``,
    the other names the package exports for 0.1's code, the names of ``hf_greedtok.distributed``,
    and every exception class (:func:`error_classes`)."""
    import hf_greedtok.distributed
    return {*hf_greedtok.__all__, *hf_greedtok._EXPORTS, *hf_greedtok.distributed.__all__, *error_classes()}


def article(page: Path) -> str:
    """The HTML of a built page's article (the page itself, not the navigation)."""
    text = page.read_text(encoding="utf-8")
    return text[text.find("<article"):text.find("</article>")]


def test_python_reference_has_every_public_name_and_exception(site):
    page = site.html_of("reference/python.md").read_text(encoding="utf-8")
    entries = {i.rsplit(".", 1)[-1] for i in re.findall(r'id="(hf_greedtok(?:\.\w+)*)"', page)}
    assert {"GreedTokTrainer", "WorkerLostError", "MemoryLimitError", "ray_session", "CBPETrainer",
            "MorphLookup"} <= public_names()
    missing = sorted(public_names() - entries)
    assert not missing, f"reference/python.md has no entry for {missing}"
    missing = [name for name in hf_greedtok.__all__ if f'id="hf_greedtok.{name}"' not in page]
    assert not missing, f"reference/python.md has no top-level entry for {missing} of hf_greedtok.__all__"


def test_python_reference_shows_nothing_private(site):
    """No entry, base class or name in the text that starts with ``_``: a reader can look none
    of them up, and they may change."""
    html_text = article(site.html_of("reference/python.md"))
    entries = [i for i in re.findall(r'id="(hf_greedtok[\w.]*)"', html_text) if re.search(r"\._", i)]
    assert entries == []
    bases = [plain(b) for b in re.findall(r"Bases:(.*?)</p>", html_text, re.DOTALL)]
    assert bases and not [b for b in bases if re.search(r"(?<![\w.])_|\._", b)], bases
    text = plain(html_text)
    assert re.findall(r"(?<![\w.])_[A-Za-z]\w*|\w\._[A-Za-z]\w*", text) == []


def test_python_reference_shows_powers_as_written(site):
    """A docstring's ``2**63-1`` outside a code span would lose its ``**`` to Markdown's bold
    (``2<strong>63-1 ... 2</strong>63``); docs/hooks.py makes each power code."""
    html_text = article(site.html_of("reference/python.md"))
    assert re.search(r"<code>\d+\*\*\d+", html_text)      # the docstrings have powers: shown as code
    assert re.findall(r"\w<strong>|</strong>\w", html_text) == []
    outside_code = re.sub(r"<code>.*?</code>", "", html_text, flags=re.DOTALL)
    assert re.findall(r"\d\*\*\d", plain(outside_code)) == []


# a path of the repository as a docstring or help text cites it: a top-level folder of the
# checkout (or notes/, which it does not have), or any folder, then a file with a known suffix;
# not suffixes side by side (.jsonl/.json) nor a URL
REPOSITORY_PATH = re.compile(r"(?<![\w/:.~-])((?:\w[\w.-]*/)+[\w.-]+)")
CITED_SUFFIXES = (".md", ".py", ".pyx", ".toml", ".yml", ".yaml", ".json", ".txt", ".tsv", ".cfg", ".in")


def cited_paths(text: str) -> list[str]:
    """The repository paths ``text`` cites (``benchmarks/RESULTS.md``, ``notes/x.md``)."""
    tops = {p.name for p in REPO.iterdir() if not p.name.startswith(".")} | {"notes"}
    return [path for path in REPOSITORY_PATH.findall(text)
            if path.split("/")[0] in tops or path.lower().endswith(CITED_SUFFIXES)]


@pytest.mark.parametrize("src", ["reference/python.md", "reference/cli.md"])
def test_reference_pages_cite_no_issue_and_no_missing_file(site, src):
    """The docstrings and help texts the references show are for users: no internal issue
    numbers, and every file of the repository they point to exists."""
    text = " ".join(plain(article(site.html_of(src))).split())
    assert re.findall(r"(?i).{0,40}\bissues?\s+#?\d+", text) == []
    assert [path for path in cited_paths(text) if not (REPO / path).exists()] == []


def test_cited_paths_are_the_repository_paths_of_a_text():
    text = "lock (notes/hf_integration.md 2.4); see benchmarks/RESULTS.md, .jsonl/.json inputs, BOS/EOS, s3://b/k.txt"
    assert cited_paths(text) == ["notes/hf_integration.md", "benchmarks/RESULTS.md"]


def test_cli_reference_has_every_command_and_option(site):
    from hf_greedtok.cli import COMMANDS, _parser, parsers as every_parser
    # the page cut at its headings: a section per command, under its heading `hf-greedtok train`
    page = sections(site.html_of("reference/cli.md").read_text(encoding="utf-8"))
    parsers = every_parser(_parser())[1:]
    assert {p.prog.split()[1] for p in parsers} >= set(COMMANDS)
    missing = [p.prog for p in parsers if p.prog not in page]
    assert not missing, f"reference/cli.md has no section for {missing}"
    problems = []
    for parser in parsers:
        section = page[parser.prog]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, (argparse._HelpAction,
                                                                       argparse._SubParsersAction)):
                continue
            names = action.option_strings or [action.metavar or action.dest]
            problems += [f"{parser.prog} {name}" for name in names
                         if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", section)]
            if action.help and action.option_strings:     # its help, up to the first %-format
                words = " ".join(action.help.split("%(")[0].split()[:6]).replace("`", "")
                if words and words not in " ".join(section.split()):
                    problems.append(f"{parser.prog} {names[0]}: help {words!r}")
    assert not problems, "reference/cli.md lacks: " + "; ".join(problems)


def test_benchmarks_page_is_results_md(site):
    """benchmarks/RESULTS.md, included by docs/hooks.py: each of its sections and images is on the page."""
    results = (REPO / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    page = site.html_of("benchmarks.md").read_text(encoding="utf-8")
    headings = set(sections(page))
    missing = [h for h in re.findall(r"^## (.+?)\s*$", FENCED.sub("", results), re.MULTILINE)
               if plain(re.sub(r"`([^`]*)`", r"\1", h)) not in headings]
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", results)
    missing += [f"image {i}" for i in images if not re.search(rf'<img[^>]+src="[^"]*/{re.escape(i)}"', page)]
    assert not missing, f"the Benchmarks page lacks {missing} of benchmarks/RESULTS.md"


def test_every_link_of_the_built_site_resolves(site):
    """Every relative href/src of every page names a file of the site, and its #anchor an id there."""
    broken = []
    for page in sorted(site.root.rglob("*.html")):
        for target in site.page(page).targets:
            parts = urlsplit(target)
            if parts.scheme or target.startswith("//") or not (parts.path or parts.fragment):
                continue
            path = unquote(parts.path)
            # root-relative: 404.html's links (it is served at any depth), for a site at the root of its host
            file = ((site.root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)).resolve() \
                if path else page
            if file.is_dir():
                file = file / "index.html"
            where = f"{page.relative_to(site.root)}: {target}"
            if not file.is_file():
                broken.append(where)
            elif parts.fragment and file.suffix == ".html" and unquote(parts.fragment) not in site.page(file).ids:
                broken.append(f"{where} (no such anchor)")
    assert not broken, "broken links in the built site:\n" + "\n".join(broken)


# ---------------------------------------------------------------- the README (not in the site)

LINK = re.compile(r"!?\[(?:[^\]\n]|\][^(\n])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1\s*$", re.MULTILINE | re.DOTALL)


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    anchors, seen = set(), {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", FENCED.sub("", markdown), re.MULTILINE):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)             # a link's text
        slug = re.sub(r"[^\w\- ]", "", re.sub(r"<[^>]+>", "", text).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def test_readme_links_resolve(site):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    prose = FENCED.sub("", readme)
    targets = LINK.findall(prose) + REF_DEFINITION.findall(prose)
    broken = []
    for target in targets:
        parts = urlsplit(target)
        if parts.scheme or target.startswith("//"):
            continue
        path, fragment = unquote(parts.path), unquote(parts.fragment)
        if not path:
            if fragment not in github_anchors(readme):
                broken.append(f"{target}: no such heading in README.md")
            continue
        file = (REPO / path).resolve()
        if not file.exists() or REPO.resolve() not in (file, *file.parents):
            broken.append(f"{target}: no such file in the repository")
            continue
        relative = file.relative_to(REPO.resolve()).as_posix()
        if relative.startswith("docs/") and file.suffix == ".md":
            built = site.html_of(relative.removeprefix("docs/"))
            if not built.is_file():
                broken.append(f"{target}: not a page of the site")
            elif fragment and fragment not in site.page(built).ids:
                broken.append(f"{target}: the page has no anchor #{fragment}")
        elif fragment and file.suffix == ".md" and fragment not in github_anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target}: no such heading in {relative}")
    assert not broken, "README.md links that lead nowhere:\n" + "\n".join(broken)


def test_readme_is_read_in_five_minutes():
    """The README stays an entry page (at most 150 lines: what and why, the two commands, the
    short examples, links); the guide is the site."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert readme.count("python3 -m venv .venv") == 2        # the install-and-run and the test commands
    assert "docs/reference/python.md" in readme and "docs/getting-started.md" in readme
