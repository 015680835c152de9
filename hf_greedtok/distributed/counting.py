"""Word counting on a Ray cluster, equal word for word to single-process counting.

Shape of the job (P partitions, by default one per CPU)::

    text file ──► one Ray task: read, count, split the table by a hash of the word ──► P tables
    JSON / parquet / Dataset ──► Ray Data read + map_batches(count one block)
                             ──► per block, one Ray task splits its table ──────────► P tables
    partition p: sum tasks (pyarrow group_by, FAN_IN tables each, a tree) ──► one table
    driver: the P tables concatenated, ordered by count, then word ──► {word: count}

Only partial word tables cross the network, each to the one task that sums its partition; the
text is read and counted by one task. The merge is Ray Core tasks, not Ray Data's
``groupby().sum()``: on 43 MB with 2 CPUs, Ray Data's hash shuffle took 4-6 s of a 6-8.5 s count
and its sort shuffle 17 s, while these tasks merge the same 576,000 partial rows in about 0.2 s
(benchmarks/RESULTS.md, issue 16).

Why counts cannot disagree with :func:`hf_greedtok.word_counts.count_words_in_files` /
:func:`~hf_greedtok.word_counts.count_words`: each file or block goes through the very functions
those use in their worker processes (``_count_file_chunk`` for text files: the same UTF-8
decoding policy, NUL check, line cutting with each line keeping its ``"\\n"``, normalizer and
pre-tokenizer; ``_count_text_batch`` for documents: each string pre-tokenized whole); a word's
partition is a function of the word alone, so each word is summed by exactly one task, and
sums are exact int64. Special tokens go through
:func:`hf_greedtok.special_tokens.counting_pipeline`, as in training.

Limits: a text file is counted by one task (whole file in that task's memory; shard big
corpora into many files for parallelism).
"""
from __future__ import annotations

import os
import zlib
from collections import Counter
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence, Union

from ..defaults import DEFAULT_MAX_RETRIES, ENCODING_ERRORS
from ..errors import CorpusError
from ..normalizers import UnicodeNormalizer, check_normalizer
from ..pre_tokenizers import ByteLevel, PreTokenizer
from ..special_tokens import counting_pipeline
from .. import word_counts as _wc
from .._progress import progress_bar
from .session import (data_settings, ensure_ray, finished, is_dataset_source, require_ray, settle_fsspec_http,
                      task_retry_args, to_ray_dataset, with_remote_args)
from .sources import is_uri, read_bytes, resolve_inputs

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


def _partitions(table, parts: int):
    """Ray task (and the tail of :func:`_count_text_file`): ``table``'s rows in ``parts`` tables
    by CRC-32 of the word's UTF-8 (the same partition for a word on every worker and machine;
    Python's own str hash is salted per process). A tuple of tables, or the table itself when
    ``parts`` is 1, as Ray's ``num_returns`` expects."""
    if parts == 1:
        return table
    import numpy as np
    import pyarrow as pa
    words = table.column("word").to_pylist()
    keys = np.fromiter((zlib.crc32(w.encode("utf-8")) for w in words), dtype=np.uint32, count=len(words)) % parts
    return tuple(table.filter(pa.array(keys == p)) for p in range(parts))


def _count_text_file(path: str, parts: int, pre, normalizer, encoding_errors: str):
    """Ray task: one text file -> its word table in ``parts`` partitions (:func:`_partitions`)."""
    _wc._init_worker(pre, normalizer, encoding_errors)   # the worker state _count_file_chunk reads
    return _partitions(_table(_wc._count_file_chunk((path, 1, read_bytes(path)))), parts)


def _count_documents(batch, pre, normalizer, column: str, source: str):
    """One batch of documents (``column`` holds the strings) -> partial word table."""
    _wc._init_worker(pre, normalizer, "strict")
    if column not in batch.column_names:
        raise CorpusError(source, None, f"no column {column!r} (columns: {batch.column_names})")
    return _table(_wc._count_text_batch((source, 0, batch.column(column).to_pylist())))


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
    tables per partition and level."""

    def __init__(self, parts: int, remote_args: dict) -> None:
        import ray
        self.parts = parts
        self.sum = ray.remote(_sum_tables).options(**remote_args)
        self.levels: list[list[list]] = [[[]] for _ in range(parts)]   # partition -> level -> refs

    def add(self, refs) -> None:
        """One producer's P partition refs (a list, or one ref when P is 1)."""
        for levels, ref in zip(self.levels, refs if self.parts > 1 else [refs]):
            level = 0
            levels[0].append(ref)
            while len(levels[level]) == FAN_IN:     # a full level carries one sum upwards
                if level + 1 == len(levels):
                    levels.append([])
                levels[level + 1].append(self.sum.remote(*levels[level]))
                levels[level] = []
                level += 1

    def result(self) -> Counter:
        """{word: count}, ordered by count descending, then word."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import ray
        last = [[ref for level in levels for ref in level] for levels in self.levels]
        tables = [t for t in ray.get([self.sum.remote(*refs) for refs in last if refs]) if t.num_rows]
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
                            max_retries: Optional[int] = DEFAULT_MAX_RETRIES, show_progress: bool = True) -> Counter:
    """{word: count} of a corpus, counted on Ray; equal to single-process counting.

    Args:
        source: a path, glob or list of them (``.jsonl``/``.json``: JSON Lines documents,
            ``.parquet``: documents, anything else: UTF-8 text counted line by line; kinds may be
            mixed; URIs such as ``s3://`` go to pyarrow's and Ray's filesystems unchecked), or a
            ``ray.data.Dataset`` or Hugging Face ``datasets.Dataset`` whose ``text_column``
            holds the documents.
        pre_tokenizer: the trainer's pre-tokenizer (default :class:`ByteLevel`, gpt4 pattern).
        normalizer: the trainer's normalizer, or None.
        special_tokens: cut out of the raw text before normalizing, as encoding does.
        text_column: the documents' column (JSON, parquet, Dataset).
        encoding_errors: invalid UTF-8 in text files: "strict", "replace" or "ignore".
        address: None starts a local cluster when Ray is not initialized yet (``num_cpus``);
            ``"auto"`` or an address joins one. An existing connection is always used as is.
        num_partitions: hash partitions of the merge, each summed by its own tasks (default:
            the cluster's CPUs).
        max_retries: reruns of a task (reading and counting, splitting, summing) whose worker
            process died (killed, out of memory, crashed); a rerun redoes its file or block
            afresh, so the result stays exact. None: retried forever.
        show_progress: a progress bar of the files (and blocks) counted; Ray Data's bars for
            document sources.

    Returns:
        Counter {word: count (int)}, ordered by count descending then word. It equals
        ``count_words_in_files(text_files, ...) + count_words(documents, ...)`` on the same
        inputs with ``counting_pipeline(pre_tokenizer, normalizer, special_tokens)``.

    Raises:
        CorpusError: a missing file or unmatched glob (before Ray starts); invalid UTF-8
            (strict), a NUL byte, a non-str document or a word too long (file and line named,
            raised from the failing task).
        WorkerLostError: a task's worker died on every one of its ``max_retries + 1`` attempts.
        ValueError: unknown encoding_errors, invalid special tokens, num_partitions < 1.
        ImportError: Ray Data not installed.
    """
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    if num_partitions is not None and num_partitions < 1:
        raise ValueError(f"num_partitions must be >= 1, got {num_partitions}")
    pre, norm = counting_pipeline(pre_tokenizer if pre_tokenizer is not None else ByteLevel(),
                                  check_normalizer(normalizer, "count_words_distributed"), special_tokens)
    ray = require_ray()
    is_dataset = is_dataset_source(source)
    # checked before Ray starts: a typo fails in milliseconds, not after the cluster is up
    kinds = None if is_dataset else resolve_inputs([source] if isinstance(source, (str, os.PathLike)) else source)
    started = ensure_ray(address, num_cpus, quiet=not show_progress)
    try:
        dataset = to_ray_dataset(source) if is_dataset else None
        # one partition per CPU: each sum task then holds distinct words / partitions rows
        parts = num_partitions or max(1, int(ray.cluster_resources().get("CPU", 1)))
        # Ray Core's default is 3 retries; None means forever here, as in Ray Data
        core_retries = {"max_retries": -1 if max_retries is None else max_retries}
        merge = _Merge(parts, core_retries)
        with data_settings([dataset] if is_dataset else [], show_progress=show_progress, step="counting",
                           max_retries=max_retries), \
                progress_bar(desc="counting words", unit="part", show=show_progress) as bar:
            for refs in _partial_tables(dataset, kinds, pre, norm, text_column, encoding_errors, parts,
                                        task_retry_args(max_retries), core_retries):
                merge.add(refs)
                bar.update(1)
            return merge.result()
    finally:
        if started:
            ray.shutdown()


def _partial_tables(dataset: Optional["ray.data.Dataset"], kinds: Optional[dict], pre, norm, text_column: str,
                    encoding_errors: str, parts: int, data_retries: dict, core_retries: dict) -> Iterator:
    """The partial word tables of ``dataset`` or of the files ``kinds`` lists, in ``parts``
    partitions: per text file or per Ray Data block, the refs of its P tables (one ref when P
    is 1), yielded once ready (text files) or as Ray Data streams the blocks out."""
    import ray
    text_files = (kinds or {}).get("text", [])
    count = ray.remote(_count_text_file).options(num_returns=parts, **core_retries)
    pending = {}
    for path in text_files:
        refs = count.remote(path, parts, pre, norm, encoding_errors)
        pending[refs[0] if parts > 1 else refs] = refs
    # batch_size=None: one batch per block, which lets Ray fuse each read with its counting
    # into one task (ReadX->MapBatches), so text never leaves the task that read it
    doc_args = dict(batch_format="pyarrow", zero_copy_batch=True, batch_size=None, remote_args=data_retries,
                    fn_kwargs=dict(pre=pre, normalizer=norm, column=text_column))
    tables = []
    if kinds is None:
        tables.append(with_remote_args(dataset.map_batches, _count_documents, **{**doc_args, "fn_kwargs": {
            **doc_args["fn_kwargs"], "source": f"dataset column {text_column!r}"}}))
    else:
        for kind, files in kinds.items():
            if kind == "text":
                continue
            settle_fsspec_http()
            ds = (with_remote_args(ray.data.read_json, files, lines=True, override_num_blocks=len(files),
                                   remote_args=data_retries) if kind == "json" else
                  with_remote_args(ray.data.read_parquet, files, remote_args=data_retries).select_columns([text_column]))
            name = ", ".join(os.path.basename(f) if not is_uri(f) else f for f in files)
            tables.append(with_remote_args(ds.map_batches, _count_documents, **{**doc_args, "fn_kwargs": {
                **doc_args["fn_kwargs"], "source": name}}))
    if tables:
        split = ray.remote(_partitions).options(num_returns=parts, **core_retries)
        blocks = tables[0].union(*tables[1:]) if len(tables) > 1 else tables[0]
        for bundle in blocks.iter_internal_ref_bundles():
            for ref in bundle.block_refs:
                yield split.remote(ref, parts)
    for ref in finished(list(pending)):
        yield pending.pop(ref)
