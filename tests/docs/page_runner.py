"""Runs one page's code blocks for tests/docs/test_code_blocks.py (the rules are in its docstring).

    python page_runner.py BLOCKS.json      (in the page's working directory)

BLOCKS.json: {"page": "docs/x.md", "fresh": bool, "blocks": [{"language": "python"|"bash", "line": N,
"source": ..., "expected": TEXT or null, "expected_line": N, "varies": bool}, ...]}.
Python blocks run in one namespace (a fresh one per block when ``fresh``), compiled as the page's
file with their own line numbers, so a traceback points at the page's line; bash blocks run with
``bash -euo pipefail``. A block with ``expected`` must print exactly that on stdout
(:func:`output_matches`). Stops at the first block that fails, with the page, the block's line and
the error as the last line on stderr and exit status 1.
"""
from __future__ import annotations

import contextlib
import io
import json
import linecache
import re
import subprocess
import sys
import traceback

WILDCARDS = ("...", "\u2026")          # ... and the ellipsis character, in a block marked as varying


def _lines(text: str) -> list[str]:
    """Lines without trailing whitespace, leading and trailing blank lines dropped."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _pattern(line: str) -> str:
    parts = re.split("|".join(re.escape(w) for w in WILDCARDS), line)
    return ".*".join(re.escape(p) for p in parts)


def output_matches(printed: str, expected: str, varies: bool) -> bool:
    """Whether a block's stdout ``printed`` is the output ``expected`` that the page shows.

    Lines are compared without trailing whitespace and without leading or trailing blank lines;
    otherwise exactly, unless ``varies`` (the page marked the output as varying): then ``...`` or
    ``\u2026`` within a line matches any text in that line, and a line that is only a wildcard
    matches any number of lines, none included.
    """
    got, want = _lines(printed), _lines(expected)
    if not varies:
        return got == want
    pattern = ""
    for line in want:
        pattern += r"(?:[^\n]*\n)*?" if line.strip() in WILDCARDS else _pattern(line) + r"\n"
    return re.fullmatch(pattern, "".join(g + "\n" for g in got)) is not None


class _Tee(io.TextIOBase):
    """Writes to the runner's stdout and keeps a copy: what a python block prints through
    ``sys.stdout`` (a subprocess it starts writes to the file descriptor, not compared)."""

    def __init__(self, out) -> None:
        self.out, self.copy = out, io.StringIO()

    @property
    def encoding(self) -> str:
        return self.out.encoding

    def fileno(self) -> int:
        return self.out.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def main(plan_path: str) -> int:
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    page = plan["page"]
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for block in plan["blocks"]:
        where = f"{page}:{block['line']}"
        print(f"--- {where} ({block['language']})", flush=True)
        if block["language"] == "bash":
            # the trap names the page's line of the command that failed (the trap is the script's line 1)
            trap = f"trap 'echo \"{page}:$((LINENO + {block['line'] - 1})): this command failed with status $?\" >&2' ERR\n"
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", trap + block["source"]], stdout=subprocess.PIPE,
                                  text=True)
            print(proc.stdout, end="", flush=True)
            if proc.returncode:
                print(f"{where}: the bash block exited with status {proc.returncode}", file=sys.stderr)
                return 1
            if not _printed_as_shown(page, block, proc.stdout):
                return 1
            continue
        if plan.get("fresh"):
            namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        # blank lines up to the fence: the code keeps the page's line numbers in tracebacks
        source = "\n" * block["line"] + block["source"]
        linecache.cache[page] = (len(source), None, source.splitlines(keepends=True), page)
        tee = _Tee(sys.stdout)
        try:
            with contextlib.redirect_stdout(tee):
                exec(compile(source, page, "exec"), namespace)
        except SystemExit as e:
            if e.code not in (None, 0):
                print(f"{where}: the python block exited with {e.code!r}", file=sys.stderr)
                return 1
        except BaseException as e:       # noqa: BLE001 - reported with the page's line
            traceback.print_exc()
            print(f"{where}: the python block raised {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        if not _printed_as_shown(page, block, tee.copy.getvalue()):
            return 1
    return 0


def _printed_as_shown(page: str, block: dict, printed: str) -> bool:
    """Whether the block printed the output its page shows after it (True when the page shows none)."""
    if block.get("expected") is None or output_matches(printed, block["expected"], block.get("varies", False)):
        return True
    marked = " (marked as varying)" if block.get("varies") else ""
    print(f"--- the page shows{marked}:\n{block['expected']}--- the block printed:\n{printed}", file=sys.stderr)
    print(f"{page}:{block['expected_line']}: the output shown is not what the block at line {block['line']} "
          f"printed{marked}", file=sys.stderr)
    return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
