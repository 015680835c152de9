"""``hf-greedtok count``: a corpus's words counted into a table (TSV or parquet) that
``train --counts`` reads, in this process pool or on Ray; the table records the split, normalizer
and special tokens that made it (:func:`hf_greedtok.formats.count_table.pipeline_record`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..defaults import ENCODING_ERRORS, default_normalizer
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, SPLIT_NAMES, find_split, superword_split
from .options import (ENCODING_ERRORS_HELP, INPUT_HELP, NORMALIZERS, UNITS, add_engine_options, add_text_column_option,
                      local_path, positive_float, workers_int)

HELP = ("count a corpus's words into a table that `train --counts` reads (TSV or parquet), in this process "
        "pool or on Ray")


def add_arguments(n: argparse.ArgumentParser) -> None:
    """count's arguments, in the order ``--help`` lists them."""
    n.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=f"{INPUT_HELP}, or - for standard input (local engine; text lines, JSON Lines with "
                        "--text-column); a word<TAB>count table is refused: it is counted already")
    n.add_argument("--output", "-o", type=local_path, required=True,
                   help="the table: word<TAB>count (.tsv) or .parquet (word, count columns); it records the split, "
                        "normalizer and special tokens that made its words, and train refuses it with others")
    n.add_argument("--units", choices=UNITS, default="bytes",
                   help="the pre-tokenizer of the tokenizer to train: bytes (byte level, default) or Metaspace units")
    n.add_argument("--pattern", choices=SPLIT_NAMES, default=None,
                   help=f"byte level: the split regex, as `train --pattern` (default {DEFAULT_SPLIT}); give "
                        "train the same (superwords, superwords-digits: the same as --superwords "
                        "[--digits-in-chunks], and train takes those tables with those flags)")
    n.add_argument("--superwords", action="store_true",
                   help="count superword chunks (runs of words within a line) for `train --superwords`: here the "
                        "same as --pattern superwords (train spells it --superwords only)")
    n.add_argument("--digits-in-chunks", action="store_true",
                   help="with --superwords: chunks hold digits too, for `train --superwords --digits-in-chunks` "
                        "(the same as --pattern superwords-digits)")
    n.add_argument("--normalizer", default=None, choices=NORMALIZERS,
                   help="Unicode normalization; default NFC for marks/vowels units, else none (train's default); "
                        "the table records it and train refuses it with another")
    n.add_argument("--special-token", action="append", default=[],
                   help="a special token, cut out of the text before counting as encoding does (repeatable)")
    add_text_column_option(n)
    n.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS, help=ENCODING_ERRORS_HELP)
    add_engine_options(n, "count", "counting")
    n.add_argument("--num-proc", type=workers_int, default=None,
                   help="local: counting processes (default: all cores); ray: CPUs of the local cluster")
    n.add_argument("--max-memory", type=positive_float, default=None, metavar="GB",
                   help="with --superwords: count within about GB (10^9 bytes) of memory; past half of it the "
                        "counts spill to disk (TMPDIR) and the table is written from there, its rows grouped by "
                        "hash partition (default: a 1 GB in-memory table)")
    n.add_argument("--overwrite", action="store_true", help="replace --output if it exists")
    n.add_argument("--quiet", action="store_true", help="no progress bars (Ray's included)")


def run(args: argparse.Namespace) -> int:
    """Count the inputs' words (``--engine local``: this machine's process pool; ``ray``:
    :func:`hf_greedtok.distributed.count_words_distributed`) and write the table ``--output``
    atomically; returns 0. Every input is checked before counting starts (CorpusError: missing
    file or unmatched glob; OutputError: an existing output without ``--overwrite``, or an
    output that is an input)."""
    from ..errors import OutputError
    from ..formats.count_table import write_count_table
    from ..normalizers import normalizer_from_name
    from ..pre_tokenizers import ByteLevel, Metaspace
    from ..special_tokens import counting_pipeline
    from ..word_counts import check_learnable, resolve_corpus
    from .inputs import check_pattern, check_text_column, check_uri_inputs, closing_counts, stdin_kind
    from .options import check_engine_options, refuse_without

    check_engine_options(args)
    refuse_without("--superwords", args.superwords, {"--max-memory": args.max_memory is not None})
    refuse_without("--engine local", args.engine == "local", {"--max-memory": args.max_memory is not None})
    kinds = resolve_corpus(args.inputs, stdin=args.engine == "local", stdin_kind=stdin_kind(args))
    text_column = check_text_column(args, kinds)
    out: Path = args.output
    _check_output(out, kinds, args.overwrite)
    check_uri_inputs(args.inputs, args.engine)
    if args.digits_in_chunks and not args.superwords:
        raise ValueError("--digits-in-chunks changes the chunks of --superwords; add --superwords")
    if args.superwords:
        chunks = superword_split(args.digits_in_chunks)
        if args.pattern not in (None, chunks.name):
            raise ValueError(f"--superwords counts chunks of the {chunks.name} split, not --pattern {args.pattern}")
        args.pattern = chunks.name
    check_pattern(args.pattern, args.units)
    split = find_split(args.pattern or DEFAULT_SPLIT)
    if args.units == "bytes" and split.spans_words and out.suffix == ".tsv":
        raise OutputError(out, "a TSV entry cannot hold a line end, and superword chunks keep theirs (the "
                               "last chunk of every line would be left out): write a .parquet table")
    pre = ByteLevel(args.pattern or DEFAULT_SPLIT) if args.units == "bytes" else Metaspace(units=args.units)
    normalizer = normalizer_from_name(args.normalizer or default_normalizer(args.units))
    counting_pre, counting_norm = counting_pipeline(pre, normalizer, args.special_token)
    # superword chunks into a ChunkTable: nearly every chunk is distinct, a Counter of a large
    # corpus's would take five times the memory
    chunks = args.units == "bytes" and split.spans_words
    wc = _counts(args, kinds, text_column, chunks, pre, normalizer, counting_pre, counting_norm)
    with closing_counts(wc):
        check_learnable(wc, pre, ", ".join(map(str, args.inputs)))     # train would refuse the table
        summary = write_count_table(wc, out, counting_pre, counting_norm)
    omitted = ""
    if summary.omitted_words:
        omitted = (f"; {summary.omitted_words:,} words ({summary.omitted_occurrences:,} occurrences) left out: "
                   "a TSV entry cannot hold them (tab, line break or NUL; write .parquet to keep every word)")
    print(f"{summary.occurrences + summary.omitted_occurrences:,} words, "
          f"{summary.words + summary.omitted_words:,} distinct, counted by the "
          f"{args.engine} engine; wrote "
          f"{summary.words:,} entries to {out}{omitted}")
    return 0


def _counts(args: argparse.Namespace, kinds: dict, text_column: str, chunks: bool, pre, normalizer, counting_pre,
            counting_norm):
    """The inputs counted by the engine ``--engine`` names. Superword chunks are held within the
    counting memory limit (1 GB, or half of ``--max-memory``) on either engine, and past it
    partitioned (on disk, or on the Ray cluster), so a table is written alike by both engines
    whenever its counts fit (:func:`~hf_greedtok.chunk_spill.gathered`)."""
    from ..trainers.memory_estimate import counting_table_bytes
    from ..word_counts import count_inputs

    limit = counting_table_bytes(args.max_memory) if chunks else None
    if args.engine == "local":
        return count_inputs(kinds, counting_pre, counting_norm, text_column=text_column,
                            encoding_errors=args.encoding_errors, num_proc=args.num_proc,
                            show_progress=not args.quiet, table=chunks, max_table_bytes=limit)
    from ..chunk_spill import gathered
    from ..distributed.counting import count_words_distributed
    wc = count_words_distributed(args.inputs, pre, normalizer=normalizer, special_tokens=args.special_token,
                                 text_column=text_column, encoding_errors=args.encoding_errors,
                                 address=args.ray_address, num_cpus=args.num_proc, max_retries=args.max_retries,
                                 show_progress=not args.quiet, table=chunks)
    if not chunks:
        return wc
    table = gathered(wc, limit)
    if table is not wc:
        wc.close()      # the partitions are read: the Ray session can go
    return table


def _check_output(out: Path, kinds: dict, overwrite: bool) -> None:
    """The table's own checks (it is a file, not a folder): OutputError for a folder, an
    existing file without --overwrite, an input, or a place that cannot be written."""
    from ..errors import OutputError
    from ..output_folders import check_writable

    if out.is_dir():
        raise OutputError(out, "is a folder; give the table's file name")
    if out.suffix not in (".tsv", ".parquet"):
        raise OutputError(out, "a count table is .tsv (word<TAB>count) or .parquet (word, count columns); "
                               f"give one of those suffixes, not {out.suffix or 'none'!r}")
    if out.exists() and not overwrite:
        raise OutputError(out, "exists (pass --overwrite to replace it)")
    if any(out.resolve() == Path(f).resolve() for files in kinds.values() for f in files if "://" not in f):
        raise OutputError(out, "is one of the inputs")
    check_writable(out)
