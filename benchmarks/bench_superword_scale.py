"""Superword training at corpus scale (issue 41): time and peak memory of whole ``hf-greedtok train``
processes against the size of the text, superwords and word level side by side.

Each run is a fresh process, ``hf-greedtok train FILE --total-vocab-size 32768 --quiet`` (with
``--superwords`` for the superword rows; every other option at its default), on the first N MB
of the scale corpus (``scale_corpus.py``: seeded English text whose chunk statistics match real
text's; generated on first use). Wall time runs from spawn to exit; peak RSS is the child's ``ru_maxrss`` from
``os.wait4``, the largest of the process and the workers it waited for, as ``/usr/bin/time``
reports it. The machine's load average is printed before each run: two cores, so a run beside
another job is not comparable.

Held out: each saved folder (its default encoder, optimal) encodes the four English texts of
other domains of ``other_domains.py`` (gcide, linux_docs, fortunes, debian_handbook: 6.8 MB the
generator never saw); the tokens are printed beside the time, and for each size relative to the
same kind trained on the smallest size (the issue's goal: 1 GB no worse than 25 MB of it).

``--real``: the same on real English instead, prefixes of the 50 MB Debian reference of
``scale_corpus.py`` (dict-gcide, the Linux docs, fortunes, debian-handbook), superwords at each
``--budgets`` (MB; 0: every chunk, exact), held out on every 5th line of the three shared English
corpora (Brown, Shakespeare and Milton, the Python docs: never trained on here); ``--reference-file``
trains on prefixes of another file instead (the large reference, ``scale_corpus.py
--reference-large``), and ``--budgets default`` passes no ``--chunk-budget-mb``. ``--heldout FOLDER...``
only counts the held-out tokens of saved folders (for trainings run by hand), both kinds: ``--real``'s
and the four other domains. The generated
corpus is for time and memory: its phrases are a Markov chain's, and trained on more of it the
exact trainer takes more held-out tokens (benchmarks/RESULTS.md, "Superwords at corpus scale").

The table goes to stdout (markdown, for benchmarks/RESULTS.md) and ``--plot`` draws seconds and GB
against MB for both kinds (matplotlib, the ``plot`` extra).

    python benchmarks/bench_superword_scale.py --mb 25 100 250 1000 --plot benchmarks/superword_scale.png
    python benchmarks/bench_superword_scale.py --real --mb 12.5 25 50 --budgets 5 20 0
    python benchmarks/bench_superword_scale.py --real --mb 25 250 --budgets default \
        --reference-file benchmarks/.cache/scale/reference_english_large.txt
    python benchmarks/bench_superword_scale.py --heldout FOLDER...
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from bench_train_cli import timed_run
from common import machine
from other_domains import texts
from scale_corpus import build_reference, corpus, reference_path

HERE = Path(__file__).resolve().parent
KINDS = {"superwords": ["--superwords"], "word level": []}
GOALS = {"superwords": (300.0, 4.0), "word level": (120.0, 3.0)}    # at 1,000 MB: seconds, GB


def heldout_tokens(folder: Path, held_out: dict[str, list[str]]) -> int:
    """Tokens the saved folder (its own encoder) gives the held-out texts, all lines together."""
    from hf_greedtok import Tokenizer
    tok = Tokenizer.load(folder)
    return sum(len(ids) for lines in held_out.values() for ids in tok.encode_batch(lines))


def other_domain_texts() -> dict[str, list[str]]:
    """The held-out text of the generated corpus: the four English texts of other domains, their lines."""
    return {name: path.read_text(encoding="utf-8").splitlines(keepends=True) for name, path in texts().items()}


def train_once(cli: str, path: Path, flags: list[str], total: int, held_out: dict[str, list[str]]) -> dict:
    """One whole training process: its wall seconds, peak RSS (MB), chunk sample and held-out tokens."""
    out = Path(tempfile.mkdtemp(prefix="scale-")) / "tok"
    try:
        run = timed_run([cli, "train", str(path), "--total-vocab-size", str(total), *flags, "-o", str(out), "--quiet"],
                        cwd=str(HERE))
        info = json.loads((out / "greedtok.json").read_text(encoding="utf-8"))["training"]
        tokens = heldout_tokens(out, held_out)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    sample = (info.get("curriculum") or {}).get("chunk_sample") or {}
    return {"wall_s": run["wall_s"], "peak_rss_mb": run["peak_rss_mb"], "rate": sample.get("rate"),
            "distinct_mb": sample.get("distinct_mb"), "heldout_tokens": tokens}


def real_prefix(mb: float, folder: Path, source: Optional[Path] = None) -> Path:
    """The first ``mb`` MB of ``source`` (default: the real reference, built if missing), cut at a
    line end, written into ``folder`` (``source`` itself if it is no longer)."""
    if source is None:
        source = reference_path()
        if not source.is_file():
            build_reference()
    data = source.read_bytes()
    if mb * 1e6 >= len(data):
        return source
    path = folder / f"real_{mb:g}MB.txt"
    path.write_bytes(data[:data.rindex(b"\n", 0, int(mb * 1e6)) + 1])
    return path


def real_held_out() -> dict[str, list[str]]:
    """The held-out text of ``--real``: every 5th line of the three shared English corpora."""
    from common import CORPORA
    return {name: (CORPORA / name).read_text(encoding="utf-8").splitlines(keepends=True)[::5]
            for name in ("en_brown.txt", "en_shakespeare_milton.txt", "en_python_docs.txt")}


def real(args: argparse.Namespace, cli: str) -> None:
    """Superwords on prefixes of real English at each budget, held out on the shared English corpora."""
    held_out = real_held_out()
    print("| MB of real text | chunk budget MB | wall s | peak RSS MB | chunk sample (rate, distinct chunks) "
          "| held-out tokens | load before |")
    print("|---:|---:|---:|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="real-") as tmp:
        for mb in args.mb:
            path = real_prefix(mb, Path(tmp), args.reference_file)
            for budget in args.budgets:
                load = os.getloadavg()[0]
                flags = [] if budget is None else ["--chunk-budget-mb", str(budget or 10**6)]
                got = train_once(cli, path, ["--superwords", *flags], args.total, held_out)
                sample = f"m = {got['rate']:.2f} of {got['distinct_mb']:,.1f} MB" if got["rate"] else ""
                label = "default" if budget is None else budget or "all (exact)"
                print(f"| {mb:g} | {label} | {got['wall_s']:.1f} | {got['peak_rss_mb']:,.0f} | "
                      f"{sample} | {got['heldout_tokens']:,} | {load:.2f} |", flush=True)


def plot(rows: list[dict], path: Path) -> None:
    from hf_greedtok.experiments.plots import _pyplot
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        mb = [r["mb"] for r in mine]
        left.plot(mb, [r["wall_s"] for r in mine], marker="o", label=kind)
        right.plot(mb, [r["peak_rss_mb"] / 1024 for r in mine], marker="o", label=kind)
    for ax, unit in ((left, "wall seconds"), (right, "peak RSS, GB")):
        ax.set_xlabel("MB of training text")
        ax.set_ylabel(unit)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("hf-greedtok train --total-vocab-size 32768 (whole processes)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=float, nargs="+", default=[25, 100, 250, 1000])
    p.add_argument("--real", action="store_true", help="real English from Debian packages, at --budgets")
    p.add_argument("--budgets", type=lambda v: None if v == "default" else float(v), nargs="+", default=[5, 20, 0],
                   help="with --real: chunk budgets in MB (0: every chunk; default: no --chunk-budget-mb)")
    p.add_argument("--reference-file", type=Path,
                   help="with --real: train on prefixes of this file instead of the 50 MB reference")
    p.add_argument("--heldout", type=Path, nargs="+", metavar="FOLDER",
                   help="only print the --real held-out tokens of these saved folders")
    p.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    p.add_argument("--total", type=int, default=32768)
    p.add_argument("--plot", type=Path, help="write the seconds and GB plot here (PNG)")
    args = p.parse_args()
    if args.heldout:
        held_out, other = real_held_out(), other_domain_texts()
        for folder in args.heldout:
            print(f"{heldout_tokens(folder, held_out):,} held-out tokens (--real's), "
                  f"{heldout_tokens(folder, other):,} on the four other domains  {folder}", flush=True)
        return
    cli = shutil.which("hf-greedtok", path=str(Path(sys.executable).parent)) or "hf-greedtok"
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if args.real:
        real(args, cli)
        return
    held_out = other_domain_texts()
    print("| MB | kind | wall s | peak RSS MB | s per MB | chunk sample (rate, distinct chunks) | held-out tokens "
          "| vs smallest | load before |")
    print("|---:|---|---:|---:|---:|---|---:|---:|---:|")
    rows = []
    first: dict[str, int] = {}
    for mb in args.mb:
        mb = int(mb)
        path = corpus(mb)      # generated first if missing (about 2 minutes a GB)
        for kind in args.kinds:
            load = os.getloadavg()[0]
            got = train_once(cli, path, KINDS[kind], args.total, held_out)
            got.update(mb=mb, kind=kind, load=load)
            rows.append(got)
            first.setdefault(kind, got["heldout_tokens"])
            sample = f"m = {got['rate']:.2f} of {got['distinct_mb']:,.0f} MB" if got["rate"] else ""
            print(f"| {mb:,} | {kind} | {got['wall_s']:.1f} | {got['peak_rss_mb']:,.0f} | "
                  f"{got['wall_s'] / mb:.2f} | {sample} | {got['heldout_tokens']:,} | "
                  f"{100 * (got['heldout_tokens'] / first[kind] - 1):+.2f}% | {load:.2f} |", flush=True)
    for kind in args.kinds:
        mine = {r["mb"]: r for r in rows if r["kind"] == kind}
        if 1000 in mine:
            seconds, gb = GOALS[kind]
            r = mine[1000]
            print(f"{kind} at 1,000 MB: {r['wall_s']:.0f} s (goal <= {seconds:.0f}), "
                  f"{r['peak_rss_mb'] / 1024:.2f} GB (goal <= {gb:.0f})")
        if 250 in mine and 1000 in mine:
            print(f"{kind}: peak RSS 250 -> 1,000 MB x{mine[1000]['peak_rss_mb'] / mine[250]['peak_rss_mb']:.2f} "
                  f"(goal <= 1.5), time x{mine[1000]['wall_s'] / mine[250]['wall_s']:.2f} (linear: 4)")
    if args.plot:
        plot(rows, args.plot)
        print(f"plot: {args.plot}")
    print(json.dumps({"machine": machine(), "rows": rows}))


if __name__ == "__main__":
    main()
