"""Training speed, peak memory and objective: hf-greedtok vs the reference greedtok 0.14.1.

Both train GreedTok on ../shared/corpora/en_wiki2012_wordcounts.tsv (105,966 words, each read
as " word"), k = 5000, the same maximum token length, each in a fresh process (peak RSS is the
whole process). Wall time covers graph setup plus solve, not reading the input.

    python benchmarks/bench_train.py [--k 5000] [--max-token-length 24] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from common import CORPORA, machine, peak_rss_mb, reference_available, run_ours, run_reference


def worker(words_path: str, k: int, max_len: int) -> None:
    from hf_greedtok import GreedTokTrainer
    words = {bytes.fromhex(h).decode(): c for h, c in json.loads(Path(words_path).read_text())}
    trainer = GreedTokTrainer(k=k, max_token_length=max_len, show_progress=False)
    started = time.perf_counter()
    tok = trainer.train_from_counts(words)
    total = time.perf_counter() - started
    print(json.dumps({"setup_s": trainer.timings["setup_seconds"], "total_s": total,
                      "peak_rss_mb": peak_rss_mb(), "gains": tok.model.gains,
                      "tokens": [t.hex() for t in tok.model.ranked_tokens]}))


def runs(results: list[dict]) -> str:
    return ", ".join(f"{r['total_s']:.2f}" for r in results)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--k", type=int, default=5000)
    p.add_argument("--max-token-length", type=int, default=24)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--table", default=str(CORPORA / "en_wiki2012_wordcounts.tsv"))
    p.add_argument("--worker", nargs=3, metavar=("WORDS", "K", "L"))
    args = p.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))
        return
    from hf_greedtok import ByteLevel, read_count_tables
    counts = read_count_tables([args.table], ByteLevel())
    with tempfile.TemporaryDirectory() as tmp:
        words_path = Path(tmp) / "words.json"
        words_path.write_text(json.dumps([[w.encode().hex(), c] for w, c in counts.items()]))
        ours, ref = [], []
        for _ in range(args.repeat):
            ours.append(run_ours("bench_train.py", str(words_path), str(args.k), str(args.max_token_length)))
            if reference_available():
                ref.append(run_reference("train", "--words", str(words_path), "--k", str(args.k),
                                         "--max-token-length", str(args.max_token_length)))
    best = min(ours, key=lambda r: r["total_s"])
    print(f"# Training: {Path(args.table).name}, {len(counts):,} distinct words, k={args.k}, "
          f"max token length {args.max_token_length}\n# {machine()}, {time.strftime('%Y-%m-%d')}")
    print("| implementation | setup s | total s (best of %d) | all runs s | peak RSS MB |" % args.repeat)
    print("|---|---|---|---|---|")
    print(f"| hf-greedtok | {best['setup_s']:.2f} | {best['total_s']:.2f} | "
          f"{runs(ours)} | {max(r['peak_rss_mb'] for r in ours):.0f} |")
    if not ref:
        print("reference greedtok 0.14.1 not available: set GREEDTOK_REF_PYTHON", file=sys.stderr)
        return
    rbest = min(ref, key=lambda r: r["total_s"])
    print(f"| greedtok 0.14.1 | {rbest['setup_s']:.2f} | {rbest['total_s']:.2f} | "
          f"{runs(ref)} | {max(r['peak_rss_mb'] for r in ref):.0f} |")
    ours_obj, ref_obj = sum(best["gains"]), sum(rbest["gains"])
    same_steps = sum(a == b for a, b in zip(best["gains"], rbest["gains"]))
    print(f"\nspeed-up (reference / ours, best runs): {rbest['total_s'] / best['total_s']:.2f}x  (goal >= 5x)")
    print(f"peak RSS ratio (ours / reference): {max(r['peak_rss_mb'] for r in ours) / max(r['peak_rss_mb'] for r in ref):.2f}  (goal <= 0.33)")
    print(f"objective (tokens saved): ours {ours_obj:,}, reference {ref_obj:,}, "
          f"{'equal' if ours_obj == ref_obj else f'differ by {ours_obj - ref_obj:+,}'}; "
          f"per-step gains equal at {same_steps} of {len(best['gains'])} steps; "
          f"same token set: {set(best['tokens']) == set(rbest['tokens'])}")


if __name__ == "__main__":
    main()
