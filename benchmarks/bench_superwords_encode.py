"""Encoding speed of superword tokenizers (issue 31 item 3), one thread, on text never trained on.

Trains, on en_brown + en_shakespeare_milton + en_python_docs at a total vocabulary of 32,768: HF
BPE with the GPT-4 split (the anchor), word-level GreedTok (gpt4-marks) and superword GreedTok
(defaults). Then encodes the four other-domain texts of ``other_domains.py`` (7.6 MB), each row
best of ``--repeat`` runs, and prints MB/s (UTF-8 bytes of input per second) and the ratio to the
anchor measured in the same run:

* native: ``Tokenizer.encode_batch_flat`` (split and encode without the GIL, one thread), optimal;
* pure tokenizer.json: the optimal export (stock ``Split`` + ``ByteLevel`` + Unigram) run by
  ``tokenizers`` alone, ``encode_batch`` with RAYON_NUM_THREADS=1 (one thread, as the anchor);
* the anchor: HF BPE's ``encode_batch``, same settings.

The ids of the native and pure rows are checked equal, line for line.

    python benchmarks/bench_superwords_encode.py
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

from bench_superwords import TRAIN, hf_bpe, lines_of  # noqa: E402
from common import CORPORA, machine  # noqa: E402
from other_domains import texts  # noqa: E402
from tokenizers import Tokenizer as HFTokenizer  # noqa: E402

from hf_greedtok import ByteLevel, GreedTokTrainer, export_optimal_tokenizer_json  # noqa: E402
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer  # noqa: E402
from hf_greedtok.word_counts import count_words  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--total", type=int, default=32768)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}")
    train = [line for name in TRAIN for line in lines_of(CORPORA / name)]
    lines = [line for path in texts().values() for line in lines_of(path)]
    mb = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    anchor = hf_bpe(train, args.total, "gpt4")
    words = GreedTokTrainer(args.total - 256, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False) \
        .train_from_counts(count_words(train, ByteLevel("gpt4-marks"), None, show_progress=False))
    supers = GreedTokSuperwordTrainer(args.total - 256, show_progress=False).train_from_iterator(train)
    rows = {"HF BPE, GPT-4 split (tokenizers encode_batch)": lambda: anchor.encode_batch(lines)}
    with tempfile.TemporaryDirectory() as tmp:
        pure = {}
        for name, tok in (("word-level GreedTok", words), ("superword GreedTok", supers)):
            rows[f"{name}, native optimal"] = lambda tok=tok: tok.encode_batch_flat(lines, mode="optimal")
            path = export_optimal_tokenizer_json(tok, Path(tmp) / f"{len(pure)}.json")
            pure[name] = HFTokenizer.from_file(str(path))
            rows[f"{name}, pure tokenizer.json"] = lambda b=pure[name]: b.encode_batch(lines)
            native = [ids.tolist() for ids in tok.encode_batch(lines, mode="optimal")]
            assert [e.ids for e in pure[name].encode_batch(lines)] == native, name
        print(f"\n{len(lines):,} lines, {mb:.2f} MB; one thread; best of {args.repeat}\n")
        print("| encoder | s | MB/s | time / HF BPE's |")
        print("|---|---:|---:|---:|")
        base = None
        for label, fn in rows.items():
            s = best(fn, args.repeat)
            base = base or s
            print(f"| {label} | {s:.3f} | {mb / s:.1f} | {s / base:.2f}x |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
