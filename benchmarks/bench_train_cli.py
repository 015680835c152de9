"""End-to-end training (issue 13): ``hf-greedtok train TABLE --counts --no-prefix-space
--vocab-size 5000 --max-token-length 16`` against greedtok 0.14.1 doing the same work in a
script (``reference_worker.py train-tsv``: read the table, train, write the ranked tokens).

Each side runs as a fresh process timed from the outside: wall time from spawn to exit
(interpreter start, imports, reading, training, writing, teardown) and the child's peak RSS
from ``os.wait4`` (``ru_maxrss``, which covers any children it waited for). Runs alternate
between the two sides after one untimed warm-up each (page cache, .pyc files); the median of
--repeat runs is reported. Goals: reference / ours wall >= 6x, ours / reference peak RSS
<= 0.6, identical objective (the same per-step gains; the ranked token lists are compared too,
and where they differ the script says whether only the order within equal-gain ties does).
The ``hf-greedtok`` measured is the one installed next to the Python running this script.

Both sides read the same words: the reference takes each table word's UTF-8 bytes whole, which
equals our ``--counts --no-prefix-space`` reading when our pre-tokenizer splits no word; this
script checks that before timing anything.

    python benchmarks/bench_train_cli.py [--repeat 5] [--k 5000] [--max-token-length 16] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CORPORA, REFERENCE_PYTHON, REPO, machine, reference_available

GOAL_SPEEDUP = 6.0      # reference wall / ours
GOAL_RSS_RATIO = 0.6    # ours peak RSS / reference
REF_PARTS = ("import_s", "read_s", "setup_s", "solve_s", "write_s", "free_s")   # reference_worker train-tsv


def timed_run(argv: list[str], cwd: str, env: dict | None = None) -> dict:
    """Wall seconds and peak RSS (MB) of one process run to its exit, with its stdout text."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)   # already reaped: keep Popen from waiting
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} ... exited {proc.returncode}:\n{stderr[-3000:]}")
    return {"wall_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024, "user_s": usage.ru_utime,
            "sys_s": usage.ru_stime, "stdout": stdout}


def ours_argv(cli: str, table: str, k: int, max_len: int, out: Path) -> list[str]:
    return [cli, "train", table, "--counts", "--no-prefix-space", "--vocab-size", str(k),
            "--max-token-length", str(max_len), "-o", str(out), "--quiet"]


def reference_argv(table: str, k: int, max_len: int, out: Path) -> list[str]:
    return [str(REFERENCE_PYTHON), str(REPO / "benchmarks" / "reference_worker.py"), "train-tsv", table,
            "--k", str(k), "--max-token-length", str(max_len), "--output", str(out)]


def read_ours(folder: Path) -> tuple[list[bytes], list[int]]:
    """Ranked tokens (bytes) and per-step gains of a folder ``hf-greedtok train`` wrote."""
    from hf_greedtok import ByteLevel
    model = json.loads((folder / "greedtok.json").read_text(encoding="utf-8"))["model"]
    return [ByteLevel.str_to_token(t) for t in model["ranked_tokens"]], [int(g) for g in model["gains"]]


def read_reference(path: Path) -> tuple[list[bytes], list[int]]:
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    return [bytes.fromhex(t) for t, _ in rows], [int(g) for _, g in rows]


def check_same_words(table: str) -> int:
    """The number of distinct words; raises SystemExit unless our reading of the table equals
    the reference script's (each word's UTF-8 bytes, whole)."""
    from hf_greedtok import ByteLevel, read_count_tables
    ours = read_count_tables([table], ByteLevel(), prefix_space=False)
    if reference_available():
        from reference_worker import read_tsv_counts
        ref = read_tsv_counts(table)
        if {w.encode(): c for w, c in ours.items()} != ref:
            raise SystemExit(f"bench_train_cli: {table}: our pre-tokenizer splits some words; the reference "
                             "script would train on other words")
    return len(ours)


def ties_only(a_tok: list[bytes], a_gain: list[int], b_tok: list[bytes], b_gain: list[int]) -> bool:
    """True when two runs have the same gains and their rankings differ only in the order of
    tokens within runs of consecutive steps of equal gain (tie-breaking)."""
    if a_gain != b_gain or len(a_tok) != len(b_tok):
        return False
    start = 0
    for i in range(1, len(a_gain) + 1):
        if i == len(a_gain) or a_gain[i] != a_gain[start]:
            if set(a_tok[start:i]) != set(b_tok[start:i]):
                return False
            start = i
    return True


def summary_seconds(stdout: str) -> tuple[float, float]:
    """(train, setup) seconds from the CLI's summary line ("trained in X s (setup Y s)")."""
    m = re.search(r"trained in ([0-9.]+) s \(setup ([0-9.]+) s\)", stdout)
    return (float(m.group(1)), float(m.group(2))) if m else (float("nan"), float("nan"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="timed runs per side; the median is reported")
    p.add_argument("--k", type=int, default=5000)
    p.add_argument("--max-token-length", type=int, default=16)
    p.add_argument("--table", default=str(CORPORA / "en_wiki2012_wordcounts.tsv"))
    p.add_argument("--json", action="store_true", help="also print one JSON object")
    args = p.parse_args()
    cli = shutil.which("hf-greedtok", path=os.path.dirname(sys.executable)) or shutil.which("hf-greedtok")
    if cli is None:
        raise SystemExit("bench_train_cli: no hf-greedtok command next to this Python or on PATH")
    table = str(Path(args.table).resolve())
    n_words = check_same_words(table)
    have_ref = reference_available()
    if not have_ref:
        print(f"reference greedtok 0.14.1 not found at {REFERENCE_PYTHON}: set GREEDTOK_REF_PYTHON "
              "(benchmarks/README.md); timing ours only", file=sys.stderr)
    ref_env = {"LD_LIBRARY_PATH": str(REFERENCE_PYTHON.parent.parent / "lib")}
    runs: dict[str, list[dict]] = {"hf-greedtok": [], "greedtok 0.14.1": []}
    outputs: dict[str, list] = {"hf-greedtok": [], "greedtok 0.14.1": []}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat + 1):           # run 0 is the untimed warm-up
            out = Path(tmp) / f"ours{i}"
            r = timed_run(ours_argv(cli, table, args.k, args.max_token_length, out), tmp)
            r["train_s"], r["setup_s"] = summary_seconds(r["stdout"])
            outputs["hf-greedtok"].append(read_ours(out))
            shutil.rmtree(out)
            if i:
                runs["hf-greedtok"].append(r)
            if have_ref:
                out = Path(tmp) / f"ref{i}.tsv"
                r = timed_run(reference_argv(table, args.k, args.max_token_length, out), tmp, ref_env)
                r.update(json.loads(r["stdout"].strip().splitlines()[-1]))
                outputs["greedtok 0.14.1"].append(read_reference(out))
                out.unlink()
                if i:
                    runs["greedtok 0.14.1"].append(r)
    load = os.getloadavg()

    med = {name: {key: statistics.median(r[key] for r in rs) for key in ("wall_s", "peak_rss_mb", "user_s")}
           for name, rs in runs.items() if rs}
    print(f"# End-to-end train: {Path(table).name}, {n_words:,} distinct words, k={args.k}, max token length "
          f"{args.max_token_length}, --counts --no-prefix-space\n# {machine()}\n# {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {args.repeat} runs after 1 warm-up")
    print("| implementation | median wall s | all runs s | median user+sys CPU s | peak RSS MB (median; max) |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        if rs:
            cpu = statistics.median(r["user_s"] + r["sys_s"] for r in rs)
            all_runs = ", ".join(f"{r['wall_s']:.2f}" for r in rs)
            print(f"| {name} | {med[name]['wall_s']:.2f} | {all_runs} | "
                  f"{cpu:.2f} | {med[name]['peak_rss_mb']:.0f}; {max(r['peak_rss_mb'] for r in rs):.0f} |")
    ours = runs["hf-greedtok"]
    print(f"\nours, inside the process (median): trainer {statistics.median(r['train_s'] for r in ours):.2f} s "
          f"(setup {statistics.median(r['setup_s'] for r in ours):.2f} s); everything else (interpreter, imports, "
          f"reading, writing the folder, exit) "
          f"{statistics.median(r['wall_s'] - r['train_s'] for r in ours):.2f} s")
    result: dict = {"machine": machine(), "load_average": load, "load_average_before": load_before,
                    "repeat": args.repeat, "table": table, "k": args.k, "max_token_length": args.max_token_length,
                    "runs": {name: [{k: v for k, v in r.items() if k != "stdout"} for r in rs]
                             for name, rs in runs.items()}, "median": med}
    consistent = all(o == outputs["hf-greedtok"][0] for o in outputs["hf-greedtok"])
    if not runs["greedtok 0.14.1"]:
        print(f"ours identical over all runs: {consistent}")
    else:
        ref = runs["greedtok 0.14.1"]
        print("reference, inside the process (median): "
              + ", ".join(f"{key[:-2]} {statistics.median(r[key] for r in ref):.2f} s"
                          for key in REF_PARTS)
              + f"; everything else (interpreter, argparse, exit) "
              f"{statistics.median(r['wall_s'] - sum(r[key] for key in REF_PARTS) for r in ref):.2f} s")
        speedup = med["greedtok 0.14.1"]["wall_s"] / med["hf-greedtok"]["wall_s"]
        rss_ratio = med["hf-greedtok"]["peak_rss_mb"] / med["greedtok 0.14.1"]["peak_rss_mb"]
        (o_tok, o_gain), (r_tok, r_gain) = outputs["hf-greedtok"][0], outputs["greedtok 0.14.1"][0]
        consistent = consistent and all(o == outputs["greedtok 0.14.1"][0] for o in outputs["greedtok 0.14.1"])
        same_steps = sum(a == b for a, b in zip(o_gain, r_gain))
        moved = sum(a != b for a, b in zip(o_tok, r_tok)) + abs(len(o_tok) - len(r_tok))
        ties = ties_only(o_tok, o_gain, r_tok, r_gain)
        objective_equal = sum(o_gain) == sum(r_gain)
        print(f"speed-up (reference / ours, median wall): {speedup:.2f}x  (goal >= {GOAL_SPEEDUP:g}x: "
              f"{'met' if speedup >= GOAL_SPEEDUP else 'NOT met'})")
        print(f"peak RSS ratio (ours / reference, medians): {rss_ratio:.2f}  (goal <= {GOAL_RSS_RATIO:g}: "
              f"{'met' if rss_ratio <= GOAL_RSS_RATIO else 'NOT met'})")
        print(f"objective (tokens saved, sum of gains): ours {sum(o_gain):,}, reference {sum(r_gain):,}, "
              f"{'equal' if objective_equal else f'differ by {sum(o_gain) - sum(r_gain):+,}'}; per-step gains "
              f"equal at {same_steps} of {max(len(o_gain), len(r_gain))} steps; ranked token lists identical: "
              f"{o_tok == r_tok} ({moved} positions differ, all within equal-gain ties: {ties}); same token "
              f"set: {set(o_tok) == set(r_tok)}; every run's output identical to its first: {consistent}")
        result.update(speedup=speedup, rss_ratio=rss_ratio, objective={"ours": sum(o_gain), "reference": sum(r_gain)},
                      equal_steps=same_steps, same_ranked_tokens=o_tok == r_tok,
                      positions_differing=moved, differ_only_in_ties=ties,
                      goals={"speedup": GOAL_SPEEDUP, "rss_ratio": GOAL_RSS_RATIO})
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
