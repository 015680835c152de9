"""Every encoding number of issues 32 and 42 in one run, against the peers measured in the same run.

0. Every installed encoder side by side (bench_peers.py): gigatoken, tokie, fastokens,
   bpe-openai, tiktoken and HF tokenizers on cl100k, lines and whole documents (fresh str
   objects), 1 and 2 threads, ids checked equal to tiktoken's before timing.
1. The native path (bench_encode_text.py): the pre-tokenizer alone (GPT-4 split) and
   ``regex.findall``; encode (cover, optimal) on one thread and on every core; flat (numpy ids +
   offsets), list and Arrow outputs; tiktoken ``encode_ordinary`` as the anchor, and its ids
   compared with ours on every line.
2. Inside transformers (bench_hf.py): ``tok(batch)`` against HF BPE of the same size, on one
   thread and on every core.
3. ``Dataset.map`` (bench_hf.py) over the 43 MB mix, 1 and 2 processes: HF BPE, our
   ``tok(batch)``, the Arrow recipe of docs/transformers.md, and datasets alone (precomputed outputs).

Peers: tiktoken (section 1), HF ``tokenizers`` BPE (2, 3); tokensim when it is installed
(it was not installable here on 2026-11-26: no distribution on the index this machine reaches),
else a line says so. The machine and its load are printed before and after.

    python benchmarks/bench_encoding.py                    # all four (about 20 minutes)
    python benchmarks/bench_encoding.py --skip-map         # sections 0, 1 and 2
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time

import bench_encode_text
import bench_hf
from common import machine


def tokensim_line() -> str:
    """What this run says of tokensim, the peer the issue names."""
    if importlib.util.find_spec("tokensim") is None:
        return "tokensim: not installed (`pip install tokensim` finds no distribution here), so not measured"
    return "tokensim: installed, but its API is not wired into this benchmark yet; not measured"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bench_encode_text.add_arguments(p)
    p.add_argument("--skip-map", action="store_true", help="leave out section 3 (Dataset.map, the longest)")
    p.add_argument("--skip-peers", action="store_true", help="leave out section 0 (every peer, bench_peers.py)")
    p.add_argument("--map-repeat", type=int, default=3, help="Dataset.map runs per setting (fastest kept)")
    args = p.parse_args()
    load = os.getloadavg()
    print(f"# Encoding, every number of issue 32: {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(tokensim_line())

    if not args.skip_peers:
        print("\n## 0. Every installed encoder side by side (bench_peers.py)\n", flush=True)
        subprocess.run([sys.executable, "bench_peers.py", "--repeat", str(args.repeat)], check=True,
                       cwd=os.path.dirname(os.path.abspath(__file__)))

    print("\n## 1. The native path\n")
    bench_encode_text.native_table(args)
    sys.stdout.flush()

    hf = argparse.ArgumentParser()
    bench_hf.add_arguments(hf)
    common = ["--repeat", str(args.repeat), "--map-repeat", str(args.map_repeat)]
    print("\n## 2. tok(batch) inside transformers, against HF BPE\n")
    for name in ("en_brown.txt", "en_python_docs.txt"):
        bench_hf.bench(name, hf.parse_args(common + ["--calls", "tok(batch)", "--skip-map"]))
    if not args.skip_map:
        print("\n## 3. Dataset.map over the mix\n")
        bench_hf.bench("mix", hf.parse_args(common + ["--map-only"]))
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
