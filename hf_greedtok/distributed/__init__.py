"""Scale-out on Ray (issue 16): distributed word counting equal to single-process counting.

Needs the optional extra ``pip install "hf-greedtok[ray]"``. Nothing outside this package imports
it, and it imports Ray only inside functions, so ``import hf_greedtok`` (and this package) never
loads Ray. Names: :func:`count_words_distributed` (:mod:`.counting`), :func:`resolve_inputs`
(:mod:`.sources`); tables are written by :func:`hf_greedtok.formats.count_table.write_count_table`.
"""
from __future__ import annotations

from .counting import count_words_distributed, ensure_ray
from .sources import resolve_inputs

__all__ = ["count_words_distributed", "ensure_ray", "resolve_inputs"]
