"""Atomic file writes: readers see the old file or the complete new one, never a part.

A file is written as ``.NAME.XXXXXXXX.hf-greedtok.tmp`` beside its target and renamed into
place. The writer holds an ``fcntl.flock`` on that temporary from before its first byte until
the rename; the kernel releases it when the writer dies, even by SIGKILL. So a temporary of that
name that holds data and that nobody locks was left by a killed write, and the next write of the
same target removes it (:func:`remove_stale_temporaries`); anything else is left alone.

Folders are replaced atomically by :func:`hf_greedtok.output_folders.write_folder`, which
builds the new folder beside the old one and swaps them with renames.
"""
from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
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


def current_umask() -> int:
    """The process umask (os.umask can only be read by setting it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
    """Whether ``name`` is the name :func:`atomic_write` gives a temporary of ``target``."""
    prefix = f".{target}."
    return (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)
            and _RANDOM_PART.fullmatch(name[len(prefix):-len(TEMP_SUFFIX)]) is not None)


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


def atomic_write(path: Union[str, os.PathLike], fill: Callable[[int, str], None]) -> None:
    """Write ``path`` atomically: ``fill(fd, tmp)`` writes the content into the temporary file
    ``tmp`` beside it (through the open descriptor ``fd``, or by its path), which is then given
    the mode a plain ``open(path, "w")`` would give and renamed into place. Stale temporaries of
    ``path`` are removed first (:func:`remove_stale_temporaries`).

    Raises:
        OSError: the directory cannot be created or written; no temporary file is left behind.
        Whatever ``fill`` raises, likewise.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        lock(fd)        # held past the rename, so that no one takes the temporary for stale
        fill(fd, tmp)
        os.chmod(tmp, 0o666 & ~current_umask())   # mkstemp creates 0600; give the usual file mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` via :func:`atomic_write`, fsynced.

    Raises:
        OSError: the directory cannot be created or written; no temporary file is left behind.
    """
    def fill(fd: int, tmp: str) -> None:
        # a duplicate descriptor: closing it keeps the lock, which lives until fd is closed
        with os.fdopen(os.dup(fd), "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())

    atomic_write(path, fill)
