"""Issue 16: word counting and dataset tokenization, local vs Ray, on all of ../shared/corpora's text.

The corpus is every ``*.txt`` of the corpora folder concatenated (about 43 MB), cut at line ends
into ``--shards`` files of about equal size (Ray reads one block per text file; the local
engines cut files into chunks themselves). Each configuration runs in a fresh process:

* counting: ``count_words_in_files`` with 1 process and a pool of 2 (``local 1``, ``local pool
  2``), and ``count_words_distributed`` on a local Ray cluster of 1 and 2 CPUs;
* tokenizing (a cover tokenizer, k = ``--k``, trained on en_brown): ``tokenize_dataset`` with
  the local engine on 1 and 2 native threads, and on Ray with 1 and 2 CPUs (one task per file).

Reported per configuration: MB/s of text (wall time of the call; Ray: the first job on a
started cluster, "cold", and the same job again, "warm"; ``ray.init`` timed apart), peak RSS per
worker (``VmHWM`` of each process: the local process, the pool's workers, Ray's worker
processes sampled every 0.1 s while the job runs), and for counting the shuffle volume: the
bytes and rows of the partial word tables (the map's output, Arrow) per MB of text. Ratios are
against the local pool of 2 measured in the same run. Every result is checked equal to the
local 1-process one (counts word for word, parquet tables row for row). The machine load is
printed before and after.

    python benchmarks/bench_distributed.py            # about 3-4 minutes on 2 cores
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import CORPORA, machine

HERE = Path(__file__).resolve()


def vm_hwm_mb(pid) -> float:
    """Peak resident set of a process (Linux ``VmHWM``), MB; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class RaySampler:
    """Peak RSS of every Ray worker process (``ray::`` in its command line) while running."""

    def __init__(self) -> None:
        self.peaks: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if not f.read(5).startswith(b"ray::"):
                            continue
                except OSError:
                    continue
                self.peaks[int(pid)] = max(self.peaks.get(int(pid), 0.0), vm_hwm_mb(pid))
            self._stop.wait(0.1)

    def __enter__(self) -> "RaySampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def worker_peak(self) -> float:
        return max(self.peaks.values(), default=0.0)


def make_corpus(folder: Path, shards: int) -> list[Path]:
    data = b"".join(p.read_bytes() for p in sorted(CORPORA.glob("*.txt")))
    paths, start = [], 0
    for k in range(shards):
        end = len(data) if k == shards - 1 else data.index(b"\n", (k + 1) * len(data) // shards) + 1
        path = folder / f"shard{k:02d}.txt"
        path.write_bytes(data[start:end])
        paths.append(path)
        start = end
    return paths


# ---------------------------------------------------------------- workers (one fresh process each)

def worker(args: argparse.Namespace) -> dict:
    from hf_greedtok import ByteLevel
    from hf_greedtok.word_counts import count_words_in_files
    files = json.loads(args.files)
    megabytes = sum(os.path.getsize(f) for f in files) / 1e6
    out: dict = {"mb": megabytes}
    if args.engine == "local":
        start = time.perf_counter()
        if args.task == "count":
            wc = count_words_in_files(files, ByteLevel(), num_proc=args.cpus, show_progress=False)
        else:
            from hf_greedtok.distributed import tokenize_dataset
            tokenize_dataset(files, args.tokenizer, args.output, engine="local", num_threads=args.cpus)
        out["seconds"] = time.perf_counter() - start
        import resource
        out["worker_rss_mb"] = max(vm_hwm_mb("self"), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    else:
        import ray
        from hf_greedtok.distributed import count_words_distributed, tokenize_dataset
        start = time.perf_counter()
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
        out["init_seconds"] = time.perf_counter() - start
        with RaySampler() as sampler:
            for run in ("cold", "warm"):
                start = time.perf_counter()
                if args.task == "count":
                    wc = count_words_distributed(files, ByteLevel(), show_progress=False)
                else:
                    shutil.rmtree(args.output, ignore_errors=True)
                    tokenize_dataset(files, args.tokenizer, args.output, show_progress=False)
                out[f"{run}_seconds"] = time.perf_counter() - start
        out["worker_rss_mb"] = sampler.worker_peak()
        out["workers_seen"] = len(sampler.peaks)
        if args.task == "count":
            out.update(shuffle_volume(files))
        ray.shutdown()
        out["driver_rss_mb"] = vm_hwm_mb("self")
    if args.task == "count":
        out["distinct"] = len(wc)
        with open(args.output, "w", encoding="utf-8") as f:     # for the equality check
            json.dump(sorted(wc.items()), f, ensure_ascii=False)
    return out


def shuffle_volume(files: list[str]) -> dict:
    """What the merge moves: the partial word tables the counting tasks return (Arrow)."""
    import ray
    from hf_greedtok import ByteLevel
    from hf_greedtok.distributed.counting import _file_tasks
    from hf_greedtok.formats.sources import resolve_inputs
    from hf_greedtok.special_tokens import counting_pipeline
    pre, norm = counting_pipeline(ByteLevel(), None, ())
    # one partition: each task returns (its table, its row count)
    tables = ray.get([submit()[1][0] for submit in _file_tasks(resolve_inputs(files), pre, norm, "text", "strict",
                                                               1, {})])
    return {"partial_bytes": sum(t.nbytes for t in tables), "partial_rows": sum(t.num_rows for t in tables)}


def run_worker(task: str, engine: str, cpus: int, files: list[Path], output: Path, tokenizer: Path) -> dict:
    cmd = [sys.executable, str(HERE), "--worker", "--task", task, "--engine", engine, "--cpus", str(cpus),
           "--files", json.dumps([str(f) for f in files]), "--output", str(output), "--tokenizer", str(tokenizer)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=output.parent)
    if proc.returncode != 0:
        raise RuntimeError(f"{task} {engine} {cpus} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shards", type=int, default=16)
    p.add_argument("--k", type=int, default=5000)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    for name in ("--task", "--engine", "--files", "--output", "--tokenizer"):
        p.add_argument(name, help=argparse.SUPPRESS)
    p.add_argument("--cpus", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args)))
        return
    import pyarrow.parquet as pq
    print(machine())
    print("load before:", os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = make_corpus(tmp, args.shards)
        mb = sum(f.stat().st_size for f in files) / 1e6
        print(f"corpus: {len(list(CORPORA.glob('*.txt')))} files, {mb:.1f} MB, in {len(files)} shards")
        tokenizer = tmp / "tok"
        subprocess.run([sys.executable, "-m", "hf_greedtok.cli", "train", str(CORPORA / "en_brown.txt"), "-k",
                        str(args.k), "-o", str(tokenizer), "--quiet"], check=True, capture_output=True)
        configs = [("local", 1), ("local", 2), ("ray", 1), ("ray", 2)]
        results: dict = {}
        for task in ("count", "tokenize"):
            for engine, cpus in configs:
                out = tmp / f"{task}-{engine}-{cpus}"
                results[task, engine, cpus] = r = run_worker(task, engine, cpus, files, out, tokenizer)
                r["output"] = out
            base = results[task, "local", 1]["output"]
            for engine, cpus in configs[1:]:
                other = results[task, engine, cpus]["output"]
                same = base.read_bytes() == other.read_bytes() if task == "count" else \
                    pq.read_table(base).equals(pq.read_table(other))
                assert same, f"{task} {engine} {cpus}: result differs from local 1"
        print("load after:", os.getloadavg())
        print_table(results, mb)


def print_table(results: dict, mb: float) -> None:
    for task in ("count", "tokenize"):
        pool = mb / results[task, "local", 2]["seconds"]
        print(f"\n{task} ({mb:.1f} MB; every result equal to local 1)")
        print("| engine | CPUs | s | MB/s | vs local pool 2 | peak RSS per worker MB | notes |")
        print("|---|---|---|---|---|---|---|")
        for (t, engine, cpus), r in results.items():
            if t != task:
                continue
            if engine == "local":
                print(f"| local | {cpus} | {r['seconds']:.2f} | {mb / r['seconds']:.1f} | "
                      f"{mb / r['seconds'] / pool:.2f}x | {r['worker_rss_mb']:.0f} | |")
                continue
            notes = f"ray.init {r['init_seconds']:.1f} s; {r['workers_seen']} worker processes"
            if task == "count":
                notes += (f"; partial tables {r['partial_bytes'] / mb / 1e6 * 1e3:.0f} KB and "
                          f"{r['partial_rows'] / mb:,.0f} rows per MB of text")
            for run in ("cold", "warm"):
                s = r[f"{run}_seconds"]
                print(f"| ray ({run}) | {cpus} | {s:.2f} | {mb / s:.1f} | {mb / s / pool:.2f}x | "
                      f"{r['worker_rss_mb']:.0f} | {notes if run == 'cold' else ''} |")


if __name__ == "__main__":
    main()
