"""Thread fan-out for the native encoders: their loops run without the GIL, so disjoint slices
of a batch encode in parallel."""
from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

import numpy as np

MIN_WORDS_PER_THREAD = 2048   # below this, starting threads costs more than it saves


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):     # macOS and Windows have no sched_getaffinity
        return os.cpu_count() or 1


@functools.lru_cache(maxsize=None)
def thread_pool(num_threads: int) -> ThreadPoolExecutor:
    """A process-wide pool with ``num_threads`` workers, created on first use (anew in a forked
    child: the parent's pool has no threads there)."""
    return ThreadPoolExecutor(max_workers=num_threads, thread_name_prefix="hf-greedtok")


if hasattr(os, "register_at_fork"):
    # A forked child inherits the cached pool but none of its threads: work handed to it would
    # wait forever (seen: `train` in a forked child hung while encoding its training words).
    os.register_at_fork(after_in_child=thread_pool.cache_clear)


def encode_in_threads(encode: Callable[[Sequence, str], tuple[np.ndarray, np.ndarray]], words: Sequence,
                      mode: str, num_threads: int) -> tuple[np.ndarray, np.ndarray]:
    """``encode(words, mode)`` on ``num_threads`` threads, each on one contiguous slice of
    words (whole texts split their batch natively: :meth:`hf_greedtok._encoder.RankedEncoder.encode_texts`).

    Returns the same (ids int32[T], offsets int64[len(words) + 1]) as one call, whatever the
    thread count.

    Raises:
        ValueError: num_threads < 1; and whatever ``encode`` raises.
    """
    if num_threads < 1:
        raise ValueError(f"num_threads must be >= 1, got {num_threads}")
    words = words if isinstance(words, (list, tuple)) else list(words)
    n = len(words)
    threads = min(num_threads, n // MIN_WORDS_PER_THREAD)
    if threads <= 1:
        return encode(words, mode)
    bounds = [n * t // threads for t in range(threads + 1)]
    parts = list(thread_pool(threads).map(lambda t: encode(words[bounds[t]:bounds[t + 1]], mode), range(threads)))
    # each part's offsets start at 0: shift them by the ids before the part
    starts = np.cumsum([0] + [len(i) for i, _ in parts[:-1]])
    offsets = np.concatenate([parts[0][1]] + [o[1:] + start for (_, o), start in zip(parts[1:], starts[1:])])
    return np.concatenate([i for i, _ in parts]), offsets
