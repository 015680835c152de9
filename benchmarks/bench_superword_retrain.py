"""Retraining a superword tokenizer (issue 40 items 1 and 2): what a user gets from
``GreedTokTokenizerFast.train_new_from_iterator`` on a superword folder and from
``GreedTokSuperwordTrainer.continue_training``, against training the superword trainer directly.

1. Retraining: a superword folder trained on en_brown is retrained on en_shakespeare_milton +
   en_python_docs (every 10th line held out) at ``--total`` ids by ``train_new_from_iterator``
   (now: the superword trainer with the folder's curriculum), by what it ran before issue 40
   (plain GreedTok on the chunks, frequency floor 1), and by the superword trainer directly.
   Tokens on the held-out lines and on the other-domain texts of ``other_domains.py`` (when
   built), relative to the direct run.
2. continue_training: English + Hindi (en_brown, hi_devdas; every 10th line held out), k
   ``--first`` then ``--second``: ``continue_training`` now, the old resume (stage 2 continued
   with the pins chosen for the first k), and training to the second k directly; ranks that
   agree with the direct run, held-out tokens per language, seconds.

    python benchmarks/bench_superword_retrain.py
"""
from __future__ import annotations

import argparse
import time

from common import CORPORA, machine
from other_domains import CACHE, NAMES

from hf_greedtok import ByteLevel, GreedTokTokenizerFast, GreedTokTrainer
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer


def split_lines(name: str, limit: int = 0) -> tuple[list[str], list[str]]:
    lines = (CORPORA / name).read_text(encoding="utf-8").splitlines()
    lines = lines[:limit] if limit else lines
    return [x for i, x in enumerate(lines) if i % 10], lines[::10]


def tokens(tok, lines: list[str]) -> int:
    return sum(map(len, tok.encode_batch(lines, mode="optimal")))


def other_domains() -> dict[str, list[str]]:
    return {name: (CACHE / f"{name}.txt").read_text(encoding="utf-8").splitlines()
            for name in NAMES if (CACHE / f"{name}.txt").is_file()}


def retraining(total: int) -> None:
    old_text, _ = split_lines("en_brown.txt")
    train, held = [], {}
    for name in ("en_shakespeare_milton.txt", "en_python_docs.txt"):
        t, h = split_lines(name)
        train += t
        held[f"held-out {name}"] = h
    held.update(other_domains())
    k = total - 256
    first = GreedTokSuperwordTrainer(k=k, show_progress=False).train_from_iterator(old_text)
    fast = GreedTokTokenizerFast.from_greedtok(first, mode="optimal")
    runs, seconds = {}, {}
    makers = {
        "train_new_from_iterator": lambda: fast.train_new_from_iterator(train, total).greedtok,
        "before issue 40 (GreedTok on chunks)": lambda: GreedTokTrainer(
            k=k, pre_tokenizer=ByteLevel("superwords"), show_progress=False).train_from_iterator(train),
        "superword trainer, directly": lambda: GreedTokSuperwordTrainer(k=k, show_progress=False).train_from_iterator(
            train),
    }
    for label, make in makers.items():
        started = time.perf_counter()
        runs[label] = make()
        seconds[label] = time.perf_counter() - started
    direct = runs["superword trainer, directly"]
    base = {name: tokens(direct, lines) for name, lines in held.items()}
    print(f"\n## 1. train_new_from_iterator on a superword folder, total {total:,} ids\n")
    print("| run | same ranking as direct | tokens ending in a space | " + " | ".join(held) + " | seconds |")
    print("|---|---|---:|" + "---:|" * len(held) + "---:|")
    for label, tok in runs.items():
        same = list(tok.model.ranked_tokens) == list(direct.model.ranked_tokens)
        spaces = sum(t.endswith(b" ") for t in tok.model.ranked_tokens)
        cells = " | ".join(f"{tokens(tok, lines) / base[name] - 1:+.1%}" for name, lines in held.items())
        print(f"| {label} | {same} | {spaces} | {cells} | {seconds[label]:.1f} |")


def continuing(first_k: int, second_k: int) -> None:
    train, held = [], {}
    for name in ("en_brown.txt", "hi_devdas.txt"):
        t, h = split_lines(name, 20_000)
        train += t
        held[name] = h
    rows = []
    trainer = GreedTokSuperwordTrainer(k=first_k, show_progress=False)
    trainer.train_from_iterator(train)
    started = time.perf_counter()
    now = trainer.continue_training(second_k)
    rows.append(("continue_training (now)", now, time.perf_counter() - started))
    old = GreedTokSuperwordTrainer(k=first_k, show_progress=False)
    old.train_from_iterator(train)
    started = time.perf_counter()
    resumed = GreedTokTrainer.continue_training(old, second_k)     # stage 2 resumed, the old pins kept
    rows.append(("stage 2 resumed (before issue 40)", resumed, time.perf_counter() - started))
    started = time.perf_counter()
    direct = GreedTokSuperwordTrainer(k=second_k, show_progress=False).train_from_iterator(train)
    rows.append(("trained to the second k directly", direct, time.perf_counter() - started))
    print(f"\n## 2. continue_training {first_k:,} -> {second_k:,}, English + Hindi\n")
    print("| run | first ranks equal to direct | " + " | ".join(f"held-out {n}" for n in held) + " | seconds |")
    print("|---|---:|" + "---:|" * len(held) + "---:|")
    base = {name: tokens(direct, lines) for name, lines in held.items()}
    ranked = list(direct.model.ranked_tokens)
    for label, tok, seconds in rows:
        mine = list(tok.model.ranked_tokens)
        agree = next((i for i, (a, b) in enumerate(zip(mine, ranked)) if a != b), min(len(mine), len(ranked)))
        cells = " | ".join(f"{tokens(tok, lines) / base[name] - 1:+.2%}" for name, lines in held.items())
        print(f"| {label} | {agree:,} of {len(ranked):,} | {cells} | {seconds:.1f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--total", type=int, default=8192, help="total ids of the retraining (default %(default)s)")
    p.add_argument("--first", type=int, default=1000)
    p.add_argument("--second", type=int, default=2000)
    args = p.parse_args()
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    retraining(args.total)
    continuing(args.first, args.second)


if __name__ == "__main__":
    main()
