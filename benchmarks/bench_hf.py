"""Throughput inside transformers: GreedTokTokenizerFast (cover), our exported optimal
tokenizer.json, and an HF BPE PreTrainedTokenizerFast of the same vocabulary size.

All three use the same pre-tokenization (GPT-4 regex split + byte level) and are trained on
the same text (the first ``--train-mb`` MB of the corpus). Throughput is ``tok(batch)`` over
batches of ``--batch`` lines of the first ``--encode-mb`` MB, one thread
(TOKENIZERS_PARALLELISM=false), best of ``--repeat`` passes, in MB of UTF-8 text per second.
Then ``Dataset.map(tok, batched=True)`` with num_proc 1 and 2 (cache disabled).

    python benchmarks/bench_hf.py                   # en_python_docs.txt and en_brown.txt
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["TOKENIZERS_PARALLELISM"] = "false"   # one thread, as the goal states

from common import CORPORA, machine  # noqa: E402
from tokenizers import decoders, models, pre_tokenizers, trainers  # noqa: E402
from tokenizers import Tokenizer as HFTokenizer  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Tokenizer, export_optimal_tokenizer_json  # noqa: E402
from hf_greedtok.hf.pipeline import standard_pre_tokenizer  # noqa: E402

SPECIALS = ["<|endoftext|>"]


def read_lines(path: Path, megabytes: float) -> list[str]:
    text = path.read_bytes()[:int(megabytes * 1e6)].decode("utf-8", errors="ignore")
    return [line for line in text.splitlines() if line.strip()]


def hf_bpe(lines: list[str], vocab_size: int, core: Tokenizer) -> PreTrainedTokenizerFast:
    """HF BPE with exactly the pre-tokenizer our backend uses for ``core``."""
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(core.pre_tokenizer)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(lines, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=SPECIALS[0])


def throughput(tok, batches: list[list[str]], megabytes: float, repeat: int) -> tuple[float, int]:
    tok(batches[0])                                   # warm-up (word caches, lazy setup)
    best = float("inf")
    tokens = 0
    for _ in range(repeat):
        started = time.perf_counter()
        tokens = sum(len(ids) for batch in batches for ids in tok(batch)["input_ids"])
        best = min(best, time.perf_counter() - started)
    return megabytes / best, tokens


def map_seconds(tok, lines: list[str], num_proc: int) -> float:
    import datasets
    datasets.disable_progress_bars()
    ds = datasets.Dataset.from_dict({"text": lines})
    started = time.perf_counter()
    ds.map(lambda b: tok(b["text"]), batched=True, num_proc=num_proc if num_proc > 1 else None,
           load_from_cache_file=False, remove_columns=["text"])
    return time.perf_counter() - started


def bench(name: str, args) -> None:
    path = CORPORA / name
    train_lines = read_lines(path, args.train_mb)
    lines = read_lines(path, args.encode_mb)
    megabytes = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    batches = [lines[i:i + args.batch] for i in range(0, len(lines), args.batch)]

    core = GreedTokTrainer(args.vocab_size - 256 - len(SPECIALS), special_tokens=SPECIALS,
                           show_progress=False).train_from_iterator(train_lines)
    cover = GreedTokTokenizerFast.from_greedtok(core, mode="cover", eos_token=SPECIALS[0])
    with tempfile.TemporaryDirectory() as tmp:
        optimal = PreTrainedTokenizerFast(
            tokenizer_file=str(export_optimal_tokenizer_json(core, Path(tmp) / "tokenizer.json")),
            eos_token=SPECIALS[0])
    bpe = hf_bpe(train_lines, args.vocab_size, core)
    assert len(cover) == len(optimal) == len(bpe) == args.vocab_size, (len(cover), len(optimal), len(bpe))

    print(f"\n### {name}: {megabytes:.2f} MB, {len(lines):,} lines in batches of {args.batch}; "
          f"trained on {args.train_mb} MB; vocab size {args.vocab_size} for all three\n")
    print("| tokenizer | MB/s (best of %d) | tokens | ratio to HF BPE |" % args.repeat)
    print("|---|---|---|---|")
    rows = {}
    for label, tok in (("HF BPE (PreTrainedTokenizerFast)", bpe), ("GreedTokTokenizerFast, cover", cover),
                       ("exported optimal tokenizer.json (PreTrainedTokenizerFast)", optimal)):
        rows[label] = throughput(tok, batches, megabytes, args.repeat)
    anchor = rows["HF BPE (PreTrainedTokenizerFast)"][0]
    for label, (mbs, tokens) in rows.items():
        print(f"| {label} | {mbs:.3f} | {tokens:,} | {mbs / anchor:.2f}x |")

    print("\n| Dataset.map(tok, batched=True) | num_proc=1 s | num_proc=2 s | speed-up |")
    print("|---|---|---|---|")
    for label, tok in (("HF BPE", bpe), ("GreedTok cover", cover), ("exported optimal", optimal)):
        one, two = map_seconds(tok, lines, 1), map_seconds(tok, lines, 2)
        print(f"| {label} | {one:.2f} | {two:.2f} | {one / two:.2f}x |")
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpora", nargs="+", default=["en_python_docs.txt", "en_brown.txt"])
    p.add_argument("--vocab-size", type=int, default=8192)
    p.add_argument("--train-mb", type=float, default=3.0)
    p.add_argument("--encode-mb", type=float, default=3.0)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    print(f"machine: {machine()}; TOKENIZERS_PARALLELISM=false")
    for name in args.corpora:
        bench(name, args)


if __name__ == "__main__":
    main()
