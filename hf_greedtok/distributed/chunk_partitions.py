"""Superword chunk counts that stay on the Ray cluster, hash-partitioned: no process holds every chunk.

Superword chunks are mostly distinct, so a corpus's exact chunk table grows with the corpus
(2.3 GB of ChunkTable per GB of generated English text, measured), and
:func:`~hf_greedtok.distributed.count_words_distributed` with ``table=True`` never gathers it:
each counting task cuts its
:class:`~hf_greedtok._chunk_table.ChunkTable` into P partitions by the chunk's XXH64 (the hash
every ChunkTable keeps, :func:`split_records`), each partition is summed by its own tree of Ray
tasks (:func:`sum_records`), and the P summed partitions stay in the cluster's object stores
(spilled to disk by Ray when they fill), owned by the driver, as records
(:meth:`ChunkTable.partition_records`). :class:`RayChunks` reads them as
:class:`~hf_greedtok.chunk_spill.SpilledChunks` reads run files on one machine:
``map_partitions(fn)`` runs ``fn`` on each partition's ChunkTable in a Ray task and brings back
only ``fn``'s result (the superword trainer's words and histograms, then its sample: the chunk
budget, not the corpus), so the driver and every worker hold one partition at a time.

Every task has ``max_retries``; a partition lost with its node is rebuilt from lineage (its sum
task, and the counting tasks below it, run again) when a task reads it, so a lost node costs
time, not counts. A partition's chunks are a function of their hashes alone and the sums are
exact int64, so the partitions hold exactly the local engine's counts; what is computed from
them depends on the counts only (:mod:`hf_greedtok.chunk_spill`), so local and Ray training give
the same tokenizer.

Example:
    >>> from hf_greedtok import ByteLevel
    >>> from hf_greedtok.distributed import count_words_distributed
    >>> with count_words_distributed("corpus.txt", ByteLevel("superwords"), table=True) as chunks:  # doctest: +SKIP
    ...     counts = trainer.reduce_counts(chunks)     # Ray tasks read the partitions
"""
from __future__ import annotations

import contextlib
import itertools
import math
import weakref
from collections import deque
from typing import Callable, Iterator, Optional, Sequence, TypeVar

import numpy as np

from .._chunk_table import ChunkTable
from .session import cancel, core_retries, require_ray, run_tasks, user_error

T = TypeVar("T")

#: Hash bits a counting task sorts its records by (:meth:`ChunkTable.partition_records`); a
#: partition is a run of consecutive values of them, so any count of partitions up to 2**16
#: costs one pass over the table.
SPLIT_BITS = 16
MAX_PARTITIONS = 1 << SPLIT_BITS
#: The chunk-table memory one partition should take at most, in a sum task or a reader.
PARTITION_TABLE_BYTES = 256 << 20
#: A summed partition's ChunkTable memory (its vectors' capacities) per byte of text counted:
#: 572 MB for the 250 MB generated English scale corpus (benchmarks/bench_ray_superwords.py).
TABLE_BYTES_PER_TEXT_BYTE = 2.3


def default_partitions(text_bytes: int, cpus: int) -> int:
    """The partitions of a corpus's chunk counts by default: one per CPU, or more, so that one
    holds about :data:`PARTITION_TABLE_BYTES` of chunk table at most (``text_bytes``: the
    input's bytes, 0 when unknown), up to :data:`MAX_PARTITIONS`."""
    wanted = math.ceil(text_bytes * TABLE_BYTES_PER_TEXT_BYTE / PARTITION_TABLE_BYTES)
    return min(MAX_PARTITIONS, max(1, cpus, wanted))


def _bounds(parts: int) -> np.ndarray:
    """int64[parts + 1]: partition p holds the hash values [bounds[p], bounds[p + 1]) of the top
    :data:`SPLIT_BITS` bits (as even a split as integers allow)."""
    return -(-(np.arange(parts + 1, dtype=np.int64) * MAX_PARTITIONS) // parts)


def split_records(table: ChunkTable, parts: int) -> tuple:
    """The tail of a counting task with ``table=True``: ``table``'s entries as records in
    ``parts`` partitions by XXH64 (uint8 arrays, views of one buffer: Ray stores each one's bytes
    only), then ``len(table)``: ``parts + 1`` values, as the task's ``num_returns`` says."""
    records, offsets = table.partition_records(SPLIT_BITS)
    data = np.frombuffer(records, dtype=np.uint8)
    at = offsets[_bounds(parts)]
    return (*(data[a:b] for a, b in zip(at[:-1].tolist(), at[1:].tolist())), len(table))


def _table_of(*records) -> ChunkTable:
    table = ChunkTable()
    for part in records:
        table.add_records(part)
    return table


def sum_records(*records) -> np.ndarray:
    """Ray task: the records (uint8) of one partition's partial tables summed into one table's
    records (each chunk once, with its exact total)."""
    return np.frombuffer(_table_of(*records).partition_records(0)[0], dtype=np.uint8)


def _sum_partition(*records) -> tuple[np.ndarray, int]:
    """Ray task: a partition's last sum, and its distinct chunks (the driver waits on that)."""
    table = _table_of(*records)
    return np.frombuffer(table.partition_records(0)[0], dtype=np.uint8), len(table)


def _apply(fn: Callable[[ChunkTable], T], records: np.ndarray) -> T:
    """Ray task: ``fn`` of one partition's ChunkTable, where the partition is."""
    return fn(_table_of(records))


def summed_partitions(remaining: Sequence[Sequence], remote_args: dict, max_retries: Optional[int]) -> tuple:
    """Each partition's last sum task over its refs not yet summed (``remaining[p]``), waited
    for: (the partitions' refs, their distinct chunks).

    Raises:
        As :func:`~hf_greedtok.distributed.session.run_tasks` (a worker lost past its retries).
    """
    import ray
    last = ray.remote(_sum_partition).options(num_returns=2, **remote_args)
    refs, lengths = [], [0] * len(remaining)
    submissions = []
    for refs_of_part in remaining:
        ref, length = last.remote(*refs_of_part)
        refs.append(ref)
        submissions.append(lambda length=length: (length, None))
    run_tasks(submissions, "counting", max_retries, lambda k, n, _: lengths.__setitem__(k, n))
    return refs, lengths


def _release(refs: list, session: contextlib.ExitStack) -> None:
    refs.clear()        # the objects are freed before the cluster goes (if this run started it)
    session.close()


class RayChunks:
    """A corpus's exact {chunk: count}, held by the Ray cluster as hash partitions (see the
    module's docstring); what :func:`~hf_greedtok.distributed.count_words_distributed` returns
    with ``table=True``. The interface of :class:`~hf_greedtok.chunk_spill.SpilledChunks`:
    whatever reads those (the superword trainer's ``reduce_counts``,
    :func:`~hf_greedtok.trainers.chunk_sample.sample_chunks`) reads these, with Ray tasks.

    The Ray connection stays up until :meth:`close` (or the end of a ``with`` block, or the
    object's collection): then the partitions are freed and, when ``count_words_distributed``
    started the cluster, the cluster is shut down.

    Attributes:
        partition_count: the partitions (P).
        lengths: the distinct chunks of each partition (P ints).
    """

    def __init__(self, refs: list, lengths: list[int], session: contextlib.ExitStack,
                 max_retries: Optional[int], cpus: int) -> None:
        self._refs = refs
        self.lengths = lengths
        self.partition_count = len(refs)
        self._max_retries = max_retries
        self._window = 2 * max(1, cpus)
        self._closer = weakref.finalize(self, _release, refs, session)

    @property
    def refs(self) -> list:
        """The partitions' ObjectRefs, in partition order (each a uint8 array of records,
        :meth:`ChunkTable.add_records`); empty once closed."""
        return list(self._refs)

    def _check_open(self) -> None:
        if not self._closer.alive:
            raise ValueError("these chunk counts are closed (their Ray partitions were freed)")

    def map_partitions(self, fn: Callable[[ChunkTable], T], bar=None) -> Iterator[T]:
        """``fn`` of every partition's ChunkTable, in partition order, each run in a Ray task
        (``max_retries``) where the partition is; at most two tasks per CPU ahead of the reader.

        Args:
            fn: a picklable function of a ChunkTable (a module function or a ``functools.partial``
                of one), whose result is brought back to the caller.
            bar: a progress bar, updated once per partition.

        Raises:
            GreedTokError: the one ``fn`` raised in its task (rebuilt here, as
                :func:`~hf_greedtok.distributed.session.user_error` says).
            WorkerLostError: a task's worker died past its retries.
            ValueError: the counts were closed.
        """
        self._check_open()
        ray = require_ray()
        apply = ray.remote(_apply).options(**core_retries(self._max_retries))
        fn_ref = ray.put(fn)
        parts = iter(self._refs)
        pending: deque = deque(apply.remote(fn_ref, ref) for ref in itertools.islice(parts, self._window))
        try:
            while pending:
                try:
                    value = ray.get(pending.popleft())
                except ray.exceptions.RayError as e:
                    raise user_error(e, "reading partitioned chunks", self._max_retries) from None
                ref = next(parts, None)
                if ref is not None:
                    pending.append(apply.remote(fn_ref, ref))
                if bar is not None:
                    bar.update(1)
                yield value
        except KeyboardInterrupt:
            # a signal: the command leaves, and Ray ends a departed driver's tasks itself (no
            # cancelling, which can race a finishing task: see session.run_tasks)
            raise
        except BaseException:       # an error, or a reader that stopped early (GeneratorExit)
            cancel(pending)
            raise

    def partition(self, p: int) -> ChunkTable:
        """Partition ``p``'s exact counts, read into this process (0 <= p < partition_count)."""
        self._check_open()
        return _table_of(require_ray().get(self._refs[p]))

    def __iter__(self) -> Iterator[str]:
        """The chunks (str), partition by partition (one partition in this process at a time)."""
        for p in range(self.partition_count):
            yield from self.partition(p)

    def __len__(self) -> int:
        """The distinct chunks."""
        return sum(self.lengths)

    def __bool__(self) -> bool:
        return len(self) > 0

    def close(self) -> None:
        """Free the partitions and end the Ray session the count started (idempotent)."""
        self._closer()

    def __enter__(self) -> "RayChunks":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
