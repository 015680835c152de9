"""docs/design.md stays true to the tree: every file and folder it names exists (a bare module name
somewhere under hf_greedtok/ or src_ext/hf_greedtok/), every ``hf_greedtok.x`` module it names imports."""
from __future__ import annotations

import re

import pytest
from corpora import REPO

DESIGN = REPO / "docs" / "design.md"
# where a bare module name (`byte_level.py`, `_encoder.pyx`) may live
ROOTS = [REPO, REPO / "hf_greedtok", REPO / "src_ext" / "hf_greedtok"]


@pytest.mark.skipif(not DESIGN.is_file(), reason="needs the checkout's docs/ (not in the sdist)")
def test_every_file_design_md_names_exists():
    text = DESIGN.read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w./-]+\.(?:py|pyx|md|h))`", text))          # files
    named |= set(re.findall(r"`([\w-]+(?:/[\w-]+)*/)`", text))                # folders
    files = [p.relative_to(REPO).as_posix() for root in ROOTS[1:] for p in root.rglob("*")
             if "__pycache__" not in p.parts]
    missing = [name for name in sorted(named)
               if not any((root / name).exists() for root in ROOTS)
               and not any(f.endswith("/" + name.rstrip("/")) for f in files)]
    assert not missing, f"docs/design.md names what the repository does not have: {missing}"


@pytest.mark.skipif(not DESIGN.is_file(), reason="needs the checkout's docs/ (not in the sdist)")
def test_every_module_design_md_names_imports():
    """`hf_greedtok.x.y` in the page: a module of the package, or an old path that still imports."""
    import importlib
    code = " ".join(re.findall(r"`([^`]+)`", DESIGN.read_text(encoding="utf-8")))
    names = set(re.findall(r"\b(hf_greedtok(?:\.\w+)+)", code))
    failed = []
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except ImportError as e:
            failed.append(f"{name}: {e}")
    assert not failed, "docs/design.md names modules that do not import:\n" + "\n".join(failed)
