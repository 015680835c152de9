"""Checks and word counts shared by several commands; imported in their ``run``, so
``--help`` does without the counters."""
from __future__ import annotations

import argparse
import contextlib
from typing import Optional, Sequence

from ..errors import CorpusError
from ..word_counts import check_learnable, count_corpus


def check_uri_inputs(inputs: Sequence[str], engine: str) -> None:
    """URI inputs (``s3://...``), named whole, before any work: the local engine reads local
    files only; for Ray each is looked up with pyarrow's filesystem here, so that a missing
    object or an unreachable bucket is one line naming it rather than a failed Ray task.

    Raises:
        CorpusError: a URI with the local engine, or one pyarrow cannot read (:func:`hf_greedtok.remote.check_uri`).
        ImportError: a URI without pyarrow.
    """
    from ..remote import RAY_READS_URIS, check_uri, is_uri
    for uri in filter(is_uri, map(str, inputs)):
        if engine != "ray":
            raise CorpusError(uri, None, f"a URI: the local engine reads local files; {RAY_READS_URIS}")
        check_uri(uri)


def check_text_column(args: argparse.Namespace, kinds: dict) -> str:
    """The documents' field to read (``--text-column``, default "text"); refused when given
    with inputs that have no fields (text files only), or with ``--counts`` tables, rather than
    ignored.

    Raises:
        CorpusError: --text-column given and no input is JSON Lines or parquet (the first named).
        ValueError: --text-column given with --counts.
    """
    from .options import DEFAULT_TEXT_COLUMN

    if args.text_column is None:
        return DEFAULT_TEXT_COLUMN
    if getattr(args, "counts", False):
        raise ValueError("--text-column names a field of .jsonl/.parquet documents; --counts tables have none")
    if set(kinds) <= {"text"}:
        first = next(iter(kinds.get("text", ["inputs"])))
        raise CorpusError("standard input" if first == "-" else first, None,
                          "--text-column names a field of .jsonl/.parquet documents, and the inputs are text "
                          "files (no fields): drop --text-column")
    return args.text_column


def stdin_kind(args: argparse.Namespace) -> str:
    """What ``-`` (standard input, which has no name to tell its kind by) holds: JSON Lines when
    ``--text-column`` names its documents' field, else text lines."""
    return "text" if args.text_column is None else "json"


def check_counts_options(args: argparse.Namespace) -> None:
    """ValueError for --no-prefix-space without --counts (it says how to read table entries, and
    text has none: a silent no-op would hide a forgotten --counts), and for the options of
    reading and counting text with --counts: --encoding-errors other than strict (a table is read
    strictly, its errors name the line) and --num-proc on the local engine (a table is not counted)."""
    if args.no_prefix_space and not args.counts:
        raise ValueError("--no-prefix-space says how count-table entries are read; it needs --counts")
    if args.counts:
        text_only = [flag for flag, used in (
            (f"--encoding-errors {args.encoding_errors}", args.encoding_errors != "strict"),
            ("--num-proc", getattr(args, "num_proc", None) is not None and getattr(args, "engine", "local") != "ray"))
            if used]
        if text_only:
            names = ", ".join(text_only)
            raise ValueError(f"{names}: options of reading and counting text, not used with --counts (a table is "
                             f"read strictly, and not counted again); drop {names} or --counts")


def check_pattern(pattern: Optional[str], units: str) -> None:
    """A split pattern is given only for byte-level units (train and count alike)."""
    if pattern is not None and units != "bytes":
        raise ValueError(f"--pattern {pattern} is a byte-level split; --units {units} splits at spaces (Metaspace)")


def corpus_counts(args: argparse.Namespace, inputs: Sequence[str], pre) -> dict:
    """The words of ``inputs`` (read as every command reads INPUTs, ``--text-column`` included,
    or count tables with ``--counts``) split by ``pre``, refused (CorpusError) if nothing is left
    to learn; the paper commands' corpus reading."""
    from ..trainers import INT64_MAX
    from ..word_counts import resolve_corpus

    check_counts_options(args)
    text_column = check_text_column(args, {} if args.counts else resolve_corpus(inputs))
    wc = count_corpus(inputs, pre, None, counts=args.counts, encoding_errors=args.encoding_errors,
                      num_proc=args.num_proc, prefix_space=not args.no_prefix_space, show_progress=not args.quiet,
                      max_count=INT64_MAX, text_column=text_column)
    check_learnable(wc, pre, ", ".join(map(str, inputs)))
    return wc


@contextlib.contextmanager
def closing_counts(counts):
    """Counts a command reads, closed at the block's end however it ends, when they hold
    something besides memory (``close()``: the run files of
    :class:`~hf_greedtok.chunk_spill.SpilledChunks`, the Ray partitions and session of
    :class:`~hf_greedtok.distributed.chunk_partitions.RayChunks`); a dict or ChunkTable as it is."""
    try:
        yield counts
    finally:
        close = getattr(counts, "close", None)
        if close is not None:
            close()
