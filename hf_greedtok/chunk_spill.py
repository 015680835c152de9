"""Chunk counts whose memory is set by a limit, not by the corpus.

Superword chunks are mostly distinct (nine in ten seen once), so an exact count of a corpus's
chunks grows with the corpus: about 1.5 GB of memory per GB of English text in a
:class:`~hf_greedtok._chunk_table.ChunkTable`. A :class:`ChunkSpiller` counts into a table of
fixed, reserved size; when the next part would not fit, it writes the table to a run file as
records grouped by hash partition (the top :data:`PARTITION_BITS` bits of each chunk's XXH64,
:meth:`ChunkTable.write_partition_records`) and starts again empty. A partition's records of
every run, added into one table, are that partition's exact counts, so the corpus's exact table
is :data:`PARTITIONS` small tables on disk (:class:`SpilledChunks`), read one at a time: the
hash-partitioned aggregation with overflow files of databases (Graefe, "Query evaluation
techniques for large databases", ACM Computing Surveys 25(2), 1993).

Whatever reads the counts (the superword trainer's words and chunk sample, a count table's
writer, the Ray reducers) reads them partition by partition, and what it computes depends on
the counts only, not on the partitioning: a corpus that fits the limit is never spilled and is
the table it always was, and one that does not gives the same words, the same sample and the
same tokenizer (:func:`~hf_greedtok.trainers.chunk_sample.sample_chunks`).

Run files live in a folder made for them under ``tempfile``'s directory (``TMPDIR``) and are
removed with it when the counts are closed or collected, or at exit; about the distinct chunks'
bytes plus 12 bytes per chunk and run on disk.

Example:
    >>> from hf_greedtok._chunk_table import ChunkTable
    >>> spiller = ChunkSpiller(limit_bytes=4096)
    >>> for text in (" of the", " in a", " of the"):
    ...     part = ChunkTable()
    ...     part.add(text, 1)
    ...     spiller.merge(part)
    >>> spiller.result().to_dict()        # it fitted: the table itself
    {' of the': 2, ' in a': 1}
"""
from __future__ import annotations

import functools
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar, Union

import numpy as np

from ._chunk_table import ChunkTable
from ._process_pool import ordered_results
from ._progress import note

#: Hash bits that pick a chunk's partition: 1,024 partitions, each about 1/1,024 of the
#: distinct chunks (7.6 MB of them at 10 GB of the scale corpus), one in memory at a time.
PARTITION_BITS = 10
PARTITIONS = 1 << PARTITION_BITS
#: The smallest in-memory table a memory limit gives (below it, runs would be many and small).
MIN_LIMIT_BYTES = 1 << 24
# A reserved table's bytes per entry besides its text: end, count and hash (int64 each) and at
# most 4 slots of 4 bytes (the slots are the power of 2 at least twice the entries).
_INDEX_BYTES_PER_ENTRY = 40
# the share of the limit reserved for the chunks' UTF-8: distinct chunks of 33 bytes on average
# fill text and index together (distinct English chunks are longer than the 17-byte average
# occurrence: the rare ones are long)
_TEXT_SHARE = 0.45


class SpilledChunks:
    """An exact {chunk: count} table held as hash partitions in run files on disk.

    Every chunk's count is the sum of its records in the runs; :meth:`partitions` adds them up
    one partition at a time. Iterating gives the chunks (str), partition by partition.

    Attributes:
        directory: the folder of the run files (made for them; removed by :meth:`close`).
        runs: the run files and their partitions' offsets, int64[PARTITIONS + 1] each.
        run_bytes: the run files' bytes together.
    """

    def __init__(self, directory: Path, runs: list[tuple[Path, np.ndarray]]) -> None:
        self.directory = directory
        self.runs = runs
        self._len: Optional[int] = None
        self._cleanup = weakref.finalize(self, shutil.rmtree, directory, True)

    #: how many partitions :meth:`map_partitions` reads
    partition_count = PARTITIONS

    @property
    def run_bytes(self) -> int:
        return sum(int(offsets[-1]) for _, offsets in self.runs)

    def partition(self, p: int) -> ChunkTable:
        """Partition ``p``'s exact counts: its records of every run added up (0 <= p < PARTITIONS).

        Raises:
            OSError: a run file that cannot be read. ValueError: a run file that is not records.
        """
        return _read_partition(self.runs, p)

    def partitions(self, bar=None) -> Iterator[ChunkTable]:
        """Every partition's exact counts, in partition order (``bar``: a progress bar updated
        once per partition)."""
        return self.map_partitions(_itself, bar, num_proc=1)

    def map_partitions(self, fn: Callable[[ChunkTable], T], bar=None, num_proc: Optional[int] = None) -> Iterator[T]:
        """``fn`` of every partition's exact counts, in partition order. What reads spilled
        counts goes through here (the trainer's words, the count histogram, the sample), so that
        counts held elsewhere (Ray's partitions, :mod:`hf_greedtok.distributed.chunk_partitions`)
        are read by the same functions where they are.

        Args:
            fn: a module function (or a ``functools.partial`` of one): with ``num_proc`` > 1 it
                runs in worker processes, and its results come back pickled.
            bar: a progress bar, updated once per partition.
            num_proc: worker processes reading partitions, each one partition in memory at a
                time (default: every core; 1: in this process).
        """
        procs = (os.cpu_count() or 1) if num_proc is None else num_proc
        if procs <= 1:
            results = (fn(_read_partition(self.runs, p)) for p in range(PARTITIONS))
        else:
            results = ordered_results(range(PARTITIONS), functools.partial(_apply, fn), procs, _set_runs,
                                      (self.runs,))
        for result in results:
            yield result
            if bar is not None:
                bar.update(1)

    def __iter__(self) -> Iterator[str]:
        for table in self.partitions():
            yield from table

    def __bool__(self) -> bool:
        return any(int(offsets[-1]) for _, offsets in self.runs)

    def __len__(self) -> int:
        """The distinct chunks (one read of every partition, then remembered)."""
        if self._len is None:
            self._len = sum(len(table) for table in self.partitions())
        return self._len

    def close(self) -> None:
        """Remove the run files and their folder (also done when the object is collected)."""
        self._cleanup()

    def __enter__(self) -> "SpilledChunks":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_partition(runs: list, p: int) -> ChunkTable:
    table = ChunkTable()
    for path, offsets in runs:
        start, end = int(offsets[p]), int(offsets[p + 1])
        if end > start:
            with open(path, "rb") as f:
                f.seek(start)
                data = f.read(end - start)
            if len(data) != end - start:
                raise ValueError(f"run file {path} is shorter than its partitions say")
            table.add_records(data)
    return table


def _itself(table: ChunkTable) -> ChunkTable:
    return table


def gathered(counts, limit_bytes: int):
    """Partitioned counts (``map_partitions``: Ray's) as one ChunkTable when it takes at most
    ``limit_bytes`` (:attr:`ChunkTable.memory_bytes`): the counts a local count keeps in memory
    under the same limit, so that both engines write such a table alike (by count, then word);
    ``counts`` as they are past it (read partition by partition)."""
    table = ChunkTable()
    for part in counts.map_partitions(_itself):
        table.merge(part)
        if table.memory_bytes > limit_bytes:
            return counts
    return table


_worker_runs: list = []      # a pool worker's run files (:func:`_set_runs`), sent once per worker


def _set_runs(runs: list) -> None:
    _worker_runs[:] = runs


def _apply(fn: Callable[[ChunkTable], T], p: int) -> T:
    return fn(_read_partition(_worker_runs, p))


ChunkCounts = Union[ChunkTable, SpilledChunks]
T = TypeVar("T")


class ChunkSpiller:
    """Adds up chunk tables within ``limit_bytes`` of memory, spilling to disk past it.

    Args:
        limit_bytes: the in-memory table's bytes (its vectors, reserved up front). A part
            larger than the whole table is still merged, and spilled at once.
        directory: where the run files' folder is made (default: ``tempfile``'s, ``TMPDIR``).
        announce: print a line (:func:`~hf_greedtok._progress.note`) when the counts first spill.

    Raises:
        ValueError: ``limit_bytes`` not a positive integer.
    """

    def __init__(self, limit_bytes: int, directory: Optional[Union[str, os.PathLike]] = None, *,
                 announce: bool = False) -> None:
        if not isinstance(limit_bytes, int) or limit_bytes < 1:
            raise ValueError(f"limit_bytes must be a positive integer, got {limit_bytes!r}")
        self.text_bytes = int(limit_bytes * _TEXT_SHARE)
        self.entries = max(1, int(limit_bytes * (1 - _TEXT_SHARE)) // _INDEX_BYTES_PER_ENTRY)
        self._table = ChunkTable()
        self._table.reserve(self.text_bytes, self.entries)
        self._where = directory
        self._limit = limit_bytes
        self._announce = announce
        self._spilled: Optional[SpilledChunks] = None

    def merge(self, part: ChunkTable) -> None:
        """Add ``part``'s counts (spilling the table first when they might not fit)."""
        if (self._table.distinct_bytes + part.distinct_bytes > self.text_bytes
                or len(self._table) + len(part) > self.entries):
            self._spill()
        self._table.merge(part)
        if self._table.distinct_bytes > self.text_bytes or len(self._table) > self.entries:
            self._spill()       # a part larger than the table: its vectors grew past the limit

    def _spill(self) -> None:
        if not len(self._table):
            return
        try:
            if self._spilled is None:
                directory = Path(tempfile.mkdtemp(prefix="hf-greedtok-chunks-", dir=self._where))
                self._spilled = SpilledChunks(directory, [])
                if self._announce:
                    note(f"the counted chunks passed their {self._limit / 1e9:.2f} GB of memory: counting goes on "
                         f"with run files in {directory} (removed at the end; --max-memory raises the limit)")
            runs = self._spilled.runs
            path = self._spilled.directory / f"run-{len(runs):05d}.bin"
            offsets = self._table.write_partition_records(path, PARTITION_BITS)
        except OSError as e:
            where = self._spilled.directory if self._spilled is not None else (self._where or tempfile.gettempdir())
            raise OSError(e.errno, f"spilling chunk counts past the memory limit to {where}: {e.strerror} (set "
                                   "TMPDIR to a folder with room, or raise the memory limit)") from None
        runs.append((path, offsets))
        self._table.clear()
        if self._table.memory_bytes > 2 * (self.text_bytes + self.entries * _INDEX_BYTES_PER_ENTRY):
            self._table = ChunkTable()      # a huge part grew it: back to the reserved size
            self._table.reserve(self.text_bytes, self.entries)

    @property
    def spilled(self) -> bool:
        """Whether any counts went to disk."""
        return self._spilled is not None

    def result(self) -> ChunkCounts:
        """The counts: the in-memory table when nothing was spilled (exactly what a ChunkTable
        would hold), else every count in run files (:class:`SpilledChunks`). The spiller is
        empty afterwards."""
        if self._spilled is None:
            table, self._table = self._table, ChunkTable()
            return table
        self._spill()
        spilled, self._spilled = self._spilled, None
        self._table = ChunkTable()      # the reserved memory is given back
        return spilled


Histogram = tuple[np.ndarray, np.ndarray]


def count_histogram(table: ChunkTable) -> Histogram:
    """The bytes of distinct chunks per count value: (int64[v] sorted distinct counts, int64[v]
    UTF-8 bytes of the table's chunks with each count). What choosing the sample's rate needs of
    a table (:func:`~hf_greedtok.trainers.chunk_sample.sample_chunks`); the histograms of a
    table's partitions add up to the table's (:func:`add_histograms`)."""
    return _histogram(table.counts(), table.sizes())


def add_histograms(histograms) -> Histogram:
    """The histogram of several tables' chunks together, from theirs (:func:`count_histogram`)."""
    histograms = list(histograms)
    if not histograms:
        return _histogram(np.empty(0, np.int64), np.empty(0, np.int64))
    return _histogram(np.concatenate([v for v, _ in histograms]), np.concatenate([s for _, s in histograms]))


def _histogram(counts: np.ndarray, sizes: np.ndarray) -> Histogram:
    if not len(counts):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    order = np.argsort(counts, kind="stable")
    ordered = counts[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    return ordered[starts].astype(np.int64), np.add.reduceat(sizes[order], starts).astype(np.int64)
