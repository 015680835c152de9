"""One shared thread pool for the native batch encoders (their loops run without the GIL)."""
from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor


@functools.lru_cache(maxsize=None)
def thread_pool(num_threads: int) -> ThreadPoolExecutor:
    """A process-wide pool with ``num_threads`` workers, created on first use."""
    return ThreadPoolExecutor(max_workers=num_threads, thread_name_prefix="hf-greedtok")
