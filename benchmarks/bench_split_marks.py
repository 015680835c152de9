"""Byte-level splits and combining marks (issue 19 item 2): gpt4 against o200k, held out.

GPT-4's split (cl100k) matches letters with ``\\p{L}``, which leaves out combining marks
(``\\p{M}``): it cuts a Devanagari word at every vowel sign and virama. o200k's letter classes
include ``\\p{M}``. Both are native splits here (``train --pattern gpt4|o200k``).

Protocol: byte-level GreedTok at total vocabularies --totals, trained once per split on

* Indic: ``hi_news_wordcounts.tsv`` (Hindi word counts) plus the even rows of each Indic language
  of ``multi_isocodes_parallel.tsv`` (Bengali, Tamil, Kannada, Punjabi, Gujarati, Odia,
  Malayalam, Telugu, Assamese), evaluated on ``hi_devdas.txt`` (Hindi running text, unseen) and
  on the odd rows of each language (unseen);
* English: ``en_brown.txt``, evaluated on ``en_python_docs.txt`` and
  ``en_shakespeare_milton.txt`` (unseen), to check that nothing is lost there.

Reported per evaluation text: fertility (tokens per whitespace-separated word, cover encoding),
and tokens that start inside a character (a UTF-8 continuation byte: a character cut in two).

    python benchmarks/bench_split_marks.py [--totals 4000 8000 16000]
"""
from __future__ import annotations

import argparse
import csv
import os
import time

import numpy as np
from common import CORPORA, machine

from hf_greedtok import GreedTokTrainer
from hf_greedtok.pre_tokenizers import ByteLevel
from hf_greedtok.word_counts import count_corpus, count_words

INDIC = ("bn", "ta", "kn", "pa", "gu", "or", "ml", "te", "as")
SPLITS = ("gpt4", "o200k")


def parallel_rows() -> dict[str, list[str]]:
    with open(CORPORA / "multi_isocodes_parallel.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    return {lang: [r[3] for r in rows if r[0] == lang] for lang in INDIC}


def lines_of(name: str, limit: int = 0) -> list[str]:
    lines = [line for line in (CORPORA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[:limit] if limit else lines


def scores(tok, lines: list[str]) -> tuple[float, int]:
    """(tokens per whitespace word, tokens starting with a UTF-8 continuation byte)."""
    ids, offsets = tok.encode_batch_flat(lines, mode="cover")
    first = np.array([b[0] if b else 0 for b in tok.model._id_to_bytes])      # first byte of each token
    mid = int(((first[ids] & 0xC0) == 0x80).sum())
    return int(offsets[-1]) / sum(len(line.split()) for line in lines), mid


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--totals", type=int, nargs="+", default=[4000, 8000, 16000])
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
        for split in SPLITS:
            pre = ByteLevel(split)
            wc = count_corpus([str(CORPORA / "hi_news_wordcounts.tsv")], pre, None, counts=True)
            wc.update(count_words(indic_train, pre, None, show_progress=False))
            tok = GreedTokTrainer(total - 256, pre_tokenizer=pre, show_progress=False).train_from_counts(wc)
            en = GreedTokTrainer(total - 256, pre_tokenizer=pre, show_progress=False).train_from_counts(
                count_corpus([str(CORPORA / "en_brown.txt")], pre, None, num_proc=1, show_progress=False))
            results[split] = {**{name: scores(tok, lines) for name, lines in evals.items()},
                              **{name: scores(en, lines) for name, lines in en_evals.items()}}
        print(f"\n### total vocabulary {total:,} (byte-level GreedTok, cover)\n")
        print("| evaluation text (unseen) | fertility gpt4 | fertility o200k | o200k vs gpt4 | mid-character tokens gpt4 | o200k |")
        print("|---|---:|---:|---:|---:|---:|")
        for name in results["gpt4"]:
            (f4, m4), (fo, mo) = results["gpt4"][name], results["o200k"][name]
            print(f"| {name} | {f4:.3f} | {fo:.3f} | {100 * (fo / f4 - 1):+.2f}% | {m4:,} | {mo:,} |")


if __name__ == "__main__":
    main()
