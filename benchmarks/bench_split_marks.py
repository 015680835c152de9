"""Byte-level splits and combining marks (issue 19 item 2): gpt4 against o200k and gpt4-marks, held out.

GPT-4's split (cl100k) matches letters with ``\\p{L}``, which leaves out combining marks
(``\\p{M}``): it cuts a Devanagari word at every vowel sign and virama. o200k's letter classes
include ``\\p{M}`` (and split words by case, attach contractions, ...); gpt4-marks is GPT-4's split
with ``[\\p{L}\\p{M}]+`` letter runs and nothing else changed. All are native splits here
(``train --pattern gpt4|o200k|gpt4-marks``).

Protocol: byte-level GreedTok at total vocabularies --totals, trained once per split on

* Indic: ``hi_news_wordcounts.tsv`` (Hindi word counts) plus the even rows of each Indic language
  of ``multi_isocodes_parallel.tsv`` (Bengali, Tamil, Kannada, Punjabi, Gujarati, Odia,
  Malayalam, Telugu, Assamese), evaluated on ``hi_devdas.txt`` (Hindi running text, unseen) and
  on the odd rows of each language (unseen);
* English: ``en_brown.txt``, evaluated on ``en_python_docs.txt`` and
  ``en_shakespeare_milton.txt`` (unseen), to check that nothing is lost there.

Reported per evaluation text: fertility (tokens per whitespace-separated word, ``--mode``
encoding, default optimal as ``hf-greedtok train`` saves it), each split's against gpt4's, and
tokens that start inside a character (a UTF-8 continuation byte: a character cut in two).

``--pin-characters N`` pins (``GreedTokTrainer(pinned_tokens=...)``, within the same total) every
character of two or more UTF-8 bytes that the training words hold at least N times, so that such
a character is one token wherever it occurs, never its bytes.

    python benchmarks/bench_split_marks.py [--totals 4000 8000 16000] [--splits gpt4 o200k gpt4-marks]
        [--pin-characters N]
"""
from __future__ import annotations

import argparse
import csv
import os
import time
from collections import Counter

import numpy as np
from common import CORPORA, machine

from hf_greedtok import GreedTokTrainer
from hf_greedtok.pre_tokenizers import ByteLevel
from hf_greedtok.word_counts import count_corpus, count_words

INDIC = ("bn", "ta", "kn", "pa", "gu", "or", "ml", "te", "as")
SPLITS = ("gpt4", "o200k", "gpt4-marks")


def parallel_rows() -> dict[str, list[str]]:
    with open(CORPORA / "multi_isocodes_parallel.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    return {lang: [r[3] for r in rows if r[0] == lang] for lang in INDIC}


def lines_of(name: str, limit: int = 0) -> list[str]:
    lines = [line for line in (CORPORA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[:limit] if limit else lines


def scores(tok, lines: list[str], mode: str) -> tuple[float, int]:
    """(tokens per whitespace word, tokens starting with a UTF-8 continuation byte)."""
    ids, offsets = tok.encode_batch_flat(lines, mode=mode)
    first = np.array([b[0] if b else 0 for b in tok.model._id_to_bytes])      # first byte of each token
    mid = int(((first[ids] & 0xC0) == 0x80).sum())
    return int(offsets[-1]) / sum(len(line.split()) for line in lines), mid


def multibyte_characters(wc, at_least: int) -> list[str]:
    """Characters of >= 2 UTF-8 bytes occurring >= ``at_least`` times in the counted words."""
    seen: Counter = Counter()
    for w, c in wc.items():
        for ch in w:
            seen[ch] += c
    return sorted(ch for ch, c in seen.items() if c >= at_least and len(ch.encode("utf-8")) >= 2)


def train(wc, total: int, pre: ByteLevel, pin_at_least: int):
    pins = multibyte_characters(wc, pin_at_least) if pin_at_least else []
    return GreedTokTrainer(k=total - 256, pre_tokenizer=pre, pinned_tokens=pins, show_progress=False).train_from_counts(wc)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--totals", type=int, nargs="+", default=[4000, 8000, 16000])
    p.add_argument("--splits", nargs="+", default=list(SPLITS), help="the first is the anchor")
    p.add_argument("--mode", choices=["cover", "optimal"], default="optimal")
    p.add_argument("--pin-characters", type=int, default=0, metavar="N",
                   help="pin every multi-byte character seen N times or more (default: none)")
    args = p.parse_args()
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}\n")
    rows = parallel_rows()
    indic_train = [s for lang in INDIC for s in rows[lang][0::2]]
    indic_eval = {lang: rows[lang][1::2] for lang in INDIC}
    evals = {"hi_devdas (Hindi)": lines_of("hi_devdas.txt"), **{f"{lang} (odd rows)": v for lang, v in indic_eval.items()}}
    en_evals = {"en_python_docs": lines_of("en_python_docs.txt", 40000),
                "en_shakespeare_milton": lines_of("en_shakespeare_milton.txt", 40000)}
    for total in args.totals:
        results = {}
        for split in args.splits:
            pre = ByteLevel(split)
            wc = count_corpus([str(CORPORA / "hi_news_wordcounts.tsv")], pre, None, counts=True)
            wc.update(count_words(indic_train, pre, None, show_progress=False))
            tok = train(wc, total, pre, args.pin_characters)
            en = train(count_corpus([str(CORPORA / "en_brown.txt")], pre, None, num_proc=1, show_progress=False),
                       total, pre, args.pin_characters)
            results[split] = {**{name: scores(tok, lines, args.mode) for name, lines in evals.items()},
                              **{name: scores(en, lines, args.mode) for name, lines in en_evals.items()}}
        anchor, others = args.splits[0], args.splits[1:]
        pinned = f", multi-byte characters seen >= {args.pin_characters} times pinned" if args.pin_characters else ""
        print(f"\n### total vocabulary {total:,} (byte-level GreedTok, {args.mode}{pinned}): fertility, and against "
              f"{anchor}\n")
        print("| evaluation text (unseen) | " + " | ".join(args.splits) + " | mid-character tokens "
              + " / ".join(args.splits) + " |")
        print("|---|" + "---:|" * (len(args.splits) + 1))
        for name in results[anchor]:
            f0 = results[anchor][name][0]
            cells = [f"{f0:.3f}"] + [f"{results[s][name][0]:.3f} ({100 * (results[s][name][0] / f0 - 1):+.1f}%)"
                                     for s in others]
            print(f"| {name} | " + " | ".join(cells) + " | "
                  + " / ".join(f"{results[s][name][1]:,}" for s in args.splits) + " |")


if __name__ == "__main__":
    main()
