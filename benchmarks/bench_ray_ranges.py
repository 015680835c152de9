"""One large text file counted on Ray: byte ranges (one task per 64 MB, cut after a line end)
against the whole file in one task, on a local Ray cluster of 1 and 2 CPUs.

The file is the generated scale corpus (``scale_corpus.py``, seed 41) at ``--mb`` MB, written to
benchmarks/.cache/scale/ if missing. Each configuration runs in a fresh process that starts a
local cluster of ``num_cpus`` CPUs (timed apart) and then times
``count_words_distributed(file, ByteLevel("superwords"), table=True)`` (superword chunks, what
``train --superwords`` counts), twice: "cold" (workers start) and "warm". One task for the whole
file is today's range size set above the file's size (``sources.RANGE_BYTES``). Every table is
checked equal to the 1-CPU ranges one (entries and counts). Ratios are against the 1-CPU run
with ranges, measured in the same call. The machine load is printed before and after.

    python benchmarks/bench_ray_ranges.py --mb 250        # about 3 minutes on 2 cores
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import machine

HERE = Path(__file__).resolve()


def child(path: str, cpus: int, range_mb: float) -> None:
    """Runs in a fresh process: start Ray, count twice, print JSON."""
    import hashlib
    from functools import partial

    import ray

    import hf_greedtok.formats.sources as sources
    from hf_greedtok import ByteLevel
    from hf_greedtok.distributed import count_words_distributed
    from hf_greedtok.trainers.chunk_sample import sampled
    sources.RANGE_BYTES = int(range_mb * 1e6)
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    init_s = time.perf_counter() - t0
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        table = count_words_distributed(path, ByteLevel("superwords"), show_progress=False, table=True)
        times.append(time.perf_counter() - t0)
    # the chunks stay on the cluster in partitions (issue 53): rate 1 "samples" each whole
    items = sorted(kv for part in table.map_partitions(partial(sampled, rate=1)) for kv in part.to_dict().items())
    digest = hashlib.sha256(json.dumps(items).encode()).hexdigest()
    print(json.dumps({"init_s": init_s, "cold_s": times[0], "warm_s": times[1], "tasks": len(sources.line_ranges(path)),
                      "entries": len(table), "digest": digest}))
    ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=250, help="size of the scale corpus file, MB (default 250)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), float(args.child[2]))
        return
    sys.path.insert(0, str(HERE.parent))
    from scale_corpus import generate
    [path] = generate([args.mb], 41)
    mb = path.stat().st_size / 1e6
    print(f"machine: {machine()}; load before: {os.getloadavg()}")
    print(f"file: {path} ({mb:.1f} MB)")
    runs = {}
    for name, cpus, range_mb in (("ranges, 1 CPU", 1, 64), ("ranges, 2 CPUs", 2, 64),
                                 ("one task, 2 CPUs", 2, 1e9)):
        out = subprocess.run([sys.executable, str(HERE), "--child", str(path), str(cpus), str(range_mb)],
                             capture_output=True, text=True, check=True)
        runs[name] = json.loads(out.stdout.strip().splitlines()[-1])
    base = runs["ranges, 1 CPU"]
    print(f"{'configuration':18s} {'tasks':>5s} {'init s':>7s} {'cold s':>7s} {'warm s':>7s} {'MB/s warm':>9s} "
          f"{'warm / 1 CPU':>12s}")
    for name, r in runs.items():
        assert r["digest"] == base["digest"], f"{name}: a different table"
        print(f"{name:18s} {r['tasks']:5d} {r['init_s']:7.1f} {r['cold_s']:7.1f} {r['warm_s']:7.1f} "
              f"{mb / r['warm_s']:9.1f} {r['warm_s'] / base['warm_s']:11.2f}x")
    print(f"tables equal ({base['entries']:,} chunks); load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
