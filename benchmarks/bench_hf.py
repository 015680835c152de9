"""Throughput inside transformers (issue 14): GreedTokTokenizerFast (cover, native batch path and
backend path), our exported optimal tokenizer.json, and an HF BPE PreTrainedTokenizerFast of the
same vocabulary size; then ``Dataset.map`` with 1 and 2 processes.

All use the same pre-tokenization (GPT-4 regex split + byte level) and are trained on the same
text (the first ``--train-mb`` MB of the corpus). Throughput is MB of UTF-8 text per second over
batches of ``--batch`` lines of the first ``--encode-mb`` MB, median of ``--repeat`` passes after
one warm-up pass, for these calls:

* ``tok(batch)`` (lists of ids),
* ``tok(batch, padding=True, return_tensors="np")`` (goal: cover >= 3x HF BPE),
* ``tok(batch, return_offsets_mapping=True)`` (goal, as for every call the backend could
  answer: >= 1x HF BPE),
* ``tok(batch, next_lines, truncation=True, max_length=128)``: text pairs (MB counts both texts),
* ``tok(words, is_split_into_words=True, padding=True)``: pre-split words,
* ``tok(batch, ..., stride=8, return_overflowing_tokens=True)``: overflowing rows,

first on one thread (``TOKENIZERS_PARALLELISM=false`` for the Rust backends and for our native
path), then with both settled on every core. ``Dataset.map(lambda b: tok(b["text"]),
batched=True)`` runs over the whole corpus, saved to disk and loaded memory-mapped as
``load_dataset`` gives it, with ``num_proc`` 1 and 2 (cache off), each run with a
tokenizer that has encoded nothing yet; its CPU is this process's plus its reaped workers'
(goals: 2 processes >= 1.7x one, CPU summed over workers within 10% of one process, a
worker's first batch no dearer than a warm process's). A third row maps a function that returns
our cover's outputs computed before the map (``map_anchor.py``): what datasets itself costs for
the same output, the floor of any tokenizer's map. Machine load is printed before and after.

Each map writes to a cache file of its own (datasets reuses the shard count of an earlier map's
cache file). On a corpus of a few MB, datasets' fixed cost per process outweighs any fast
tokenizer's work, so the map goals are read on the 43 MB mix of every running-text corpus.

    python benchmarks/bench_hf.py                   # en_python_docs.txt and en_brown.txt
    python benchmarks/bench_hf.py --map-only --corpora mix    # the Dataset.map table on 43 MB
"""
from __future__ import annotations

import argparse
import os
import pickle
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import map_anchor
from common import CORPORA, TEXT_CORPORA, machine
from tokenizers import decoders, models, pre_tokenizers, trainers
from tokenizers import Tokenizer as HFTokenizer
from transformers import PreTrainedTokenizerFast

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Tokenizer, export_optimal_tokenizer_json
from hf_greedtok.hf.folder_encoder import FolderEncoder
from hf_greedtok.hf.pipeline import standard_pre_tokenizer

SPECIALS = ["<|endoftext|>"]
# call label -> (input shape, keyword arguments); shapes: "texts" (the batch), "pairs" (each
# line with the next), "words" (each line split at spaces, is_split_into_words)
CALLS = {
    "tok(batch)": ("texts", {}),
    "tok(batch, padding=True, return_tensors='np')": ("texts", {"padding": True, "return_tensors": "np"}),
    "tok(batch, return_offsets_mapping=True)": ("texts", {"return_offsets_mapping": True}),
    "tok(batch, next_lines, truncation=True, max_length=128)": ("pairs", {"truncation": True, "max_length": 128}),
    "tok(words, is_split_into_words=True, padding=True)": ("words", {"is_split_into_words": True, "padding": True}),
    "tok(batch, truncation=True, max_length=64, stride=8, return_overflowing_tokens=True)":
        ("texts", {"truncation": True, "max_length": 64, "stride": 8, "return_overflowing_tokens": True}),
}


def shaped(batch: list[str], shape: str) -> tuple:
    """The positional arguments of a call on ``batch`` in the given input shape."""
    if shape == "pairs":
        return batch, batch[1:] + batch[:1]
    if shape == "words":
        return ([line.split(" ") for line in batch],)
    return (batch,)


def read_lines(path: Path, megabytes: float) -> list[str]:
    text = path.read_bytes()[:int(megabytes * 1e6)].decode("utf-8", errors="ignore")
    return [line for line in text.splitlines() if line.strip()]


def corpus_lines(name: str, megabytes: float) -> list[str]:
    """The non-blank lines of the first ``megabytes`` MB of corpus ``name``; "mix": of each
    running-text corpus (``common.TEXT_CORPORA``), ``megabytes`` split evenly among them."""
    if name != "mix":
        return read_lines(CORPORA / name, megabytes)
    return [line for part in TEXT_CORPORA for line in read_lines(CORPORA / part, megabytes / len(TEXT_CORPORA))]


def hf_bpe(lines: list[str], vocab_size: int, core: Tokenizer) -> PreTrainedTokenizerFast:
    """HF BPE with exactly the pre-tokenizer our backend uses for ``core``."""
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(core.pre_tokenizer)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(lines, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=SPECIALS[0], pad_token=SPECIALS[0])


def throughput(tok, batches: list[tuple], megabytes: float, repeat: int, kwargs: dict) -> float:
    """Median MB/s of ``repeat`` passes over all batches (argument tuples), after one untimed
    pass; ``megabytes``: the text of one pass."""
    for args in batches:
        tok(*args, **kwargs)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        for args in batches:
            tok(*args, **kwargs)
        times.append(time.perf_counter() - started)
    return megabytes / statistics.median(times)


def cpu_seconds() -> float:
    """User + system CPU of this process and of its reaped children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def map_run(tok, ds, num_proc: int) -> tuple[float, float, float, float, float]:
    """Wall and CPU seconds of one ``Dataset.map`` over the dataset ``ds`` (a "text" column);
    the CPU seconds of the tokenizer calls, summed over every batch and worker; of the call on
    each worker's first batch (the slowest if several); and of the median batch overall.
    ``tok=None`` maps :func:`map_anchor.precomputed` instead (datasets alone: no tokenizer calls);
    a :class:`FolderEncoder` maps Arrow batches (docs/transformers.md's recipe: ``with_format("arrow")``,
    ``FolderEncoder.map_batch``)."""
    arrow = isinstance(tok, FolderEncoder)
    if arrow:
        ds = ds.with_format("arrow")
    with tempfile.TemporaryDirectory() as log_dir, tempfile.TemporaryDirectory() as cache_dir:
        def tokenize(batch):
            started = time.process_time()
            out = tok.map_batch(batch) if arrow else tok(batch["text"])
            with open(os.path.join(log_dir, str(os.getpid())), "a") as log:
                log.write(f"{time.process_time() - started}\n")
            return out
        fn, extra = (tokenize, {}) if tok is not None else (map_anchor.precomputed, {"with_indices": True})
        # a cache file of its own: datasets (5.x) picks the shard count of any cache file left by
        # an earlier map with the same fingerprint, even with load_from_cache_file=False, so a
        # second map of the same function would run num_proc=2 as one shard
        extra["cache_file_name"] = os.path.join(cache_dir, "mapped.arrow")
        cpu, started = cpu_seconds(), time.perf_counter()
        ds.map(fn, batched=True, num_proc=num_proc if num_proc > 1 else None,
               load_from_cache_file=False, remove_columns=["text"], **extra)
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        per_worker = [[float(x) for x in Path(log_dir, f).read_text().split()] for f in os.listdir(log_dir)]
    if not per_worker:
        return wall, cpu, 0.0, 0.0, 0.0
    return (wall, cpu, sum(map(sum, per_worker)), max(w[0] for w in per_worker),
            statistics.median(t for w in per_worker for t in w))


def set_threads(parallel: bool) -> None:
    os.environ["TOKENIZERS_PARALLELISM"] = "true" if parallel else "false"


def bench(name: str, args) -> None:
    train_lines = corpus_lines(name, args.train_mb)
    lines = corpus_lines(name, args.encode_mb)
    megabytes = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    batches = [lines[i:i + args.batch] for i in range(0, len(lines), args.batch)]

    core = GreedTokTrainer(k=args.vocab_size - 256 - len(SPECIALS), special_tokens=SPECIALS,
                           show_progress=False).train_from_iterator(train_lines)
    cover = GreedTokTokenizerFast.from_greedtok(core, mode="cover", eos_token=SPECIALS[0], pad_token=SPECIALS[0])
    backend_only = GreedTokTokenizerFast.from_greedtok(core, mode="cover", eos_token=SPECIALS[0],
                                                       pad_token=SPECIALS[0])
    backend_only.native_batch_path = False
    with tempfile.TemporaryDirectory() as tmp:
        optimal = PreTrainedTokenizerFast(
            tokenizer_file=str(export_optimal_tokenizer_json(core, Path(tmp) / "tokenizer.json")),
            eos_token=SPECIALS[0], pad_token=SPECIALS[0])
    bpe = hf_bpe(train_lines, args.vocab_size, core)
    assert len(cover) == len(optimal) == len(bpe) == args.vocab_size, (len(cover), len(optimal), len(bpe))
    contenders = {"HF BPE": bpe, "GreedTokTokenizerFast cover": cover,
                  "GreedTokTokenizerFast cover, backend path only": backend_only,
                  "exported optimal tokenizer.json": optimal}

    print(f"\n### {name}: {megabytes:.2f} MB, {len(lines):,} lines in batches of {args.batch}; "
          f"trained on {args.train_mb} MB; vocab size {args.vocab_size} for all\n")
    for parallel in (() if args.map_only else (False, True)):
        set_threads(parallel)
        print(f"\n{'every core' if parallel else 'one thread'} (TOKENIZERS_PARALLELISM={str(parallel).lower()}), "
              f"MB/s, median of {args.repeat}; ratio to HF BPE in brackets\n")
        print("| call | " + " | ".join(contenders) + " |")
        print("|---|" + "---|" * len(contenders))
        for call, (shape, kwargs) in CALLS.items():
            if args.calls and call not in args.calls:
                continue
            inputs = [shaped(batch, shape) for batch in batches]
            text_mb = megabytes * (2 if shape == "pairs" else 1)     # a pair encodes every line twice
            speeds = {label: throughput(tok, inputs, text_mb, args.repeat, kwargs)
                      for label, tok in contenders.items()}
            anchor = speeds["HF BPE"]
            print(f"| `{call}` | " + " | ".join(f"{v:.2f} ({v / anchor:.2f}x)" for v in speeds.values()) + " |")
        sys.stdout.flush()

    if args.skip_map:
        return
    set_threads(False)      # as datasets does in its worker processes
    map_lines = corpus_lines(name, args.map_mb)
    map_mb = sum(len(line.encode("utf-8")) for line in map_lines) / 1e6
    # a tokenizer that has encoded nothing, as after from_pretrained: its workers start cold
    # (unpickled in this process: rebuilt from its files, empty caches)
    fresh = {label: (lambda blob=pickle.dumps(contenders[label]): pickle.loads(blob))
             for label in ("HF BPE", "GreedTokTokenizerFast cover")}
    # on disk and memory-mapped, as load_dataset gives it: an in-memory Dataset.from_dict would
    # be pickled whole to every worker, a cost of that setup and not of the map
    import datasets
    datasets.disable_progress_bars()
    data_dir = tempfile.TemporaryDirectory()
    datasets.Dataset.from_dict({"text": map_lines}).save_to_disk(os.path.join(data_dir.name, "text"))
    dataset = datasets.load_from_disk(os.path.join(data_dir.name, "text"))
    recipe = "GreedTok cover, Arrow recipe (FolderEncoder.map_batch)"
    fresh[recipe] = (lambda blob=pickle.dumps(contenders["GreedTokTokenizerFast cover"]):
                     FolderEncoder.from_tokenizer(pickle.loads(blob), attention_mask=True))
    alone = "datasets alone (our cover's outputs, precomputed)"
    fresh[alone] = lambda: None
    print(f"\nDataset.map(tok, batched=True) over {map_mb:.2f} MB on disk ({len(map_lines):,} lines, batches of 1000), "
          f"fastest of {args.map_repeat}; a fresh tokenizer per run. Tokenizer CPU: of the tokenizer calls alone, "
          "summed over batches and workers. First batch: CPU of the tokenizer call on a worker's first batch "
          "(the slowest worker) / on the median batch.\n")
    print("| tokenizer | num_proc=1 wall s / CPU s | num_proc=2 wall s / CPU s | speed-up | CPU 2 procs / 1 proc "
          "| tokenizer CPU 1 proc / 2 procs | first batch / median batch, 1 proc | same, 2 procs |")
    print("|---|---|---|---|---|---|---|---|")
    for label, make in fresh.items():
        if label == alone:
            # computed only now: a million live lists in this process would slow its garbage
            # collector, and with it the tokenizers' one-process rows
            map_anchor.OUTPUTS.update(contenders["GreedTokTokenizerFast cover"](map_lines))
        one = min((map_run(make(), dataset, 1) for _ in range(args.map_repeat)), key=lambda r: r[0])
        two = min((map_run(make(), dataset, 2) for _ in range(args.map_repeat)), key=lambda r: r[0])
        if one[2]:
            calls = (f"{one[2]:.2f} / {two[2]:.2f} s ({two[2] / one[2]:.2f})", f"{one[3] * 1e3:.1f} / {one[4] * 1e3:.1f} ms",
                     f"{two[3] * 1e3:.1f} / {two[4] * 1e3:.1f} ms")
        else:
            calls = ("none", "", "")
        print(f"| {label} | {one[0]:.2f} / {one[1]:.2f} | {two[0]:.2f} / {two[1]:.2f} | {one[0] / two[0]:.2f}x "
              f"| {two[1] / one[1]:.2f} | " + " | ".join(calls) + " |")
    map_anchor.OUTPUTS.clear()
    data_dir.cleanup()
    sys.stdout.flush()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpora", nargs="+", default=["en_python_docs.txt", "en_brown.txt"],
                   help="corpus files of ../shared/corpora, or 'mix': every running-text corpus (43 MB)")
    p.add_argument("--vocab-size", type=int, default=8192)
    p.add_argument("--train-mb", type=float, default=3.0)
    p.add_argument("--encode-mb", type=float, default=3.0)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--map-repeat", type=int, default=3, help="Dataset.map runs per setting (fastest kept)")
    p.add_argument("--map-mb", type=float, default=100.0, help="MB of the corpus for Dataset.map (default: all)")
    p.add_argument("--map-only", action="store_true", help="only the Dataset.map table")
    p.add_argument("--skip-map", action="store_true", help="leave out the Dataset.map table")
    p.add_argument("--calls", nargs="*", choices=list(CALLS), help="only these calls (default: all)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(p)
    args = p.parse_args()
    print(f"machine: {machine()}; load average before: {os.getloadavg()}")
    for name in args.corpora:
        bench(name, args)
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
