"""GreedWMC (paper Section 4.2.1): the weighted maximum coverage relaxation, run by the same core."""
from __future__ import annotations

import math
import random

import pytest
from helpers import all_substrings, core_ranking, make_core, naive_greedwmc, random_corpus, random_instance

from hf_greedtok import GreedTokTrainer, GreedWMCTrainer


def named_scores(core) -> dict[str, int]:
    return {"".join(map(chr, k)): v for k, v in core.scores().items()}


def test_example_2_overlapping_occurrences_all_count_in_the_relaxation():
    # W = ababa, T = aba: GreedTok covers one occurrence (aba|b|a, 2 gaps, Example 2); the
    # relaxation drops constraints (5)-(8), so both overlapping occurrences cover all 4 gaps.
    assert named_scores(make_core({"ababa": 1}, candidates=["aba"])) == {"aba": 2}
    wmc = make_core({"ababa": 1}, candidates=["aba"], relaxed=True)
    assert named_scores(wmc) == {"aba": 4}
    wmc.step(1)
    assert wmc.initial_objective - wmc.objective == 4


def test_example_4_corpus_relaxed_scores_and_trace():
    # papaya/impact with T = {pa, ya, ap}: GreedTok's R(ap) falls to 0 after pa (Example 4);
    # in the relaxation ap still covers the gap p-a at papaya[1:3] that pa left uncovered.
    core = make_core({"papaya": 1, "impact": 1}, candidates=["pa", "ya", "ap"], relaxed=True)
    assert named_scores(core) == {"pa": 3, "ya": 1, "ap": 1}
    core.step(3)
    assert core_ranking(core) == ["pa", "ap", "ya"]
    assert core.gains_array().tolist() == [3, 1, 1]


@pytest.mark.parametrize("seed", range(40))
def test_native_equals_literal_greedy_max_coverage(seed):
    words, max_len, k = random_instance(seed)
    expected, gains = naive_greedwmc(words, all_substrings(words, max_len), k)
    core = make_core(words, max_len=max_len, relaxed=True)
    core.step(k)
    assert core_ranking(core) == expected
    assert core.gains_array().tolist() == gains
    assert core.score_mismatches == 0
    assert core.score_rises == 0          # coverage is submodular: gains only fall


@pytest.mark.parametrize("seed", range(40))
def test_greedwmc_bounds_greedtok_by_one_minus_one_over_e(seed):
    # GreedTok <= OPT(TOK) <= OPT(WMC) <= GreedWMC / (1 - 1/e) at every k (Section 4.2.1).
    rng = random.Random(1000 + seed)
    words = random_corpus(rng, "abc")
    for k in (1, 2, 4, 8):
        tok, wmc = make_core(words, max_len=5), make_core(words, max_len=5, relaxed=True)
        tok.step(k)
        wmc.step(k)
        tok_cover = tok.initial_objective - tok.objective
        wmc_cover = wmc.initial_objective - wmc.objective
        assert tok_cover * (1 - 1 / math.e) <= wmc_cover + 1e-9


def test_trainer_on_real_english_first_gain_dominates_and_d_inst_is_bounded(english_counts):
    words = dict(list(english_counts.items())[:3000])
    gt = GreedTokTrainer(k=300, show_progress=False).train_from_counts(words)
    trainer = GreedWMCTrainer(k=300, show_progress=False)
    wmc = trainer.train_from_counts(words)
    g_gains, w_gains = gt.model.gains, wmc.model.gains
    # One token's relaxed gain counts every occurrence, so the best one gains at least as much.
    assert w_gains[0] >= g_gains[0]
    assert all(a >= b for a, b in zip(w_gains, w_gains[1:]))
    assert trainer.core.score_rises == 0 and trainer.core.score_mismatches == 0
    assert wmc.training_info["covered_gaps"] == sum(w_gains)
    assert gt.training_info["covered_gaps"] == sum(g_gains)
    assert "tokens_per_word" not in wmc.training_info        # not a tokenization
    assert wmc.training_info["algorithm"].startswith("GreedWMC")
    d_inst = gt.training_info["covered_gaps"] / wmc.training_info["covered_gaps"]
    assert d_inst <= 1 / (1 - 1 / math.e)
