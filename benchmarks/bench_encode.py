"""Encoding 1M real words: native batch encoders vs the reference's tokenize_presplit.

Vocabulary: GreedTok k=5000 trained on ../shared/corpora/en_wiki2012_wordcounts.tsv (words read
as " word"); the same ranked tokens are given to greedtok 0.14.1's encoder. Sample: 1,000,000
words drawn by count with random.Random(0). Words/s is best of --repeat runs; "cold" is the
first call on a fresh tokenizer (empty word caches).

    python benchmarks/bench_encode.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from common import CORPORA, machine, reference_available, run_reference


def best_rate(fn, n: int, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return n / times[0], n / min(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--words", type=int, default=1_000_000)
    p.add_argument("--k", type=int, default=5000)
    args = p.parse_args()
    from hf_greedtok import ByteLevel, GreedTokTrainer, read_count_tables
    counts = read_count_tables([CORPORA / "en_wiki2012_wordcounts.tsv"], ByteLevel())
    tok = GreedTokTrainer(k=args.k, show_progress=False).train_from_counts(counts)
    words = random.Random(0).choices(list(counts), weights=list(counts.values()), k=args.words)
    n = len(words)
    rows = {}
    for name, mode, threads in (("cover, 1 thread", "cover", 1), ("optimal, 1 thread", "optimal", 1),
                                ("cover, 2 threads", "cover", 2), ("optimal, 2 threads", "optimal", 2)):
        rows[name] = best_rate(lambda: tok.encode_words(words, mode=mode, num_threads=threads), n, args.repeat)
    tokens = {m: int(tok.encode_words(words, mode=m)[1][-1]) for m in ("cover", "optimal")}
    ref = None
    if reference_available():
        with tempfile.TemporaryDirectory() as tmp:
            tpath, wpath = Path(tmp) / "tokens.json", Path(tmp) / "words.json"
            tpath.write_text(json.dumps([t.hex() for t in tok.model.ranked_tokens]))
            wpath.write_text(json.dumps([w.encode().hex() for w in words]))
            ref = run_reference("encode", "--tokens", str(tpath), "--words", str(wpath), "--repeat", str(args.repeat))
    print(f"# Encoding {n:,} sampled words (k={args.k}); {machine()}; {time.strftime('%Y-%m-%d')}")
    print("| encoder | cold words/s | best words/s | tokens |")
    print("|---|---|---|---|")
    for name, (cold, best) in rows.items():
        print(f"| hf-greedtok {name} | {cold / 1e6:.2f}M | {best / 1e6:.2f}M | {tokens[name.split(',')[0]]:,} |")
    if ref:
        print(f"| greedtok 0.14.1 tokenize_presplit (1 thread, no GIL release) | | "
              f"{ref['words_per_s'] / 1e6:.2f}M | {ref['n_tokens']:,} |")
        print(f"\ncover 1 thread / reference: {rows['cover, 1 thread'][1] / ref['words_per_s']:.2f}x (goal >= 2x)")
        print(f"optimal 1 thread / reference cover: {rows['optimal, 1 thread'][1] / ref['words_per_s']:.2f}x (goal >= 1x)")
    print(f"cover 2 threads / 1 thread: {rows['cover, 2 threads'][1] / rows['cover, 1 thread'][1]:.2f}x (goal >= 1.6x)")
    print(f"optimal 2 threads / 1 thread: {rows['optimal, 2 threads'][1] / rows['optimal, 1 thread'][1]:.2f}x")
    print(f"token saving of optimal over cover: {1 - tokens['optimal'] / tokens['cover']:.4f}")


if __name__ == "__main__":
    main()
