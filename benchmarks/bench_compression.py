"""Compression of GreedTok(k) vs Hugging Face byte-level BPE at the same vocabulary size.

For each corpus and each k, both tokenizers are trained on the same pre-tokenized words
(GPT-4 split regex, byte singletons, words keep their leading space) with the same total
vocabulary, 256 bytes + k learned tokens, and no special tokens:

* GreedTok(k): ``GreedTokTrainer(k=k, max_token_length=L)`` on our word counts
  (``count_words_in_files`` with ``ByteLevel()``, the same counts ``train([path])`` makes);
* HF BPE: ``tokenizers.Tokenizer(models.BPE())`` with ``Split(GPT4_PATTERN, "isolated")`` +
  ``ByteLevel(use_regex=False)`` and ``BpeTrainer(vocab_size=256 + k)``, trained on the file.

The "same words" claim is checked, not assumed: HF's pre-tokenizer is run over every line of
the corpus and its word Counter compared with ours; any difference is printed.

Measured on the training words, count-weighted: tokens per word for BPE, GreedTok "cover"
(the trained objective) and GreedTok "optimal" (fewest tokens over the same vocabulary),
characters (Unicode code points) per token, and the relative difference vs BPE in percent
(negative = GreedTok needs fewer tokens). Output: a Markdown table, then one JSON line.

Run (single process, from the repo root):
    TOKENIZERS_PARALLELISM=false RAYON_NUM_THREADS=1 python benchmarks/bench_compression.py
(the script sets both variables itself if they are unset.)
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import tokenizers  # noqa: E402
from tokenizers import Regex, models, pre_tokenizers, trainers  # noqa: E402

from common import CORPORA  # noqa: E402

from hf_greedtok import ByteLevel, GreedTokTrainer, count_words_in_files  # noqa: E402
from hf_greedtok.experiments.evaluation import evaluate_word_counts  # noqa: E402
from hf_greedtok.pre_tokenizers import GPT4_PATTERN  # noqa: E402

DEFAULT_CORPORA = ("en_brown.txt", "en_shakespeare_milton.txt")
N_BYTES = 256


def hf_pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(GPT4_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])


def from_byte_level(piece: str) -> str:
    """HF byte-level string ("Ġthe") back to text (" the")."""
    return ByteLevel.str_to_token(piece).decode("utf-8")


def hf_word_counts(path: Path, pre: pre_tokenizers.PreTokenizer) -> Counter:
    """Words of the file as HF's pre-tokenizer sees them, line by line (lines keep "\\n")."""
    counts: Counter = Counter()
    with open(path, "rb") as f:   # binary: lines end at b"\n" only, "\r" is kept as text
        for line in f:
            counts.update(from_byte_level(p) for p, _ in pre.pre_tokenize_str(line.decode("utf-8")))
    return counts


def compare_counts(ours: Counter, hf: Counter) -> dict[str, Any]:
    """How many distinct words / occurrences differ between the two Counters."""
    differing = [w for w in ours.keys() | hf.keys() if ours.get(w, 0) != hf.get(w, 0)]
    examples = sorted(differing, key=lambda w: -abs(ours.get(w, 0) - hf.get(w, 0)))[:5]
    return {
        "distinct_ours": len(ours), "distinct_hf": len(hf),
        "occurrences_ours": sum(ours.values()), "occurrences_hf": sum(hf.values()),
        "distinct_words_differing": len(differing),
        "occurrences_differing": sum(abs(ours.get(w, 0) - hf.get(w, 0)) for w in differing),
        "examples": [[w, ours.get(w, 0), hf.get(w, 0)] for w in examples],
    }


def train_bpe(path: Path, k: int) -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = hf_pre_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=N_BYTES + k, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train([str(path)], trainer)
    return tok


def bpe_tokens(tok: tokenizers.Tokenizer, words: list[str], counts: np.ndarray) -> tuple[int, int]:
    """(count-weighted tokens, distinct words that do not pre-tokenize to themselves)."""
    pre = tok.pre_tokenizer
    not_self = sum(1 for w in words if [from_byte_level(p) for p, _ in pre.pre_tokenize_str(w)] != [w])
    lengths = np.fromiter((len(e.ids) for e in tok.encode_batch(words, add_special_tokens=False)),
                          dtype=np.int64, count=len(words))
    return int(np.dot(lengths, counts)), not_self


def bench(path: Path, ks: list[int], max_token_length: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    t0 = time.perf_counter()
    wc = count_words_in_files([path], ByteLevel(), num_proc=1, show_progress=False)
    check = compare_counts(wc, hf_word_counts(path, hf_pre_tokenizer()))
    check["seconds"] = round(time.perf_counter() - t0, 2)
    words = list(wc)
    counts = np.fromiter(wc.values(), dtype=np.int64, count=len(words))
    rows = []
    for k in ks:
        t1 = time.perf_counter()
        gt = GreedTokTrainer(k=k, max_token_length=max_token_length, show_progress=False).train_from_counts(
            wc, source=str(path))
        t_gt = time.perf_counter() - t1
        metrics = evaluate_word_counts(gt, wc)
        cover, optimal = metrics["tokens_cover"], metrics["tokens_optimal"]
        n_words, n_chars = metrics["words"], metrics["characters"]
        t1 = time.perf_counter()
        bpe = train_bpe(path, k)
        t_bpe = time.perf_counter() - t1
        bpe_tok, not_self = bpe_tokens(bpe, words, counts)
        bpe_vocab = bpe.get_vocab_size()
        notes = []
        if cover != gt.training_info["objective_tokens"]:
            notes.append(f"cover tokens {cover} != trainer objective {gt.training_info['objective_tokens']}")
        if gt.vocab_size != N_BYTES + k or gt.training_info["k_learned"] != k:
            notes.append(f"GreedTok vocab {gt.vocab_size} (k_learned {gt.training_info['k_learned']}) != {N_BYTES + k}")
        if bpe_vocab != N_BYTES + k:
            notes.append(f"BPE vocab {bpe_vocab} != {N_BYTES + k}")
        if not_self:
            notes.append(f"{not_self} words do not pre-tokenize to themselves under HF")
        rows.append({
            "corpus": path.name, "k": k, "vocab_greedtok": gt.vocab_size, "vocab_bpe": bpe_vocab,
            "words": n_words, "distinct_words": len(words), "chars": n_chars,
            "tokens_bpe": bpe_tok, "tokens_cover": cover, "tokens_optimal": optimal,
            "tpw_bpe": bpe_tok / n_words, "tpw_cover": cover / n_words, "tpw_optimal": optimal / n_words,
            "cpt_bpe": n_chars / bpe_tok, "cpt_cover": n_chars / cover, "cpt_optimal": n_chars / optimal,
            "cover_vs_bpe_pct": 100.0 * (cover - bpe_tok) / bpe_tok,
            "optimal_vs_bpe_pct": 100.0 * (optimal - bpe_tok) / bpe_tok,
            "bpe_longest_token_bytes": max(len(ByteLevel.str_to_token(t)) for t in bpe.get_vocab()),
            "train_seconds_greedtok": round(t_gt, 2), "train_seconds_bpe": round(t_bpe, 2),
            "notes": notes,
        })
    return rows, check


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora-dir", type=Path, default=CORPORA)
    ap.add_argument("--corpora", nargs="+", default=list(DEFAULT_CORPORA), help="file names in --corpora-dir")
    ap.add_argument("--k", nargs="+", type=int, default=[1000, 5000])
    ap.add_argument("--max-token-length", type=int, default=24)
    args = ap.parse_args()

    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    checks: dict[str, dict[str, Any]] = {}
    for name in args.corpora:
        r, checks[name] = bench(args.corpora_dir / name, args.k, args.max_token_length)
        rows.extend(r)

    print("Same-words check (our ByteLevel counter vs HF Split+ByteLevel pre-tokenizer, line by line):")
    for name, c in checks.items():
        verdict = "IDENTICAL" if c["distinct_words_differing"] == 0 else "DIFFERENT"
        print(f"  {name}: {verdict}: {c['distinct_words_differing']} distinct words / "
              f"{c['occurrences_differing']} occurrences differ (ours {c['distinct_ours']} distinct, "
              f"{c['occurrences_ours']} occ.; HF {c['distinct_hf']} distinct, {c['occurrences_hf']} occ.)"
              + (f"; largest: {c['examples']}" if c["examples"] else ""))
    print()
    print("| corpus | k | total vocab | words | BPE tok/word | GreedTok cover tok/word | GreedTok optimal "
          "tok/word | cover vs BPE | optimal vs BPE | chars/token BPE / cover / optimal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        vocab = str(r["vocab_greedtok"]) if r["vocab_greedtok"] == r["vocab_bpe"] else \
            f"{r['vocab_greedtok']} / BPE {r['vocab_bpe']}"
        print(f"| {r['corpus']} | {r['k']} | {vocab} | {r['words']} | {r['tpw_bpe']:.4f} | {r['tpw_cover']:.4f} "
              f"| {r['tpw_optimal']:.4f} | {r['cover_vs_bpe_pct']:+.2f}% | {r['optimal_vs_bpe_pct']:+.2f}% "
              f"| {r['cpt_bpe']:.3f} / {r['cpt_cover']:.3f} / {r['cpt_optimal']:.3f} |")
    for r in rows:
        for note in r["notes"]:
            print(f"NOTE {r['corpus']} k={r['k']}: {note}")
    elapsed = time.perf_counter() - started
    print(f"\ntotal time {elapsed:.1f} s (tokenizers {tokenizers.__version__}, max_token_length "
          f"{args.max_token_length} for GreedTok, BPE unlimited)")
    print(json.dumps({"benchmark": "compression_greedtok_vs_hf_bpe", "tokenizers": tokenizers.__version__,
                      "max_token_length": args.max_token_length, "rows": rows, "same_words": checks,
                      "seconds": round(elapsed, 2)}))


if __name__ == "__main__":
    main()
