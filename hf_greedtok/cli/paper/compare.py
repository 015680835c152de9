"""``hf-greedtok compare``: GreedTok vs HF BPE vs GreedWMC on one corpus (the paper's Table 3 and
Figure 3) as Markdown, JSON and PNG plots; with held-out text also HF Unigram and SentencePiece,
in and out of sample (:mod:`hf_greedtok.experiments.heldout`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ...pre_tokenizers.patterns import DEFAULT_SPLIT, SPLIT_NAMES
from ...errors import CorpusError
from ..options import (INPUT_HELP, add_corpus_options, add_text_column_option, local_path, open_fraction,
                       positive_float, vocab_int, workers_int)

HELP = ("GreedTok vs HF BPE vs GreedWMC on one corpus (the paper's Table 3 and Figure 3), as Markdown, JSON "
        "and PNG plots")


def add_arguments(m: argparse.ArgumentParser) -> None:
    """compare's arguments, in the order ``--help`` lists them."""
    m.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=f"{INPUT_HELP} (or word<TAB>count tables with --counts), combined into one corpus")
    m.add_argument("--vocab-sizes", "-k", type=vocab_int, nargs="+", required=True, metavar="K",
                   help="k values reported (learned tokens = BPE merges; both vocabularies are 256 + k); "
                        "curves cover every k up to the largest")
    m.add_argument("--targets", type=positive_float, nargs="+", metavar="T",
                   help="tokens-per-word targets of the Table 3 rows (default: 8 targets 0.2 apart that "
                        "both algorithms reach)")
    m.add_argument("--pattern", choices=SPLIT_NAMES, default=DEFAULT_SPLIT,
                   help="byte-level split regex: gpt4-marks (default, as `train`), gpt4, gpt2, o200k or whitespace "
                        "(the paper's space-delimited words); every tokenizer compared uses it, except where a "
                        "report row names another")
    m.add_argument("--no-plots", action="store_true", help="skip the PNG plots (no matplotlib needed)")
    m.add_argument("--num-threads", type=workers_int, default=1, help="encoder threads for the TSR measurements")
    m.add_argument("--eval", type=local_path, nargs="+", default=[], metavar="FILE",
                   help="UTF-8 text never trained on: every tokenizer, trained at total vocabulary 256 + the "
                        "largest K, is measured on it line by line (out of sample) and on the training text")
    m.add_argument("--holdout-fraction", type=open_fraction, default=None, metavar="F",
                   help="hold out this share of the INPUT lines as out-of-sample text (line j is held out iff "
                        "floor((j+1)F) > floor(jF): every 1/F-th line, the same split on every run) and "
                        "train on the rest")
    m.add_argument("--no-sentencepiece", action="store_true",
                   help="with held-out text: leave out the SentencePiece peers (no sentencepiece needed)")
    add_text_column_option(m)
    add_corpus_options(m, "GreedTok/GreedWMC: longest candidate token in bytes (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    """GreedTok vs BPE vs GreedWMC on one corpus, written as report.md, report.json and plots to
    ``--output``; with ``--eval`` or ``--holdout-fraction`` also every peer in and out of sample;
    returns 0."""
    from ...experiments.compare import compare_word_counts
    from ...formats.manifest import COMPARE
    from ...pre_tokenizers import ByteLevel
    from ...word_counts import check_learnable, count_words
    from ..inputs import corpus_counts
    from ..options import refuse_without
    from ..output import refuse_existing, write_output

    held_out = bool(args.eval) or args.holdout_fraction is not None
    refuse_without("--eval or --holdout-fraction", held_out, {"--no-sentencepiece": args.no_sentencepiece})
    if held_out:
        _check_held_out_args(args)
    refuse_existing(args, COMPARE)
    if not args.no_plots:
        from ...experiments.plots import check_plotting_available
        check_plotting_available()            # fail before hours of training, not after
    pre = ByteLevel(args.pattern)
    source = ", ".join(Path(i).name for i in args.inputs)
    if held_out:
        train_lines, texts = _held_out_texts(args)
        counts = count_words(train_lines, pre, None, num_proc=args.num_proc, show_progress=not args.quiet,
                             source=source)
        check_learnable(counts, pre, source)
        sp_peers = _sentencepiece_first(args, train_lines, counts)
    else:
        counts = corpus_counts(args, args.inputs, pre)
    result = compare_word_counts(counts, args.vocab_sizes, targets=args.targets,
                                 pattern=args.pattern, max_token_length=args.max_token_length, source=source,
                                 num_threads=args.num_threads, show_progress=not args.quiet)
    result.settings["inputs"] = [str(i) for i in args.inputs]
    if held_out:
        _add_held_out(args, result, pre, train_lines, counts, texts, source, sp_peers)
    write_output(args, COMPARE, lambda folder: _write_report(args, result, source, folder))
    print("\n".join(f"{c['claim']}: {c['measured']} ({c['verdict']})" for c in result.summary["claims"]))
    if held_out:
        for row in result.heldout.rows:
            if row["table"] == "main" and row["peer"] == "GreedTok (cover)":
                print(f"GreedTok (cover) vs HF BPE on {row['text']} ({row['kind']}): "
                      f"{100 * (row['ratio_to_reference'] - 1):+.2f} % tokens")
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def _write_report(args: argparse.Namespace, result, source: str, folder: Path) -> None:
    """report.md (with the plots it shows), report.json and the plots, into ``folder``."""
    markdown = result.to_markdown()
    if not args.no_plots:
        from ...experiments.plots import write_plots
        names = [p.name for p in write_plots(result, folder, source)]
        markdown += "\n" + "\n".join(f"![{n}]({n})" for n in names) + "\n"
    (folder / "report.md").write_text(markdown, encoding="utf-8")
    (folder / "report.json").write_text(result.to_json(), encoding="utf-8")


def _check_held_out_args(args: argparse.Namespace) -> None:
    """Held-out options that cannot work, refused before any reading or training."""
    from ...formats.sources import check_input_file, resolve_inputs
    from ..inputs import check_text_column

    if args.counts:
        raise ValueError("--eval and --holdout-fraction measure running text line by line; they cannot be "
                         "used with --counts (give the text files instead)")
    check_text_column(args, resolve_inputs(args.inputs))     # checked as every INPUT is
    for path in args.eval:
        check_input_file(Path(path))
    if not args.no_sentencepiece:
        from ...experiments.peers import sentencepiece_module
        sentencepiece_module()


def _held_out_texts(args: argparse.Namespace) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """The training lines and the out-of-sample texts (name, kind, lines): the held-out split of
    the inputs first (:mod:`hf_greedtok.experiments.line_split`), then each ``--eval`` file."""
    from ...experiments.heldout import OUT_OF_SAMPLE
    from ...experiments.line_split import read_lines, split_lines

    lines = read_lines(args.inputs, args.encoding_errors, args.text_column or "text")
    texts, held_name = [], None
    if args.holdout_fraction is not None:
        lines, held = split_lines(lines, args.holdout_fraction)
        held_name = f"held-out {args.holdout_fraction:g} of the inputs"
        texts.append((held_name, OUT_OF_SAMPLE, held))
    names = [Path(e).name for e in args.eval]
    for path, name in zip(args.eval, names):
        texts.append((name if names.count(name) == 1 else str(path), OUT_OF_SAMPLE,
                      read_lines([path], args.encoding_errors, args.text_column or "text")))
    for name, _, text in [("the training lines", None, lines), *texts]:
        if not any(line.split() for line in text):     # refused now, not after the training
            hint = " (hold out a larger --holdout-fraction, or give more lines)" if name == held_name else ""
            raise CorpusError(name, None, "no words to measure" + hint)
    return lines, texts


def _sentencepiece_first(args: argparse.Namespace, train_lines, counts) -> dict:
    """The SentencePiece peers ({} with --no-sentencepiece), trained before GreedTok: SentencePiece
    refuses a vocabulary too large for the text, and that should not come after hours of training."""
    if args.no_sentencepiece:
        return {}
    from ...experiments.heldout import sentencepiece_peers

    seconds: dict = {}
    peers = sentencepiece_peers(train_lines, counts, 256 + max(args.vocab_sizes), args.pattern,
                                num_threads=args.num_threads, seconds=seconds)
    return {**peers, "seconds": seconds}


def _add_held_out(args: argparse.Namespace, result, pre, train_lines, counts, texts, source: str,
                  sp_peers: dict) -> None:
    """The comparison's held-out parts: every peer in and out of sample, and GreedTok vs BPE at
    the grid's k on each out-of-sample text."""
    from ...experiments.compare import heldout_grid
    from ...word_counts import count_words

    result.heldout = _measure_held_out(args, result, train_lines, counts, texts, source, sp_peers)
    result.heldout_grid = heldout_grid(
        result, [(name, count_words(lines, pre, None, num_proc=args.num_proc, show_progress=False, source=name))
                 for name, _, lines in texts], args.num_threads)


def _measure_held_out(args, result, train_lines, counts, texts, source, sp_peers: dict):
    """Train HF Unigram at the comparison's largest vocabulary and measure every peer."""
    import time

    from ...experiments.heldout import IN_SAMPLE, measure, train_peers

    vocab_size = 256 + result.settings["k_max"]
    trained, seconds = result.trained, dict(sp_peers.get("seconds", {}))
    peers = train_peers(train_lines, counts, vocab_size, args.pattern, greedtok=trained["greedtok"],
                        wmc=trained["wmc"], bpe=trained["bpe"], sentencepiece=sp_peers,
                        num_threads=args.num_threads, show_progress=not args.quiet, seconds=seconds)
    started = time.perf_counter()
    split = f"holdout fraction {args.holdout_fraction:g}, " if args.holdout_fraction is not None else ""
    training = f"{source} ({split}{sum(1 for line in train_lines if line):,} non-empty lines)"
    heldout = measure(peers, [("training text", IN_SAMPLE, train_lines), *texts],
                      settings={"vocab_size": vocab_size, "training": training,
                                "split": peers["main"][0].pre_tokenization,
                                "holdout_fraction": args.holdout_fraction, "eval": [str(e) for e in args.eval],
                                "seconds": seconds})
    seconds["measuring"] = round(time.perf_counter() - started, 2)
    return heldout
