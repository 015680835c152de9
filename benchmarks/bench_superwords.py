"""Superword GreedTok against its peers, in and out of sample (issue 31).

Protocol: train on en_brown + en_shakespeare_milton + en_python_docs (23.5 MB) without every
10th line; count tokens on a sample of the training lines (every 50th: in sample), on the
held-out lines (same domains, unseen) and on the four English texts of other domains of
``other_domains.py`` (gcide, linux_docs, fortunes, debian_handbook: never trained on). Every peer
is trained in the same run on the same lines at the same total vocabulary (every id); "train s"
is its training time alone (counting included), with what else runs on the machine. Cells are
total tokens relative to the anchor, HF ``tokenizers`` BPE with the GPT-4 split (negative: fewer
tokens); "mean other" is the mean over the four other-domain texts, the issue's goal metric.

Rows:
* HF BPE, GPT-4 split (the anchor);
* HF BPE on the superword chunks from scratch (t = 0): the same trainer, the chunk split
  (``ByteLevel("superwords")``) as its pre-tokenizer;
* SuperBPE-style BPE (Liu et al. 2025): stage 1 GPT-4-split BPE to t merges, stage 2 resumed on
  SuperBPE's own chunks (:mod:`hf_greedtok.experiments.superbpe`), at each ``--superbpe-t``;
* GreedTok, word level (gpt4-marks, optimal encoder);
* GreedTok superwords (:class:`~hf_greedtok.trainers.superwords.GreedTokSuperwordTrainer`,
  optimal encoder) with each ``--variants`` setting (JSON keyword arguments; ``{}`` = defaults).

Every row's round trip is checked on every line it encodes (a failure is printed). Time and peak
RSS of each training are printed with the rows (one process: peak RSS only grows, so it is the
run's peak so far).

    python benchmarks/other_domains.py        # once: builds the four texts from Debian packages
    python benchmarks/bench_superwords.py --totals 32768
    python benchmarks/bench_superwords.py --totals 4096 32768 65536 --variants '[{}, {"word_tokens": 0}]'
    python benchmarks/bench_superwords.py --multilingual --totals 32768
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

from common import CORPORA, machine  # noqa: E402
from other_domains import texts  # noqa: E402
from tokenizers import Tokenizer as HFTokenizer  # noqa: E402
from tokenizers import decoders, models, pre_tokenizers, trainers  # noqa: E402

from hf_greedtok import ByteLevel, GreedTokTrainer  # noqa: E402
from hf_greedtok.experiments.peers import GreedTokPeer, HFPeer  # noqa: E402
from hf_greedtok.hf.pipeline import standard_pre_tokenizer  # noqa: E402
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer  # noqa: E402
from hf_greedtok.word_counts import count_words  # noqa: E402

TRAIN = ("en_brown.txt", "en_shakespeare_milton.txt", "en_python_docs.txt")


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def hf_bpe(train: list[str], total: int, pattern: str) -> HFTokenizer:
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(ByteLevel(pattern))
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(train, trainers.BpeTrainer(vocab_size=total, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return bpe


def timed(fn):
    """(fn(), its wall seconds)."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def measure(peer, evals: dict[str, list[str]]) -> dict[str, int]:
    """Tokens per eval text; prints the texts whose lines do not all round-trip."""
    out = {}
    for name, lines in evals.items():
        counts, ok = peer.measure(lines)
        out[name] = int(counts.sum())
        if not ok.all():
            print(f"    ROUND TRIP FAILED: {peer.name} on {name}: {int((~ok).sum())} lines")
    return out


def row(label: str, counts: dict[str, int], base: dict[str, int], seconds: float, others: list[str]) -> dict:
    rel = {k: 100 * (counts[k] / base[k] - 1) for k in counts}
    mean_other = statistics.mean(rel[k] for k in others)
    print(f"| {label} | " + " | ".join(f"{rel[k]:+.2f}%" for k in counts) + f" | **{mean_other:+.2f}%** | "
          f"{seconds:.1f} | {peak_mb():,} |", flush=True)
    return {"row": label, "relative_percent": rel, "mean_other": mean_other, "tokens": counts, "seconds": seconds}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--totals", type=int, nargs="+", default=[32768])
    p.add_argument("--variants", default="[{}]", help="JSON list of GreedTokSuperwordTrainer keyword arguments")
    p.add_argument("--superbpe-t", type=float, nargs="*", default=[0.5, 0.75],
                   help="SuperBPE-style rows: transition points as fractions of the total (none: no such row)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--chunks", default="superwords", choices=["superwords", "superwords-digits"],
                   help="the split of the HF-BPE-on-the-chunks peer (superwords-digits: the chunks of "
                        "GreedTokSuperwordTrainer(digits_in_chunks=True))")
    p.add_argument("--multilingual", action="store_true",
                   help="instead: train on the shared multilingual mix (every running-text corpus) and compare "
                        "superword with word-level GreedTok on unseen Japanese, Korean, Chinese and Hindi text")
    args = p.parse_args()
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}")
    if args.multilingual:
        multilingual(args)
        return
    corpus = [line for name in TRAIN for line in lines_of(CORPORA / name)]
    train = [line for i, line in enumerate(corpus) if i % 10]
    evals = {"in sample": train[::50], "held-out lines": corpus[::10]}
    others = {name: lines_of(path) for name, path in texts().items()}
    evals.update(others)
    results = []
    for total in args.totals:
        anchor, seconds = timed(lambda: HFPeer("HF BPE", "BpeTrainer", hf_bpe(train, total, "gpt4"), "GPT-4 split"))
        base = measure(anchor, evals)
        print(f"\n### total vocabulary {total:,}; HF BPE (GPT-4 split) tokens: "
              + ", ".join(f"{k} {v:,}" for k, v in base.items()) + "\n")
        print("| tokenizer | " + " | ".join(evals) + " | mean other | train s | peak RSS MB |")
        print("|---|" + "---:|" * (len(evals) + 3))
        results.append(row("HF BPE, GPT-4 split", base, base, seconds, list(others)))
        peer, seconds = timed(lambda: HFPeer("HF BPE chunks", "BpeTrainer", hf_bpe(train, total, args.chunks),
                                             "superword chunks"))
        results.append(row(f"HF BPE on the {args.chunks} chunks (t = 0)", measure(peer, evals), base, seconds,
                           list(others)))
        for share in args.superbpe_t:
            from hf_greedtok.experiments.superbpe import train_superbpe_style
            peer, seconds = timed(lambda: train_superbpe_style(train, total, int(share * total) - 256))
            results.append(row(f"SuperBPE-style BPE, t = {int(share * total):,}", measure(peer, evals), base,
                               seconds, list(others)))
        tok, seconds = timed(lambda: GreedTokTrainer(k=total - 256, pre_tokenizer=ByteLevel("gpt4-marks"),
                                                     show_progress=False, num_threads=args.threads).train_from_counts(
            count_words(train, ByteLevel("gpt4-marks"), None, show_progress=False)))
        results.append(row("GreedTok, word level (gpt4-marks)",
                           measure(GreedTokPeer("GreedTok", "GreedTok", tok, "optimal"), evals), base,
                           seconds, list(others)))
        for kw in json.loads(args.variants):
            tok, seconds = timed(lambda: GreedTokSuperwordTrainer(k=total - 256, show_progress=False,
                                                                  num_threads=args.threads, **kw
                                                                  ).train_from_iterator(train))
            label = f"GreedTok superwords {json.dumps(kw)} (t = {tok.training_info['curriculum']['word_tokens']:,})"
            results.append(row(label, measure(GreedTokPeer(label, "GreedTok", tok, "optimal"), evals), base,
                               seconds, list(others)))
    print(json.dumps({"machine": machine(), "results": results}))


def multilingual(args: argparse.Namespace) -> None:
    """The no-regression check outside English: both GreedToks trained on the mix (every 10th line
    held out) at each total; unseen text: the Japanese and Korean names of
    multi_isocodes_parallel.tsv (never trained on: the mix has no Japanese or Korean), and the
    held-out lines of zh_reviews and hi_devdas, and of en_brown for what the dominant script gains.
    Cells: superword tokens relative to word level."""
    from common import TEXT_CORPORA
    train, unseen = [], {}
    for name in TEXT_CORPORA:
        lines = lines_of(CORPORA / name)
        train += [line for i, line in enumerate(lines) if i % 10]
        if name.startswith(("zh_", "hi_", "en_brown")):
            unseen[name.split("_")[0] + " (held-out lines)"] = lines[::10]
    rows = [line.rstrip("\n").split("\t") for line in lines_of(CORPORA / "multi_isocodes_parallel.tsv")[1:]]
    for lang in ("ja", "ko"):
        unseen[f"{lang} (names)"] = [r[3] for r in rows if r[0] == lang]
    print("| total | tokenizer | " + " | ".join(unseen) + " | train s |")
    print("|---|---|" + "---:|" * (len(unseen) + 1))
    for total in args.totals:
        t0 = time.time()
        words = count_words(train, ByteLevel("gpt4-marks"), None, show_progress=False)
        word_tok = GreedTokTrainer(k=total - 256, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False,
                                   num_threads=args.threads).train_from_counts(words)
        seconds = time.time() - t0
        base = measure(GreedTokPeer("word level", "GreedTok", word_tok, "optimal"), unseen)
        print(f"| {total:,} | GreedTok, word level (tokens) | " + " | ".join(f"{v:,}" for v in base.values())
              + f" | {seconds:.0f} |", flush=True)
        for kw in json.loads(args.variants):
            sw, seconds = timed(lambda: GreedTokSuperwordTrainer(k=total - 256, show_progress=False,
                                                                 num_threads=args.threads, **kw).train_from_iterator(train))
            got = measure(GreedTokPeer("superwords", "GreedTok", sw, "optimal"), unseen)
            print(f"| {total:,} | GreedTok superwords {json.dumps(kw)} (vs word level) | "
                  + " | ".join(f"{100 * (got[k] / base[k] - 1):+.2f}%" for k in unseen) + f" | {seconds:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
