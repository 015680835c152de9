"""The ranked token file ``greedtok.json``: documented, versioned, checksummed, saved atomically.

Format (version 1), one JSON object::

    {
      "format": "hf-greedtok",            # identifies the file
      "version": 1,                        # bumped on incompatible changes
      "normalizer": null | "NFC" | "NFKC" | "NFD" | "NFKD",
      "pre_tokenizer": {"type": "ByteLevel", "pattern": "..."} | {"type": "Metaspace", "replacement": "▁"},
      "model": {
        "type": "GreedTok",
        "units": "bytes" | "chars",       # what a singleton is
        "special_tokens": ["<|endoftext|>", ...],   # ids 0..n-1
        "alphabet": ["a", "b", ...],      # character singletons ("chars" only)
        "ranked_tokens": ["Ġthe", ...],   # rank order; byte level in HF's byte-to-unicode form
        "gains": [489250110, ...] | null, # objective decrease of each rank when trained
        "ids": null | {...}               # explicit ids (foreign vocabularies only)
      },
      "mode": "cover" | "optimal",        # default encoder
      "training": {...},                  # trainer options and results, informative only
      "sha256": "..."                     # of the canonical JSON of "model"
    }

Ids are implied by the layout in :mod:`hf_greedtok.models` unless "ids" is given.

The folder manifest ``hf_greedtok_manifest.json``: written as the last step of every folder save
(:meth:`hf_greedtok.Tokenizer.save`, ``GreedTokTokenizerFast.save_pretrained``, the folders of
``hf-greedtok train``), it records the sha256 of every file that save wrote::

    {"format": "hf-greedtok-manifest", "version": 1,
     "files": {"greedtok.json": "<sha256 hex>", "tokenizer.json": "...", ...}}

Loaders (:func:`load_tokenizer`, hence ``Tokenizer.load`` and ``GreedTokTokenizerFast``, and the
CLI's ``encode``/``evaluate``) call :func:`verify_manifest`: a listed file that is missing or
whose bytes changed is an error naming that file, so a half-written, half-deleted or mixed
folder never loads. Files the manifest does not list (a model's weights saved next to the
tokenizer) are not checked. Folders saved before the manifest existed have none and load as
before, unchecked; a manifest that is present but unreadable is an error. A save replaces the
manifest only after all its files are written, so a save interrupted in an existing folder
leaves the old manifest, which then names the file that changed. With ``filename_prefix``
the manifest is ``<prefix>-hf_greedtok_manifest.json``.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

FILE_NAME = "greedtok.json"
FORMAT = "hf-greedtok"
VERSION = 1
MANIFEST_NAME = "hf_greedtok_manifest.json"
MANIFEST_FORMAT = "hf-greedtok-manifest"
MANIFEST_VERSION = 1
_HASH_CHUNK = 1 << 20


class GreedTokFileError(ValueError):
    """A ranked token file is missing, corrupted, foreign or of an unsupported version."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def _digest(model: dict[str, Any]) -> str:
    canonical = json.dumps(model, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def current_umask() -> int:
    """The process umask (os.umask can only be read by setting it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same directory and a rename,
    so readers see either the old file or the complete new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())   # mkstemp creates 0600; give the usual file mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _ids_to_json(ids: dict) -> dict:
    return {"specials": ids["specials"], "singletons": {str(k): v for k, v in ids["singletons"].items()},
            "bytes": list(ids["bytes"]), "ranked": list(ids["ranked"])}


def _ids_from_json(ids: dict) -> dict:
    return {"specials": dict(ids["specials"]), "singletons": {int(k): v for k, v in ids["singletons"].items()},
            "bytes": list(ids["bytes"]), "ranked": list(ids["ranked"])}


def tokenizer_to_dict(tok) -> dict[str, Any]:
    """The file's JSON object for a :class:`~hf_greedtok.core.Tokenizer`."""
    m = tok.model
    model = {
        "type": "GreedTok",
        "units": m.unit_kind,
        "special_tokens": m.special_tokens,
        "alphabet": m.alphabet,
        "ranked_tokens": [tok.pre_tokenizer.token_to_str(t) for t in m.ranked_tokens],
        "gains": m.gains,
        "ids": None if m._ids == m._default_ids() else _ids_to_json(m._ids),
    }
    return {
        "format": FORMAT,
        "version": VERSION,
        "normalizer": tok.normalizer.form if tok.normalizer else None,
        "pre_tokenizer": tok.pre_tokenizer.to_dict(),
        "model": model,
        "mode": tok.mode,
        "training": tok.training_info,
        "sha256": _digest(model),
    }


def tokenizer_to_json(tok) -> str:
    """The file's text for a :class:`~hf_greedtok.core.Tokenizer` (deterministic)."""
    return json.dumps(tokenizer_to_dict(tok), ensure_ascii=False, indent=1) + "\n"


def save_tokenizer(tok, directory: Path) -> Path:
    """Write ``directory/greedtok.json`` atomically, then the folder manifest listing it;
    returns the file's path."""
    path = directory / FILE_NAME
    atomic_write_text(path, tokenizer_to_json(tok))
    write_manifest(directory, [path])
    return path


def load_tokenizer(path: Path, *, verify_folder: bool = True):
    """Read a file written by :func:`save_tokenizer` (``path`` may be its directory), then
    check the folder's manifest (:func:`verify_file_folder`) unless ``verify_folder`` is false
    (for a caller that checks more specific things first and the manifest after).

    Raises:
        GreedTokFileError: the file is missing, is not JSON, is not ours, has an unsupported
            version, fails its checksum, or holds invalid tokens; a file the folder's manifest
            lists is missing or changed.
    """
    if path.is_dir():
        path = path / FILE_NAME
    if not path.is_file():
        verify_manifest(path.parent)     # a manifest listing the file says more than "no such file"
        raise GreedTokFileError(path, "no such file (expected a directory written by hf-greedtok "
                                      f"containing {FILE_NAME})")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise GreedTokFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    tok = tokenizer_from_json(text, path)     # the file's own, more precise errors first
    if verify_folder:
        verify_file_folder(path)
    return tok


def verify_file_folder(path: Path):
    """:func:`verify_manifest` for the folder of a ranked token file ``path``
    (``[<prefix>-]greedtok.json``, whose manifest is ``[<prefix>-]hf_greedtok_manifest.json``);
    nothing to check for a file of another name."""
    path = Path(path)
    if path.name.endswith(FILE_NAME):
        return verify_manifest(path.parent, path.name[:-len(FILE_NAME)] + MANIFEST_NAME)
    return None


def tokenizer_from_json(text: str, path: Path = Path("<string>")):
    """Parse the file's text; ``path`` only names the source in errors.

    Raises:
        GreedTokFileError: as :func:`load_tokenizer`.
    """
    from .core import Tokenizer
    from .models import GreedTokModel
    from .normalizers import normalizer_from_name
    from .pre_tokenizers import pre_tokenizer_from_dict

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GreedTokFileError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                                      "the file is truncated or corrupted") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GreedTokFileError(path, f"not an hf-greedtok file (missing \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise GreedTokFileError(path, f"unsupported version {data.get('version')!r}; this hf-greedtok "
                                      f"reads version {VERSION}")
    try:
        model = data["model"]
        if data["sha256"] != _digest(model):
            raise GreedTokFileError(path, "checksum mismatch: the model section was modified or corrupted")
        pre = pre_tokenizer_from_dict(data["pre_tokenizer"])
        _check_pattern(pre, path)
        if model.get("type") != "GreedTok":
            raise GreedTokFileError(path, f"unknown model type {model.get('type')!r}")
        ranked = []
        for r, s in enumerate(model["ranked_tokens"]):
            try:
                ranked.append(pre.str_to_token(s))
            except KeyError as e:
                raise GreedTokFileError(path, f"ranked token {r} ({s!r}) has character {e.args[0]!r} "
                                              "outside the byte-level alphabet") from None
        gm = GreedTokModel(ranked, unit_kind=model["units"], alphabet=model.get("alphabet", ()),
                           special_tokens=model.get("special_tokens", ()),
                           ids=_ids_from_json(model["ids"]) if model.get("ids") else None,
                           gains=model.get("gains"))
        return Tokenizer(gm, pre, normalizer=normalizer_from_name(data.get("normalizer")),
                         mode=data.get("mode", "cover"), training_info=data.get("training"))
    except GreedTokFileError:
        raise
    except KeyError as e:
        raise GreedTokFileError(path, f"missing field {e.args[0]!r}") from None
    except (TypeError, ValueError) as e:
        raise GreedTokFileError(path, f"invalid content: {e}") from None


def _check_pattern(pre, path: Path) -> None:
    """Compile a byte-level split pattern now, so a bad one is named with its file, not at
    the first encode."""
    import regex

    from .pre_tokenizers import ByteLevel

    if isinstance(pre, ByteLevel):
        try:
            regex.compile(pre.pattern)
        except regex.error as e:
            raise GreedTokFileError(path, f"invalid split pattern {pre.pattern!r} in \"pre_tokenizer\": "
                                          f"{e}") from None


# ---------------------------------------------------------------------- folder manifest

def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_HASH_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(folder: Path, files, name: str = MANIFEST_NAME) -> Path:
    """Record the sha256 of ``files`` (paths of files inside ``folder``, as written by one save)
    in ``folder/name``, atomically; call it after every file is written. Returns its path.

    Raises:
        ValueError: a file outside ``folder``.
    """
    folder = Path(folder)
    entries = {}
    for f in files:
        rel = Path(os.path.relpath(f, folder))
        if rel.parts[:1] == ("..",) or rel.is_absolute():
            raise ValueError(f"{f} is not inside {folder}; a manifest lists the folder's own files")
        if rel.as_posix() != name:        # the manifest does not list itself
            entries[rel.as_posix()] = file_sha256(folder / rel)
    manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "files": dict(sorted(entries.items()))}
    path = folder / name
    atomic_write_text(path, json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    return path


def write_save_manifest(directory, saved_files, filename_prefix=None) -> Path:
    """The manifest of one ``save_pretrained``: the files it reports that exist (transformers
    also lists ``added_tokens.json`` when it did not write it)."""
    prefix = filename_prefix + "-" if filename_prefix else ""
    files = [f for f in dict.fromkeys(map(str, saved_files)) if os.path.isfile(f)]
    return write_manifest(Path(directory), files, prefix + MANIFEST_NAME)


def read_manifest(folder: Path, name: str = MANIFEST_NAME):
    """{relative path: sha256} of ``folder``'s manifest, or None if it has none.

    Raises:
        GreedTokFileError: the manifest is not valid JSON, not ours, of another version, or
            lists a path outside the folder.
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
    return files


def verify_manifest(folder: Path, name: str = MANIFEST_NAME):
    """Check that every file ``folder``'s manifest lists is present with the recorded sha256.

    Returns the manifest's {relative path: sha256}, or None for a folder without a manifest
    (saved before manifests existed: nothing to check).

    Raises:
        GreedTokFileError: naming the first listed file that is missing or changed, or the
            manifest itself if it is unreadable.
    """
    files = read_manifest(folder, name)
    for rel, digest in sorted((files or {}).items()):
        path = Path(folder) / rel
        if not path.is_file():
            raise GreedTokFileError(path, f"missing: the folder's {name} lists it, so the folder is "
                                          "incomplete (an interrupted save, copy or deletion?)")
        if file_sha256(path) != digest:
            raise GreedTokFileError(path, f"changed since the folder was saved (sha256 differs from {name}): "
                                          "the folder's files do not belong together; re-save the tokenizer")
    return files
