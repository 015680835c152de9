"""Start-up cost (issue 13, item 6): wall time of ``python -c "import hf_greedtok"`` and of
``hf-greedtok --help``, each in fresh processes, against anchors of the same run:
``python -c "pass"`` (the interpreter alone) and ``python -c "import tokenizers"`` (the Rust
library everything here builds on). Prints the median of --runs runs (default 5), each ratio
to the interpreter anchor, the goals (import <= 0.25 s, --help <= 0.3 s) and the load average,
since a busy machine inflates every number alike.

Processes start in a temporary directory, so the installed package is measured (never a
checkout on the working directory's sys.path entry).

    python benchmarks/bench_cli.py [--runs 5] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import machine

GOALS = {"import hf_greedtok": 0.25, "hf-greedtok --help": 0.30}


def commands() -> dict[str, list[str]]:
    """Name -> argv of each measured command; the CLI as installed next to this interpreter."""
    cli = shutil.which("hf-greedtok", path=os.path.dirname(sys.executable)) or shutil.which("hf-greedtok")
    if cli is None:
        raise SystemExit("bench_cli: no hf-greedtok command next to this Python or on PATH; pip install . first")
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import tokenizers": [sys.executable, "-c", "import tokenizers"],
        "import hf_greedtok": [sys.executable, "-c", "import hf_greedtok"],
        "hf-greedtok --help": [cli, "--help"],
    }


def wall_seconds(argv: list[str], cwd: str) -> float:
    """Wall seconds of one run of ``argv`` to its exit; raises if it fails."""
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="runs per command; the median is reported")
    p.add_argument("--json", action="store_true", help="also print one JSON object")
    args = p.parse_args()
    argvs = commands()
    times: dict[str, list[float]] = {name: [] for name in argvs}
    with tempfile.TemporaryDirectory() as cwd:
        for argv in argvs.values():            # warm the page cache and .pyc files; not counted
            wall_seconds(argv, cwd)
        for _ in range(args.runs):             # interleaved: a load spike hits every command alike
            for name, argv in argvs.items():
                times[name].append(wall_seconds(argv, cwd))
    load = os.getloadavg()
    medians = {name: statistics.median(t) for name, t in times.items()}
    anchor = medians["python -c pass"]
    print(f"machine: {machine()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {args.runs}")
    print(f"{'command':<22}{'median s':>10}{'min s':>8}{'x python':>10}{'goal s':>8}")
    for name, median in medians.items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"{goal:>8.2f} {'ok' if median <= goal else 'OVER'}"
        print(f"{name:<22}{median:>10.3f}{min(times[name]):>8.3f}{median / anchor:>10.2f}{verdict}")
    over_tok = medians["import hf_greedtok"] / medians["import tokenizers"]
    print(f"import hf_greedtok / import tokenizers: {over_tok:.2f}x")
    if args.json:
        print(json.dumps({"machine": machine(), "load_average": load, "runs": args.runs,
                          "seconds": times, "median": medians, "goals": GOALS}))


if __name__ == "__main__":
    main()
