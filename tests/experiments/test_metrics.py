"""Intrinsic tokenization metrics (hf_greedtok.experiments.metrics) on hand-computed cases."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from hf_greedtok.experiments.metrics import (
    BoundaryScores,
    TokenizationStats,
    renyi_efficiency,
    renyi_entropy,
    token_boundaries,
    whitespace_words,
)

# --------------------------------------------------------------------------- whitespace words


def test_whitespace_words_spans():
    assert whitespace_words("the cat sat") == [(0, 3), (4, 7), (8, 11)]
    assert whitespace_words("  a\t\nbc  ") == [(2, 3), (5, 7)]
    assert whitespace_words("") == []
    assert whitespace_words(" \n ") == []
    # U+00A0 NO-BREAK SPACE is whitespace for str.isspace
    assert whitespace_words("a\u00a0b") == [(0, 1), (2, 3)]


# --------------------------------------------------------------------------- fertility / PCW


def test_fertility_and_pcw_the_cat_sat():
    text = "the cat sat"
    # "the" | "c" "at" | " sat" (the last token includes the space before "sat")
    spans = [(0, 3), (4, 5), (5, 7), (7, 11)]
    stats = TokenizationStats()
    stats.add(text, spans, [1, 2, 3, 4])
    r = stats.result(vocab_size=100)
    assert r["words"] == 3
    assert r["tokens"] == 4
    assert r["fertility"] == pytest.approx(4 / 3)
    assert r["continued_words"] == 1  # only "cat"
    assert r["proportion_continued_words"] == pytest.approx(1 / 3)
    assert r["characters"] == 11
    assert r["chars_per_token"] == pytest.approx(11 / 4)
    assert r["distinct_tokens"] == 4
    assert r["mark_initial_tokens"] == 0
    assert r["dependent_vowel_tokens"] == 0
    assert r["vocab_size"] == 100
    assert r["renyi_alpha"] == 2.5
    # four equiprobable types: H_2.5 = log2 4 = 2 bits, over log2 100 bits
    assert r["renyi_efficiency"] == pytest.approx(2 / math.log2(100))


def test_token_spanning_two_words_counts_for_both():
    text = "the cat sat"
    # "the c" overlaps "the" and "cat"; "at sat" overlaps "cat" and "sat"
    stats = TokenizationStats()
    stats.add(text, [(5, 11), (0, 5)], [7, 8])  # order of spans does not matter
    r = stats.result(vocab_size=10)
    assert r["words"] == 3
    assert r["tokens"] == 2
    assert r["fertility"] == pytest.approx(2 / 3)
    assert r["continued_words"] == 1  # "cat" is overlapped by both tokens
    assert r["proportion_continued_words"] == pytest.approx(1 / 3)


def test_weights_multiply():
    stats = TokenizationStats()
    stats.add("the cat sat", [(0, 3), (4, 5), (5, 7), (7, 11)], [1, 2, 3, 1], weight=3)
    stats.add("dogs", [(0, 3), (3, 4)], [5, 6], weight=2)
    stats.add("ignored", [(0, 7)], [9], weight=0)
    r = stats.result(vocab_size=16)
    assert r["words"] == 3 * 3 + 2 * 1
    assert r["tokens"] == 3 * 4 + 2 * 2
    assert r["fertility"] == pytest.approx(16 / 11)
    assert r["continued_words"] == 3 * 1 + 2 * 1
    assert r["proportion_continued_words"] == pytest.approx(5 / 11)
    assert r["characters"] == 3 * 11 + 2 * 4
    assert r["chars_per_token"] == pytest.approx(41 / 16)
    ids, counts = stats.frequencies()
    assert ids.tolist() == [1, 2, 3, 5, 6]
    assert counts.tolist() == [6, 3, 3, 2, 2]
    assert ids.dtype == np.int64 and counts.dtype == np.int64
    assert r["distinct_tokens"] == 5
    assert r["renyi_efficiency"] == pytest.approx(renyi_entropy([6, 3, 3, 2, 2]) / 4)


def test_hindi_mark_initial_and_dependent_vowel():
    text = "हिंदी भाषा"
    # 0 ह, 1 ि (vowel sign I, Mc), 2 ं (anusvara, Mn, not a vowel), 3 द, 4 ी, 5 space,
    # 6 भ, 7 ा (vowel sign AA, Mc, dependent vowel), 8 ष, 9 ा
    assert len(text) == 10 and text[2] == "\u0902" and text[7] == "\u093e"
    spans = [(0, 2), (2, 3), (3, 5), (6, 7), (7, 8), (8, 10)]  # हि | ं | दी | भ | ा | षा
    stats = TokenizationStats()
    stats.add(text, spans, [10, 11, 12, 13, 14, 15])
    r = stats.result(vocab_size=1000)
    assert r["words"] == 2
    assert r["tokens"] == 6
    assert r["fertility"] == 3.0
    assert r["continued_words"] == 2
    assert r["proportion_continued_words"] == 1.0
    # "ं" and "ा" start with a combining mark; only "ा" is a dependent vowel sign
    assert r["mark_initial_tokens"] == 2
    assert r["mark_initial_share"] == pytest.approx(2 / 6)
    assert r["dependent_vowel_tokens"] == 1
    assert r["dependent_vowel_share"] == pytest.approx(1 / 6)
    # both marks follow a letter they could have stayed with; nothing was split inside a character
    assert r["avoidable_mark_initial_tokens"] == 2 and r["mid_character_tokens"] == 0


def test_a_mark_after_a_space_is_mark_initial_but_not_avoidable():
    text = "कि ि"            # कि, a space, then a vowel sign with no base before it
    stats = TokenizationStats()
    stats.add(text, [(0, 1), (1, 2), (2, 3), (3, 4)], [1, 2, 3, 4])
    r = stats.result(vocab_size=100)
    assert r["mark_initial_tokens"] == 2 and r["avoidable_mark_initial_tokens"] == 1


def test_byte_level_repeated_spans_count_once_for_marks():
    text = "कि"  # क + ि (3 UTF-8 bytes each)
    # क as one token, ि split into its three bytes: three tokens sharing the span (1, 2)
    spans = [(0, 1), (1, 2), (1, 2), (1, 2)]
    stats = TokenizationStats()
    stats.add(text, spans, [300, 224, 165, 191])
    r = stats.result(vocab_size=50_000)
    assert r["tokens"] == 4
    assert r["words"] == 1
    assert r["fertility"] == 4.0  # each byte token is a token of the word
    assert r["continued_words"] == 1
    assert r["mark_initial_tokens"] == 1
    assert r["dependent_vowel_tokens"] == 1
    assert r["mid_character_tokens"] == 2     # the second and third bytes of ि


def test_a_token_starting_inside_the_character_another_token_began_is_mid_character():
    text = "aé"
    # "a" plus the first byte of é, then é's second byte: HF shows both spans in characters
    stats = TokenizationStats()
    stats.add(text, [(0, 2), (1, 2)], [7, 8])
    r = stats.result(vocab_size=100)
    assert r["mid_character_tokens"] == 1 and r["mark_initial_tokens"] == 0


def test_empty_spans_are_tokens_but_not_words_or_marks():
    stats = TokenizationStats()
    # prepended "▁" with an empty span, the word, and a special token </s> at (0, 0)
    stats.add("hello", [(0, 0), (0, 5), (0, 0)], [5, 6, 2])
    r = stats.result(vocab_size=32)
    assert r["tokens"] == 3
    assert r["words"] == 1
    assert r["fertility"] == 3.0
    assert r["continued_words"] == 0  # only one token overlaps "hello"
    assert r["distinct_tokens"] == 3

    # an empty span at a mark's offset neither counts as mark-initial nor hides the real token
    stats = TokenizationStats()
    stats.add("ा", [(0, 0), (0, 1)], [5, 6])
    r = stats.result(vocab_size=32)
    assert r["tokens"] == 2
    assert r["mark_initial_tokens"] == 1
    assert r["dependent_vowel_tokens"] == 1


def test_stats_errors():
    stats = TokenizationStats()
    with pytest.raises(ValueError, match="no words"):
        stats.result(vocab_size=10)
    stats.add("   ", [], [])  # whitespace only: no words
    with pytest.raises(ValueError, match="no words"):
        stats.result(vocab_size=10)
    stats.add("a b", [(0, 1), (2, 3)], [1, 2])
    with pytest.raises(ValueError, match="vocab_size"):
        stats.result(vocab_size=1)
    with pytest.raises(ValueError, match="spans"):
        stats.add("a", [(0, 1)], [1, 2])
    with pytest.raises(ValueError, match="not within"):
        stats.add("a", [(0, 2)], [1])
    with pytest.raises(ValueError, match="not within"):
        stats.add("ab", [(1, 0)], [1])
    with pytest.raises(ValueError, match="weight"):
        stats.add("a", [(0, 1)], [1], weight=-1)
    # the failed adds left the accumulated counts untouched
    assert stats.result(vocab_size=10)["tokens"] == 2


# --------------------------------------------------------------------------- Rényi


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 2.0, 2.5, 10.0, 200.0, math.inf])
def test_renyi_entropy_uniform_is_log2_n(n, alpha):
    assert renyi_entropy([5] * n, alpha) == pytest.approx(math.log2(n), abs=1e-12)


def test_renyi_entropy_alpha_one_is_shannon():
    freqs = np.array([10, 3, 3, 1, 0, 25], dtype=np.int64)
    p = freqs[freqs > 0] / freqs.sum()
    shannon = float(-(p * np.log2(p)).sum())
    assert renyi_entropy(freqs, alpha=1.0) == pytest.approx(shannon, rel=1e-15)
    # and the Rényi entropies around alpha = 1 converge to it
    assert renyi_entropy(freqs, alpha=1 - 1e-7) == pytest.approx(shannon, rel=1e-6)
    assert renyi_entropy(freqs, alpha=1 + 1e-7) == pytest.approx(shannon, rel=1e-6)
    # Rényi entropy is non-increasing in alpha
    values = [renyi_entropy(freqs, a) for a in (0.0, 0.5, 1.0, 2.5, math.inf)]
    assert values == sorted(values, reverse=True)
    assert values[0] == pytest.approx(math.log2(5))  # Hartley: 5 nonzero types
    assert values[-1] == pytest.approx(-math.log2(25 / 42))  # min-entropy


def test_renyi_two_types_by_hand():
    # p = (3/4, 1/4): sum p^2.5 = (9/16) * sqrt(3)/2 + 1/32 = 0.48713928962874675 + 0.03125
    #                           = 0.51838928962874675
    # H_2.5 = 1 / (1 - 2.5) * log2(0.51838929) = -(2/3) * (-0.94789218) = 0.63192812 bits
    assert 0.75**2.5 == pytest.approx(9 / 16 * math.sqrt(3) / 2)
    assert renyi_entropy([3, 1], alpha=2.5) == pytest.approx(0.6319281224564826, rel=1e-12)
    assert renyi_entropy(np.array([30.0, 10.0]), alpha=2.5) == pytest.approx(0.6319281224564826, rel=1e-12)
    # |V| = 4: divide by log2 4 = 2 bits
    assert renyi_efficiency([3, 1], vocab_size=4) == pytest.approx(0.3159640612282413, rel=1e-12)
    # Shannon of (3/4, 1/4) = 2 - (3/4) log2 3 = 0.8112781244591328
    assert renyi_entropy([3, 1], alpha=1) == pytest.approx(0.8112781244591328, rel=1e-12)


def test_renyi_efficiency_uniform_over_vocab_is_one():
    assert renyi_efficiency([4] * 8, vocab_size=8) == pytest.approx(1.0, abs=1e-12)
    assert renyi_efficiency([4] * 8, vocab_size=8, alpha=1.0) == pytest.approx(1.0, abs=1e-12)
    # the same distribution against a larger vocabulary: log2 8 / log2 64 = 1/2
    assert renyi_efficiency([4] * 8, vocab_size=64) == pytest.approx(0.5, abs=1e-12)


def test_renyi_large_alpha_does_not_underflow():
    # p^alpha underflows to 0.0 in float64 for these; factoring out max(p) keeps it finite
    value = renyi_entropy([1] * 10, alpha=2000.0)
    assert value == pytest.approx(math.log2(10), abs=1e-9)


def test_renyi_errors():
    with pytest.raises(ValueError, match="empty"):
        renyi_entropy([])
    with pytest.raises(ValueError, match="zero"):
        renyi_entropy([0, 0, 0])
    with pytest.raises(ValueError, match="non-negative"):
        renyi_entropy([3, -1, 2])
    with pytest.raises(ValueError, match="finite"):
        renyi_entropy([1.0, float("nan")])
    with pytest.raises(ValueError, match="alpha"):
        renyi_entropy([1, 2], alpha=-0.5)
    with pytest.raises(ValueError, match="empty"):
        renyi_efficiency([], vocab_size=10)
    with pytest.raises(ValueError, match="zero"):
        renyi_efficiency(np.zeros(5), vocab_size=10)
    with pytest.raises(ValueError, match="non-negative"):
        renyi_efficiency([-1], vocab_size=10)
    with pytest.raises(ValueError, match="vocab_size"):
        renyi_efficiency([1, 2], vocab_size=1)
    with pytest.raises(ValueError, match="alpha"):
        renyi_efficiency([1, 2], vocab_size=10, alpha=-1)
    # more observed types than the vocabulary has: a caller bug, efficiency would exceed 1
    with pytest.raises(ValueError, match="observed"):
        renyi_efficiency([1, 1, 1], vocab_size=2)


def test_renyi_matches_tokenization_scorer():
    ts = pytest.importorskip(
        "tokenization_scorer", reason="tokenization_scorer (pip install tokenization-scorer) is not installed"
    )
    # tokenization_scorer.score(str) splits lines on "\n" and each line on whitespace; every item
    # is one token and its unigram frequencies form p. Its Rényi efficiency is
    # 1/(1 - power) * log2(sum p^power) / log2(vocab), i.e. ours, once vocab is given (its default
    # is the number of observed types).
    text = "pick @@ed pick @@l @@ed pick @@les\nthe cat sat on the mat\n\nthe  pick"
    vocab = 50
    freqs = Counter(text.split())
    theirs = float(ts.score(text, metric="renyi", power=2.5, vocab=vocab))
    assert renyi_efficiency(list(freqs.values()), vocab_size=vocab, alpha=2.5) == pytest.approx(theirs, rel=1e-12)
    theirs_h = float(ts.score(text, metric="renyi_entropy", power=2.5))
    assert renyi_entropy(list(freqs.values()), alpha=2.5) == pytest.approx(theirs_h, rel=1e-12)
    # their default vocab is the observed type count
    theirs_obs = float(ts.score(text, metric="renyi", power=2.5))
    assert renyi_efficiency(list(freqs.values()), vocab_size=len(freqs)) == pytest.approx(theirs_obs, rel=1e-12)
    # Shannon (alpha = 1) through their "shannon" metric
    theirs_sh = float(ts.score(text, metric="shannon", vocab=vocab))
    assert renyi_efficiency(list(freqs.values()), vocab_size=vocab, alpha=1.0) == pytest.approx(theirs_sh, rel=1e-12)

    # the same through TokenizationStats: whitespace items as tokens, one id per distinct item
    token_ids = {w: i for i, w in enumerate(sorted(freqs))}
    stats = TokenizationStats()
    for line in text.split("\n"):
        spans = whitespace_words(line)
        stats.add(line, spans, [token_ids[line[s:e]] for s, e in spans])
    r = stats.result(vocab_size=vocab, alpha=2.5)
    assert r["renyi_efficiency"] == pytest.approx(theirs, rel=1e-12)
    assert r["fertility"] == 1.0 and r["continued_words"] == 0
    assert r["distinct_tokens"] == len(freqs)


# --------------------------------------------------------------------------- boundaries


def test_token_boundaries():
    # "unhappiness" -> "un" "happi" "ness", with a leading empty span and a repeated byte-level start
    spans = [(0, 0), (0, 2), (2, 7), (2, 7), (7, 11)]
    assert token_boundaries(spans, 11) == {2, 7}
    assert token_boundaries([(0, 5)], 5) == set()
    assert token_boundaries([], 0) == set()


def test_boundary_scores_by_hand():
    scores = BoundaryScores()
    # un|happi|ness vs gold un|happi|ness: 2 predicted, 2 gold, 2 correct
    scores.add(token_boundaries([(0, 2), (2, 7), (7, 11)], 11), {2, 7})
    # walk|ed predicted as wal|ked: 1 predicted, 1 gold, 0 correct
    scores.add([3], [4])
    # cats predicted as c|at|s, gold cat|s: 2 predicted, 1 gold, 1 correct
    scores.add([1, 3], [3])
    r = scores.result()
    assert r["gold_words"] == 3
    assert r["predicted_boundaries"] == 5
    assert r["gold_boundaries"] == 4
    assert r["correct_boundaries"] == 3
    assert r["boundary_precision"] == pytest.approx(3 / 5)
    assert r["boundary_recall"] == pytest.approx(3 / 4)
    # F1 = 2 * 0.6 * 0.75 / 1.35 = 2/3
    assert r["boundary_f1"] == pytest.approx(2 / 3)


def test_boundary_scores_weights_and_duplicates():
    scores = BoundaryScores()
    scores.add([2, 2, 5], [2], weight=3)  # duplicates merged: 2 predicted, 1 gold, 1 correct
    r = scores.result()
    assert (r["gold_words"], r["predicted_boundaries"], r["gold_boundaries"], r["correct_boundaries"]) == (3, 6, 3, 3)
    assert r["boundary_precision"] == pytest.approx(0.5)
    assert r["boundary_recall"] == pytest.approx(1.0)
    assert r["boundary_f1"] == pytest.approx(2 / 3)


def test_boundary_scores_zero_predictions():
    scores = BoundaryScores()
    scores.add([], [2, 5])
    scores.add(set(), [])
    r = scores.result()
    assert r["predicted_boundaries"] == 0
    assert r["gold_boundaries"] == 2
    assert r["boundary_precision"] == 0.0
    assert r["boundary_recall"] == 0.0
    assert r["boundary_f1"] == 0.0
    assert r["gold_words"] == 2


def test_boundary_scores_errors():
    with pytest.raises(ValueError, match="no words"):
        BoundaryScores().result()
    with pytest.raises(ValueError, match="weight"):
        BoundaryScores().add([1], [1], weight=-2)
