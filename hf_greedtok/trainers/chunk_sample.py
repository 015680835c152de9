"""A bounded sample of superword chunks: what stage 2 of superword GreedTok trains on (issue 41).

Stage 2's occurrence index holds every candidate occurrence in every distinct chunk, about 5 per
byte of distinct chunk text, and distinct chunks grow with the corpus (91% of those of the
three English corpora are seen once). So the trainer's memory and time follow the bytes of
distinct chunks it is given, and :func:`sample_chunks` bounds them with a budget of distinct
bytes.

Past the budget, stage 2 trains on a threshold sample of the chunks (Duffield, Lund & Thorup,
JACM 2007): for the smallest rate m whose expected distinct bytes fit (a real number > 1), a
chunk seen c >= m times is kept with its count, a rarer one is kept with probability c / m and
then counted m times (floor(m) or floor(m) + 1 times, m on average, when m is not an integer).
Every count is an unbiased estimate of the chunk's (sums over any set of chunks too, such as a
candidate token's occurrences), the frequent chunks are exact, and the rare ones, which make
most of the distinct bytes, are thinned; the frequency floor keeps its meaning, in occurrences
of the whole corpus. Whether a rare chunk is kept is decided by XXH64 of its UTF-8 bytes
(:class:`hf_greedtok._chunk_table.ChunkTable`), never by the order or the engine that counted:
a table counted locally, on Ray, or read from a count table gives the same sample.

Measured in benchmarks/RESULTS.md, "Superwords at corpus scale": the sample's cost in held-out
tokens against the exact trainer, and time and memory at 25 MB to 1 GB of text.
"""
from __future__ import annotations

import bisect
import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Optional, Union

import numpy as np

from .._chunk_table import ChunkTable
from ..chunk_spill import Histogram, SpilledChunks, add_histograms, count_histogram


@dataclass(frozen=True)
class ChunkSample:
    """The chunks stage 2 trains on.

    Attributes:
        table: the sampled chunks and their counts (the whole table when ``rate`` is 1).
        rate: m (a float; 1 when every chunk is kept, exact); chunks seen fewer than m times are
            kept with probability c / m.
        distinct_bytes: UTF-8 bytes of the corpus's distinct chunks.
        kept_bytes: UTF-8 bytes of the sample's distinct chunks (the budget bounds their expectation).
    """

    table: ChunkTable
    rate: float
    distinct_bytes: int

    @property
    def kept_bytes(self) -> int:
        return self.table.distinct_bytes

    def info(self, budget_mb: float | None) -> dict:
        """The sample as ``training_info`` records it (sizes in MB of UTF-8, 10**6 bytes)."""
        return {"budget_mb": budget_mb, "rate": self.rate, "distinct_chunks_kept": len(self.table),
                "distinct_mb": round(self.distinct_bytes / 1e6, 3), "kept_mb": round(self.kept_bytes / 1e6, 3)}


def sample_chunks(chunk_counts: Union[Mapping[str, int], ChunkTable, SpilledChunks], budget_mb: float | None, *,
                  histogram: Optional[Histogram] = None, bar=None) -> ChunkSample:
    """The chunks of ``chunk_counts`` ({chunk: count >= 1}, a :class:`ChunkTable`, or the
    :class:`~hf_greedtok.chunk_spill.SpilledChunks` of a corpus counted past its memory limit, or
    any counts read through ``map_partitions`` as those are)
    stage 2 trains on within ``budget_mb`` MB (10**6 bytes) of distinct chunk text: all of them
    when they fit (or the budget is None), else the threshold sample of the module's docstring at
    the smallest m > 1 whose expected distinct bytes, sum over chunks of bytes x min(1, c / m),
    fit. Spilled counts give the sample the same counts in memory give (m depends on the counts
    only, and each chunk's draw on its own hash), read partition by partition.

    Args:
        histogram: the partitioned counts' histogram (:func:`~hf_greedtok.chunk_spill.add_histograms`
            of their partitions'), when the caller already read them once for it (None: read here).
        bar: a progress bar, updated once per partition the sample reads.

    Example (16 bytes of distinct chunks, a budget of 10: the expected 7 + 5 x 20/m + 4 x 1/m
    bytes fit from m = 104/3; " of the" stays as it is, " in a" and " wit" are kept with
    probability 20/m and 1/m, here neither):
        >>> sample = sample_chunks({" of the": 40, " in a": 20, " wit": 1}, 10e-6)
        >>> round(sample.rate, 6), sample.table.to_dict(), sample.kept_bytes
        (34.666667, {' of the': 40}, 7)
        >>> sample_chunks({" of the": 40, " in a": 20, " wit": 1}, None).rate
        1

    Raises:
        ValueError: ``budget_mb`` not positive, or a count below 1.
        OverflowError: a count above 2**63-1.
        OSError: spilled counts whose run files cannot be read.
    """
    if budget_mb is not None and not budget_mb > 0:
        raise ValueError(f"budget_mb must be a positive number of MB, got {budget_mb!r}")
    if hasattr(chunk_counts, "map_partitions"):       # spilled, or held by Ray's reducers
        if histogram is None:
            histogram = add_histograms(chunk_counts.map_partitions(count_histogram))
        values, sizes = histogram
        distinct = int(sizes.sum())
        rate = 1 if budget_mb is None or distinct <= budget_mb * 1e6 else \
            _smallest_rate(values, sizes, budget_mb * 1e6)
        table = ChunkTable()
        for part in chunk_counts.map_partitions(functools.partial(sampled, rate=rate), bar):
            table.merge(part)
        return ChunkSample(table, rate, distinct)
    if isinstance(chunk_counts, ChunkTable):
        table = chunk_counts
    else:
        table = ChunkTable()
        table.add_counts(chunk_counts)
    distinct = table.distinct_bytes
    if budget_mb is None or distinct <= budget_mb * 1e6:
        return ChunkSample(table, 1, distinct)
    rate = _smallest_rate(*count_histogram(table), budget_mb * 1e6)
    return ChunkSample(table.sampled(rate), rate, distinct)


def sampled(table: ChunkTable, rate: float) -> ChunkTable:
    """``table``'s threshold sample at ``rate`` (itself at rate 1): what each part of
    partitioned counts gives the sample (:meth:`ChunkTable.sampled`)."""
    return table if rate == 1 else table.sampled(rate)


def _smallest_rate(values: np.ndarray, sizes: np.ndarray, budget: float) -> float:
    """The smallest m > 1 (to 1 part in 10**9) whose expected distinct bytes at rate m, sum over
    chunks of bytes x min(1, c / m), are at most ``budget`` (bytes); from the table's
    :func:`~hf_greedtok.chunk_spill.count_histogram` (``values``: sorted distinct counts,
    ``sizes``: bytes of the chunks with each). The expectation falls as m grows. Each
    comparison with the budget is exact (integers and the binary fractions m and budget are), so
    the bisection finds the same m for the same counts however they were held or summed."""
    counts = values.tolist()
    below = [0]            # below[i]: sum of c x bytes over the i smallest counts, exact
    for c, b in zip(counts, sizes.tolist()):
        below.append(below[-1] + c * b)
    total = int(sizes.sum())
    at_least = [total - s for s in itertools.accumulate([0] + sizes.tolist())]   # bytes of counts[i:]
    limit = Fraction(budget)

    def over(m: float) -> bool:     # expected(m) > budget: at_least + below / m > budget
        i = bisect.bisect_left(counts, m)       # counts[:i] are those below m
        rate = Fraction(m)
        return at_least[i] * rate + below[i] > limit * rate

    high = 2.0
    while over(high):
        high *= 2
    low = high / 2      # over(low), or low == 1 (the caller's case: all chunks do not fit)
    while high - low > 1e-9 * high:
        mid = (low + high) / 2
        if over(mid):
            low = mid
        else:
            high = mid
    return high
