"""Maximum token length: compression against training time (issue 15 item 4).

GreedTok trained on the first 90% of each running-text corpus of ../shared/corpora (the mix,
cut at a line end), total vocabulary 32,768, 2 threads, for several ``max_token_length`` values,
each in a fresh process (peak RSS is that run's). Compression is measured in sample (the
trainer's objective: tokens of the training words, count-weighted) and out of sample (the last
10% of each corpus, encoded with ``cover``), as bytes of UTF-8 text per token.

    python benchmarks/bench_max_len.py [--lengths 8 12 16 24 32] [--total-vocab-size 32768]
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


def split(tmp: Path, share: float) -> tuple[list[Path], list[Path]]:
    """Each corpus cut at the line end nearest before `share` of its bytes: (train, held out)."""
    train, held = [], []
    for name in TEXT_CORPORA:
        data = (CORPORA / name).read_bytes()
        cut = data.rfind(b"\n", 0, int(len(data) * share)) + 1
        (tmp / f"train_{name}").write_bytes(data[:cut])
        (tmp / f"held_{name}").write_bytes(data[cut:])
        train.append(tmp / f"train_{name}")
        held.append(tmp / f"held_{name}")
    return train, held


def worker(max_len: int, total_vocab: int, threads: int, train: list[str], held: list[str]) -> dict:
    from hf_greedtok import GreedTokTrainer
    from hf_greedtok.word_counts import count_corpus
    trainer = GreedTokTrainer(k=total_vocab - N_BYTES, max_token_length=max_len, show_progress=False,
                              num_threads=threads)
    wc = count_corpus(train, *trainer.counting_pipeline(), num_proc=threads, show_progress=False)
    tok = trainer.train_from_counts(wc)
    took, info = trainer.timings, tok.training_info
    held_bytes = held_tokens = 0
    for path in held:
        lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
        ids, _ = tok.encode_batch_flat(lines, mode="cover", num_threads=threads)
        held_tokens += len(ids)
        held_bytes += sum(len(line.encode()) for line in lines)
    return {"setup_s": took["setup_seconds"], "solve_s": took["train_seconds"] - took["setup_seconds"],
            "train_bytes": info["singletons_in_corpus"], "train_tokens": info["objective_tokens"],
            "held_bytes": held_bytes, "held_tokens": held_tokens, "builds": trainer.core.n_builds,
            "candidates_built": trainer.core.n_candidates_built}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lengths", type=int, nargs="+", default=[8, 12, 16, 24, 32])
    p.add_argument("--total-vocab-size", type=int, default=32768)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        files = json.loads(Path(args.worker[1]).read_text())
        print(json.dumps(worker(int(args.worker[0]), args.total_vocab_size, args.threads, **files)))
        return
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        train, held = split(Path(tmp), 0.9)
        spec = Path(tmp) / "files.json"
        spec.write_text(json.dumps({"train": list(map(str, train)), "held": list(map(str, held))}))
        for max_len in args.lengths:
            argv = [sys.executable, __file__, "--worker", str(max_len), str(spec),
                    "--total-vocab-size", str(args.total_vocab_size), "--threads", str(args.threads)]
            with tempfile.TemporaryFile("w+") as out:
                proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, text=True)
                _, status, usage = os.wait4(proc.pid, 0)
                if os.waitstatus_to_exitcode(status):
                    raise RuntimeError(f"max length {max_len}: worker failed:\n{proc.stderr.read()[-3000:]}")
                out.seek(0)
                r = json.loads(out.read().strip().splitlines()[-1])
            rows.append({"max_len": max_len, "peak_rss_mb": usage.ru_maxrss / 1024, **r})
            print(f"max length {max_len}: {r['setup_s'] + r['solve_s']:.2f} s", file=sys.stderr)
    load = os.getloadavg()
    print(f"# GreedTok max token length: train on 90% of each running-text corpus, held out 10%, total "
          f"vocabulary {args.total_vocab_size}, {args.threads} threads\n# {machine()}\n# {time.strftime('%Y-%m-%d %H:%M %Z')}; "
          f"load average before {' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load)}")
    print("| max token length | setup s | solve s | peak RSS MB | builds | candidates built | bytes/token in sample "
          "| bytes/token held out |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['max_len']} | {r['setup_s']:.2f} | {r['solve_s']:.2f} | {r['peak_rss_mb']:.0f} | {r['builds']} "
              f"| {r['candidates_built']:,} | {r['train_bytes'] / r['train_tokens']:.4f} "
              f"| {r['held_bytes'] / r['held_tokens']:.4f} |")


if __name__ == "__main__":
    main()
