"""The ranked token file ``greedtok.json``: its envelope (format, version, checksum) and its
atomic save. The components write their own sections (``to_dict``/``from_dict`` of the
normalizer, pre-tokenizer, model and :class:`hf_greedtok.Tokenizer`); this module never looks
inside them, except to checksum ``"model"``.

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
      "cache_words": [" the", ...],       # optional: frequent training words, encoded into the
                                          # word cache on load (not checksummed: a speed hint)
      "sha256": "..."                     # of the canonical JSON of "model"
    }

Ids are implied by the layout in :mod:`hf_greedtok.models` unless "ids" is given. A save
writes the file, then the folder's manifest (:mod:`hf_greedtok.formats.manifest`).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..atomic import atomic_write_text
from ..errors import GreedTokFileError, InvalidSpec
from .manifest import MANIFEST_NAME, TOKENIZER, verify_manifest, write_manifest

FILE_NAME = "greedtok.json"
FORMAT = "hf-greedtok"
VERSION = 1

T = TypeVar("T")


def _digest(model: dict[str, Any]) -> str:
    canonical = json.dumps(model, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def dumps(sections: dict[str, Any]) -> str:
    """The file's text for a tokenizer's sections (``Tokenizer.to_dict()``: "normalizer",
    "pre_tokenizer", "model", "mode", "training"), with the envelope around them.
    Deterministic: equal sections give equal bytes."""
    data = {"format": FORMAT, "version": VERSION, **sections, "sha256": _digest(sections["model"])}
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def loads(text: str, build: Callable[[dict[str, Any]], T], path: Path = Path("<string>")) -> T:
    """Check the envelope of ``text`` and return ``build(sections)``; ``path`` only names the
    source in errors.

    Raises:
        GreedTokFileError: not JSON, not ours, an unsupported version, a checksum mismatch; or
            ``build`` found a section malformed (a missing field, :class:`InvalidSpec`, or any
            ValueError or TypeError of the components it builds).
    """
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
        if data["sha256"] != _digest(data["model"]):
            raise GreedTokFileError(path, "checksum mismatch: the model section was modified or corrupted")
        return build(data)
    except GreedTokFileError:
        raise
    except InvalidSpec as e:
        raise GreedTokFileError(path, str(e)) from None
    except KeyError as e:
        raise GreedTokFileError(path, f"missing field {e.args[0]!r}") from None
    except (TypeError, ValueError) as e:
        raise GreedTokFileError(path, f"invalid content: {e}") from None


def save(sections: dict[str, Any], directory: Path) -> Path:
    """Write ``directory/greedtok.json`` atomically, then the folder manifest listing it;
    returns the file's path."""
    path = directory / FILE_NAME
    atomic_write_text(path, dumps(sections))
    write_manifest(directory, [path], kind=TOKENIZER)
    return path


def load(path: Path, build: Callable[[dict[str, Any]], T], *, verify_folder: bool = True) -> T:
    """Read a file written by :func:`save` (``path`` may be its directory) and return
    ``build(sections)``; then check the folder's manifest (:func:`verify_file_folder`) unless
    ``verify_folder`` is false (for a caller that checks more specific things first and the
    manifest after).

    Raises:
        GreedTokFileError: the file is missing, is not UTF-8, or as :func:`loads`; a file the
            folder's manifest lists is missing or changed.
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
    result = loads(text, build, path)     # the file's own, more precise errors first
    if verify_folder:
        verify_file_folder(path)
    return result


def verify_file_folder(path: Path):
    """:func:`~hf_greedtok.formats.manifest.verify_manifest` for the folder of a ranked token
    file ``path`` (``[<prefix>-]greedtok.json``, whose manifest is
    ``[<prefix>-]hf_greedtok_manifest.json``); nothing to check for a file of another name."""
    path = Path(path)
    if path.name.endswith(FILE_NAME):
        return verify_manifest(path.parent, path.name[:-len(FILE_NAME)] + MANIFEST_NAME)
    return None
