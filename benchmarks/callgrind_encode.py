"""Instructions per byte of the warm native batch encode, counted by valgrind's callgrind.

Counts do not depend on the machine's load (a timed benchmark on a shared 2-core machine
does), so this is how changes to the hot loop are compared: the same build, input and
environment give the same count. One run encodes the first ``--lines`` lines of a corpus
with ``encode_texts`` once (cold) and another ``1 + --warm`` times; the difference over the
extra passes, divided by their bytes, is the warm cost of one byte. The vocabulary is
cl100k_base with its own split (GPT-4 pattern); ``PYTHONHASHSEED=0`` keeps the Python side
identical between the two runs, and ``OPENBLAS_NUM_THREADS=1`` keeps numpy's BLAS thread out
(callgrind counts every thread, and that one spins for as long as the timing lets it).

    python benchmarks/callgrind_encode.py                     # en_brown.txt, en_python_docs.txt
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from common import CORPORA

VOCAB = CORPORA.parent / "vocab" / "cl100k_base.tiktoken"
DRIVER = """
import sys
from hf_greedtok import Tokenizer
path, n_lines, passes, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lines = open(path, encoding="utf-8").read().splitlines()[:n_lines]
tok = Tokenizer.from_tiktoken(sys.argv[5])
for _ in range(passes):
    tok.model.encode_texts(lines, tok._native_pattern, mode, 1)
"""


def instructions(path: Path, lines: int, passes: int, mode: str) -> int:
    """Instructions (callgrind's Ir) of one driver run."""
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          "-c", DRIVER, str(path), str(lines), str(passes), mode, str(VOCAB)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}, check=True)
    return int(re.search(r"I\s+refs:\s+([\d,]+)", out.stderr).group(1).replace(",", ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpora", nargs="+", default=["en_brown.txt", "en_python_docs.txt"])
    p.add_argument("--lines", type=int, default=20000)
    p.add_argument("--warm", type=int, default=2, help="warm passes counted")
    p.add_argument("--mode", default="cover", choices=["cover", "optimal"])
    args = p.parse_args()
    print("| corpus | bytes | warm instructions per byte |")
    print("|---|---|---|")
    for name in args.corpora:
        path = CORPORA / name
        text = path.read_text(encoding="utf-8").splitlines()[:args.lines]
        size = sum(len(line.encode("utf-8")) for line in text)
        cold = instructions(path, args.lines, 1, args.mode)
        warm = instructions(path, args.lines, 1 + args.warm, args.mode)
        print(f"| {name} | {size:,} | {(warm - cold) / args.warm / size:.1f} |")


if __name__ == "__main__":
    main()
