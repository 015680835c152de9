"""Held-out compression against HF BPE, and where GreedTok's vocabulary goes (issue 17 items 2-3).

Protocol (the issue's): train on en_brown + en_shakespeare_milton without every 10th line; count
tokens on those held-out lines (same domain, unseen lines) and on en_python_docs and
code_python_stdlib (first 60,000 lines each; other domains). The anchor is HF ``tokenizers``'
BPE with the GPT-4 split and byte level, trained on the same lines at the same total vocabulary.
Rows: GreedTok (cover and optimal) with each ``--splits`` split and each ``--variants`` trainer
setting (JSON keyword arguments of ``GreedTokTrainer``, e.g. ``{"min_frequency": 20}``); values
are total tokens relative to BPE's (negative: fewer tokens than BPE).

More kinds of variant, outside the trainer: ``{"count_discount": D}`` trains on word counts
lowered by D (words seen D times or fewer dropped), ``{"min_word_types": T}`` keeps only
candidates found in at least T distinct training words, and ``{"support_parts": S,
"support_min": P, "support_block": B}`` splits the training lines into S parts (line k of the
training lines to part (k // B) % S: blocks of B lines dealt round-robin, B = 1 by default) and
keeps only candidates found in the words of at least P parts (default P = S), so that strings
concentrated in one stretch of the corpus (names, archaic words) drop out while frequent whole
words such as " the" stay. Both filters pass the trainer the byte substrings of
2 to max_token_length bytes of the pre-tokenized words (through ``candidates=``); the other
keys go to ``GreedTokTrainer``.

``--why`` adds the vocabulary comparison at the first total: tokens only GreedTok has and only
BPE has, their mean length in bytes, how many are whole training words and how often those
occur in training, and how many of them are used on en_python_docs.

    python benchmarks/bench_heldout.py --totals 16384 32768
    python benchmarks/bench_heldout.py --totals 16384 --splits gpt4 --variants '[{}, {"min_frequency": 20}]' --why
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter

from common import CORPORA, machine
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from hf_greedtok import GreedTokTrainer
from hf_greedtok.defaults import DEFAULT_MAX_TOKEN_LENGTH
from hf_greedtok.hf.pipeline import standard_pre_tokenizer
from hf_greedtok.pre_tokenizers import ByteLevel
from hf_greedtok.pre_tokenizers.byte_level import unicode_to_bytes
from hf_greedtok.word_counts import count_words


def lines_of(name: str, limit: int = 0) -> list[str]:
    lines = (CORPORA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[:limit] if limit else lines


def train_bpe(train: list[str], total: int) -> HFTokenizer:
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(ByteLevel("gpt4"))
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(train, trainers.BpeTrainer(vocab_size=total, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return bpe


def word_types_per_substring(words, longest: int) -> Counter:
    """For each byte substring of 2..``longest`` bytes of the (str) ``words``: in how many of
    them it occurs; these are the byte-level trainer's candidates."""
    types: Counter = Counter()
    for w in words:
        b = w.encode("utf-8")
        types.update({b[i:j] for i in range(len(b)) for j in range(i + 2, min(len(b), i + longest) + 1)})
    return types


def train_variant(counts: Counter, total: int, pre: ByteLevel, kw: dict, train: list[str]):
    """GreedTok at ``total`` ids on ``counts`` (the words of the lines ``train``) with the
    variant ``kw`` (see the module docstring)."""
    discount, min_types = kw.pop("count_discount", 0), kw.pop("min_word_types", 0)
    parts = kw.pop("support_parts", 0)
    min_parts, block = kw.pop("support_min", parts), kw.pop("support_block", 1)
    longest = kw.get("max_token_length", DEFAULT_MAX_TOKEN_LENGTH)
    if discount:
        counts = Counter({w: c - discount for w, c in counts.items() if c > discount})
    if min_types:
        kw["candidates"] = [s for s, c in word_types_per_substring(counts, longest).items() if c >= min_types]
    if parts:
        support: Counter = Counter()
        for k in range(parts):
            part = [line for i, line in enumerate(train) if (i // block) % parts == k]
            support.update(word_types_per_substring(count_words(part, pre, None, show_progress=False),
                                                    longest).keys())
        kw["candidates"] = [s for s, c in support.items() if c >= min_parts]
    return GreedTokTrainer(total - 256, pre_tokenizer=pre, show_progress=False, **kw).train_from_counts(counts)


def why(bpe: HFTokenizer, tok, counts: Counter, unseen: list[str]) -> None:
    """Print where the two vocabularies differ and how their own tokens serve unseen text."""
    to_bytes = unicode_to_bytes()
    bpe_bytes = {v: bytes(to_bytes[c] for c in k) for k, v in bpe.get_vocab().items()}
    ours, theirs = set(tok.model.ranked_tokens), {t for t in bpe_bytes.values() if len(t) > 1}
    only_ours, only_theirs = ours - theirs, theirs - ours
    words = Counter()
    for w, c in counts.items():
        words[w.encode("utf-8")] += c
    used_ours = Counter(tok.model._id_to_bytes[i] for i in tok.encode_batch_flat(unseen)[0].tolist())
    used_theirs = Counter(bpe_bytes[i] for e in bpe.encode_batch(unseen) for i in e.ids)
    print("\n| vocabulary part | tokens | mean bytes | whole training words (median count) | used on en_python_docs: tokens (uses) |")
    print("|---|---:|---:|---:|---:|")
    for label, part, used in (("only GreedTok's", only_ours, used_ours), ("only BPE's", only_theirs, used_theirs),
                              ("both", ours & theirs, used_ours)):
        whole = [words[t] for t in part if t in words]
        print(f"| {label} | {len(part):,} | {statistics.mean(map(len, part)):.2f} | {len(whole):,} "
              f"({statistics.median(whole) if whole else 0}) | {sum(1 for t in part if used[t]):,} "
              f"({sum(used[t] for t in part):,}) |")
    print("\nGreedTok-only tokens, most frequent whole training words first:",
          [t.decode("utf-8", "replace") for t in sorted(only_ours, key=lambda t: -words.get(t, 0))[:12]])
    print("BPE-only tokens most used on en_python_docs:",
          [t.decode("utf-8", "replace") for t in sorted(only_theirs, key=lambda t: -used_theirs[t])[:15]])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--totals", type=int, nargs="+", default=[16384, 32768])
    p.add_argument("--splits", nargs="+", default=["gpt4", "o200k", "whitespace"])
    p.add_argument("--variants", default="[{}]", help="JSON list of GreedTokTrainer keyword arguments")
    p.add_argument("--why", action="store_true", help="compare the vocabularies at the first total")
    args = p.parse_args()
    variants = json.loads(args.variants)
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}")
    corpus = lines_of("en_brown.txt") + lines_of("en_shakespeare_milton.txt")
    train = [line for i, line in enumerate(corpus) if i % 10]
    evals = {"held-out lines": [line for i, line in enumerate(corpus) if i % 10 == 0],
             "en_python_docs": lines_of("en_python_docs.txt", 60000),
             "code_python_stdlib": lines_of("code_python_stdlib.txt", 60000)}
    for total in args.totals:
        bpe = train_bpe(train, total)
        base = {k: sum(len(e.ids) for e in bpe.encode_batch(v)) for k, v in evals.items()}
        print(f"\n### total vocabulary {total:,}; HF BPE (gpt4 split) tokens: "
              + ", ".join(f"{k} {v:,}" for k, v in base.items()) + "\n")
        print("| split | trainer options | mode | " + " | ".join(evals) + " |")
        print("|---|---|---|" + "---:|" * len(evals))
        for split in args.splits:
            pre = ByteLevel(split)
            counts = count_words(train, pre, None, show_progress=False)
            for kw in variants:
                tok = train_variant(counts, total, pre, dict(kw), train)
                for mode in ("cover", "optimal"):
                    cells = [f"{100 * (int(tok.encode_batch_flat(v, mode=mode)[1][-1]) / base[k] - 1):+.2f}%"
                             for k, v in evals.items()]
                    print(f"| {split} | {json.dumps(kw) if kw else 'defaults'} | {mode} | " + " | ".join(cells) + " |")
                if args.why and total == args.totals[0] and split == args.splits[0] and kw == variants[0]:
                    why(bpe, tok, counts, evals["en_python_docs"])


if __name__ == "__main__":
    main()
