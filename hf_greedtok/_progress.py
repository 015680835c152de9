"""Progress bars, one policy for all of them (word counting, GreedTok/GreedWMC training and
CBPE's Rust trainer):

* on a terminal: tqdm as usual, redrawn in place;
* anywhere else (CI logs, a redirected stderr), where every redraw is a new line: a line when
  the bar starts, then at most one per :data:`LOG_INTERVAL` seconds, and the final one (a log
  shows what started, that it is alive, and how long it took); tokenizers' Rust bars, which
  cannot be slowed down, are off;
* ``show=False`` (the CLI's ``--quiet``, ``show_progress=False``): nothing at all.

Jupyter widgets (what ``tqdm.auto`` picks in a notebook) redraw in place and keep tqdm's defaults.
tqdm is imported by the first bar shown, so a quiet run never pays for it.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Optional

LOG_INTERVAL = 10.0      # seconds between two lines of a bar written to a log
POLL_INTERVAL = 0.25     # seconds between two reads of a native progress cell


def stderr_is_terminal() -> bool:
    """Whether ``sys.stderr`` (where bars are drawn) is a terminal; False if it is missing or closed."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class SilentBar:
    """What ``progress_bar(show=False)`` returns: the part of tqdm's API our callers use
    (iteration, ``with``, ``update``, ``set_postfix``, ``close``), doing nothing."""

    def __init__(self, iterable: Optional[Iterable] = None) -> None:
        self._iterable = iterable

    def __iter__(self) -> Iterator:
        return iter(self._iterable if self._iterable is not None else ())

    def __enter__(self) -> "SilentBar":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        return None

    def close(self) -> None:
        return None


def progress_bar(iterable: Optional[Iterable] = None, *, show: bool = True, **kwargs: Any) -> Any:
    """A tqdm bar following the policy above, or a :class:`SilentBar` when ``show`` is false.

    Args:
        iterable: wrapped as by ``tqdm(iterable)``; None for a bar driven by ``update(n)``.
        show: False: no bar (nothing is printed, tqdm is not imported).
        **kwargs: tqdm's options (``total``, ``desc``, ``unit``, ...); an explicit
            ``mininterval`` (seconds) overrides the policy.
    """
    if not show:
        return SilentBar(iterable)
    from tqdm.auto import tqdm
    if not tqdm.__module__.startswith("tqdm.notebook") and not stderr_is_terminal():
        kwargs.setdefault("mininterval", LOG_INTERVAL)
    return tqdm(iterable, **kwargs)


@contextmanager
def setup_progress(desc: str, *, show: bool = True, steps: Optional[int] = None) -> Iterator[Any]:
    """A bar for native work that runs without the GIL and reports into a cell.

    Yields an int64[1] numpy array (the cell) to hand to the native code, which stores its
    progress there, 0..``steps`` (default :data:`hf_greedtok._trainer.BUILD_STEPS`); a thread
    draws it every :data:`POLL_INTERVAL` seconds, as a percentage with tqdm's elapsed time and
    ETA, and the bar is completed when the block ends without an error. Yields None when
    ``show`` is false (no thread, no bar, tqdm not imported).
    """
    if not show:
        yield None
        return
    import numpy as np
    if steps is None:
        from ._trainer import BUILD_STEPS as steps
    cell = np.zeros(1, dtype=np.int64)
    stop = threading.Event()
    with progress_bar(total=100, desc=desc, bar_format="{l_bar}{bar}| [{elapsed}<{remaining}]") as bar:
        shown = 0.0

        def draw() -> None:
            nonlocal shown
            done = min(100.0, 100.0 * int(cell[0]) / steps)
            if done > shown:        # estimates inside a phase may dip; the bar never goes back
                bar.update(done - shown)
                shown = done

        def poll() -> None:
            while not stop.wait(POLL_INTERVAL):
                draw()

        thread = threading.Thread(target=poll, name=f"progress: {desc}", daemon=True)
        thread.start()
        try:
            yield cell
            cell[0] = steps
        finally:
            stop.set()
            thread.join()
        draw()


def native_progress(show: bool) -> bool:
    """``show_progress`` for tokenizers' Rust trainers: on a terminal only (their bars redraw
    many times a second and have no interval option)."""
    return show and stderr_is_terminal()


def note(message: str) -> None:
    """Print a line of its own (on stdout) without breaking a bar being drawn."""
    from tqdm.auto import tqdm
    tqdm.write(message)
