"""Worker processes for this machine's cores, one policy for every pool we start (counting words,
reading spilled chunk partitions): results in job order, a bounded read-ahead, workers that die
with their parent and are stopped at once on an error, Ctrl-C or SIGTERM.

On Linux the kernel kills a worker when its parent exits (``PR_SET_PDEATHSIG``), and everywhere
a watchdog thread in each worker exits when its parent changes, so a killed run never leaves
workers blocked on a pipe.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, Iterator, Optional, TypeVar

_PR_SET_PDEATHSIG = 1           # linux/prctl.h
_PARENT_POLL_SECONDS = 0.5

T = TypeVar("T")


def _watch_parent(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(_PARENT_POLL_SECONDS)


def die_with_parent(parent_pid: int, *, use_prctl: bool = True) -> None:
    """Make this (worker) process exit when ``parent_pid`` is no longer its parent.

    On Linux the kernel sends SIGKILL when the parent exits (``prctl(PR_SET_PDEATHSIG)``, via
    ctypes); a daemon thread polling ``os.getppid()`` every 0.5 s is the fallback elsewhere
    (and covers a parent that died before the prctl call).
    """
    if use_prctl and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="hf-greedtok-parent-watch",
                     daemon=True).start()


def _init_pool_worker(parent_pid: int, init: Optional[Callable], *init_args) -> None:
    # Forked workers inherit the parent's Python handlers (the CLI turns SIGTERM into an
    # exception); a worker should just die on SIGTERM and leave Ctrl-C to the parent, which
    # stops every worker itself.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)
    if init is not None:
        init(*init_args)


def mp_context():
    """fork where it exists (workers start at once, with the parent's modules), else spawn."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def ordered_results(jobs: Iterable, fn: Callable[..., T], num_proc: int, init: Optional[Callable] = None,
                    init_args: tuple = ()) -> Iterator[T]:
    """``fn(job)`` for every job, computed in ``num_proc`` worker processes (each first runs
    ``init(*init_args)``), yielded in job order, with at most ``2 * num_proc`` jobs in flight so
    that memory stays flat. ``fn``, the jobs and the results cross process boundaries (picklable).

    Raises:
        Whatever ``fn`` raises, in the parent; the workers are stopped first. The same on an
        interrupt (Ctrl-C, or SIGTERM turned into an exception) or when the consumer stops early.
    """
    with ProcessPoolExecutor(num_proc, mp_context=mp_context(), initializer=_init_pool_worker,
                             initargs=(os.getpid(), init, *init_args)) as pool:
        pending: deque = deque()
        try:
            for job in jobs:
                pending.append(pool.submit(fn, job))
                if len(pending) >= 2 * num_proc:
                    yield pending.popleft().result()      # in input order: deterministic
            while pending:
                yield pending.popleft().result()
        except BaseException:
            # An error, Ctrl-C or SIGTERM (turned into an exception by the CLI): stop the
            # workers now rather than letting them finish their jobs.
            workers = list(pool._processes.values())   # no public accessor before Python 3.14
            result_queue = pool._result_queue            # (private too; shutdown drops them)
            manager = pool._executor_manager_thread
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in workers:
                proc.terminate()
            for proc in workers:
                proc.join(timeout=5)
            # A worker stopped while writing its result leaves half a message in the result
            # pipe; the pool's manager thread would wait for the rest forever, and the
            # interpreter for that thread at exit. The workers are gone: closing our own write
            # end turns that wait into end-of-file, which the pool handles as a broken pool.
            if result_queue is not None:
                result_queue._writer.close()
            # That thread then closes its wake-up pipe. Wait for it: at exit, concurrent.futures
            # writes to every pool's wake-up pipe without the lock that close takes (CPython
            # 3.11), and a close in between printed "OSError: [Errno 9] Bad file descriptor"
            # with a traceback after our one-line message (seen once in the SIGTERM test).
            if manager is not None:
                manager.join(timeout=10)
            raise
