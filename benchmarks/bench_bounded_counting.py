"""Superword counting within a memory limit at 1 and 10 GB (issue 53): time and peak memory of whole
``hf-greedtok train --superwords`` and ``count --superwords`` processes, and whether the counts
spilled to disk change the tokenizer.

Each run is a fresh process (``bench_train_cli.timed_run``: wall from spawn to exit, peak RSS the
largest ``ru_maxrss`` of the process and the workers it waited for, as ``/usr/bin/time`` reports
it), every option at its default: ``train FILES --superwords --total-vocab-size 32768 --quiet``.
Inputs are the scale corpus (``scale_corpus.py``): 1 GB is ``english_1000MB.txt`` (seed 41), 10 GB
is ``english_5000MB.txt`` and ``english_5000MB_seed42.txt`` (two seeds, 5 GB each, given as two
inputs), generated first with ``scale_corpus.py --mb 1000 5000 --seed 41`` and ``--mb 5000 --seed 42``.
The machine's load average is printed before each run (two cores: a run beside another job is not
comparable), and the spill folder's largest size (TMPDIR, polled every second) as the disk cost.

``--reference FOLDER``: a folder trained on the 1 GB file by another build (e.g. before the counts
could spill: ``git worktree add /tmp/old f5b199e``, then its ``hf-greedtok train``); its
tokenizer.json, greedtok.json and tokenizer_config.json are compared byte for byte with this build's.

Goals (issue 53): 10 GB within 4 GB peak RSS and 900 s; the peak at 10 GB at most 1.3x the peak
at 1 GB; at 1 GB the same tokenizer as before; ``count --superwords`` on 10 GB within 4 GB.

    python benchmarks/bench_bounded_counting.py --sizes 1 10 --count --reference /work/scale/base1g
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_train_cli import timed_run
from common import machine
from scale_corpus import corpus_path

SIZES = {1: [corpus_path(1000, 41)], 10: [corpus_path(5000, 41), corpus_path(5000, 42)]}
FILES = ("tokenizer.json", "greedtok.json", "tokenizer_config.json")


def folder_bytes(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:     # a run file removed between the listing and the size
                pass
    return total


def watched(argv: list[str], cwd: str) -> dict:
    """:func:`timed_run` with TMPDIR set to a fresh folder whose largest size is recorded."""
    spill = Path(tempfile.mkdtemp(prefix="bench-spill-"))
    most = [0]
    done = threading.Event()

    def poll() -> None:
        while not done.wait(1.0):
            most[0] = max(most[0], folder_bytes(spill))

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    try:
        result = timed_run(argv, cwd, env={"TMPDIR": str(spill)})
    finally:
        done.set()
        watcher.join()
        shutil.rmtree(spill, ignore_errors=True)
    result["spill_gb"] = most[0] / 1e9
    return result


def differences(folder: Path, reference: Path) -> str:
    """What differs between two folders' greedtok.json: the model (vocabulary, ranks), and the
    keys of ``training`` (a newer build records more, e.g. the word stage's sample)."""
    ours, theirs = (json.loads((f / "greedtok.json").read_text(encoding="utf-8")) for f in (folder, reference))
    model = "same model" if ours["model"] == theirs["model"] else "models differ"
    info = ours.get("training", {})
    old = theirs.get("training", {})
    changed = sorted(k for k in set(info) | set(old) if info.get(k) != old.get(k))
    curriculum = sorted(k for k in set(info.get("curriculum", {})) ^ set(old.get("curriculum", {})))
    return f"greedtok.json: {model}, training info differing in {changed or 'nothing'} (curriculum keys " \
           f"only one side has: {curriculum or 'none'})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", choices=sorted(SIZES), default=[1, 10])
    p.add_argument("--count", action="store_true", help="also time count --superwords at each size")
    p.add_argument("--reference", type=Path, help="a folder trained on the 1 GB file by another build")
    p.add_argument("--keep", type=Path, help="save the trained folders here (default: a temporary folder)")
    args = p.parse_args()
    cli = shutil.which("hf-greedtok") or sys.exit("hf-greedtok is not on PATH")
    print(f"machine: {machine()}")
    work = Path(tempfile.mkdtemp(prefix="bench-bounded-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for gb in args.sizes:
        files = SIZES[gb]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            sys.exit(f"missing {', '.join(missing)}: generate them with scale_corpus.py (see --help)")
        out = work / f"superwords_{gb}gb"
        shutil.rmtree(out, ignore_errors=True)
        jobs = [("train", [cli, "train", *map(str, files), "--superwords", "--total-vocab-size", "32768",
                           "-o", str(out), "--quiet"])]
        if args.count:
            jobs.append(("count", [cli, "count", *map(str, files), "--superwords", "-o", str(work / f"{gb}gb.parquet"),
                                   "--overwrite", "--quiet"]))
        for what, argv in jobs:
            load = os.getloadavg()[0]
            r = watched(argv, str(work))
            rows.append((gb, what, r))
            print(f"{gb:>3} GB {what:5s}: {r['wall_s']:7.1f} s, peak RSS {r['peak_rss_mb'] / 1000:5.2f} GB, "
                  f"spill {r['spill_gb']:5.2f} GB on disk, user {r['user_s']:7.1f} s (load before {load:.2f}, "
                  f"after {os.getloadavg()[0]:.2f})", flush=True)
        if gb == 1 and args.reference is not None:
            same = [name for name in FILES if (out / name).read_bytes() == (args.reference / name).read_bytes()]
            print(f"  1 GB tokenizer vs {args.reference}: {len(same)} of {len(FILES)} files byte-identical "
                  f"({', '.join(same) or 'none'}); {differences(out, args.reference)}")
    peaks = {gb: r["peak_rss_mb"] for gb, what, r in rows if what == "train"}
    if 1 in peaks and 10 in peaks:
        print(f"peak at 10 GB / peak at 1 GB: {peaks[10] / peaks[1]:.2f}x (goal <= 1.3x)")
    for gb, what, r in rows:
        if gb == 10:
            ok = r["peak_rss_mb"] <= 4000 and (what == "count" or r["wall_s"] <= 900)
            print(f"10 GB {what}: {'meets' if ok else 'misses'} the goal (4 GB{', 900 s' if what == 'train' else ''})")


if __name__ == "__main__":
    main()
