"""Atomic file writes: readers see the old file or the complete new one, never a part.

Every file hf-greedtok writes outside a folder being built goes through :func:`atomic_write`:
text, bytes, or a callable that writes a path (pyarrow's parquet writers). The file is written
as ``.NAME.XXXXXXXX.hf-greedtok.tmp`` beside its target, flushed to disk and renamed into place.
The writer holds an ``fcntl.flock`` on that temporary from before its first byte until the
rename; the kernel releases it when the writer dies, even by SIGKILL. So a temporary of that
name that holds data and that nobody locks was left by a killed write, and the next write of the
same target removes it (:func:`remove_stale_temporaries`); anything else is left alone.

Folders are replaced atomically by :func:`hf_greedtok.output_folders.write_folder`, which
builds the new folder beside the old one and swaps them with renames, on the same pieces: the
names of temporaries (:func:`temporary_prefix`, :func:`is_temporary`), the usual mode
(:func:`usual_mode`) and the locks (:func:`lock`, :func:`held_elsewhere`, :func:`open_to_lock`).
"""
from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Callable, Union

try:
    import fcntl
except ImportError:       # no flock (Windows): nothing is ever taken for stale
    fcntl = None

#: The suffix of a temporary file written by :func:`atomic_write`.
TEMP_SUFFIX = ".hf-greedtok.tmp"
# tempfile's random part: letters, digits and "_" (no "."), so ".a.b.X.tmp" is never taken for a's
_RANDOM_PART = re.compile(r"[a-z0-9_]+")

#: What :func:`atomic_write` writes: text (UTF-8), bytes, or ``fill(fd, tmp)``, which writes the
#: temporary file through the open descriptor ``fd`` or by its path ``tmp``.
Content = Union[str, bytes, Callable[[int, str], None]]


def current_umask() -> int:
    """The process umask (os.umask can only be read by setting it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def usual_mode(folder: bool = False) -> int:
    """The mode a plain ``open(path, "w")`` (``os.mkdir`` for a ``folder``) gives under the
    current umask: ``tempfile`` creates 0600 files and 0700 folders."""
    return (0o777 if folder else 0o666) & ~current_umask()


def temporary_prefix(target: Union[str, os.PathLike], tag: str = "") -> str:
    """The start of the name of a temporary that stands for ``target`` beside it:
    ``.NAME.`` then ``tag``; ``tempfile``'s random part follows."""
    return f".{Path(target).name}.{tag}"


def is_temporary(name: str, prefix: str, suffix: str = "") -> bool:
    """Whether ``name`` is ``prefix``, a random part as ``tempfile`` makes them, then ``suffix``:
    a name hf-greedtok gave a temporary (a user's ``.a.notes.tmp`` is not one)."""
    return (name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix)
            and _RANDOM_PART.fullmatch(name[len(prefix):len(name) - len(suffix)]) is not None)


def lock(fd: int) -> None:
    """Hold an exclusive ``flock`` on ``fd``'s file until every descriptor of it is closed (or
    the process dies). Where locks are unsupported nothing is held, and :func:`held_elsewhere`
    then says "held": a writer is never taken for dead."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        pass       # no locks on this filesystem (ENOLCK, EOPNOTSUPP): readers cannot lock either


def held_elsewhere(fd: int) -> bool:
    """Whether another open file holds a lock on ``fd``'s file, or that cannot be known (no
    ``fcntl``, or locks unsupported there). When False, ``fd`` holds the lock until closed."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:          # EWOULDBLOCK: held; ENOLCK and the like: cannot know
        return True
    return False


def open_to_lock(path: Union[str, os.PathLike]) -> int:
    """Open ``path`` (not following a symlink) for :func:`held_elsewhere`: for writing where
    allowed, as NFS locks need, else for reading.

    Raises:
        OSError: it cannot be opened at all.
    """
    flags = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        return os.open(path, os.O_RDWR | flags)
    except PermissionError:
        return os.open(path, os.O_RDONLY | flags)


def is_temporary_of(name: str, target: str) -> bool:
    """Whether ``name`` is the name :func:`atomic_write` gives a temporary of the file ``target``."""
    return is_temporary(name, temporary_prefix(target), TEMP_SUFFIX)


def remove_stale_temporaries(path: Union[str, os.PathLike]) -> list[str]:
    """Remove the temporaries that killed writes of ``path`` left beside it: files named by
    :func:`is_temporary_of`, not empty, and locked by no one (a live writer locks its temporary
    before writing to it). Says what it removed in one line on stderr; returns the names.
    Errors (permissions, a file removed meanwhile) leave the file alone and raise nothing."""
    path = Path(path)
    try:
        entries = [e for e in os.scandir(path.parent) if is_temporary_of(e.name, path.name)]
    except OSError:
        return []
    removed = []
    for entry in entries:
        try:
            fd = open_to_lock(entry.path)
        except OSError:
            continue
        try:
            # locked first, size second: a writer locks before its first byte
            if not stat.S_ISREG(os.fstat(fd).st_mode) or held_elsewhere(fd) or os.fstat(fd).st_size == 0:
                continue
            os.unlink(entry.path)
            removed.append(entry.name)
        except OSError:
            continue
        finally:
            os.close(fd)
    if removed:
        print(f"hf-greedtok: removed {len(removed)} temporary file(s) that a killed write of {path} left: "
              f"{', '.join(sorted(removed))}", file=sys.stderr)
    return removed


def atomic_write(path: Union[str, os.PathLike], content: Content) -> None:
    """Write ``path`` atomically: ``content`` goes into a temporary file beside it, which is
    flushed to disk, given the mode a plain ``open(path, "w")`` would give and renamed into
    place. Stale temporaries of ``path`` are removed first (:func:`remove_stale_temporaries`).

    Args:
        path: the file; its folder is created.
        content: a ``str`` (written as UTF-8 in text mode, as ``open(path, "w",
            encoding="utf-8")`` writes it), ``bytes``, or ``fill(fd, tmp)``, which writes the
            temporary through the descriptor ``fd`` or opens it by its path ``tmp`` (as
            ``pyarrow.parquet.write_table(table, tmp)`` does) and closes what it opened.

    Raises:
        OSError: the directory cannot be created or written; no temporary file is left behind.
        Whatever ``fill`` raises, likewise.
    """
    path = Path(path)
    fill = content if callable(content) else partial(_write_content, content)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        lock(fd)        # held past the rename, so that no one takes the temporary for stale
        fill(fd, tmp)
        os.fsync(fd)    # the data on disk before the name: a crash leaves no short file under it
        os.chmod(tmp, usual_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def _write_content(content: Union[str, bytes], fd: int, tmp: str) -> None:
    # a duplicate descriptor: closing it keeps the lock, which lives until fd is closed
    with (os.fdopen(os.dup(fd), "w", encoding="utf-8") if isinstance(content, str)
          else os.fdopen(os.dup(fd), "wb")) as f:
        f.write(content)


def atomic_write_text(path: Union[str, os.PathLike], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``: :func:`atomic_write` of a ``str``.

    Raises:
        OSError: the directory cannot be created or written; no temporary file is left behind.
    """
    atomic_write(path, text)
