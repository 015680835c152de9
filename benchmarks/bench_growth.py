"""How training time and memory grow with the corpus (issue 15 item 5, growth table).

The mix of the running-text corpora of ../shared/corpora cut to the first 1/8, 1/4, 1/2 and
all of each corpus (at a line end), trained as ``bench_train_text.py`` trains one row (total
vocabulary 32,768, 2 threads, a fresh process per run); with ``--bpe`` HF BpeTrainer too.
The growth factors are against the smallest cut: linear growth keeps time / MB and RSS / MB
flat.

    python benchmarks/bench_growth.py [--fractions 0.125 0.25 0.5 1] [--bpe]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench_train_text import TEXT_CORPORA, run_worker
from common import CORPORA, machine


def cut(tmp: Path, fraction: float) -> list[Path]:
    out = []
    for name in TEXT_CORPORA:
        data = (CORPORA / name).read_bytes()
        if fraction < 1:
            data = data[:data.rfind(b"\n", 0, int(len(data) * fraction)) + 1]
        path = tmp / f"{fraction}_{name}"
        path.write_bytes(data)
        out.append(path)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fractions", type=float, nargs="+", default=[0.125, 0.25, 0.5, 1.0])
    p.add_argument("--total-vocab-size", type=int, default=32768)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-token-length", type=int, default=None)
    p.add_argument("--bpe", action="store_true", help="also HF BpeTrainer on each cut")
    args = p.parse_args()
    if args.max_token_length is None:
        from hf_greedtok.defaults import DEFAULT_MAX_TOKEN_LENGTH
        args.max_token_length = DEFAULT_MAX_TOKEN_LENGTH
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fraction in args.fractions:
            files = [str(f) for f in cut(Path(tmp), fraction)]
            mb = sum(os.path.getsize(f) for f in files) / 1e6
            ours = run_worker("ours", files, args)
            bpe = run_worker("bpe", files, args) if args.bpe else None
            rows.append((fraction, mb, ours, bpe))
    load = os.getloadavg()
    print(f"# Growth: the mix cut to fractions of each corpus, total vocabulary {args.total_vocab_size}, "
          f"{args.threads} threads, max token length {args.max_token_length}\n# {machine()}\n"
          f"# {time.strftime('%Y-%m-%d %H:%M %Z')}; load average before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load)}")
    print("| fraction | MB | distinct words | ours s (count + setup + solve) | s per MB | peak RSS MB | RSS MB per MB "
          "| candidates built | builds |" + (" BpeTrainer s | BPE peak RSS MB |" if args.bpe else ""))
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.bpe else ""))
    for fraction, mb, o, b in rows:
        line = (f"| {fraction:g} | {mb:.1f} | {o['distinct_words']:,} | {o['wall_s']:.2f} ({o['count_s']:.2f} + "
                f"{o['setup_s']:.2f} + {o['solve_s']:.2f}) | {o['wall_s'] / mb:.3f} | {o['peak_rss_mb']:.0f} | "
                f"{o['peak_rss_mb'] / mb:.1f} | {o['candidates_built']:,} | {o['builds']} |")
        if b:
            line += f" {b['wall_s']:.2f} | {b['peak_rss_mb']:.0f} |"
        print(line)


if __name__ == "__main__":
    main()
