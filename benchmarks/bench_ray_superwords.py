"""Superword chunks counted on Ray and read where they are: time and memory of the driver and
the workers, against the local engine.

Each configuration runs in a fresh process that starts a local Ray cluster of ``num_cpus`` CPUs
(timed apart) and runs what ``hf-greedtok train --superwords --engine ray`` runs before
training: ``count_words_distributed(file, ByteLevel("superwords"), table=True)`` (the chunks
left on the cluster in hash partitions), one pass measuring each partition's ChunkTable where it
is, then ``GreedTokSuperwordTrainer(...).reduce_counts`` (words, histograms and the sample read
by Ray tasks; only they reach the driver). A thread samples the resident memory of the process
and of every process below it (the cluster's raylet, GCS and workers) every 0.2 s: a worker's
RSS includes the object-store pages it maps (shown apart as "shared"). The local engine's
``count_inputs(..., table=True)`` and ``reduce_counts`` give the reference: every Ray run's words
and sample must equal it. The machine load is printed before and after.

    python benchmarks/bench_ray_superwords.py --file /path/english_250MB.txt     # about 6 minutes on 2 cores
    python benchmarks/bench_ray_superwords.py --file /path/english_4000MB.txt --runs local:2,cluster:3
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import machine

HERE = Path(__file__).resolve()


class Sampler(threading.Thread):
    """Peak RSS of this process and of each process below it, sampled every ``period`` s."""

    def __init__(self, period: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.period = period
        self.peaks: dict[int, tuple[int, int, str]] = {}     # pid -> (rss, shared, name)
        self.done = threading.Event()

    def run(self) -> None:
        import psutil
        me = psutil.Process()
        while not self.done.wait(self.period):
            try:
                procs = [me, *me.children(recursive=True)]
            except psutil.Error:
                continue
            for p in procs:
                try:
                    info = p.memory_info()
                    name = " ".join(p.cmdline())[:60] if p.pid != me.pid else "driver"
                except psutil.Error:
                    continue
                old = self.peaks.get(p.pid, (0, 0, name))
                if info.rss > old[0]:
                    self.peaks[p.pid] = (info.rss, info.shared, name if "ray::" in name or not old[2] else old[2])

    def summary(self) -> dict:
        self.done.set()
        self.join()
        driver = max((v for v in self.peaks.values() if v[2] == "driver"), default=(0, 0, ""))
        workers = [v for v in self.peaks.values() if "default_worker" in v[2] or "ray::" in v[2]]
        top = max(workers, default=(0, 0, ""))
        others = sorted((v for v in self.peaks.values() if v not in workers and v[2] != "driver"), reverse=True)
        return {"driver_mb": driver[0] / 2**20, "worker_mb": top[0] / 2**20, "worker_shared_mb": top[1] / 2**20,
                "workers": len(workers), "other_top": [(round(r / 2**20), n.split()[0][-30:]) for r, _, n in others[:2]]}


def partition_stats(table) -> tuple[int, int, int]:
    """(entries, memory_bytes, distinct_bytes) of one partition's ChunkTable (run where it is)."""
    return len(table), table.memory_bytes, table.distinct_bytes


def digest(counts) -> str:
    """sha256 of what reduce_counts kept: the words, the sample and its rate."""
    h = hashlib.sha256()
    h.update(json.dumps(sorted(counts.words.items())).encode())
    h.update(json.dumps(sorted(counts.sample.table.to_dict().items())).encode())
    h.update(repr(counts.sample.rate).encode())
    return h.hexdigest()


def child(path: str, cpus: int, engine: str) -> None:
    """Runs in a fresh process: count and reduce once, print JSON."""
    import resource

    from hf_greedtok import ByteLevel
    from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer
    sampler = Sampler()
    sampler.start()
    trainer = GreedTokSuperwordTrainer(k=32000, show_progress=False)
    out: dict = {}
    if engine == "local":
        from hf_greedtok.special_tokens import counting_pipeline
        from hf_greedtok.word_counts import count_inputs
        t0 = time.perf_counter()
        chunks = count_inputs({"text": [path]}, *counting_pipeline(trainer.pre_tokenizer, None, []), num_proc=cpus,
                              show_progress=False, table=True)
        out["count_s"] = time.perf_counter() - t0
    else:
        import ray

        from hf_greedtok.distributed import count_words_distributed
        t0 = time.perf_counter()
        if engine == "cluster":     # simulated nodes: a raylet and an object store each, one CPU each
            from ray.cluster_utils import Cluster
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
            for _ in range(cpus - 1):
                cluster.add_node(num_cpus=1)
            ray.init(address=cluster.address, log_to_driver=False)
            out["nodes"] = len([n for n in ray.nodes() if n["Alive"]])
        else:
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        out["init_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        chunks = count_words_distributed(path, ByteLevel("superwords"), show_progress=False, table=True)
        out["count_s"] = time.perf_counter() - t0
        if hasattr(chunks, "map_partitions"):
            stats = list(chunks.map_partitions(partition_stats))
            out["partitions"] = len(stats)
            out["largest_partition_mb"] = max(m for _, m, _ in stats) / 2**20
            out["table_mb"] = sum(m for _, m, _ in stats) / 2**20
    out["driver_after_count_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["chunks"] = len(chunks)
    t0 = time.perf_counter()
    counts = trainer.reduce_counts(chunks)
    out["reduce_s"] = time.perf_counter() - t0
    if hasattr(chunks, "close"):
        chunks.close()
    out["sample_mb"] = counts.sample.kept_bytes / 1e6
    out["rate"] = counts.sample.rate
    out["digest"] = digest(counts)
    out.update(sampler.summary())
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", help="a text file (the generated scale corpus)")
    parser.add_argument("--runs", default="local:2,ray:1,ray:2",
                        help="ENGINE:CPUS configurations, comma separated; the first is the reference; "
                             "cluster:N is N simulated nodes of one CPU (ray.cluster_utils.Cluster)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return
    if not args.file:
        parser.error("--file is required")
    mb = os.path.getsize(args.file) / 1e6
    print(f"machine: {machine()}; load before: {os.getloadavg()}")
    print(f"file: {args.file} ({mb:.1f} MB)")
    runs = {}
    for run in args.runs.split(","):
        engine, cpus = run.split(":")
        out = subprocess.run([sys.executable, str(HERE), "--child", args.file, cpus, engine],
                             capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"{run} failed:\n{out.stderr[-3000:]}")
        runs[run] = json.loads(out.stdout.strip().splitlines()[-1])
        print(run, json.dumps(runs[run]), flush=True)
    base = next(iter(runs.values()))
    for name, r in runs.items():
        assert r["digest"] == base["digest"], f"{name}: words or sample differ from {next(iter(runs))}"
    print(f"every run's words and sample equal ({base['chunks']:,} distinct chunks, rate {base['rate']:.3f}); "
          f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
