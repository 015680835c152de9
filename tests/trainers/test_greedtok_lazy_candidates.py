"""Candidates on demand: building only the candidates whose gain bound reaches a threshold, and
rebuilding with lower thresholds as the gains fall, gives exactly the ranking, the per-step
gains and the objective of building all of T at once (threshold 0), on real corpora and on
random tables, for every thread count, GreedTok and GreedWMC."""
from __future__ import annotations

import re

import pytest
from corpora import corpus, head_counts
from helpers import core_ranking, make_core
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import GreedTokTrainer
from hf_greedtok._trainer import auto_threshold


def trained(core, chunks) -> tuple:
    """Ranking, gains, objective and the stop flag after steps of the given sizes."""
    for n in chunks:
        core.step(n)
    assert core.score_mismatches == 0
    return core_ranking(core), core.gains_array().tolist(), core.objective, core.exhausted


def code_counts(n_bytes: int) -> dict:
    """Words (GPT-4 split) of the first n_bytes of the CPython standard library sources."""
    text = corpus("code_python_stdlib.txt").read_bytes()[:n_bytes].decode("utf-8", errors="ignore")
    counts: dict = {}
    for w in re.findall(r"\s?\w+|\s?[^\s\w]+|\s+", text):
        counts[w] = counts.get(w, 0) + 1
    return counts


REAL = {
    "english": (lambda: head_counts("en_wiki2012_wordcounts.tsv", 20_000), {"max_len": 16}),
    "english-wmc": (lambda: head_counts("en_wiki2012_wordcounts.tsv", 20_000), {"max_len": 8, "relaxed": True}),
    "hindi-min-frequency": (lambda: head_counts("hi_news_wordcounts.tsv", 8_000), {"max_len": 8, "min_frequency": 20}),
    "chinese-pinned": (lambda: head_counts("zh_jieba_wordcounts.tsv", 8_000),
                       {"max_len": 5, "pinned": ["中国人民", "zzqq", "的的的的的的的"]}),
    "code-restricted": (lambda: code_counts(300_000),
                        {"max_len": 12, "candidates": ["self", " self", "return", " return", "def", "__init__",
                                                       "import", " the", "    ", "        ", "()", "):"]}),
    "code": (lambda: code_counts(300_000), {"max_len": 24}),
}


@pytest.mark.parametrize("name", list(REAL))
def test_on_demand_equals_all_candidates_on_real_corpora(name):
    make_words, options = REAL[name]
    words = dict(make_words())
    k = 600
    full = make_core(words, threshold=0, **options)
    expected = trained(full, [k])
    assert expected[0], "it learned something"
    gains = expected[1]
    # first thresholds: the automatic one, one above every gain (nothing built at first), the
    # gain halfway, one just above the last gain, a tiny one
    thresholds = [-1, 2 * gains[0] + 1, gains[len(gains) // 2], gains[-1] + 1, 2]
    lazier = False
    for threshold in thresholds:
        for threads in (1, 2):
            core = make_core(words, threshold=threshold, expected_steps=k, num_threads=threads, **options)
            # uneven chunks: rebuilds fall inside and at the ends of step() calls
            assert trained(core, [1, 7, 92, k - 100]) == expected, (threshold, threads)
            assert core.n_builds >= 1
            lazier |= core.n_builds > 1 and core.n_candidates_built < full.n_candidates
    if "candidates" not in options:       # a 12-token T is built whole at any threshold that matters
        assert lazier, "some run built fewer candidates than all of T, over several builds"


def test_rebuilds_lower_the_threshold_until_nothing_is_left():
    # A threshold above every gain builds nothing; the rebuilds go down to 0 (all of T) and the
    # run ends exhausted exactly where building everything does.
    words = {"abcabc": 3, "bcab": 2, "ca": 7, "aaaa": 1}
    full = make_core(words, threshold=0, max_len=4)
    expected = trained(full, [100])
    assert expected[3]
    core = make_core(words, threshold=10**6, max_len=4)
    assert core.n_candidates == 0 and core.threshold == 10**6
    assert trained(core, [100]) == expected
    assert core.threshold == 0 and core.n_builds > 2


def test_automatic_threshold():
    assert auto_threshold(10**9, 5000) == 10**9 // 5000
    assert auto_threshold(10**9, 10) == 10**9 // 1000      # at least 1000 steps assumed
    assert auto_threshold(1_000, 1000) == 0                 # tiny corpora: all of T


def test_trainer_option_builds_all_of_t_when_asked(english_counts):
    words = dict(list(english_counts.items())[:5000])
    lazy = GreedTokTrainer(k=800, show_progress=False, num_threads=2).train_from_counts(words)
    full = GreedTokTrainer(k=800, show_progress=False, num_threads=2, candidates_on_demand=False).train_from_counts(words)
    assert lazy.model.ranked_tokens == full.model.ranked_tokens
    assert lazy.model.gains == full.model.gains
    assert lazy.training_info["objective_tokens"] == full.training_info["objective_tokens"]
    assert full.training_info["candidates_on_demand"] is False and lazy.training_info["candidates_on_demand"]
    assert lazy.training_info["candidates"] < full.training_info["candidates"]


@settings(max_examples=150, deadline=None)
@given(words=st.dictionaries(st.text("abc", min_size=1, max_size=9), st.integers(1, 50), min_size=1, max_size=14),
       max_len=st.integers(2, 6), threshold=st.integers(0, 400), relaxed=st.booleans(),
       min_frequency=st.integers(1, 3), chunks=st.lists(st.integers(1, 6), min_size=1, max_size=5),
       threads=st.sampled_from([1, 2]), pinned=st.lists(st.text("abc", min_size=2, max_size=4), max_size=2, unique=True),
       candidates=st.none() | st.lists(st.text("abc", min_size=2, max_size=7), max_size=8, unique=True))
def test_on_demand_equals_all_candidates_on_random_tables(words, max_len, threshold, relaxed, min_frequency,
                                                          chunks, threads, pinned, candidates):
    options = {"max_len": max_len, "relaxed": relaxed, "min_frequency": min_frequency, "pinned": pinned,
               "candidates": candidates}
    expected = trained(make_core(words, threshold=0, **options), chunks)
    assert trained(make_core(words, threshold=threshold, num_threads=threads, **options), chunks) == expected
