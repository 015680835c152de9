"""Issue 53: counting superword chunks, the Python path against the native one, in one process.

A counting worker turns each job (about ``CHUNK_BYTES`` of a text file, cut after a line end)
into lines (``text_lines``) and then into a chunk table. The Python path pre-tokenizes each line
into a list of str, counts them in a ``Counter`` and adds that to a ``ChunkTable``; the native
path decodes the job (``chunk_text``) and ``ChunkTable.add_split_text`` cuts it into lines,
splits each and adds each chunk's UTF-8 to the table directly. This script reads the first ``--mb`` MB of a text file into jobs (the read is not
timed), then for each path times the worker's work on every job (``_count_file_chunk``) and the
parent's merge of the job tables, checks that both paths give the same table, and prints MB/s
(of the input's bytes) with the load average. What each path starts from is timed alone too
(the Python path's lines, ``text_lines``; the native path's text, ``chunk_text``), to show what
is left to the split and count.

    python benchmarks/bench_chunk_count.py                          # 100 MB, superwords
    python benchmarks/bench_chunk_count.py --mb 20 --split superwords-digits --repeat 3
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import machine

import hf_greedtok.word_counts as wc
from hf_greedtok import ByteLevel
from hf_greedtok._chunk_table import ChunkTable
from hf_greedtok.formats.sources import CHUNK_BYTES, chunk_text, text_lines

SCALE = Path(__file__).resolve().parents[1] / "benchmarks" / ".cache" / "scale" / "english_1000MB.txt"
DEFAULT_INPUT = SCALE if SCALE.is_file() else Path("/work/main/benchmarks/.cache/scale/english_1000MB.txt")


def jobs_of(path: Path, mb: float) -> list[tuple[str, int, bytes]]:
    """The first ``mb`` MB of ``path`` (cut after its last whole line) as counting jobs of about
    CHUNK_BYTES each, cut after a line end, as ``text_chunks`` makes them."""
    with open(path, "rb") as f:
        data = f.read(int(mb * 1e6))
    data = data[:data.rfind(b"\n") + 1]
    jobs, start, line = [], 0, 1
    while start < len(data):
        end = data.rfind(b"\n", start, start + CHUNK_BYTES) + 1 or len(data)
        jobs.append((str(path), line, data[start:end]))
        line += data.count(b"\n", start, end)
        start = end
    return jobs


def count(jobs, native: bool) -> tuple[ChunkTable, float, float]:
    """(merged table, seconds of the workers' work, seconds of the merge) of one path."""
    real = wc.native_table_pattern
    wc.native_table_pattern = real if native else (lambda pre, norm: -1)
    try:
        parts, t0 = [], time.perf_counter()
        for job in jobs:
            parts.append(wc._count_file_chunk(job))
        t1 = time.perf_counter()
        total = ChunkTable()
        for part in parts:
            total.merge(part)
        return total, t1 - t0, time.perf_counter() - t1
    finally:
        wc.native_table_pattern = real


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--split", default="superwords")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each path; the fastest is reported")
    args = ap.parse_args()
    jobs = jobs_of(args.input, args.mb)
    size = sum(len(job[2]) for job in jobs) / 1e6
    print(f"{machine()}\n{args.input}: first {size:.1f} MB, {len(jobs)} jobs, split {args.split}")
    print(f"load average before: {os.getloadavg()}")
    wc._init_worker(ByteLevel(args.split), None, "strict", True)
    inputs = {}
    for name, make in (("python", text_lines), ("native", chunk_text)):
        t0 = time.perf_counter()
        for source, line, data in jobs:
            make(source, line, data, "strict")
        inputs[name] = time.perf_counter() - t0
        print(f"{make.__name__ + ' alone':28s} {size / inputs[name]:7.1f} MB/s")
    tables, works = {}, {}
    for name, native in (("python", False), ("native", True)):
        runs = [count(jobs, native) for _ in range(args.repeat)]
        tables[name], work, merge = min(runs, key=lambda r: r[1])
        works[name] = work
        print(f"{name + ' path: workers':28s} {size / work:7.1f} MB/s ({work:.2f} s; without its input "
              f"{size / max(work - inputs[name], 1e-9):.1f} MB/s), merge {merge:.2f} s, {len(tables[name]):,} chunks")
    py, nat = (tables[k].sorted_parts() for k in ("python", "native"))
    same = py[0] == nat[0] and all(np.array_equal(a, b) for a, b in zip(py[1:], nat[1:]))
    print(f"tables equal: {same}; native workers {works['python'] / works['native']:.2f}x the Python path's speed")
    print(f"load average after: {os.getloadavg()}")
    if not same:
        raise SystemExit("the native table differs from the Python path's")


if __name__ == "__main__":
    main()
