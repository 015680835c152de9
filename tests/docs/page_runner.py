"""Runs one page's code blocks for tests/docs/test_code_blocks.py (the rules are in its docstring).

    python page_runner.py BLOCKS.json      (in the page's working directory)

BLOCKS.json: {"page": "docs/x.md", "blocks": [{"language": "python"|"bash", "line": N, "source": ...}]}.
Python blocks run in one namespace, compiled as the page's file with their own line numbers, so a
traceback points at the page's line; bash blocks run with ``bash -euo pipefail``. Stops at the
first block that fails, with the page, the block's line and the error as the last line on stderr
and exit status 1.
"""
from __future__ import annotations

import json
import linecache
import subprocess
import sys
import traceback


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
            status = subprocess.run(["bash", "-euo", "pipefail", "-c", trap + block["source"]]).returncode
            if status:
                print(f"{where}: the bash block exited with status {status}", file=sys.stderr)
                return 1
            continue
        # blank lines up to the fence: the code keeps the page's line numbers in tracebacks
        source = "\n" * block["line"] + block["source"]
        linecache.cache[page] = (len(source), None, source.splitlines(keepends=True), page)
        try:
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
