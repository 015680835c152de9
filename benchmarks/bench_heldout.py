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

Variants built from HF BPE: ``{"bpe_candidates": F}`` (F > 1) is the trainer's own option
(``GreedTokTrainer(bpe_candidates=F)``, ``train --bpe-candidates F``): BPE trained on the same
words at F x the total vocabulary, whose multi-byte tokens are GreedTok's only candidates, so it
chooses among BPE's reusable pieces with its own objective; ``{"bpe_own": true}`` trains
BPE on the same lines at the total and encodes with
BPE's own vocabulary at the total, ranked in merge order (a GreedTok model over BPE's tokens:
its optimal row is what the encoder alone is worth against BPE's merges; only cover uses
the ranking).

``--patterns`` (JSON: name -> regex, or ``gpt4-rules`` for :data:`GPT4_RULES`: the GPT-4 split
with one rule changed at a time, issue 17 item 2) adds splits written as patterns. They run in ``regex`` for GreedTok and in Oniguruma for HF
BPE (HF ``Split``); for each one the table also gets an "HF BPE, same split" row (mode
"merges"), so both trainers' cost of the rule is relative to the gpt4-split anchor.

``--why`` adds the vocabulary comparison at the first total: tokens only GreedTok has and only
BPE has, their mean length in bytes, how many are whole training words and how often those
occur in training, and how many of them are used on en_python_docs.

    python benchmarks/bench_heldout.py --totals 16384 32768
    python benchmarks/bench_heldout.py --totals 16384 --splits gpt4 --variants '[{}, {"min_frequency": 20}]' --why
    python benchmarks/bench_heldout.py --splits gpt4 --variants '[{}, {"bpe_candidates": 2}, {"bpe_own": true}]'
    python benchmarks/bench_heldout.py --splits gpt4 --patterns gpt4-rules
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

from hf_greedtok import GreedTokTrainer, Tokenizer
from hf_greedtok.defaults import DEFAULT_MAX_TOKEN_LENGTH
from hf_greedtok.hf.pipeline import standard_pre_tokenizer
from hf_greedtok.models import GreedTokModel
from hf_greedtok.pre_tokenizers import ByteLevel
from hf_greedtok.pre_tokenizers import GPT4_PATTERN, unicode_to_bytes
from hf_greedtok.word_counts import count_words

# (rule of GPT4_PATTERN, its replacement): digits one at a time or in runs of any length instead
# of 1-3; punctuation one character at a time instead of runs (the trailing newlines kept); a
# letter run led by a space only instead of by any one non-letter, non-digit; no \s+(?!\S), so
# a run of spaces keeps its last one instead of lending it to the next word.
GPT4_RULES = {name: GPT4_PATTERN.replace(old, new) for name, (old, new) in {
    "digits single": (r"\p{N}{1,3}", r"\p{N}"),
    "digits run": (r"\p{N}{1,3}", r"\p{N}+"),
    "punctuation single": (r" ?[^\s\p{L}\p{N}]++[\r\n]*", r" ?[^\s\p{L}\p{N}][\r\n]*"),
    "letters after a space only": (r"[^\r\n\p{L}\p{N}]?+\p{L}+", r" ?\p{L}+"),
    "no \\s+(?!\\S)": (r"|\s+(?!\S)", ""),
}.items()}


def lines_of(name: str, limit: int = 0) -> list[str]:
    lines = (CORPORA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[:limit] if limit else lines


_BPES: dict = {}


def train_bpe(train: list[str], total: int, pre: ByteLevel = ByteLevel("gpt4")) -> HFTokenizer:
    """HF BPE, byte level with ``pre``'s split, trained on ``train`` at ``total`` ids; one
    training per (lines, total, split) in a run (rows of several variants share it)."""
    key = (id(train), total, pre.pattern)
    if key not in _BPES:
        bpe = HFTokenizer(models.BPE())
        bpe.pre_tokenizer = standard_pre_tokenizer(pre)
        bpe.decoder = decoders.ByteLevel()
        bpe.train_from_iterator(train, trainers.BpeTrainer(vocab_size=total, show_progress=False,
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        _BPES[key] = bpe
    return _BPES[key]


def bpe_count(bpe: HFTokenizer, texts: list[str]) -> int:
    return sum(len(e.ids) for e in bpe.encode_batch(texts))


def bpe_tokens(bpe: HFTokenizer) -> list[bytes]:
    """BPE's vocabulary as bytes, by id: its 256 singletons, then the merges in order."""
    to_bytes = unicode_to_bytes()
    return [bytes(to_bytes[c] for c in k) for k, _ in sorted(bpe.get_vocab().items(), key=lambda kv: kv[1])]


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
    parts, own = kw.pop("support_parts", 0), kw.pop("bpe_own", False)
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
    if own:
        ranked = [t for t in bpe_tokens(train_bpe(train, total, pre)) if len(t) > 1]
        return Tokenizer(GreedTokModel(ranked, unit_kind="bytes"), pre)
    return GreedTokTrainer(k=total - 256, pre_tokenizer=pre, show_progress=False, **kw).train_from_counts(counts)


def why(bpe: HFTokenizer, tok, counts: Counter, unseen: list[str]) -> None:
    """Print where the two vocabularies differ and how their own tokens serve unseen text."""
    bpe_bytes = dict(enumerate(bpe_tokens(bpe)))
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
    p.add_argument("--patterns", default="{}",
                   help="JSON dict name -> split regex, or gpt4-rules: more splits, each with an HF BPE row of its own")
    p.add_argument("--why", action="store_true", help="compare the vocabularies at the first total")
    args = p.parse_args()
    variants = json.loads(args.variants)
    patterns = GPT4_RULES if args.patterns == "gpt4-rules" else json.loads(args.patterns)
    splits = {name: ByteLevel(name) for name in args.splits} | {k: ByteLevel(v) for k, v in patterns.items()}
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}")
    corpus = lines_of("en_brown.txt") + lines_of("en_shakespeare_milton.txt")
    train = [line for i, line in enumerate(corpus) if i % 10]
    evals = {"held-out lines": [line for i, line in enumerate(corpus) if i % 10 == 0],
             "en_python_docs": lines_of("en_python_docs.txt", 60000),
             "code_python_stdlib": lines_of("code_python_stdlib.txt", 60000)}
    for total in args.totals:
        bpe = train_bpe(train, total)
        base = {k: bpe_count(bpe, v) for k, v in evals.items()}
        print(f"\n### total vocabulary {total:,}; HF BPE (gpt4 split) tokens: "
              + ", ".join(f"{k} {v:,}" for k, v in base.items()) + "\n")
        print("| split | trainer options | mode | " + " | ".join(evals) + " |")
        print("|---|---|---|" + "---:|" * len(evals))
        for split, pre in splits.items():
            if split in patterns:
                own = train_bpe(train, total, pre)
                cells = [f"{100 * (bpe_count(own, v) / base[k] - 1):+.2f}%" for k, v in evals.items()]
                print(f"| {split} | HF BPE, same split | merges | " + " | ".join(cells) + " |")
            counts = count_words(train, pre, None, show_progress=False)
            for kw in variants:
                tok = train_variant(counts, total, pre, dict(kw), train)
                for mode in ("cover", "optimal"):
                    cells = [f"{100 * (int(tok.encode_batch_flat(v, mode=mode)[1][-1]) / base[k] - 1):+.2f}%"
                             for k, v in evals.items()]
                    short = len(tok.model.ranked_tokens) < total - 256     # ran out of candidates
                    label = (json.dumps(kw) if kw else "defaults") + \
                        (f" ({len(tok.model.ranked_tokens):,} learned)" if short else "")
                    print(f"| {split} | {label} | {mode} | " + " | ".join(cells) + " |")
                if args.why and total == args.totals[0] and split == next(iter(splits)) and kw == variants[0]:
                    why(bpe, tok, counts, evals["en_python_docs"])


if __name__ == "__main__":
    main()
