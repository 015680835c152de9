"""The folder manifest: written as the last step of every folder hf-greedtok writes, it records
what the folder is and the sha256 of every file the save wrote::

    {"format": "hf-greedtok-manifest", "version": 1, "kind": "tokenizer",
     "files": {"greedtok.json": "<sha256 hex>", "tokenizer.json": "...", ...}}

``kind`` (:data:`KINDS`) says which save wrote the folder: ``"tokenizer"``
(:meth:`hf_greedtok.Tokenizer.save`, ``GreedTokTokenizerFast.save_pretrained``, ``hf-greedtok
train``), ``"dataset"`` (``hf-greedtok tokenize``), ``"compare"``, ``"tsr"`` or
``"hierarchical"`` (those commands' report folders). A dataset's manifest is named
``_hf_greedtok_manifest.json`` (parquet readers skip ``_`` files), every other
``hf_greedtok_manifest.json``; with ``filename_prefix``, ``save_pretrained``'s is
``<prefix>-hf_greedtok_manifest.json``. ``kind`` was added within version 1: a manifest without
it is a tokenizer folder's, or a dataset's if named ``_hf_greedtok_manifest.json``
(:func:`default_kind`), and readers that predate it ignore it. ``--overwrite`` replaces a folder
only if its kind is the command's (:mod:`hf_greedtok.output_folders`).

Loaders (``Tokenizer.load`` and ``GreedTokTokenizerFast``, and the
CLI's ``encode``/``evaluate``) call :func:`verify_manifest`: a listed file that is missing or
whose bytes changed is an error naming that file, so a half-written, half-deleted or mixed
folder never loads.

A tokenizer folder's manifest guards what must agree for the ids to be right (tokenizer.json,
greedtok.json, the remote code, the lookup table), not the settings users edit by hand before a
run (``model_max_length``, ``padding_side``, a chat template): the files of
:data:`SETTINGS_FILES` (with a ``save_pretrained`` ``filename_prefix``, ``<prefix>-`` before
the name) and the files in ``additional_chat_templates/`` are not verified. Saves still list
them, as manifests written before this rule do, so that ``--overwrite`` recognises them as
the save's own files; :func:`verify_manifest` skips them. The settings that do change ids
(tokenizer_config.json's ``"mode"`` and ``"tokenizer_class"``) are checked against the other
files by the folder's reader instead (:mod:`hf_greedtok.formats.folder_files`), with or
without a manifest. Files the manifest does not list (a model's weights saved next to the
tokenizer) are not checked. Folders saved before the manifest existed have none and load as
before, unchecked; a manifest that is present but unreadable is an error. A save replaces the
manifest only after all its files are written, so a save interrupted in an existing folder
leaves the old manifest, which then names the file that changed.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple, Optional

from ..atomic import atomic_write_text
from ..errors import GreedTokFileError

MANIFEST_NAME = "hf_greedtok_manifest.json"
#: A tokenized dataset's manifest: ``_``-prefixed, so parquet readers do not take it for data.
DATASET_MANIFEST_NAME = "_" + MANIFEST_NAME
TOKENIZER, DATASET, COMPARE, TSR, HIERARCHICAL = "tokenizer", "dataset", "compare", "tsr", "hierarchical"
#: The kinds of folder hf-greedtok writes (a manifest's ``"kind"``).
KINDS = (TOKENIZER, DATASET, COMPARE, TSR, HIERARCHICAL)
MANIFEST_FORMAT = "hf-greedtok-manifest"
MANIFEST_VERSION = 1
_HASH_CHUNK = 1 << 20
#: A tokenizer folder's files of settings users edit by hand (transformers' names); listed in
#: its manifest, never verified.
SETTINGS_FILES = ("tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja")
#: transformers' folder of named chat templates (``<name>.jinja``), settings as well.
CHAT_TEMPLATE_DIR = "additional_chat_templates"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_HASH_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


class Manifest(NamedTuple):
    """A folder manifest as read: what wrote the folder, and {relative path: sha256}."""

    kind: str
    files: dict


def manifest_name(kind: str) -> str:
    """The file name of a ``kind`` folder's manifest."""
    return DATASET_MANIFEST_NAME if kind == DATASET else MANIFEST_NAME


def default_kind(name: str) -> str:
    """The kind of a manifest named ``name`` that records none (written before kinds existed)."""
    return DATASET if name == DATASET_MANIFEST_NAME else TOKENIZER


def write_manifest(folder: Path, files, name: str = MANIFEST_NAME, *, kind: Optional[str] = None) -> Path:
    """Record ``kind`` and the sha256 of ``files`` (paths of files inside ``folder``, as written
    by one save) in ``folder/name``, atomically; call it after every file is written. Returns
    its path.

    Args:
        kind: one of :data:`KINDS`; default :func:`default_kind` of ``name``.

    Raises:
        ValueError: a file outside ``folder``, or an unknown kind.
    """
    kind = kind or default_kind(name)
    if kind not in KINDS:
        raise ValueError(f"unknown folder kind {kind!r}; expected one of {KINDS}")
    folder = Path(folder)
    entries = {}
    for f in files:
        rel = Path(os.path.relpath(f, folder))
        if rel.parts[:1] == ("..",) or rel.is_absolute():
            raise ValueError(f"{f} is not inside {folder}; a manifest lists the folder's own files")
        if rel.as_posix() != name:        # the manifest does not list itself
            entries[rel.as_posix()] = file_sha256(folder / rel)
    manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "kind": kind,
                "files": dict(sorted(entries.items()))}
    path = folder / name
    atomic_write_text(path, json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    return path


def write_save_manifest(directory, saved_files, filename_prefix=None) -> Path:
    """The manifest of one ``save_pretrained``: the files it reports that exist (transformers
    also lists ``added_tokens.json`` when it did not write it)."""
    prefix = filename_prefix + "-" if filename_prefix else ""
    files = [f for f in dict.fromkeys(map(str, saved_files)) if os.path.isfile(f)]
    return write_manifest(Path(directory), files, prefix + MANIFEST_NAME, kind=TOKENIZER)


def read_manifest(folder: Path, name: str = MANIFEST_NAME):
    """{relative path: sha256} of ``folder``'s manifest, or None if it has none.

    Raises:
        GreedTokFileError: as :func:`read_folder_manifest`.
    """
    manifest = read_folder_manifest(folder, name)
    return None if manifest is None else manifest.files


def read_folder_manifest(folder: Path, name: str = MANIFEST_NAME) -> Optional[Manifest]:
    """``folder``'s manifest ``name`` (kind and files), or None if it has none.

    Raises:
        GreedTokFileError: the manifest is not valid JSON, not ours, of another version, has a
            kind that is not a string, or lists a path outside the folder.
    """
    path = Path(folder) / name
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GreedTokFileError(path, f"unreadable folder manifest ({e}); the folder is corrupted") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise GreedTokFileError(path, f"not an hf-greedtok manifest (missing \"format\": \"{MANIFEST_FORMAT}\")")
    if data.get("version") != MANIFEST_VERSION:
        raise GreedTokFileError(path, f"unsupported manifest version {data.get('version')!r}; this "
                                      f"hf-greedtok reads version {MANIFEST_VERSION}")
    files = data.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise GreedTokFileError(path, "invalid manifest: \"files\" must map file names to sha256 strings")
    for rel in files:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts or not parts:
            raise GreedTokFileError(path, f"invalid manifest: {rel!r} is not a path inside the folder")
    kind = data.get("kind", default_kind(name))
    if not isinstance(kind, str) or not kind:
        raise GreedTokFileError(path, "invalid manifest: \"kind\" must be a non-empty string")
    return Manifest(kind, files)


def is_settings_file(rel: str, name: str = MANIFEST_NAME) -> bool:
    """Whether ``rel`` (a path a tokenizer folder's manifest ``name`` lists) is a file of
    settings users edit by hand (:data:`SETTINGS_FILES`, with the manifest's own
    ``filename_prefix``), which :func:`verify_manifest` does not check."""
    prefix = name[:-len(MANIFEST_NAME)] if name.endswith(MANIFEST_NAME) else ""
    return rel in {prefix + f for f in SETTINGS_FILES} or rel.startswith(prefix + CHAT_TEMPLATE_DIR + "/")


def verify_manifest(folder: Path, name: str = MANIFEST_NAME):
    """Check that every file ``folder``'s manifest lists is present with the recorded sha256,
    except, in a tokenizer folder, the files of settings users edit (:func:`is_settings_file`).

    Returns the manifest's {relative path: sha256}, or None for a folder without a manifest
    (saved before manifests existed: nothing to check).

    Raises:
        GreedTokFileError: naming the first listed file that is missing or changed, or the
            manifest itself if it is unreadable.
    """
    manifest = read_folder_manifest(folder, name)
    if manifest is None:
        return None
    files = manifest.files
    for rel, digest in sorted(files.items()):
        if manifest.kind == TOKENIZER and is_settings_file(rel, name):
            continue              # edited by users; its id-affecting fields are checked by the reader
        path = Path(folder) / rel
        if not path.is_file():
            raise GreedTokFileError(path, f"missing: the folder's {name} lists it, so the folder is "
                                          "incomplete (an interrupted save, copy or deletion?)")
        if file_sha256(path) != digest:
            raise GreedTokFileError(path, f"changed since the folder was saved (sha256 differs from {name}): "
                                          "the folder's files do not belong together; re-save the tokenizer")
    return files
