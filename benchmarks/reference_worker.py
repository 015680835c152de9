"""Benchmark worker for the GreedTok reference implementation (PyPI ``greedtok==0.14.1``).

This script runs *inside the reference virtualenv* (``/work/refvenv/bin/python``), not in
our package's environment: the reference ships only compiled pybind11 modules
(``pcatt.pco_tokenizer`` = trainer, ``pcatt.greedy_encoder`` = encoder) that need their own
build (pybind11 headers + oneTBB) and ``LD_LIBRARY_PATH=<venv>/lib`` at import time
(``libtbb.so.12`` has no RPATH). The caller sets ``LD_LIBRARY_PATH`` and runs this as a
subprocess; it prints exactly one JSON object on stdout.

Reference API used (pybind11 signatures of 0.14.1):
  * ``pco_tokenizer.build(word_counts, candidate_tokens, shortlist_size, verbose)``
    -> ``GreedyPCOTokenizer``; ``.initialize_graph(max_token_length, min_word_count)``
    (positional only; off by one: ``L + 1`` yields tokens of at most ``L`` bytes);
    ``.solve_to_step(k) -> (list[bytes] ranked tokens, list[int] per-step gains)``,
    both cumulative over all steps so far. ``candidate_tokens`` is ignored by the trainer.
  * ``greedy_encoder.build(rules, special_tokens) -> GreedyTokenizer``;
    ``.tokenize_presplit(words) -> list[int]`` (flat ids; id = rank - 1, then the 256
    single bytes not already present, in byte order).
  * Strings: every ``std::string`` argument is declared ``str`` but pybind11 also accepts
    ``bytes`` unchanged; ``str`` is UTF-8 encoded first. We always pass ``bytes`` so that
    non-UTF-8 words/tokens round-trip exactly (and no encoding cost is timed).
  * Both modules log to C++ ``std::cout`` regardless of ``verbose``; fd 1 is pointed at
    /dev/null during reference calls and the JSON is printed on the restored stdout.

Usage:
  reference_worker.py train --words WORDS.json --k K --max-token-length L [--min-word-count 1]
      WORDS.json: [[hex_word_bytes, count], ...]
  reference_worker.py encode --tokens TOKENS.json --words WORDS.json [--repeat 3]
      TOKENS.json: [hex_token, ...] in rank order; WORDS.json: [hex_word, ...]
  reference_worker.py train-tsv TABLE --k K --max-token-length L --output OUT [--min-word-count 1]
      end to end, as ``hf-greedtok train TABLE --counts --no-prefix-space`` (bench_train_cli.py):
      read the word<TAB>count table (each word's UTF-8 bytes, no prefix space; a word listed
      twice adds its counts), train, write OUT: ``hex_token<TAB>gain`` per line in rank order.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sys
import time
from collections.abc import Iterator

VERSION = "0.14.1"


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Send file descriptor 1 (C++ cout included) to /dev/null for the duration."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def cmd_train(args: argparse.Namespace) -> dict[str, object]:
    from pcatt import pco_tokenizer

    with open(args.words) as f:
        counts: dict[bytes, int] = {bytes.fromhex(h): int(c) for h, c in json.load(f)}
    with _quiet_stdout():
        t0 = time.perf_counter()
        trainer = pco_tokenizer.build(counts, set(), 100, False)
        trainer.initialize_graph(args.max_token_length + 1, args.min_word_count)
        t1 = time.perf_counter()
        tokens, gains = trainer.solve_to_step(args.k)
        t2 = time.perf_counter()
    return {
        "setup_s": t1 - t0,
        "solve_s": t2 - t1,
        "total_s": t2 - t0,
        "tokens": [t.hex() for t in tokens],
        "gains": [int(g) for g in gains],
        "peak_rss_mb": _peak_rss_mb(),
        "version": VERSION,
    }


def cmd_encode(args: argparse.Namespace) -> dict[str, object]:
    from pcatt import greedy_encoder

    with open(args.tokens) as f:
        ranked: list[bytes] = [bytes.fromhex(h) for h in json.load(f)]
    with open(args.words) as f:
        words: list[bytes] = [bytes.fromhex(h) for h in json.load(f)]
    best = float("inf")
    n_tokens = 0
    with _quiet_stdout():
        encoder = greedy_encoder.build(ranked, {})
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            ids = encoder.tokenize_presplit(words)
            best = min(best, time.perf_counter() - t0)
            n_tokens = len(ids)
    return {
        "words": len(words),
        "best_s": best,
        "words_per_s": len(words) / best if best > 0 else float("inf"),
        "n_tokens": n_tokens,
    }


def read_tsv_counts(path: str) -> dict[bytes, int]:
    """{UTF-8 bytes of the word: count} of a ``word<TAB>count`` table (blank lines skipped).

    The words are taken whole: equal to ``hf-greedtok train --counts --no-prefix-space``'s words
    only when none is split by its pre-tokenizer regex; bench_train_cli.py checks that."""
    counts: dict[bytes, int] = {}
    with open(path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\r\n")
            if not line:
                continue
            word, count = line.split(b"\t")
            counts[word] = counts.get(word, 0) + int(count)
    return counts


def cmd_train_tsv(args: argparse.Namespace) -> dict[str, object]:
    t0 = time.perf_counter()
    from pcatt import pco_tokenizer
    t1 = time.perf_counter()
    counts = read_tsv_counts(args.table)
    t2 = time.perf_counter()
    with _quiet_stdout():
        trainer = pco_tokenizer.build(counts, set(), 100, False)
        trainer.initialize_graph(args.max_token_length + 1, args.min_word_count)
        t3 = time.perf_counter()
        tokens, gains = trainer.solve_to_step(args.k)
        t4 = time.perf_counter()
    with open(args.output, "w") as f:
        f.writelines(f"{t.hex()}\t{int(g)}\n" for t, g in zip(tokens, gains))
    t5 = time.perf_counter()
    n_words = len(counts)
    del trainer, tokens, gains, counts       # what leaving the function does anyway, timed
    t6 = time.perf_counter()
    return {"import_s": t1 - t0, "read_s": t2 - t1, "setup_s": t3 - t2, "solve_s": t4 - t3,
            "write_s": t5 - t4, "free_s": t6 - t5, "words": n_words, "peak_rss_mb": _peak_rss_mb(),
            "version": VERSION}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    tr = sub.add_parser("train", help="train the reference GreedTok trainer")
    tr.add_argument("--words", required=True)
    tr.add_argument("--k", type=int, required=True)
    tr.add_argument("--max-token-length", type=int, required=True)
    tr.add_argument("--min-word-count", type=int, default=1)
    tr.set_defaults(func=cmd_train)
    en = sub.add_parser("encode", help="time the reference encoder's tokenize_presplit")
    en.add_argument("--tokens", required=True)
    en.add_argument("--words", required=True)
    en.add_argument("--repeat", type=int, default=3)
    en.set_defaults(func=cmd_encode)
    tt = sub.add_parser("train-tsv", help="read a word<TAB>count table, train, write the ranked tokens")
    tt.add_argument("table")
    tt.add_argument("--k", type=int, required=True)
    tt.add_argument("--max-token-length", type=int, required=True)
    tt.add_argument("--min-word-count", type=int, default=1)
    tt.add_argument("--output", required=True)
    tt.set_defaults(func=cmd_train_tsv)
    args = parser.parse_args(argv)
    print(json.dumps(args.func(args)))


if __name__ == "__main__":
    main()
