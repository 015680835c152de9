"""``hf_greedtok.file_format`` of hf-greedtok 0.1 (see :mod:`hf_greedtok.compat`): the ranked token
file now lives in :mod:`hf_greedtok.formats.greedtok_json`, the manifest in
:mod:`hf_greedtok.formats.manifest`; these are the names 0.1's folders import from it."""
from __future__ import annotations

from pathlib import Path

from ..atomic import atomic_write_text, current_umask
from ..core import Tokenizer
from ..errors import GreedTokFileError
from ..formats.greedtok_json import FILE_NAME, FORMAT, VERSION, verify_file_folder
from ..formats.manifest import (MANIFEST_NAME, file_sha256, read_manifest, verify_manifest, write_manifest,
                               write_save_manifest)

__all__ = ["FILE_NAME", "FORMAT", "MANIFEST_NAME", "VERSION", "GreedTokFileError", "atomic_write_text",
           "current_umask", "file_sha256", "load_tokenizer", "read_manifest", "save_tokenizer",
           "tokenizer_from_json", "tokenizer_to_json", "verify_file_folder", "verify_manifest", "write_manifest",
           "write_save_manifest"]


def load_tokenizer(path: Path, *, verify_folder: bool = True) -> Tokenizer:
    """:meth:`Tokenizer.load`."""
    return Tokenizer.load(path, verify_folder=verify_folder)


def save_tokenizer(tok: Tokenizer, directory: Path) -> Path:
    """:meth:`Tokenizer.save`."""
    return tok.save(directory)


def tokenizer_to_json(tok: Tokenizer) -> str:
    """:meth:`Tokenizer.to_json`."""
    return tok.to_json()


def tokenizer_from_json(text: str, path: Path = Path("<string>")) -> Tokenizer:
    """:meth:`Tokenizer.from_json`."""
    return Tokenizer.from_json(text, path)
