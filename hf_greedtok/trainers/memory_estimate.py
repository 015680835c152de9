"""Peak memory of a GreedTok training, estimated before its heavy part starts (issue 41).

The trainer core's memory follows what it indexes: every occurrence of every candidate it
builds (occurrence lists by candidate and by word, the trie, the scores). Without a frequency
floor (word level: every substring is a candidate) that is the windows, the substrings of 2 to
``max_token_length`` singletons of the distinct words; with one (superword chunks, floor 32),
most windows are never extended, and the singletons (the bytes of the distinct chunks) bound it
better. Fitted on whole ``hf-greedtok train`` processes (``benchmarks/bench_memory_estimate.py``,
benchmarks/RESULTS.md, "Peak memory estimate"): 12 bytes per window and 105 per singleton, each
with a fixed part, the smaller of both when there is a floor; the estimate is the process's
memory when it is made (after counting, the counts held) plus that.

It lay above every measured peak: by 5-21% on superwords (English, real and generated, at chunk
budgets of 2.5 to 40 MB and up to 1 GB of text; Python code; Chinese; Hindi with English), by
20-62% on word level (the fixed part dominates small runs). A limit it passes is one the run kept
to on text like those; text of very different statistics may need more.

Example:
    >>> est = MemoryEstimate(current=200_000_000, training=2_150_000_000, what="stage 2 on 20.0 MB of chunks")
    >>> est.describe()
    'estimated peak memory 2.35 GB (0.20 GB now, 2.15 GB more for stage 2 on 20.0 MB of chunks)'
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..defaults import DEFAULT_COUNTING_TABLE_GB
from ..errors import GreedTokError

GB = 10**9
#: Every substring a candidate (``min_frequency`` 1): bytes per window (a substring of 2 or more
#: singletons up to the longest token, of a distinct word) and the fixed part.
BYTES_PER_WINDOW = 12
WINDOW_FIXED_BYTES = 100_000_000
#: With a frequency floor (superword chunks): bytes per singleton and the fixed part.
BYTES_PER_SINGLETON = 105
SINGLETON_FIXED_BYTES = 150_000_000
#: The share of a memory limit the chunk table takes while superword chunks are counted.
COUNTING_SHARE = 0.5


class MemoryLimitError(GreedTokError, ValueError):
    """Training would need more memory than the limit it was given (``max_memory_gb``,
    ``--max-memory``); raised before the heavy part starts, so nothing was built or written."""


@dataclass(frozen=True)
class MemoryEstimate:
    """What a training will hold at its peak, in bytes.

    Attributes:
        current: the process's resident memory when the estimate was made.
        training: the peak the training adds to it (:func:`training_bytes`).
        what: what that training is, for messages ("stage 2 on 20.0 MB of chunks").
        reached: the process's peak before the estimate (counting, reading tables), 0 if unknown.
    """

    current: int
    training: int
    what: str
    reached: int = 0

    @property
    def peak(self) -> int:
        """``current + training``: the estimated peak resident memory, bytes."""
        return self.current + self.training

    def describe(self) -> str:
        """One line for a log: the peak and its parts, in GB (10**9 bytes), and the peak reached
        before when it was more."""
        line = (f"estimated peak memory {self.peak / GB:.2f} GB ({self.current / GB:.2f} GB now, "
                f"{self.training / GB:.2f} GB more for {self.what})")
        if self.reached > self.peak:
            line += f"; the process reached {self.reached / GB:.2f} GB before (counting)"
        return line

    def check(self, max_memory_gb: Optional[float], advice: str = "") -> None:
        """Raise :class:`MemoryLimitError` when the peak exceeds ``max_memory_gb`` (None: no limit).

        Args:
            max_memory_gb: the limit, GB (10**9 bytes).
            advice: what would lower the need, appended to the message.
        """
        if max_memory_gb is not None and self.peak > max_memory_gb * GB:
            raise MemoryLimitError(f"training needs about {self.peak / GB:.2f} GB ({self.what}), above the "
                                   f"memory limit of {max_memory_gb:g} GB (max_memory_gb, --max-memory)"
                                   + (f": {advice}" if advice else ""))


def windows(lengths: np.ndarray, max_token_length: int) -> int:
    """Substrings of 2 to ``max_token_length`` singletons of words of ``lengths`` singletons
    (int64[n]): every candidate occurrence a trainer without a frequency floor may index."""
    L = np.asarray(lengths, dtype=np.int64)
    m = np.minimum(L, max_token_length)
    # sum over l = 2..m of (L - l + 1)
    return int(np.sum(np.where(m >= 2, (m - 1) * (L + 1) - (m * (m + 1) // 2 - 1), 0)))


def training_bytes(lengths: np.ndarray, *, max_token_length: int, min_frequency: int) -> int:
    """The peak memory, in bytes, a trainer core adds when it trains on distinct words (or
    chunks) of ``lengths`` singletons (int64[n]; UTF-8 bytes at byte level); module docstring.

    Without a frequency floor the occurrences it indexes follow the windows; with one, most
    windows are never extended and the singletons bound it better: the smaller of both.
    """
    L = np.asarray(lengths, dtype=np.int64)
    need = WINDOW_FIXED_BYTES + BYTES_PER_WINDOW * windows(L, max_token_length)
    if min_frequency > 1:
        need = min(need, SINGLETON_FIXED_BYTES + BYTES_PER_SINGLETON * int(L.sum()))
    return need


def chunk_budget_check(budget_mb: float, text_bytes: int, max_memory_gb: Optional[float]) -> None:
    """Refuse, before any counting, a chunk budget whose stage 2 alone would exceed ``max_memory_gb``.

    Stage 2 trains on at most about ``budget_mb`` MB of distinct chunks, and on no more than the
    text holds, so its need follows from the budget and the inputs' size (``text_bytes``)
    alone; the estimate on the counted chunks comes later (:class:`MemoryEstimate`).

    Raises:
        MemoryLimitError: naming the largest budget that fits (none when even a tiny one does not).
    """
    if max_memory_gb is None:
        return
    singletons = min(int(budget_mb * 1e6), int(text_bytes))
    now = resident_bytes()
    need = SINGLETON_FIXED_BYTES + BYTES_PER_SINGLETON * singletons
    if now + need <= max_memory_gb * GB:
        return
    fits = (max_memory_gb * GB - now - SINGLETON_FIXED_BYTES) / BYTES_PER_SINGLETON / 1e6
    advice = f"a chunk budget of {fits:.3g} MB or less fits (--chunk-budget-mb)" if fits > 0.01 else \
        "even a small chunk budget does not fit"
    bound = "the chunk budget" if singletons < text_bytes else "the inputs' size, below the chunk budget"
    raise MemoryLimitError(f"stage 2 may train on {singletons / 1e6:,.1f} MB of distinct chunks ({bound}), "
                           f"about {(now + need) / GB:.2f} GB of memory, above the memory limit of "
                           f"{max_memory_gb:g} GB (--max-memory): {advice}, or raise the limit")


def counting_table_bytes(max_memory_gb: Optional[float]) -> int:
    """The bytes the chunk table may take while superword chunks are counted, past which the
    counts spill to disk (:class:`~hf_greedtok.chunk_spill.ChunkSpiller`): without a limit
    ``DEFAULT_COUNTING_TABLE_GB``; with one, ``COUNTING_SHARE`` of it less this process's memory
    now (the rest is for reading the spilled counts back, and training's own estimate checks the
    training), and never below :data:`~hf_greedtok.chunk_spill.MIN_LIMIT_BYTES`."""
    from ..chunk_spill import MIN_LIMIT_BYTES

    if max_memory_gb is None:
        return int(DEFAULT_COUNTING_TABLE_GB * GB)
    return max(MIN_LIMIT_BYTES, int(max_memory_gb * GB * COUNTING_SHARE) - resident_bytes())


def reached_bytes() -> int:
    """This process's peak resident memory so far, in bytes (``ru_maxrss``); 0 where the
    ``resource`` module does not exist."""
    try:
        import resource
    except ImportError:
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024     # kilobytes on Linux


def resident_bytes() -> int:
    """This process's resident memory now, in bytes (Linux's /proc/self/statm); 0 where that
    file does not exist."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
