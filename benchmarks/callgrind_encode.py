"""Instructions per byte of the warm native batch encode, counted by valgrind's callgrind; with
``--cache-sim``, cachegrind's simulated cache and branch predictor too: mispredicted branches and
first-level data cache misses per byte (issue 54 records them before and after a change).

Counts do not depend on the machine's load (a timed benchmark on a shared 2-core machine
does), so this is how changes to the hot loop are compared: the same build, input and
environment give the same count. One run encodes the input with ``encode_texts`` once (cold)
and another ``1 + --warm`` times; the difference over the extra passes, divided by their bytes,
is the warm cost of one byte. The input is the first ``--lines`` lines of each corpus as a batch,
or with ``--documents`` each of the four English texts of other domains (``other_domains.py``)
and Chinese reviews as one document. The vocabulary is cl100k_base with its own split (GPT-4
pattern); ``PYTHONHASHSEED=0`` keeps the Python side identical between the two runs, and
``OPENBLAS_NUM_THREADS=1`` keeps numpy's BLAS thread out (valgrind counts every thread, and that
one spins for as long as the timing lets it).

    python benchmarks/callgrind_encode.py                     # en_brown.txt, en_python_docs.txt
    python benchmarks/callgrind_encode.py --documents --cache-sim
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
text = open(path, encoding="utf-8").read()
texts = [text] if n_lines < 0 else text.splitlines()[:n_lines]
tok = Tokenizer.from_tiktoken(sys.argv[5])
for _ in range(passes):
    tok.model.encode_texts([(t + " ")[:-1] for t in texts], tok._native_pattern, mode, 1)
"""
# cachegrind's summary: the counts this benchmark reports
COUNTS = {"instructions": r"I\s+refs:\s+([\d,]+)", "mispredicted branches": r"Mispredicts:\s+([\d,]+)",
          "D1 misses": r"D1\s+misses:\s+([\d,]+)", "LL misses": r"LL misses:\s+([\d,]+)"}


def counts(path: Path, lines: int, passes: int, mode: str, cache_sim: bool) -> dict[str, int]:
    """The counts of one driver run (instructions only, unless ``cache_sim``)."""
    tool = ["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--cachegrind-out-file=/dev/null"] \
        if cache_sim else ["--tool=callgrind", "--callgrind-out-file=/dev/null"]
    out = subprocess.run(["valgrind", *tool, sys.executable, "-c", DRIVER, str(path), str(lines), str(passes), mode,
                          str(VOCAB)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}, check=True)
    found = {name: re.search(pattern, out.stderr) for name, pattern in COUNTS.items()}
    return {name: int(m.group(1).replace(",", "")) for name, m in found.items() if m}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpora", nargs="+", default=["en_brown.txt", "en_python_docs.txt"])
    p.add_argument("--lines", type=int, default=20000)
    p.add_argument("--documents", action="store_true",
                   help="the four English texts of other domains and zh_reviews.txt, each as one document")
    p.add_argument("--cache-sim", action="store_true", help="cachegrind: also mispredicts and cache misses")
    p.add_argument("--warm", type=int, default=2, help="warm passes counted")
    p.add_argument("--mode", default="cover", choices=["cover", "optimal"])
    args = p.parse_args()
    if args.documents:
        from other_domains import texts
        inputs = {**texts(), "zh_reviews": CORPORA / "zh_reviews.txt"}
        lines = -1
    else:
        inputs = {name: CORPORA / name for name in args.corpora}
        lines = args.lines
    names = ["instructions"] + (["mispredicted branches", "D1 misses", "LL misses"] if args.cache_sim else [])
    print("| input | bytes | " + " | ".join(f"warm {n} per byte" for n in names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for name, path in inputs.items():
        text = path.read_text(encoding="utf-8")
        size = len(text.encode("utf-8")) if lines < 0 else \
            sum(len(line.encode("utf-8")) for line in text.splitlines()[:lines])
        cold = counts(path, lines, 1, args.mode, args.cache_sim)
        warm = counts(path, lines, 1 + args.warm, args.mode, args.cache_sim)
        cells = [(warm[n] - cold[n]) / args.warm / size for n in names]
        print(f"| {name} | {size:,} | " + " | ".join(f"{c:.1f}" if c >= 1 else f"{c:.3f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
