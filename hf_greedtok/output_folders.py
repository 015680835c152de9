"""Output folders of the commands that write one (``train``, ``compare``, ``hierarchical``, ``tokenize``).

Three rules, so that a command never loses the user's data nor leaves a broken folder:

* :func:`check_output`: the output is never the working directory, one of its ancestors, or a
  folder containing (or being) an input file (paths compared after resolving symlinks).
* :func:`check_replaceable`: ``--overwrite`` only replaces a folder hf-greedtok wrote: one whose
  files are exactly those its manifest lists (:data:`~hf_greedtok.formats.manifest.MANIFEST_NAME`),
  or, for folders written before manifests existed, one holding only the file names our
  commands write. Anything else (a user's file inside, a regular file, a symlink) is refused.
* :func:`write_folder`: the new folder is written under a temporary name beside the output,
  its manifest last; then the old folder, if any, is renamed aside, the new one renamed into
  place, and only then the old one deleted. If a step fails, the old folder is put back. At
  every moment the output name holds a complete old folder, a complete new folder, or (for
  the instant between the two renames, or after a crash there) nothing; a crash may leave a
  hidden ``.NAME.new-*`` or ``.NAME.old-*`` folder beside it, never a partial ``NAME``.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Sequence, Union

from .atomic import current_umask
from .errors import OutputError
from .formats.manifest import MANIFEST_NAME, read_manifest, write_manifest

PathLike = Union[str, os.PathLike]

# What our commands write, for folders saved before the manifest existed.
KNOWN_FILES = frozenset({
    "greedtok.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
    "added_tokens.json", "chat_template.jinja", "chat_template.json", "morph_lookup.tsv",
    "tokenization_greedtok.py", "report.md", "report.json", "tokens_per_word.png", "d_inst.png", MANIFEST_NAME,
})
KNOWN_FOLDERS = frozenset({"tokenizer"})   # hierarchical's tokenizer folder


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


def check_replaceable(out: PathLike, manifest_name: str = MANIFEST_NAME) -> None:
    """Refuse to replace anything but a folder hf-greedtok wrote (see the module docstring);
    ``manifest_name``: the name its manifest was written under.

    Raises:
        OutputError: ``out`` is a symlink, not a folder, or holds a file we did not write.
    """
    out = Path(out)
    if out.is_symlink():
        raise OutputError(out, "is a symbolic link; --overwrite replaces only a real folder written by hf-greedtok")
    if not out.is_dir():
        raise OutputError(out, "is a file, not a folder written by hf-greedtok; not replacing it")
    listed = read_manifest(out, manifest_name)
    for path in sorted(_files(out)):
        rel = path.relative_to(out)
        if listed is not None:
            ours = rel.as_posix() in listed or rel.as_posix() == manifest_name
        else:
            ours = (rel.name in KNOWN_FILES and (len(rel.parts) == 1 or
                                                  (len(rel.parts) == 2 and rel.parts[0] in KNOWN_FOLDERS)))
        if not ours:
            raise OutputError(out, f"holds {rel.as_posix()!r}, which hf-greedtok did not write; not replacing "
                                   "the folder (move your files or choose another --output)")


def _files(folder: Path) -> list[Path]:
    """Every non-directory entry under ``folder`` (symlinks not followed)."""
    found = []
    for root, dirs, names in os.walk(folder):
        found.extend(Path(root) / n for n in names)
        found.extend(Path(root) / d for d in dirs if (Path(root) / d).is_symlink())
    return found


def check_target(out: PathLike, *, overwrite: bool, inputs: Iterable[PathLike],
                 manifest_name: str = MANIFEST_NAME) -> None:
    """:func:`check_output`, then: an existing ``out`` needs ``overwrite`` and must pass
    :func:`check_replaceable`.

    Raises:
        FileExistsError: ``out`` exists and not ``overwrite``.
        OutputError: as :func:`check_output` and :func:`check_replaceable`.
    """
    check_output(out, inputs)
    if os.path.lexists(out):
        if not overwrite:
            raise FileExistsError(f"{out} already exists; choose a new --output or pass --overwrite")
        check_replaceable(out, manifest_name)


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


def write_folder(out: PathLike, write: Callable[[Path], None], *, overwrite: bool = False,
                 inputs: Sequence[PathLike] = (), manifest: bool = True,
                 manifest_name: str = MANIFEST_NAME) -> None:
    """Let ``write`` fill a new folder, then put it at ``out`` (see the module docstring).

    Args:
        out: the output folder.
        write: fills the folder it is given (a temporary folder beside ``out``).
        overwrite: replace an existing ``out`` (only one hf-greedtok wrote).
        inputs: files the command read; ``out`` must not contain them.
        manifest: finish with the folder manifest of every file (tokenizer folders; report
            folders have none, their loaders being people).
        manifest_name: its file name (datasets use ``_``-prefixed names, which parquet readers skip).

    Raises:
        FileExistsError: ``out`` exists and not ``overwrite``.
        OutputError: ``out`` is refused (:func:`check_output`, :func:`check_replaceable`) or
            cannot be created (the message names ``out``, not the temporary folder).
    """
    out = Path(out)
    check_target(out, overwrite=overwrite, inputs=inputs, manifest_name=manifest_name)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        new = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as e:
        raise OutputError(out, f"cannot be created ({e.strerror or e})") from None
    try:
        new.chmod(0o777 & ~current_umask())   # mkdtemp creates 0700
        write(new)
        if manifest:
            write_manifest(new, _files(new), manifest_name)  # last: a folder with a manifest is complete
        _put_in_place(new, out)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)   # ours; absent once renamed into place
        raise


def _put_in_place(new: Path, out: Path) -> None:
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    holder = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
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
