"""Output folders of the commands that write one (``train``, ``compare``, ``tsr``,
``hierarchical``, ``tokenize``).

Three rules, so that a command never loses the user's data nor leaves a broken folder:

* :func:`check_output`: the output is never the working directory, one of its ancestors, or a
  folder containing (or being) an input file (paths compared after resolving symlinks).
* :func:`check_replaceable`: ``--overwrite`` only replaces a folder of the command's own kind
  (:data:`~hf_greedtok.formats.manifest.KINDS`: ``train`` a tokenizer folder, ``tokenize`` a
  dataset, ``compare``, ``tsr`` and ``hierarchical`` their reports), as its manifest records it,
  holding only the files that manifest lists. A folder written before manifests existed is
  replaced only if its file names are those the same command wrote (a tokenizer folder: with
  tokenizer_config.json or greedtok.json; a report: with the report.json of that command).
  Anything else (another kind, a user's file inside, a regular file, a symlink) is refused.
* :func:`write_folder`: the new folder is written under a temporary name beside the output,
  its manifest last; then the old folder, if any, is renamed aside, the new one renamed into
  place, and only then the old one deleted. If a step fails, the old folder is put back. At
  every moment the output name holds a complete old folder, a complete new folder, or (for
  the instant between the two renames, or after a crash there) nothing. A killed run may
  leave ``.NAME.new-*`` (the new folder) or ``.NAME.old-*`` (holding the old ``NAME``) beside
  it: the next run on the same output (:func:`clean_leftovers`) deletes the first and puts the
  old folder back as ``NAME`` if ``NAME`` is missing, else deletes it. Each writer holds an
  ``fcntl.flock`` on the marker :data:`WRITING_MARKER` in its folder until it is done (the
  kernel releases it when the process dies, even by SIGKILL), so a live run's folders are
  never taken for leftovers.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence, Union

from .atomic import held_elsewhere, is_temporary, lock, open_to_lock, temporary_prefix, usual_mode
from .errors import OutputError
from .formats.manifest import (COMPARE, DATASET, DATASET_MANIFEST_NAME, HIERARCHICAL, KINDS, MANIFEST_NAME,
                               TOKENIZER, TSR, Manifest, manifest_name, read_folder_manifest, write_manifest)

PathLike = Union[str, os.PathLike]

#: The file a writer keeps locked in its folder while it writes (never listed in a manifest).
WRITING_MARKER = ".hf_greedtok_writing"
_MARKER_FORMAT = "hf-greedtok-writing"

DESCRIPTIONS = {
    TOKENIZER: "a tokenizer folder (written by `hf-greedtok train`, save_pretrained or Tokenizer.save)",
    DATASET: "a tokenized dataset written by `hf-greedtok tokenize`",
    COMPARE: "a comparison report written by `hf-greedtok compare`",
    TSR: "a TSR report written by `hf-greedtok tsr`",
    HIERARCHICAL: "a report and tokenizer written by `hf-greedtok hierarchical`",
}

# What our commands wrote before manifests existed, by kind.
_TOKENIZER_FILES = frozenset({
    "greedtok.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
    "added_tokens.json", "chat_template.jinja", "chat_template.json", "morph_lookup.tsv",
    "tokenization_greedtok.py",
})
_REPORT_FILES = frozenset({"report.md", "report.json"})
_TSR_PLOT = re.compile(r"(tsr|tax)_.+\.png|world_(tsr|tax)_.+\.svg")
_LEGACY_NAMES: dict[str, Callable[[str], bool]] = {
    COMPARE: lambda rel: rel in _REPORT_FILES | {"tokens_per_word.png", "d_inst.png", "heldout.png"},
    TSR: lambda rel: rel in _REPORT_FILES or _TSR_PLOT.fullmatch(rel) is not None,
    HIERARCHICAL: lambda rel: rel in _REPORT_FILES or (
        rel.startswith("tokenizer/") and rel[len("tokenizer/"):] in _TOKENIZER_FILES | {MANIFEST_NAME}),
}
# the top-level key of report.json that only that command's report has
_REPORT_KEYS = {COMPARE: "table3", TSR: "vocabularies", HIERARCHICAL: "tokens_per_word"}


def describe(kind: str) -> str:
    """What a folder of ``kind`` is, for messages."""
    return DESCRIPTIONS.get(kind, f"a folder of kind {kind!r} (written by a newer hf-greedtok?)")


def check_output(out: PathLike, inputs: Iterable[PathLike]) -> None:
    """Refuse an output folder whose replacement would delete the working directory or an input.

    Raises:
        OutputError: ``out`` resolves to the working directory or one of its ancestors, or to
            an input file or a folder containing one.
    """
    target = Path(out).resolve()
    cwd = Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise OutputError(out, "is the working directory or contains it; choose a new folder")
    for i in inputs:
        source = Path(i).resolve()
        if source == target or target in source.parents:
            raise OutputError(out, f"contains the input {i}; choose a folder that holds no input")


def folder_manifest(folder: PathLike) -> Optional[tuple[str, Manifest]]:
    """The name and content of ``folder``'s manifest, whatever its kind, or None if it has none.

    Raises:
        OutputError: the folder holds both a tokenizer's and a dataset's manifest.
        GreedTokFileError: the manifest is unreadable (:func:`~hf_greedtok.formats.manifest.read_folder_manifest`).
    """
    folder = Path(folder)
    names = [n for n in (MANIFEST_NAME, DATASET_MANIFEST_NAME) if (folder / n).is_file()]
    if len(names) > 1:
        raise OutputError(folder, f"holds both {MANIFEST_NAME} and {DATASET_MANIFEST_NAME}: files of two "
                                  "hf-greedtok folders mixed; not replacing it (choose another --output)")
    return (names[0], read_folder_manifest(folder, names[0])) if names else None


def folder_kind(folder: PathLike) -> Optional[str]:
    """The kind of folder hf-greedtok wrote at ``folder`` (its manifest's, or for a folder
    written before manifests, the kind its files show), or None if it is not recognisably ours:
    a file its manifest does not list, or, without a manifest, file names no single command
    wrote. Errors reading the manifest count as "not ours"."""
    folder = Path(folder)
    try:
        found = folder_manifest(folder)
    except (OSError, ValueError):       # OutputError, GreedTokFileError
        return None
    files = _own_files(folder)
    if found is None:
        return _legacy_kind(folder, files)
    name, manifest = found
    return manifest.kind if all(rel in manifest.files or rel == name for rel in files) else None


def check_replaceable(out: PathLike, kind: str) -> None:
    """Refuse to replace anything but a folder of ``kind`` that hf-greedtok wrote (see the
    module docstring).

    Args:
        out: the existing output.
        kind: the kind of folder the command writes (:data:`~hf_greedtok.formats.manifest.KINDS`).

    Raises:
        OutputError: ``out`` is a symlink, not a folder, a folder of another kind, holds a file
            we did not write, or (without a manifest) is not a folder our commands wrote.
        GreedTokFileError: its manifest is unreadable.
    """
    out = Path(out)
    if out.is_symlink():
        raise OutputError(out, "is a symbolic link; --overwrite replaces only a real folder written by hf-greedtok")
    if not out.is_dir():
        raise OutputError(out, "is a file, not a folder written by hf-greedtok; not replacing it")
    files = _own_files(out)
    found = folder_manifest(out)
    if found is None:
        legacy = _legacy_kind(out, files)
        if legacy == kind:
            return
        if legacy is not None:
            raise _other_kind(out, legacy, kind, ", saved before manifests existed")
        foreign = [rel for rel in files
                   if rel not in _TOKENIZER_FILES and not any(named(rel) for named in _LEGACY_NAMES.values())]
        if foreign:
            raise _not_ours(out, foreign[0])
        raise OutputError(out, f"has no hf-greedtok manifest and is not {describe(kind)}; not replacing it "
                               "(move it or choose another --output)")
    name, manifest = found
    if manifest.kind != kind:
        raise _other_kind(out, manifest.kind, kind, "")
    for rel in files:
        if rel not in manifest.files and rel != name:
            raise _not_ours(out, rel)


def _not_ours(out: Path, rel: str) -> OutputError:
    return OutputError(out, f"holds {rel!r}, which hf-greedtok did not write; not replacing the folder "
                            "(move your files or choose another --output)")


def _other_kind(out: Path, found: str, kind: str, note: str) -> OutputError:
    return OutputError(out, f"is {describe(found)}{note}; this --overwrite replaces only {describe(kind)}: "
                            "not replacing it (choose another --output)")


def _own_files(folder: Path) -> list[str]:
    """The folder's files as sorted relative POSIX paths, without a writer's marker (the
    leftover of a run killed just after putting its folder in place)."""
    rels = (p.relative_to(folder).as_posix() for p in _files(folder))
    return sorted(rel for rel in rels if rel != WRITING_MARKER)


def _legacy_kind(folder: Path, files: list[str]) -> Optional[str]:
    """The kind of a folder without a manifest, from the names only one command wrote (and, for
    reports, report.json's own key), or None."""
    if files and set(files) <= _TOKENIZER_FILES and {"tokenizer_config.json", "greedtok.json"} & set(files):
        return TOKENIZER
    candidates = [kind for kind, named in _LEGACY_NAMES.items() if all(map(named, files))]
    if "report.json" not in files or not candidates:
        return None
    try:
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return next((kind for kind in candidates if isinstance(report, dict) and _REPORT_KEYS[kind] in report), None)


def _files(folder: Path) -> list[Path]:
    """Every non-directory entry under ``folder`` (symlinks not followed)."""
    found = []
    for root, dirs, names in os.walk(folder):
        found.extend(Path(root) / n for n in names)
        found.extend(Path(root) / d for d in dirs if (Path(root) / d).is_symlink())
    return found


def check_target(out: PathLike, *, kind: str, overwrite: bool, inputs: Iterable[PathLike]) -> None:
    """:func:`check_output`, then :func:`clean_leftovers`, then: an existing ``out`` needs
    ``overwrite`` and must pass :func:`check_replaceable` for ``kind``.

    Raises:
        FileExistsError: ``out`` exists and not ``overwrite``.
        OutputError: as :func:`check_output` and :func:`check_replaceable`.
        GreedTokFileError: ``out``'s manifest is unreadable.
    """
    check_output(out, inputs)
    clean_leftovers(out)
    if os.path.lexists(out):
        if not overwrite:
            raise FileExistsError(f"{out} already exists; choose a new --output or pass --overwrite")
        check_replaceable(out, kind)


def check_writable(out: PathLike) -> None:
    """Fail before any long work if ``out`` cannot be created: the nearest existing ancestor
    of its parent must be a folder we may write to.

    Raises:
        OutputError: naming ``out`` and the reason.
    """
    out = Path(out)
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(out, f"cannot be created: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(out, f"cannot be created: no permission to write in {parent}")


# ---------------------------------------------------------------------- a writer's marker

def _start_writing(folder: Path, out: Path, kind: str) -> int:
    """Create ``folder``'s marker, lock it, then fill it; returns the descriptor holding the lock
    (close it when done). Filled only once locked: a marker with content that nobody locks
    belongs to a dead writer."""
    fd = os.open(folder / WRITING_MARKER, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        lock(fd)
        info = {"format": _MARKER_FORMAT, "output": out.name, "kind": kind, "pid": os.getpid(),
                "host": socket.gethostname()}
        os.write(fd, json.dumps(info).encode("utf-8"))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _stop_writing(fd: int, out: Path) -> None:
    """Remove the marker ``fd`` holds from ``out`` if the new folder got there, then release it.
    Only now: until the old folder was deleted, the held marker kept cleaners off its holder."""
    path = out / WRITING_MARKER
    try:
        if os.path.samestat(os.stat(path, follow_symlinks=False), os.fstat(fd)):
            path.unlink()
    except OSError:
        pass        # not there (not put in place), or left: once released, clean_leftovers removes it
    finally:
        os.close(fd)


def _marker_state(folder: Path, name: str) -> Optional[str]:
    """"live" if a writer holds ``folder``'s marker (or that cannot be known), "stale" if it is
    a marker of ours for output ``name`` that nobody holds, else None (no marker, or not ours)."""
    try:
        fd = open_to_lock(folder / WRITING_MARKER)
    except OSError:
        return None
    try:
        if held_elsewhere(fd):
            return "live"
        try:
            info = json.loads(os.read(fd, 1 << 16).decode("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None      # empty: its writer stopped before filling it, or it is not ours
        ours = isinstance(info, dict) and info.get("format") == _MARKER_FORMAT and info.get("output") == name
        return "stale" if ours else None
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- leftovers of killed runs

def _leftovers(out: Path, kind: str) -> list[Path]:
    """``out``'s siblings named as :func:`write_folder` names its temporary folders ("new" or "old")."""
    prefix = temporary_prefix(out, f"{kind}-")
    try:
        names = os.listdir(out.parent)
    except OSError:
        return []
    return sorted(out.parent / n for n in names if is_temporary(n, prefix))


def clean_leftovers(out: PathLike) -> list[str]:
    """Clean up after runs on ``out`` that were killed (see the module docstring): delete each
    ``.NAME.new-*`` folder whose marker is ours and held by no one; then, unless some writer of
    ``out`` is alive, for each ``.NAME.old-*`` folder holding exactly ``NAME``, a folder
    hf-greedtok wrote (:func:`folder_kind`): put it back as ``out`` if ``out`` is missing, else
    delete it; an empty ``.NAME.old-*`` (killed before moving the old folder in) is removed too.
    A stale marker left in ``out`` is removed. Anything else is left alone, and so is anything
    that cannot be cleaned (permissions). Says what it did in one line on stderr; returns those
    phrases. Raises nothing.
    """
    out = Path(out)
    news, olds = _leftovers(out, "new"), _leftovers(out, "old")   # listed first: later ones are live runs'
    done, live = [], False
    for new in news:
        state = _marker_state(new, out.name)
        live |= state == "live"
        if state == "stale" and _remove(new):
            done.append(f"removed {new.name}")
    own = _marker_state(out, out.name) if out.is_dir() and not out.is_symlink() else None
    if own == "stale":
        try:
            os.unlink(out / WRITING_MARKER)
        except OSError:
            pass
    if not live and own != "live":          # a live writer's holder is in use
        for holder in olds:
            done += _settle_holder(holder, out)
    if done:
        print(f"hf-greedtok: cleaned up after a killed run on {out}: {'; '.join(done)}", file=sys.stderr)
    return done


def _settle_holder(holder: Path, out: Path) -> list[str]:
    """Put back or delete the old folder a killed run left in ``holder`` (see :func:`clean_leftovers`)."""
    old = holder / out.name
    try:
        inside = os.listdir(holder)
        if not inside:                     # killed before moving the old folder in
            holder.rmdir()
            return [f"removed the empty {holder.name}"]
        if inside != [out.name] or old.is_symlink() or not old.is_dir() or folder_kind(old) is None:
            return []
        if os.path.lexists(out):           # the new folder was in place
            return [f"removed {holder.name} (the folder {out.name} replaced)"] if _remove(holder) else []
        os.rename(old, out)
        holder.rmdir()
    except OSError:
        return []
    return [f"put {out.name} back from {holder.name} (killed while replacing it)"]


def _remove(folder: Path) -> bool:
    try:
        shutil.rmtree(folder)
    except OSError:       # removed meanwhile (by its writer or another cleaner), or not ours to remove
        return False
    return True


# ---------------------------------------------------------------------- writing

def write_folder(out: PathLike, write: Callable[[Path], None], *, kind: str, overwrite: bool = False,
                 inputs: Sequence[PathLike] = ()) -> None:
    """Let ``write`` fill a new folder, then put it at ``out`` (see the module docstring).

    Args:
        out: the output folder.
        write: fills the folder it is given (a temporary folder beside ``out``).
        kind: what the folder is (:data:`~hf_greedtok.formats.manifest.KINDS`), recorded in its
            manifest, which is written last (``_hf_greedtok_manifest.json`` for a dataset, which
            parquet readers skip; else ``hf_greedtok_manifest.json``).
        overwrite: replace an existing ``out`` (only a folder of ``kind`` hf-greedtok wrote).
        inputs: files the command read; ``out`` must not contain them.

    Raises:
        ValueError: an unknown ``kind``.
        FileExistsError: ``out`` exists and not ``overwrite``.
        OutputError: ``out`` is refused (:func:`check_output`, :func:`check_replaceable`) or
            cannot be created (the message names ``out``, not the temporary folder).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown folder kind {kind!r}; expected one of {KINDS}")
    out = Path(out)
    check_target(out, kind=kind, overwrite=overwrite, inputs=inputs)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        new = Path(tempfile.mkdtemp(prefix=temporary_prefix(out, "new-"), dir=out.parent))
    except OSError as e:
        raise OutputError(out, f"cannot be created ({e.strerror or e})") from None
    marker = None
    try:
        new.chmod(usual_mode(folder=True))
        marker = _start_writing(new, out, kind)
        write(new)
        files = [f for f in _files(new) if f != new / WRITING_MARKER]
        write_manifest(new, files, manifest_name(kind), kind=kind)  # last: a folder with a manifest is complete
        _put_in_place(new, out)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)   # ours; absent once renamed into place
        raise
    finally:
        if marker is not None:
            _stop_writing(marker, out)


def _put_in_place(new: Path, out: Path) -> None:
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    holder = Path(tempfile.mkdtemp(prefix=temporary_prefix(out, "old-"), dir=out.parent))
    aside = holder / out.name
    try:
        os.rename(out, aside)
    except BaseException:
        holder.rmdir()
        raise
    try:
        os.rename(new, out)
    except BaseException:
        try:
            os.rename(aside, out)
            holder.rmdir()
        except OSError as e:
            raise OutputError(out, f"replacing it failed and the old folder could not be put back "
                                   f"({e.strerror or e}); it is kept at {aside}") from None
        raise
    try:
        shutil.rmtree(holder)
    except OSError as e:
        print(f"hf-greedtok: warning: {out} was replaced, but its old version could not be removed "
              f"from {holder} ({e.strerror or e})", file=sys.stderr)
