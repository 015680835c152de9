"""The peak memory ``hf-greedtok train`` estimates before training, against the peak it reaches
(issue 41, item 5; :mod:`hf_greedtok.trainers.memory_estimate`).

Each case is a whole ``hf-greedtok train ... --total-vocab-size 32768`` process (progress shown,
since the estimate is printed with it). The estimate is the "estimated peak memory X GB" line it
prints after counting; the peak is the process's ``ru_maxrss`` (``os.wait4``, as
``/usr/bin/time`` reports it), which includes counting. The estimate is meant to lie above the
peak (a limit it passes is one the run keeps to); the ratio column says by how much.

Cases: superwords on the generated scale corpus at several chunk budgets and sizes, on 50 MB of
real English (the Debian reference of ``scale_corpus.py``), on the shared corpora (English,
Python code, Chinese, Hindi with English), and word level on the same texts.

    python benchmarks/bench_memory_estimate.py            # every case, ~15 minutes here
    python benchmarks/bench_memory_estimate.py --quick    # the shared corpora only, ~3 minutes
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from bench_train_cli import timed_run
from common import machine
from scale_corpus import build_reference, corpus, reference_path

SHARED = Path(os.environ.get("HF_GREEDTOK_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "corpora"
ESTIMATE = re.compile(r"estimated peak memory ([0-9.]+) GB \(([^)]*)\)")


def cases(quick: bool) -> list[tuple[str, list[str], list[str]]]:
    """(label, input files, extra flags) of every case."""
    english = [str(SHARED / f) for f in ("en_brown.txt", "en_python_docs.txt", "en_shakespeare_milton.txt")]
    shared = [("three English corpora", english), ("Python code", [str(SHARED / "code_python_stdlib.txt")]),
              ("Chinese reviews", [str(SHARED / "zh_reviews.txt")]),
              ("Hindi + English", [str(SHARED / "hi_devdas.txt"), str(SHARED / "en_brown.txt")])]
    out = [(f"superwords, {name}", files, ["--superwords"]) for name, files in shared]
    out += [(f"word level, {name}", files, []) for name, files in shared]
    if quick:
        return out
    scale25 = str(corpus(25))
    out += [(f"superwords, scale 25 MB, budget {b:g} MB", [scale25], ["--superwords", "--chunk-budget-mb", f"{b:g}"])
            for b in (2.5, 5, 10, 20, 40)]
    if not reference_path().exists():
        build_reference()
    out += [("superwords, real English 50 MB", [str(reference_path())], ["--superwords"]),
            ("superwords, real English 50 MB, budget 40 MB", [str(reference_path())],
             ["--superwords", "--chunk-budget-mb", "40"]),
            ("superwords, scale 1,000 MB", [str(corpus(1000))], ["--superwords"]),
            ("word level, scale 250 MB", [str(corpus(250))], []),
            ("word level, scale 1,000 MB", [str(corpus(1000))], [])]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the shared corpora only")
    args = ap.parse_args()
    cli = shutil.which("hf-greedtok") or sys.exit("hf-greedtok is not installed in this environment")
    print(f"machine: {machine()}")
    print("| case | estimate (GB) | for | peak RSS (GB) | estimate / peak | s |")
    print("|---|---:|---|---:|---:|---:|")
    for label, files, flags in cases(args.quick):
        with tempfile.TemporaryDirectory(prefix="memest-") as tmp:
            load = os.getloadavg()[0]
            run = timed_run([cli, "train", *files, "--total-vocab-size", "32768", *flags, "-o", f"{tmp}/tok"],
                            cwd=tmp)
        found = ESTIMATE.search(run["stdout"])
        if found is None:
            sys.exit(f"{label}: no estimate printed:\n{run['stdout'][-2000:]}")
        estimate, what = float(found.group(1)), found.group(2).split("more for ")[-1]
        peak = run["peak_rss_mb"] * 1024 * 1024 / 1e9
        print(f"| {label} | {estimate:.2f} | {what} | {peak:.2f} | {estimate / peak:.2f} | {run['wall_s']:.0f} "
              f"(load {load:.1f}) |", flush=True)


if __name__ == "__main__":
    main()
