"""The import paths of hf-greedtok 0.1, for the tokenizer folders it saved.

Every folder saved by 0.1 carries a ``tokenization_greedtok.py`` (its ``auto_map`` code) that
imports from ``hf_greedtok.file_format``, ``hf_greedtok.hf_folder``, ``hf_greedtok.hf_pipeline``
and ``hf_greedtok.lookup``, and users may import ``hf_greedtok.tokenization_greedtok``. Those
modules are gone from the package root: :data:`OLD_PATHS` maps each to the module that holds its
names now, and a finder on ``sys.meta_path`` (:func:`install`, run by ``import hf_greedtok``)
makes the old name import that module itself, so ``hf_greedtok.hf_folder is
hf_greedtok.hf.folder`` (one module, executed once, under its own name). Only
``file_format``'s four functions had no new home; they live in :mod:`.file_format`. The Ray
engine's ``hf_greedtok.distributed.sources`` and ``.encoding`` (0.2) are mapped the same way.

Example:
    >>> import hf_greedtok.hf_folder, hf_greedtok.hf.folder
    >>> hf_greedtok.hf_folder is hf_greedtok.hf.folder
    True
"""
from __future__ import annotations

import importlib
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Optional

OLD_PATHS = {
    "hf_greedtok.file_format": "hf_greedtok.compat.file_format",
    "hf_greedtok.hf_folder": "hf_greedtok.hf.folder",
    "hf_greedtok.hf_pipeline": "hf_greedtok.hf.pipeline",
    "hf_greedtok.lookup": "hf_greedtok.indic.lookup",
    "hf_greedtok.tokenization_greedtok": "hf_greedtok.hf.tokenization_greedtok",
    # 0.2's Ray engine modules, whose readers and encoder both engines now share
    "hf_greedtok.distributed.sources": "hf_greedtok.formats.sources",
    "hf_greedtok.distributed.encoding": "hf_greedtok.hf.folder_encoder",
}


class _OldPathLoader:
    """Gives the module of the new path for the old one (no second execution)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        pass        # executed once, when its own name was imported


class _OldPathFinder:
    """A ``sys.meta_path`` finder for the names of :data:`OLD_PATHS` only."""

    def find_spec(self, fullname: str, path=None, target=None) -> Optional[ModuleSpec]:
        new = OLD_PATHS.get(fullname)
        return None if new is None else ModuleSpec(fullname, _OldPathLoader(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPathFinder) for f in sys.meta_path):
        sys.meta_path.append(_OldPathFinder())
