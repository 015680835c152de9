"""The site's build-time pages and includes (an MkDocs hook file, ``hooks:`` in mkdocs.yml).

* ``reference/cli.md`` is generated from the live argparse parser of ``hf-greedtok``
  (:func:`cli_reference`): every command with its help line and usage, and every argument with
  its flags, metavar, choices, default and help, as ``hf-greedtok CMD --help`` prints them.
* The docstrings' Sphinx roles (``:class:`Name```) show as code, without the role
  (:func:`on_page_content`), and so do their powers written as in Python, ``2**63-1``, which
  Markdown would otherwise read as bold (:class:`PowersAsCode`, a griffe extension that
  mkdocs.yml gives mkdocstrings).
* Markdown files outside ``docs/`` are included with a line of its own,
  ``--8<-- "path/from/the/repository/root.md"`` (the pymdownx.snippets syntax; snippets itself
  includes every other kind of file). Their links were written relative to where they live, so
  they are rewritten (:func:`include_markdown`): an anchor (``#...``) and a URL stay; a link to a
  page under ``docs/``, or to a Markdown file that a page includes, points to that page; an image
  is copied into the site under ``assets/``; a link to any other file of the repository becomes
  its path in code (the site has no copy of it).

The rest of the site is configuration (mkdocs.yml): MkDocs's own validation fails the strict build
on a broken link or anchor, and mkdocstrings renders the Python reference from the docstrings.
"""
from __future__ import annotations

import argparse
import posixpath
import re
from pathlib import Path

import griffe
from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
CLI_PAGE = "reference/cli.md"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")
# the block include of a Markdown file: `--8<-- "benchmarks/RESULTS.md"` alone on its line
INCLUDE = re.compile(r'^--8<-- "([^"]+\.md)"\s*$', re.MULTILINE)
# an inline link or image: [text](target) / ![alt](target "title")
LINK = re.compile(r'(!?)\[([^\]\n]*)\]\(\s*([^)\s]+)(\s+"[^"\n]*")?\s*\)')
FENCE = re.compile(r"^\s*(```|~~~)")
# a Sphinx role in a docstring, as Markdown renders it: :class:<code>~pkg.Name</code>
SPHINX_ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const|term):<code>~?")
# a power as Python writes it (2**63-1, 2**31 - 1, 10**9), not in code: its ** would be bold
POWER = re.compile(r"(?<![\w`*])\d+\*\*\d+(?:\s?-\s?1)?(?![\w`*])")
CODE_SPAN = re.compile(r"(`+).+?\1")


# ---------------------------------------------------------------- the CLI reference

def cli_parser() -> argparse.ArgumentParser:
    """The parser that ``hf-greedtok`` runs (``hf_greedtok.cli``)."""
    from hf_greedtok.cli import _parser
    return _parser()


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    formatter = parser.formatter_class(prog=parser.prog, width=88)
    if hasattr(formatter, "_set_color"):        # Python 3.14: never colour the page
        formatter._set_color(False)
    return formatter


def _escape(text: str) -> str:
    """Help text (plain text for a terminal) as Markdown that shows it as written: HTML and
    Markdown's emphasis, link and table characters escaped outside `code spans`, which stay."""
    parts = text.split("`")
    if len(parts) % 2 == 0:               # an unpaired backtick: escape it like the rest
        parts = [text.replace("`", "\\`")]
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"`{part}`")
        else:
            part = part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            out.append(re.sub(r"([\\*_\[\]|#])", r"\\\1", part))
    return " ".join("".join(out).split())


def _arguments(actions: list[argparse.Action]) -> list[argparse.Action]:
    """The arguments a page lists: not --help, not the subcommands (each has its section), not
    the hidden ones."""
    return [a for a in actions if a.help != argparse.SUPPRESS
            and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def _argument(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    invocation = formatter._format_action_invocation(action)
    if action.option_strings:     # "-k K, --vocab-size K": each flag with its metavar, in code
        shown = ", ".join(f"`{part.strip()}`" for part in invocation.split(", "))
    else:
        shown = f"`{invocation}`"
    text = _escape(formatter._expand_help(action)) if action.help else ""
    extra = []
    if action.choices is not None and action.metavar is not None:     # else the flag shows {a,b}
        extra.append("choices: " + ", ".join(f"`{c}`" for c in action.choices))
    no_value = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                                   argparse._StoreConstAction, argparse._CountAction))
    if (not no_value and action.default not in (None, argparse.SUPPRESS, [], ())
            and "%(default)" not in (action.help or "")):
        extra.append(f"default: `{action.default}`")
    if action.required and action.option_strings:
        extra.append("required")
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"* {shown}{': ' + text if text else ''}{tail}"


def _command_section(help_line: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    usage = formatter.format_help().strip()
    anchor = parser.prog.removeprefix("hf-greedtok").strip().replace(" ", "-") or "hf-greedtok"
    lines = [f"{'#' * level} `{parser.prog}` {{ #{anchor} }}", ""]
    for text in dict.fromkeys(t for t in (help_line, parser.description) if t):    # once each
        lines += [_escape(text), ""]
    lines += ["```text", usage, "```", ""]
    for group in parser._action_groups:
        actions = _arguments(group._group_actions)
        if actions:
            lines += [f"**{_escape(group.title.capitalize())}**", ""]
            lines += [_argument(a, _formatter(parser)) for a in actions]
            lines.append("")
    for group in parser._mutually_exclusive_groups:
        flags = ", ".join(f"`{a.option_strings[0] if a.option_strings else a.dest}`" for a in group._group_actions)
        lines += [f"{'Exactly' if group.required else 'At most'} one of {flags}.", ""]
    if parser.epilog:
        lines += [_escape(parser.epilog), ""]
    from hf_greedtok.cli import subcommands
    for _, sub_help, sub in subcommands(parser):
        lines += _command_section(sub_help, sub, min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """``reference/cli.md``: every command of the live parser, and each of its arguments."""
    from hf_greedtok.cli import subcommands
    parser = cli_parser()
    commands = subcommands(parser)
    lines = ["# Command line", "",
             "<!-- generated at build time from hf_greedtok.cli's parser by docs/hooks.py: do not edit -->", "",
             _escape(parser.description or ""), "",
             ("Every command, with what `hf-greedtok COMMAND --help` prints: its usage, then each "
              "argument with its flags, metavar, choices and default."), ""]
    lines += [f"* [`{name}`](#{name}): {_escape(help_line)}" for name, help_line, _ in commands]
    lines.append("")
    own = _arguments(parser._actions)
    if own:          # --version
        lines += ["Options of `hf-greedtok` itself:", "", *(_argument(a, _formatter(parser)) for a in own), ""]
    for _, help_line, sub in commands:
        lines += _command_section(help_line, sub, 2)
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------- Markdown files from outside docs/

def _relative(target: str, page_src: str) -> str:
    """``target`` (a path in the site) as a link from the page ``page_src``."""
    return posixpath.relpath(target, posixpath.dirname(page_src) or ".")


def included_pages() -> dict[str, str]:
    """{a Markdown file outside docs/: the page of docs/ that includes it}, e.g.
    ``{"benchmarks/RESULTS.md": "benchmarks.md"}``."""
    found = {}
    for page in sorted(DOCS.rglob("*.md")):
        for included in INCLUDE.findall(page.read_text(encoding="utf-8")):
            found.setdefault(included, page.relative_to(DOCS).as_posix())
    return found


def include_markdown(path: str, page_src: str, files: Files, config) -> str:
    """The text of the repository's ``path``, its links rewritten for the page ``page_src``."""
    source = REPO / path
    if not source.is_file():
        raise FileNotFoundError(f"{page_src}: --8<-- includes {path}, which does not exist")
    base = posixpath.dirname(path)

    def rewrite(match: re.Match) -> str:
        bang, text, target, title = match.group(1), match.group(2), match.group(3), match.group(4) or ""
        if target.startswith("#") or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)                  # an anchor of the included text, or a URL
        where, _, fragment = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(base, where))
        if resolved == path:                       # itself, with an anchor
            return f"{bang}[{text}](#{fragment}{title})"
        anchor = f"#{fragment}" if fragment else ""
        if resolved.startswith("docs/"):           # a page of the site
            return f"{bang}[{text}]({_relative(resolved[len('docs/'):], page_src)}{anchor}{title})"
        if resolved in included_pages():           # a file the site shows on the page that includes it
            return f"{bang}[{text}]({_relative(included_pages()[resolved], page_src)}{anchor}{title})"
        if resolved.lower().endswith(IMAGE_SUFFIXES) and (REPO / resolved).is_file():
            site_path = f"assets/{resolved}"
            if files.get_file_from_path(site_path) is None:
                files.append(File.generated(config, site_path, abs_src_path=str(REPO / resolved)))
            return f"{bang}[{text}]({_relative(site_path, page_src)}{title})"
        shown = f"`{resolved}`"                    # not in the site: name it
        return shown if text.strip("`") in (where, resolved, posixpath.basename(resolved)) else f"{text} ({shown})"

    out, fenced = [], False
    for line in source.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        out.append(line if fenced else LINK.sub(rewrite, line))
    return "\n".join(out)


# ---------------------------------------------------------------- docstrings as Markdown

def powers_as_code(docstring: str) -> str:
    """``docstring`` with each power outside code (``2**63-1``) made a code span; code spans,
    fenced blocks and doctest lines stay as written."""
    out, fenced = [], False
    for line in docstring.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith((">>>", "...")):
            pieces, start = [], 0
            for span in CODE_SPAN.finditer(line):
                pieces += [POWER.sub(r"`\g<0>`", line[start:span.start()]), span.group(0)]
                start = span.end()
            line = "".join(pieces) + POWER.sub(r"`\g<0>`", line[start:])
        out.append(line)
    return "\n".join(out)


class PowersAsCode(griffe.Extension):
    """Every docstring mkdocstrings renders goes through :func:`powers_as_code` (a griffe
    extension: ``extensions`` of the python handler in mkdocs.yml), so the reference shows
    ``2**63-1`` as written, whatever module it is in."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = powers_as_code(obj.docstring.value)


# ---------------------------------------------------------------- the hooks

def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, CLI_PAGE, content=cli_reference()))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    return INCLUDE.sub(lambda m: include_markdown(m.group(1), page.file.src_uri, files, config), markdown)


def on_page_content(html: str, page, config, files: Files) -> str:
    return SPHINX_ROLE.sub("<code>", html) if page.file.src_uri.startswith("reference/") else html
