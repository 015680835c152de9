"""Progress bars, one policy for all of them (word counting, GreedTok/GreedWMC training and
CBPE's Rust trainer):

* on a terminal: tqdm as usual, redrawn in place;
* anywhere else (CI logs, a redirected stderr), where every redraw is a new line: a line when
  the bar starts, then at most one per :data:`LOG_INTERVAL` seconds, and the final one (a log
  shows what started, that it is alive, and how long it took); tokenizers' Rust bars, which
  cannot be slowed down, are off;
* ``show=False`` (the CLI's ``--quiet``, ``show_progress=False``): nothing at all.

Jupyter widgets (what ``tqdm.auto`` picks in a notebook) redraw in place and keep tqdm's defaults.
"""
from __future__ import annotations

import sys
from typing import Any, Iterable, Optional

from tqdm.auto import tqdm

LOG_INTERVAL = 10.0      # seconds between two lines of a bar written to a log
_WIDGETS = tqdm.__module__.startswith("tqdm.notebook")


def stderr_is_terminal() -> bool:
    """Whether ``sys.stderr`` (where bars are drawn) is a terminal; False if it is missing or closed."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress_bar(iterable: Optional[Iterable] = None, *, show: bool = True, **kwargs: Any) -> tqdm:
    """A tqdm bar following the policy above.

    Args:
        iterable: wrapped as by ``tqdm(iterable)``; None for a bar driven by ``update(n)``.
        show: False disables the bar (it still counts, and prints nothing).
        **kwargs: tqdm's options (``total``, ``desc``, ``unit``, ...); an explicit
            ``mininterval`` (seconds) overrides the policy.
    """
    if show and not _WIDGETS and not stderr_is_terminal():
        kwargs.setdefault("mininterval", LOG_INTERVAL)
    return tqdm(iterable, disable=not show, **kwargs)


def native_progress(show: bool) -> bool:
    """``show_progress`` for tokenizers' Rust trainers: on a terminal only (their bars redraw
    many times a second and have no interval option)."""
    return show and stderr_is_terminal()


def note(message: str) -> None:
    """Print a line of its own (on stdout) without breaking a bar being drawn."""
    tqdm.write(message)
