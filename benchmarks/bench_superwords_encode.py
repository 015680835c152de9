"""Encoding speed of superword tokenizers (issues 31 and 42), on text never trained on.

Trains, on en_brown + en_shakespeare_milton + en_python_docs at a total vocabulary of 32,768: HF
BPE with the GPT-4 split (the anchor), word-level GreedTok (gpt4-marks) and superword GreedTok
(defaults). Then encodes the four other-domain texts of ``other_domains.py`` (6.8 MB) as lines
and prints MB/s (UTF-8 bytes of input per second) and the ratio to the anchor measured in the
same run:

* native: ``Tokenizer.encode_batch_flat`` (split and encode without the GIL), optimal, on one
  and two threads, two ways: "again", best of ``--repeat`` calls on the same lines (the word
  cache then holds every word it can: this is what re-encoding the same text costs), and "first
  pass", best of ``--repeat`` runs each by a tokenizer loaded afresh that meets every line once
  (what a stream of new text costs: its words and chunks are not in the cache yet);
* pure tokenizer.json: the optimal export (stock ``Split`` + ``ByteLevel`` + Unigram) run by
  ``tokenizers`` alone, ``encode_batch`` with RAYON_NUM_THREADS=1 (one thread, as the anchor);
* the anchor: HF BPE's ``encode_batch``, same settings.

The ids of the native and pure rows are checked equal, line for line.

``--stream FILE`` (default: the 359 MB of Debian English ``scale_corpus.py --reference-large``
builds, when it is there) adds a held-out stream: the first ``--stream-mb`` MB of it, each line
met once in batches of 20,000 lines by a tokenizer loaded afresh, one and two threads; and the
share of its bytes the word cache cannot answer (pieces longer than it keeps, or met for the
first time since it was last cleared, by the native cache's limits, ``_encoder.CACHE_LIMITS``:
1..1,024 bytes, cleared at 2**18 entries), the bytes that go through the trie walks of the
minimum-token DP.

    python benchmarks/bench_superwords_encode.py [--stream FILE] [--stream-mb 20]
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

from hf_greedtok import ByteLevel, GreedTokTrainer, Tokenizer, export_optimal_tokenizer_json  # noqa: E402
from hf_greedtok._encoder import CACHE_LIMITS  # noqa: E402
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer  # noqa: E402
from hf_greedtok.word_counts import count_words  # noqa: E402

STREAM = Path(__file__).resolve().parent / ".cache" / "scale" / "reference_english_large.txt"
BATCH = 20_000
CACHE_MAX_UNITS, CACHE_MAX_ENTRIES = CACHE_LIMITS["max_units"], CACHE_LIMITS["max_entries"]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def first_pass(folder: Path, batches: list[list[str]], threads: int, repeat: int) -> float:
    """Best of ``repeat`` times a tokenizer loaded from ``folder`` takes to meet every batch once
    (the load itself not timed)."""
    times = []
    for _ in range(repeat):
        tok = Tokenizer.load(folder)
        t0 = time.perf_counter()
        for batch in batches:
            tok.encode_batch_flat(batch, mode="optimal", num_threads=threads)
        times.append(time.perf_counter() - t0)
    return min(times)


def uncached_share(tok: Tokenizer, lines: list[str]) -> float:
    """The share of the lines' UTF-8 bytes in pieces (words, or superword chunks) the native word
    cache of one thread cannot answer, meeting the lines once in order."""
    cache: set[bytes] = set()
    missed = total = 0
    for line in lines:
        for piece in tok.pre_tokenize(line):
            key = piece.encode("utf-8")
            total += len(key)
            if len(key) == 1 or (len(key) <= CACHE_MAX_UNITS and key in cache):
                continue
            missed += len(key)
            if len(key) <= CACHE_MAX_UNITS:
                if len(cache) >= CACHE_MAX_ENTRIES:
                    cache.clear()
                cache.add(key)
    return missed / total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--total", type=int, default=32768)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--stream", type=Path, default=STREAM if STREAM.is_file() else None,
                   help="held-out text met once as a stream (default: the Debian English of scale_corpus.py, if built)")
    p.add_argument("--stream-mb", type=float, default=20.0, help="how much of --stream, in MB (default 20)")
    args = p.parse_args()
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.2f}")
    train = [line for name in TRAIN for line in lines_of(CORPORA / name)]
    lines = [line for path in texts().values() for line in lines_of(path)]
    mb = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    anchor = hf_bpe(train, args.total, "gpt4")
    words = GreedTokTrainer(k=args.total - 256, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False) \
        .train_from_counts(count_words(train, ByteLevel("gpt4-marks"), None, show_progress=False))
    supers = GreedTokSuperwordTrainer(k=args.total - 256, show_progress=False).train_from_iterator(train)
    kinds = (("word-level GreedTok", words), ("superword GreedTok", supers))
    batches = [lines[i:i + BATCH] for i in range(0, len(lines), BATCH)]
    r = args.repeat
    # each row: a function giving the row's seconds
    rows = {"HF BPE, GPT-4 split (tokenizers encode_batch)": lambda: best(lambda: anchor.encode_batch(lines), r)}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for name, tok in kinds:
            folders[name] = tok.save(Path(tmp) / name.split()[0])
            for threads in (1, 2):
                rows[f"{name}, native optimal, again, {threads} thread(s)"] = lambda tok=tok, t=threads: best(
                    lambda: tok.encode_batch_flat(lines, mode="optimal", num_threads=t), r)
                rows[f"{name}, native optimal, first pass, {threads} thread(s)"] = \
                    lambda folder=folders[name], t=threads: first_pass(folder, batches, t, r)
            path = export_optimal_tokenizer_json(tok, Path(tmp) / f"{name.split()[0]}.json")
            pure = HFTokenizer.from_file(str(path))
            rows[f"{name}, pure tokenizer.json"] = lambda b=pure: best(lambda: b.encode_batch(lines), r)
            native = [ids.tolist() for ids in tok.encode_batch(lines, mode="optimal")]
            assert [e.ids for e in pure.encode_batch(lines)] == native, name
        print(f"\n{len(lines):,} lines, {mb:.2f} MB; best of {args.repeat}\n")
        print("| encoder | s | MB/s | time / HF BPE's |")
        print("|---|---:|---:|---:|")
        base = None
        for label, seconds in rows.items():
            s = seconds()
            base = base or s
            print(f"| {label} | {s:.3f} | {mb / s:.1f} | {s / base:.2f}x |", flush=True)
        if args.stream is not None:
            stream(args, folders, kinds)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def stream(args: argparse.Namespace, folders: dict[str, Path], kinds) -> None:
    with open(args.stream, encoding="utf-8", errors="replace") as f:
        text = f.read(int(args.stream_mb * 1e6))
    lines = text.splitlines(keepends=True)
    mb = len(text.encode("utf-8")) / 1e6
    batches = [lines[i:i + BATCH] for i in range(0, len(lines), BATCH)]
    print(f"\nStream: the first {mb:.1f} MB of {args.stream.name}, {len(lines):,} lines met once, "
          f"batches of {BATCH:,}; best of {min(args.repeat, 3)}\n")
    print("| tokenizer | bytes the cache cannot answer | 1 thread MB/s | 2 threads MB/s | 2 / 1 |")
    print("|---|---:|---:|---:|---:|")
    for name, tok in kinds:
        one, two = (mb / first_pass(folders[name], batches, t, min(args.repeat, 3)) for t in (1, 2))
        print(f"| {name} | {uncached_share(tok, lines):.3f} | {one:.1f} | {two:.1f} | {two / one:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
