"""The GreedTok paper's worked examples (Lim, Choo & Lauw 2025: Examples 4-7, Table 1) as tests."""
from __future__ import annotations

from helpers import char_model, core_ranking, make_core, token_strings


def named_scores(core) -> dict[str, int]:
    return {"".join(map(chr, k)): v for k, v in core.scores().items()}


def test_example_4_scores_and_greedy_trace():
    # T = {pa, ya, ap}, W = {papaya, impact}: R(pa) = 3, R(ya) = 1, R(ap) = 1.
    core = make_core({"papaya": 1, "impact": 1}, candidates=["pa", "ya", "ap"])
    assert named_scores(core) == {"pa": 3, "ya": 1, "ap": 1}
    core.step(1)
    assert core_ranking(core) == ["pa"]
    # After pa: M(papaya) = (1,0,1,0,0); R(ya) = 1 and R(ap) = 0, so ya comes next.
    assert named_scores(core) == {"ya": 1, "ap": 0}
    core.step(1)
    assert core_ranking(core) == ["pa", "ya"]
    assert core.word_token_lengths(0) == [2, 2, 2]          # M(papaya) = (1,0,1,0,2): pa|pa|ya
    assert core.word_token_lengths(1) == [1, 1, 2, 1, 1]    # im|pa|ct with pa: i m pa c t


def test_example_4_second_trace_ap_then_pa_then_ya():
    # Selecting ap, pa, ya in this order: pa can no longer cover papaya, ya still can.
    core = make_core({"papaya": 1, "impact": 1}, candidates=["pa", "ya", "ap"], pinned=["ap", "pa", "ya"])
    core.step(3)
    assert core_ranking(core) == ["ap", "pa", "ya"]
    assert core.word_token_lengths(0) == [1, 2, 1, 2]       # M(papaya) = (0,1,0,0,2): p|ap|a|ya


def test_example_5_overlapping_repeats_are_counted_once():
    # aya occurs in ayaya at 0 and 2, but only one of the two overlapping covers can count.
    core = make_core({"ayaya": 1}, candidates=["aya"])
    assert named_scores(core) == {"aya": 2}                 # one cover of 2 gaps, not 4
    core.step(1)
    assert core.word_token_lengths(0) == [3, 1, 1]          # aya|y|a
    assert core.objective == 3


def test_example_6_later_longer_tokens_override_earlier_covers():
    model = char_model(["ab", "cd", "ef", "abc", "abcd", "efg", "abcdefg"], "abcdefg")
    assert token_strings(model, "abcdefg") == ["abcdefg"]
    model = char_model(["ab", "abc", "abcd"], "abcd")
    assert token_strings(model, "abcd") == ["abcd"]


def test_example_7_encoding_reads_tokens_off_the_zero_gaps():
    model = char_model(["bcd", "ef"], "abcdef")
    assert token_strings(model, "abcdef") == ["a", "bcd", "ef"]


def test_table_1_objective_is_neither_submodular_nor_supermodular():
    # f(S) = fewest tokens for "scaredy" with S plus singletons: the `optimal` encoder's count.
    def f(tokens):
        return len(char_model(list(tokens), "scaredy").encoder.encode_word("scaredy", "optimal"))

    X, Y, Z = {"care"}, {"care", "edy"}, "scar"
    assert (f(X), f(X | {Z}), f(Y), f(Y | {Z})) == (4, 4, 4, 2)
    assert f(X | {Z}) - f(X) > f(Y | {Z}) - f(Y)            # not supermodular
    Y2, Z2 = {"care", "scared"}, "dy"
    assert (f(Y2), f(Y2 | {Z2}), f(X | {Z2})) == (2, 2, 3)
    assert f(X | {Z2}) - f(X) < f(Y2 | {Z2}) - f(Y2)        # not submodular


def test_table_1_cover_priority_versus_optimal():
    # With ranks care < edy < scar, cover keeps care (edy and scar would cut through it):
    model = char_model(["care", "edy", "scar"], "scaredy")
    assert token_strings(model, "scaredy", "cover") == ["s", "care", "d", "y"]
    assert token_strings(model, "scaredy", "optimal") == ["scar", "edy"]


def test_adjacent_instances_of_one_token_stay_separate():
    # The reference encoder merges these (rank-only state); the paper's gap state does not.
    core = make_core({"papa": 1}, candidates=["pa"])
    core.step(1)
    assert core.word_token_lengths(0) == [2, 2]
    assert token_strings(char_model(["pa"], "pa"), "papa") == ["pa", "pa"]
