"""Cross-check against the reference implementation, greedtok 0.14.1 (module ``pcatt``).

Skipped when it is not importable: it needs pybind11, tbb-devel and LD_LIBRARY_PATH by hand
(see benchmarks/README.md). On the same real word table both must produce the same per-step
gains; the reference's max_token_length is off by one, hence L + 1 below.
"""
from __future__ import annotations

import os

import pytest
from corpora import head_counts

from hf_greedtok import GreedTokTrainer

pco = pytest.importorskip("pcatt.pco_tokenizer", reason="greedtok 0.14.1 (pcatt) is not installed")


def test_same_per_step_gains_as_greedtok_0_14_1():
    words = {(" " + w).encode(): c for w, c in head_counts("en_wiki2012_wordcounts.tsv", 20_000).items()}
    k, max_len = 800, 12
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:   # the reference prints from C++ whatever `verbose` says
            os.dup2(devnull.fileno(), 1)
            ref = pco.build(words, set(), 100, False)
            ref.initialize_graph(max_len + 1, 1)
            ref_tokens, ref_gains = ref.solve_to_step(k)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    ours = GreedTokTrainer(k=k, max_token_length=max_len, show_progress=False).train_from_counts(
        {w.decode(): c for w, c in words.items()})
    assert ours.model.gains == list(ref_gains)
    # Equal gains at equal length may be ordered differently (the reference uses hash order).
    assert set(ours.model.ranked_tokens) == set(ref_tokens)
