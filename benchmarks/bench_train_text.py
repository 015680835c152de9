"""Training on raw text, hf-greedtok vs HF ``tokenizers``' BpeTrainer (issue 15 item 5).

Both train on the same text files at the same total vocabulary (default 32,768 ids: 256 bytes
plus learned tokens / merges, no special tokens), with the same GPT-4 split and byte-level
singletons, 2 threads each (our counting processes and trainer threads; BpeTrainer's Rayon pool
via RAYON_NUM_THREADS), and a fresh process per run, so each peak RSS (``os.wait4``'s
``ru_maxrss``) is that trainer's own. Rows: the mix of every running-text corpus of
../shared/corpora (43 MB) and each corpus alone. Wall time is measured inside the worker from
before counting to the trained model (imports and interpreter start excluded on both sides);
ours is split into counting, setup (candidates, occurrence lists, initial scores) and solve.

The two read the text differently in one detail: HF's ``train`` splits files into lines
itself, we count from the whole file; the words differ only where a split would cross a line.

    python benchmarks/bench_train_text.py [--total-vocab-size 32768] [--threads 2] [--quick] [--json]

``--quick`` (about a minute): the first 1 MB of each corpus and a total vocabulary of 8,192.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CORPORA, TEXT_CORPORA, machine
N_BYTES = 256


def worker_ours(files: list[str], total_vocab: int, threads: int, max_len: int) -> dict:
    from hf_greedtok import GreedTokTrainer
    from hf_greedtok.word_counts import count_corpus
    trainer = GreedTokTrainer(k=total_vocab - N_BYTES, max_token_length=max_len, show_progress=False,
                              num_threads=threads)
    started = time.perf_counter()
    wc = count_corpus(files, *trainer.counting_pipeline(), num_proc=threads, show_progress=False)
    counted = time.perf_counter()
    tok = trainer.train_from_counts(wc)
    done = time.perf_counter()
    info, took, core = tok.training_info, trainer.timings, trainer.core
    return {"wall_s": done - started, "count_s": counted - started, "setup_s": took["setup_seconds"],
            "solve_s": took["train_seconds"] - took["setup_seconds"], "distinct_words": info["distinct_words"],
            "candidates": info["candidates"], "occurrences": info["occurrences"], "vocab": tok.vocab_size,
            "native_mb": core.memory_bytes() / 2**20, "objective": info["objective_tokens"],
            # candidates on demand (absent before it): builds, and candidates / occurrences over all builds
            "builds": getattr(core, "n_builds", 1),
            "candidates_built": getattr(core, "n_candidates_built", info["candidates"]),
            "occurrences_built": getattr(core, "n_occurrences_built", info["occurrences"])}


def worker_bpe(files: list[str], total_vocab: int, threads: int, max_len: int) -> dict:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from hf_greedtok import ByteLevel
    from hf_greedtok.hf.pipeline import standard_pre_tokenizer
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(ByteLevel())     # the split and bytes we count with
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=total_vocab, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    started = time.perf_counter()
    bpe.train(files, trainer=trainer)
    return {"wall_s": time.perf_counter() - started, "vocab": bpe.get_vocab_size()}


def run_worker(kind: str, files: list[str], args: argparse.Namespace) -> dict:
    """One worker process; its JSON result plus its peak RSS (MB) from os.wait4."""
    argv = [sys.executable, __file__, "--worker", kind, "--total-vocab-size", str(args.total_vocab_size),
            "--threads", str(args.threads), "--max-token-length", str(args.max_token_length), *files]
    env = {**os.environ, "RAYON_NUM_THREADS": str(args.threads), "TOKENIZERS_PARALLELISM": "true"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise RuntimeError(f"{kind} worker on {files[0]}... exited {proc.returncode}:\n{err.read()[-3000:]}")
        result = json.loads(out.read().strip().splitlines()[-1])
    return {**result, "peak_rss_mb": usage.ru_maxrss / 1024}


def quick_slices(tmp: Path, megabytes: float) -> list[Path]:
    """The first `megabytes` of each corpus, cut at a line end (a multi-byte character is never cut)."""
    out = []
    for name in TEXT_CORPORA:
        data = (CORPORA / name).read_bytes()[:int(megabytes * 1e6)]
        data = data[:data.rfind(b"\n") + 1]
        (tmp / name).write_bytes(data)
        out.append(tmp / name)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--total-vocab-size", type=int, default=32768)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-token-length", type=int, default=None, help="ours (default: the package default)")
    p.add_argument("--quick", action="store_true", help="1 MB of each corpus, total vocabulary 8192")
    p.add_argument("--only", action="append", help="rows to run: 'mix' or a corpus file name (repeatable)")
    p.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    p.add_argument("--worker", choices=("ours", "bpe"), help=argparse.SUPPRESS)
    p.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.max_token_length is None:
        from hf_greedtok.defaults import DEFAULT_MAX_TOKEN_LENGTH
        args.max_token_length = DEFAULT_MAX_TOKEN_LENGTH
    if args.worker:
        work = worker_ours if args.worker == "ours" else worker_bpe
        print(json.dumps(work(args.files, args.total_vocab_size, args.threads, args.max_token_length)))
        return
    if args.quick and args.total_vocab_size == 32768:
        args.total_vocab_size = 8192
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = quick_slices(Path(tmp), 1.0) if args.quick else [CORPORA / n for n in TEXT_CORPORA]
        sets = [("mix", paths)] + [(path.name, [path]) for path in paths]
        for name, files in sets:
            if args.only and name not in args.only:
                continue
            mb = sum(f.stat().st_size for f in files) / 1e6
            bpe = run_worker("bpe", [str(f) for f in files], args)
            ours = run_worker("ours", [str(f) for f in files], args)
            rows.append({"corpus": name, "mb": mb, "bpe": bpe, "ours": ours})
            print(f"{name}: ours {ours['wall_s']:.2f} s, {ours['peak_rss_mb']:.0f} MB; "
                  f"BpeTrainer {bpe['wall_s']:.2f} s, {bpe['peak_rss_mb']:.0f} MB", file=sys.stderr)
    load = os.getloadavg()
    print(f"# Training on raw text vs HF BpeTrainer: total vocabulary {args.total_vocab_size}, {args.threads} "
          f"threads each, our max token length {args.max_token_length}{', --quick (1 MB per corpus)' if args.quick else ''}"
          f"\n# {machine()}\n# {time.strftime('%Y-%m-%d %H:%M %Z')}; load average before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load)}")
    print("| corpus | MB | distinct words | BpeTrainer s | ours s (count + setup + solve) | time ours / BPE "
          "| BPE peak RSS MB | ours peak RSS MB | RSS ours / BPE | candidates built (first build) | occurrences built "
          "| builds |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        o, b = r["ours"], r["bpe"]
        print(f"| {r['corpus']} | {r['mb']:.1f} | {o['distinct_words']:,} | {b['wall_s']:.2f} | {o['wall_s']:.2f} "
              f"({o['count_s']:.2f} + {o['setup_s']:.2f} + {o['solve_s']:.2f}) | {o['wall_s'] / b['wall_s']:.2f} "
              f"| {b['peak_rss_mb']:.0f} | {o['peak_rss_mb']:.0f} | {o['peak_rss_mb'] / b['peak_rss_mb']:.2f} "
              f"| {o['candidates_built']:,} ({o['candidates']:,}) | {o['occurrences_built']:,} | {o['builds']} |")
    print("\nGoals on the mix (issue 15): time ours / BPE <= 1, RSS ours / BPE <= 1.5.")
    if args.json:
        print(json.dumps({"machine": machine(), "load_average_before": load_before, "load_average": load,
                          "total_vocab_size": args.total_vocab_size, "threads": args.threads,
                          "max_token_length": args.max_token_length, "quick": args.quick, "rows": rows}))


if __name__ == "__main__":
    main()
