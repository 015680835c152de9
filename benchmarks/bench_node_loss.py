"""Issue 29: runs that lose a Ray worker node mid-job, counted for wrong and lost rows.

A cluster of three nodes on this machine (``ray.cluster_utils.Cluster``: a head without CPUs
and two one-CPU worker nodes, tests/ray_nodes.py), and real English and Hindi lines from
../shared/corpora in text, JSON Lines and parquet files. Each run is ``hf-greedtok count`` or
``hf-greedtok tokenize`` with ``--engine ray`` on one kind of input; a worker node is removed
once one of our tasks runs on it, after a further random delay of 0 to ``--max-delay``
seconds, and a new node is added after the run. Every result is compared with the local
engine's on the same input: counts word for word (a word missing or with another count is
lost or wrong), token ids row for row (a missing row is lost, a different one wrong).

    python benchmarks/bench_node_loss.py --runs 24      # about 2 minutes on 2 cores

Prints one line per run and the totals; the machine load before and after.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import CORPORA, REPO, machine

sys.path.insert(0, str(REPO / "tests"))


def make_inputs(folder: Path, en_lines: int, hi_lines: int, repeat: int) -> dict[str, list[str]]:
    from ray_nodes import write_inputs
    lines = []
    for name, count in (("en_brown.txt", en_lines), ("hi_devdas.txt", hi_lines)):
        with open(CORPORA / name, encoding="utf-8", newline="") as f:
            lines += [line for _, line in zip(range(count), f)]
    return write_inputs(folder, lines * repeat)


def read_counts(path: Path) -> dict:
    import pyarrow.parquet as pq
    table = pq.read_table(path)
    return dict(zip(table.column("word").to_pylist(), table.column("count").to_pylist()))


def compare(command: str, local: Path, there: Path) -> tuple[int, int, int]:
    """(items, lost, wrong): words or rows of the local result, and how many of them the Ray
    result lacks or differs in."""
    if command == "count":
        a, b = read_counts(local), read_counts(there)
        lost = sum(1 for w in a if w not in b)
        wrong = sum(1 for w in a if w in b and a[w] != b[w]) + sum(1 for w in b if w not in a)
        return len(a), lost, wrong
    import pyarrow.parquet as pq
    a = pq.read_table(local).column("input_ids").to_pylist()
    b = pq.read_table(there).column("input_ids").to_pylist()
    lost = max(0, len(a) - len(b))
    wrong = sum(1 for x, y in zip(a, b) if x != y) + max(0, len(b) - len(a))
    return len(a), lost, wrong


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=24, help="node-loss runs (default %(default)s)")
    p.add_argument("--max-delay", type=float, default=0.5, help="seconds added at random before the removal")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--en-lines", type=int, default=40000)
    p.add_argument("--hi-lines", type=int, default=8000)
    p.add_argument("--repeat", type=int, default=4, help="the lines this many times over (longer jobs)")
    args = p.parse_args()
    import ray
    from ray_nodes import Nodes

    from hf_greedtok.cli import main as cli

    print(f"machine: {machine()}; load before: {os.getloadavg()}", flush=True)
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="node-loss-"))
    files = make_inputs(work, args.en_lines, args.hi_lines, args.repeat)
    assert cli(["train", *files["txt"][:2], "-k", "500", "-o", str(work / "tok"), "--quiet"]) == 0
    markers = {"count": {"txt": "_count_text_range", "jsonl": "_count_document_file",
                         "parquet": "_count_document_file"},
               "tokenize": {kind: "_tokenize_file" for kind in files}}
    plan = [(c, k) for c in ("count", "tokenize") for k in ("txt", "jsonl", "parquet")]
    nodes = Nodes()
    ray.init(address=nodes.cluster.address, log_to_driver=False)
    totals = Counter()
    try:
        for run in range(args.runs):
            command, kind = plan[run % len(plan)]
            delay = rng.uniform(0, args.max_delay)
            case = work / f"run-{run}"
            case.mkdir()
            if command == "count":
                argv = ["count", *files[kind], "--quiet"]
                local, there = case / "local.parquet", case / "ray.parquet"      # every word exactly
            else:
                argv = ["tokenize", str(work / "tok"), *files[kind], "--batch-size", "500", "--quiet"]
                local, there = case / "local", case / "ray"
            assert cli([*argv, "-o", str(local), "--engine", "local"]) == 0
            lost_before = len(nodes.lost)
            with nodes.losing(markers[command][kind], delay=delay):
                started = time.monotonic()
                rc = cli([*argv, "-o", str(there), "--engine", "ray"])
                ended = time.monotonic()
            seconds = ended - started
            removed = len(nodes.lost) > lost_before       # the watch ends with the job: while it ran
            items, lost, wrong = compare(command, local, there) if rc == 0 else (0, -1, -1)
            totals.update(runs=1, removed=removed, failed=rc != 0, lost=max(lost, 0), wrong=max(wrong, 0))
            print(f"run {run:2d}: {command:8s} {kind:7s} node removed {'yes' if removed else 'NO '} "
                  f"(+{delay:.2f} s after our first task there), exit {rc}, {seconds:5.1f} s, "
                  f"{items:,} {'words' if command == 'count' else 'rows'}: {lost} lost, {wrong} wrong", flush=True)
    finally:
        ray.shutdown()
        nodes.cluster.shutdown()
    print(f"totals: {totals['runs']} runs, a node lost mid-job in {totals['removed']}, {totals['failed']} failed, "
          f"{totals['lost']} lost and {totals['wrong']} wrong words/rows; load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
