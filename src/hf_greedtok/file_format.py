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
    """Write ``directory/greedtok.json`` atomically; returns its path."""
    path = directory / FILE_NAME
    atomic_write_text(path, tokenizer_to_json(tok))
    return path


def load_tokenizer(path: Path):
    """Read a file written by :func:`save_tokenizer` (``path`` may be its directory).

    Raises:
        GreedTokFileError: the file is missing, is not JSON, is not ours, has an unsupported
            version, fails its checksum, or holds invalid tokens.
    """
    if path.is_dir():
        path = path / FILE_NAME
    if not path.is_file():
        raise GreedTokFileError(path, "no such file (expected a directory written by hf-greedtok "
                                      f"containing {FILE_NAME})")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise GreedTokFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return tokenizer_from_json(text, path)


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
