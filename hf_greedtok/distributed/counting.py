"""Word counting on a Ray cluster, equal word for word to single-process counting.

Shape of the job (P partitions, by default one per CPU)::

    byte range of a text file, JSON Lines file, run of parquet row groups ──► one Ray task: read, count,
                                                             split the table by a hash of the word ──► P tables
    Dataset ──► Ray Data streams its blocks ──► per block, one Ray task: count, split ──► P tables
    partition p: sum tasks (pyarrow group_by, FAN_IN tables each, a tree) ──► one table
    driver: the P tables concatenated, ordered by count, then word ──► {word: count}

Superword chunks (``table=True``) take the same path as ChunkTable records split by XXH64, into
more partitions when the input is large, and the P summed partitions stay in the object stores:
the driver gets a :class:`~.chunk_partitions.RayChunks`, read partition by partition by Ray
tasks, never every chunk (:mod:`.chunk_partitions`).

Only partial word tables cross the network, each to the one task that sums its partition; the
text is read and counted by one task. Every step is a Ray Core task with ``max_retries``: a task
whose worker or node died is rerun (its lost outputs rebuilt from lineage), so a lost node costs
time, not counts. The merge is Ray Core tasks, not Ray Data's ``groupby().sum()``: on 43 MB with
2 CPUs, Ray Data's hash shuffle took 4-6 s of a 6-8.5 s count and its sort shuffle 17 s, while
these tasks merge the same 576,000 partial rows in about 0.2 s (benchmarks/RESULTS.md, issue 16).
Files are read by our own readers (:func:`~hf_greedtok.formats.sources.read_documents`), as
the local engine reads them, so an error names the file and line in one line on both engines.

Why counts cannot disagree with :func:`hf_greedtok.word_counts.count_words_in_files` /
:func:`~hf_greedtok.word_counts.count_words`: each file or block goes through the very functions
those use in their worker processes (``_count_file_chunk`` for text files: the same UTF-8
decoding policy, NUL check, line cutting with each line keeping its ``"\\n"``, normalizer and
pre-tokenizer; ``_count_text_batch`` for documents, read by the same ``read_documents``: each
string pre-tokenized whole); a word's
partition is a function of the word alone, so each word is summed by exactly one task, and
sums are exact int64. Special tokens go through
:func:`hf_greedtok.special_tokens.counting_pipeline`, as in training.

A plain text file larger than :data:`~hf_greedtok.formats.sources.RANGE_BYTES` (64 MB) is counted
in byte ranges cut after a line end, one task each, so one large file uses every worker; the
driver plans them by reading the file once (line numbers for errors). Limits: a compressed text
file or a JSON Lines file is counted by one task (whole file in that task's memory; shard big
corpora into many files for parallelism); a parquet file by runs of its row groups.
"""
from __future__ import annotations

import contextlib
import os
import zlib
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Iterable, Optional, Sequence, Union

from .._chunk_table import ChunkTable
from ..defaults import DEFAULT_MAX_RETRIES, ENCODING_ERRORS
from ..errors import CorpusError
from ..formats.sources import read_documents, read_range, task_pieces
from ..normalizers import UnicodeNormalizer, check_normalizer
from ..pre_tokenizers import ByteLevel, PreTokenizer
from ..pre_tokenizers.patterns import DEFAULT_SPLIT
from ..special_tokens import counting_pipeline
from .. import word_counts as _wc
from .._progress import progress_bar
from .chunk_partitions import MAX_PARTITIONS, RayChunks, default_partitions, split_records, sum_records, \
    summed_partitions
from .session import (core_retries, dataset_blocks, is_dataset_source, ray_session, require_ray, run_tasks,
                      to_ray_dataset)

if TYPE_CHECKING:
    import datasets
    import ray.data

DEFAULT_TEXT_COLUMN = "text"


FAN_IN = 32     # partial tables per sum task; more of them are summed in a tree of such tasks


def _table(counts: Counter):
    """A partial word table: pyarrow Table (word: string, count: int64)."""
    import pyarrow as pa
    # words are valid UTF-8: text files are decoded with a strict/replace/ignore policy, and
    # documents come from Arrow strings
    return pa.table({"word": pa.array(list(counts), pa.string()),
                     "count": pa.array(list(counts.values()), pa.int64())})


def _partitions(table, parts: int) -> tuple:
    """The tail of every counting task: ``table``'s rows in ``parts`` tables by CRC-32 of the
    word's UTF-8 (the same partition for a word on every worker and machine; Python's own str
    hash is salted per process), then the table's number of rows: ``parts + 1`` values, as the
    tasks' ``num_returns`` says. The driver waits on that last, small value only, so no table
    travels to it before the merge."""
    if parts == 1:
        return table, table.num_rows
    import numpy as np
    import pyarrow as pa
    words = table.column("word").to_pylist()
    keys = np.fromiter((zlib.crc32(w.encode("utf-8")) for w in words), dtype=np.uint32, count=len(words)) % parts
    return (*(table.filter(pa.array(keys == p)) for p in range(parts)), table.num_rows)


def _split(counts: Union[Counter, ChunkTable], parts: int) -> tuple:
    """A counting task's ``parts + 1`` returns: a word Counter's table by CRC-32 (:func:`_partitions`),
    a ChunkTable's records by XXH64 (:func:`~.chunk_partitions.split_records`)."""
    if isinstance(counts, ChunkTable):
        return split_records(counts, parts)
    return _partitions(_table(counts), parts)


def _count_text_range(path: str, start: int, end: int, first_line: int, parts: int, pre, normalizer,
                      encoding_errors: str, chunks: bool):
    """Ray task: one byte range of a text file (:func:`~hf_greedtok.formats.sources.line_ranges`)
    -> its word table (a ChunkTable with ``chunks``) in ``parts`` partitions (:func:`_split`)."""
    _wc._init_worker(pre, normalizer, encoding_errors, chunks)   # the worker state _count_file_chunk reads
    return _split(_wc._count_file_chunk((path, first_line, read_range(path, start, end))), parts)


def _count_document_file(path: str, kind: str, row_groups, parts: int, pre, normalizer, column: str,
                         encoding_errors: str, chunks: bool):
    """Ray task: a JSON Lines file or a run of a parquet file's row groups -> its word table in
    ``parts`` partitions."""
    _wc._init_worker(pre, normalizer, encoding_errors, chunks)
    docs = list(read_documents(path, kind, column, encoding_errors, row_groups))
    return _split(_wc._count_text_batch((path, 0, docs)), parts)


def _count_block(block, parts: int, pre, normalizer, column: str, source: str, chunks: bool):
    """Ray task: one block of a Dataset (an Arrow or pandas table) -> its word table in ``parts``
    partitions."""
    from ray.data.block import BlockAccessor
    table = BlockAccessor.for_block(block).to_arrow()
    if column not in table.column_names:
        raise CorpusError(source, None, f"no column {column!r} (columns: {table.column_names})")
    _wc._init_worker(pre, normalizer, "strict", chunks)
    return _split(_wc._count_text_batch((source, 0, table.column(column).to_pylist())), parts)


def _sum_tables(*tables):
    """Ray task: the exact count per word of partial tables of one partition."""
    import pyarrow as pa
    table = pa.concat_tables(tables)
    summed = table.group_by("word").aggregate([("count", "sum")])
    return pa.table({"word": summed.column("word"), "count": summed.column("count_sum")})


class _Merge:
    """Partial tables in, as Ray tasks produce them; P sums out. Each partition's tables are
    summed in a tree: FAN_IN tables of one level make one table of the next, as they arrive, so
    a sum task never takes more than FAN_IN inputs, a table is summed once per level (about
    log_FAN_IN of the files and blocks), and the object store holds fewer than FAN_IN unsummed
    tables per partition and level. ``summer``: the sum task (:func:`_sum_tables` of Arrow word
    tables, :func:`~.chunk_partitions.sum_records` of chunk records)."""

    def __init__(self, parts: int, remote_args: dict, summer=_sum_tables) -> None:
        import ray
        self.parts = parts
        self.sum = ray.remote(summer).options(**remote_args)
        self.levels: list[list[list]] = [[[]] for _ in range(parts)]   # partition -> level -> refs

    def add(self, refs) -> None:
        """One producer's P partition refs."""
        for levels, ref in zip(self.levels, refs):
            level = 0
            levels[0].append(ref)
            while len(levels[level]) == FAN_IN:     # a full level carries one sum upwards
                if level + 1 == len(levels):
                    levels.append([])
                levels[level + 1].append(self.sum.remote(*levels[level]))
                levels[level] = []
                level += 1

    def remaining(self) -> list[list]:
        """Per partition, the refs not summed into a higher level yet (every level's)."""
        return [[ref for level in levels for ref in level] for levels in self.levels]

    def result(self, max_retries: Optional[int]) -> Counter:
        """{word: count}, ordered by count descending, then word."""
        import pyarrow as pa
        import pyarrow.compute as pc
        refs = [self.sum.remote(*refs) for refs in self.remaining() if refs]
        tables: list = [None] * len(refs)
        run_tasks([partial(lambda r: (r, None), ref) for ref in refs], "counting", max_retries,
                  lambda k, table, _: tables.__setitem__(k, table))
        tables = [t for t in tables if t.num_rows]
        if not tables:
            return Counter()
        merged = pa.concat_tables(tables)
        merged = merged.take(pc.sort_indices(merged, [("count", "descending"), ("word", "ascending")]))
        return Counter(dict(zip(merged.column("word").to_pylist(), merged.column("count").to_pylist())))


def count_words_distributed(source: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], "ray.data.Dataset",
                                          "datasets.Dataset"],
                            pre_tokenizer: Optional[PreTokenizer] = None, *,
                            normalizer: Optional[UnicodeNormalizer] = None, special_tokens: Iterable[str] = (),
                            text_column: str = DEFAULT_TEXT_COLUMN, encoding_errors: str = "strict",
                            address: Optional[str] = None, num_cpus: Optional[int] = None,
                            num_partitions: Optional[int] = None,
                            max_retries: Optional[int] = DEFAULT_MAX_RETRIES, show_progress: bool = True,
                            table: bool = False) -> Union[Counter, RayChunks]:
    """{word: count} of a corpus, counted on Ray; equal to single-process counting.

    Args:
        source: a path, glob, directory or list of them, resolved as the local engine resolves
            them (:func:`hf_greedtok.word_counts.resolve_corpus`: ``.jsonl``/``.json``: JSON Lines
            documents, ``.parquet``: documents, anything else: UTF-8 text counted line by line;
            ``.gz``/``.bz2``/``.xz``/``.zst`` read decompressed; kinds may be mixed; URIs such as
            ``s3://`` go to pyarrow's and Ray's filesystems unchecked; ``-``, standard input, is
            refused: a task cannot read it), or a
            ``ray.data.Dataset`` or Hugging Face ``datasets.Dataset`` whose ``text_column``
            holds the documents.
        pre_tokenizer: the trainer's pre-tokenizer (default ``ByteLevel(DEFAULT_SPLIT)``, gpt4-marks,
            the trainers' and the CLI's default).
        normalizer: the trainer's normalizer, or None.
        special_tokens: cut out of the raw text before normalizing, as encoding does.
        text_column: the documents' field or column (JSON, parquet, Dataset); dotted for a
            nested one (JSON, parquet).
        encoding_errors: invalid UTF-8 in text files: "strict", "replace" or "ignore".
        address: None starts a local cluster when Ray is not initialized yet (``num_cpus``);
            ``"auto"`` or an address joins one. An existing connection is always used as is.
        num_partitions: hash partitions of the merge, each summed by its own tasks (default:
            the cluster's CPUs; with ``table``, also at least one per 256 MB of chunk table the
            local input files' sizes predict, :func:`~.chunk_partitions.default_partitions`; at
            most 65,536).
        max_retries: reruns of a task (reading and counting, splitting, summing) whose worker
            process died (killed, out of memory, crashed); a rerun redoes its file or block
            afresh, so the result stays exact. None: retried forever.
        show_progress: a progress bar of the files (and blocks) counted; Ray Data's bars for
            document sources.
        table: superword chunks, left on the cluster: return a
            :class:`~.chunk_partitions.RayChunks` (the counts hash-partitioned in the object
            stores, read by Ray tasks through ``map_partitions``; no process holds every chunk).
            It keeps the Ray session up until it is closed (``close()`` or ``with``), and then
            shuts down a cluster this call started.

    Returns:
        Counter {word: count (int)}, ordered by count descending then word (or the RayChunks,
        the same counts in partitions). It equals
        ``count_words_in_files(text_files, ...) + count_words(documents, ...)`` on the same
        inputs with ``counting_pipeline(pre_tokenizer, normalizer, special_tokens)``.

    Raises:
        CorpusError: a missing file, unmatched glob or a count table given as text (before Ray
            starts); invalid UTF-8
            (strict), a NUL byte or a non-str document (file and line named, raised from the
            failing task). A word longer than the trainer supports is counted as its pieces, in
            the task (:func:`hf_greedtok.word_counts.cut_word`), as when counting here.
        WorkerLostError: a task's worker died on every one of its ``max_retries + 1`` attempts.
        ValueError: unknown encoding_errors, invalid special tokens, num_partitions < 1 (or above
            65,536 with ``table``).
        ImportError: Ray Data not installed.
    """
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    if num_partitions is not None and num_partitions < 1:
        raise ValueError(f"num_partitions must be >= 1, got {num_partitions}")
    if table and num_partitions is not None and num_partitions > MAX_PARTITIONS:
        raise ValueError(f"num_partitions of chunk tables must be <= {MAX_PARTITIONS}, got {num_partitions}")
    pre, norm = counting_pipeline(pre_tokenizer if pre_tokenizer is not None else ByteLevel(DEFAULT_SPLIT),
                                  check_normalizer(normalizer, "count_words_distributed"), special_tokens)
    ray = require_ray()
    is_dataset = is_dataset_source(source)
    # checked before Ray starts: a typo fails in milliseconds, not after the cluster is up
    kinds = None if is_dataset else _wc.resolve_corpus([source] if isinstance(source, (str, os.PathLike))
                                                       else source)
    with contextlib.ExitStack() as session:
        session.enter_context(ray_session(address, num_cpus, quiet=not show_progress))
        # one partition per CPU: each sum task then holds distinct words / partitions rows
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        parts = num_partitions or (default_partitions(_local_bytes(kinds), cpus) if table else cpus)
        retries = core_retries(max_retries)
        merge = _Merge(parts, retries, sum_records if table else _sum_tables)
        if is_dataset:
            count = ray.remote(_count_block).options(num_returns=parts + 1, **retries)
            name = f"dataset column {text_column!r}"
            blocks = dataset_blocks(to_ray_dataset(source), show_progress=show_progress, step="counting",
                                    max_retries=max_retries)
            submissions = (partial(_submit, count, block, parts, pre, norm, text_column, name, table)
                           for block in blocks)
        else:
            submissions = _file_tasks(kinds, pre, norm, text_column, encoding_errors, parts, retries, table)
        with progress_bar(desc="counting words", unit="part", show=show_progress) as bar:
            def counted(k: int, rows: int, tables: list) -> None:
                merge.add(tables)
                bar.update(1)
            # a few tasks per CPU in flight: a Dataset's blocks are then read as they are counted
            run_tasks(submissions, "counting", max_retries, counted, limit=4 * cpus)
        if not table:
            return merge.result(max_retries)
        refs, lengths = summed_partitions(merge.remaining(), retries, max_retries)
        # the partitions live in this session's object stores: the session is the result's to close
        return RayChunks(refs, lengths, session.pop_all(), max_retries, cpus)


def _local_bytes(kinds: Optional[dict]) -> int:
    """The bytes on disk of the input files this machine can see (0 for a Dataset, URIs and
    missing sizes): what the default partition count of chunk tables follows."""
    total = 0
    for files in (kinds or {}).values():
        for f in files:
            with contextlib.suppress(OSError):
                if "://" not in f:
                    total += os.stat(f).st_size
    return total


def _submit(task, *args) -> tuple:
    """Submit a counting task; (its row count's ref, to wait on; its partition tables' refs)."""
    refs = task.remote(*args)
    return refs[-1], refs[:-1]


def _file_tasks(kinds: dict, pre, norm, text_column: str, encoding_errors: str, parts: int, retries: dict,
                chunks: bool) -> list:
    """One counting task per byte range of a text file (:func:`~hf_greedtok.formats.sources.line_ranges`),
    per JSON Lines file and per run of parquet row groups, as
    :func:`~hf_greedtok.distributed.session.run_tasks` submissions."""
    import ray
    count_text = ray.remote(_count_text_range).options(num_returns=parts + 1, **retries)
    count_docs = ray.remote(_count_document_file).options(num_returns=parts + 1, **retries)
    submissions = []
    for kind, files in kinds.items():
        for path in files:
            for piece in task_pieces(path, kind):     # a large text file in byte ranges: it uses every worker
                if kind == "text":
                    submissions.append(partial(_submit, count_text, path, *piece, parts, pre, norm, encoding_errors,
                                               chunks))
                else:
                    submissions.append(partial(_submit, count_docs, path, kind, piece, parts, pre, norm, text_column,
                                               encoding_errors, chunks))
    return submissions
