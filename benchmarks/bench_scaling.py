"""How training time and peak memory grow with the number of distinct words.

Corpus: the real word tables en_wiki2012_wordcounts.tsv (English) and zh_jieba_wordcounts.tsv
(Chinese) together, shuffled with random.Random(0); prefixes of increasing size, each word read
as " word", k = 5000, max token length 24, one fresh process per size. With --reference, the
reference greedtok 0.14.1 runs on the same sizes (it needs several GB at the largest).

    python benchmarks/bench_scaling.py [--sizes 50000 100000 200000 455011] [--reference]
"""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from common import CORPORA, machine, reference_available, run_ours, run_reference


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[50_000, 100_000, 200_000, 455_011])
    p.add_argument("--k", type=int, default=5000)
    p.add_argument("--reference", action="store_true")
    args = p.parse_args()
    from hf_greedtok import ByteLevel, read_count_tables
    counts = read_count_tables([CORPORA / "en_wiki2012_wordcounts.tsv", CORPORA / "zh_jieba_wordcounts.tsv"],
                               ByteLevel())
    items = sorted(counts.items())
    random.Random(0).shuffle(items)
    print(f"# Training time and memory vs distinct words (k={args.k}, L=24); {machine()}; {time.strftime('%Y-%m-%d')}")
    header = "| distinct words | bytes of words | ours total s | ours peak RSS MB |"
    if args.reference:
        header += " reference total s | reference peak RSS MB |"
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            part = items[:size]
            path = Path(tmp) / f"w{size}.json"
            path.write_text(json.dumps([[w.encode().hex(), c] for w, c in part]))
            ours = run_ours("bench_train.py", str(path), str(args.k), "24")
            row = (f"| {len(part):,} | {sum(len(w.encode()) for w, _ in part):,} | {ours['total_s']:.2f} "
                   f"| {ours['peak_rss_mb']:.0f} |")
            if args.reference and reference_available():
                ref = run_reference("train", "--words", str(path), "--k", str(args.k), "--max-token-length", "24")
                row += f" {ref['total_s']:.2f} | {ref['peak_rss_mb']:.0f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
