"""Old import path (hf-greedtok 0.1): now :mod:`hf_greedtok.indic.lookup`.

Kept because every tokenizer folder saved by 0.1 carries a ``tokenization_greedtok.py`` that
imports :class:`MorphLookup` from here (tests/structure/test_layout.py loads such a folder).
"""
from .indic.lookup import MorphLookup

__all__ = ["MorphLookup"]
