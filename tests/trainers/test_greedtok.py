"""The native trainer equals a literal Algorithm 1 step for step, and its options behave."""
from __future__ import annotations

import pytest
from helpers import (all_substrings, can_cover, core_ranking, make_core, naive_greedtok, occurrences,
                     partition_lengths, random_instance, score)

from hf_greedtok import ByteLevel, GreedTokTrainer, Metaspace


@pytest.mark.parametrize("seed", range(60))
def test_native_equals_literal_algorithm_1(seed):
    words, max_len, k = random_instance(seed)
    expected, gains, state = naive_greedtok(words, all_substrings(words, max_len), k)
    core = make_core(words, max_len=max_len)
    core.step(k)
    assert core_ranking(core) == expected
    assert core.gains_array().tolist() == gains
    assert core.score_mismatches == 0
    for w_index, w in enumerate(words):
        assert core.word_token_lengths(w_index) == partition_lengths(state[w])


def test_scores_stay_exact_after_every_step_on_real_words(english_counts):
    # After each step the incrementally kept scores equal SCORE recomputed from scratch.
    words = dict(list(english_counts.items())[:300])
    core = make_core(words, max_len=6)
    chosen_state = {w: [0] * (len(w) - 1) for w in words}
    for _ in range(15):
        core.step(1)
        tau = core_ranking(core)[-1]
        for w in words:
            for i in occurrences(tau, w):
                if can_cover(chosen_state[w], tau, w, i):
                    for j in range(i, i + len(tau) - 1):
                        chosen_state[w][j] = 1
        live = {"".join(map(chr, t)): s for t, s in core.scores().items()}
        sample = sorted(live)[::97]
        assert all(live[t] == score(t, words, chosen_state) for t in sample)


def test_scores_never_rose_on_real_english(english_counts):
    trainer = GreedTokTrainer(k=1000, show_progress=False)
    trainer.train_from_counts(english_counts)
    # The heap handles rises exactly anyway; this records that real data shows none.
    assert trainer.core.score_rises == 0
    assert trainer.core.score_mismatches == 0
    gains = trainer.core.gains_array()
    assert (gains[1:] <= gains[:-1]).all()


def test_resume_equals_direct_training(english_counts):
    direct = GreedTokTrainer(k=600, show_progress=False).train_from_counts(english_counts)
    trainer = GreedTokTrainer(k=200, show_progress=False)
    first = trainer.train_from_counts(english_counts)
    resumed = trainer.continue_training(600)
    assert resumed.model.ranked_tokens[:200] == first.model.ranked_tokens
    assert resumed.model.ranked_tokens == direct.model.ranked_tokens
    assert resumed.model.gains == direct.model.gains
    with pytest.raises(ValueError, match="below"):
        trainer.continue_training(100)


def test_pinned_tokens_come_first_in_order_and_shape_the_cover():
    words = {"vaccinated": 3, "vaccine": 5}
    trainer = GreedTokTrainer(k=2, pinned_tokens=["vacc", "ine"], show_progress=False)
    tok = trainer.train_from_counts(words)
    assert tok.model.ranked_tokens == [b"vacc", b"ine"]
    assert tok.model.gains == [3 * 3 + 5 * 3, 5 * 2]
    assert tok.tokenize("vaccine") == ["vacc", "ine"]


def test_pinned_token_longer_than_max_length_and_absent_from_corpus():
    trainer = GreedTokTrainer(k=3, max_token_length=3, pinned_tokens=["abcdefgh", "zzzz"], show_progress=False)
    tok = trainer.train_from_counts({"abcdefgh": 2, "xyxy": 1})
    assert tok.model.ranked_tokens[:2] == [b"abcdefgh", b"zzzz"]
    assert tok.model.gains[:2] == [2 * 7, 0]
    assert tok.tokenize("abcdefgh") == ["abcdefgh"]


def test_candidate_list_restricts_T():
    # The reference ignores its candidate list; here only the listed tokens can be chosen.
    words = {"abcdefgh": 10, "abab": 3}
    trainer = GreedTokTrainer(k=10, candidates=["ab", "cd", "a"], show_progress=False)
    tok = trainer.train_from_counts(words)
    assert set(tok.model.ranked_tokens) <= {b"ab", b"cd"}
    assert tok.training_info["stopped_early"]


def test_stops_when_best_gain_is_zero():
    tok = GreedTokTrainer(k=50, show_progress=False).train_from_counts({"wxyz": 5})
    info = tok.training_info
    assert info["stopped_early"] and info["k_learned"] == 1 and tok.model.ranked_tokens == [b"wxyz"]
    assert info["objective_tokens"] == 5


def test_max_token_length_is_inclusive():
    tok = GreedTokTrainer(k=5, max_token_length=3, show_progress=False).train_from_counts({"abcdef": 9})
    assert max(map(len, tok.model.ranked_tokens)) == 3


def test_min_frequency_drops_rare_candidates():
    words = {"abc": 5, "xyz": 1}
    tok = GreedTokTrainer(k=10, min_frequency=2, show_progress=False).train_from_counts(words)
    assert all(b"x" not in t for t in tok.model.ranked_tokens)


def test_ties_go_to_shorter_then_lexicographically_smaller_token():
    # "ab" and "cd" and "abcd"-style ties: each word once, every candidate of equal gain.
    core = make_core({"ba": 1, "ab": 1})
    core.step(2)
    assert core_ranking(core) == ["ab", "ba"]
    core = make_core({"xyz": 1, "ab": 2})      # gains: ab 2, xy 1, yz 1, xyz 2 -> ab (shorter) first
    core.step(2)
    assert core_ranking(core) == ["ab", "xyz"]


def test_metaspace_trainer_uses_character_singletons():
    trainer = GreedTokTrainer(k=30, pre_tokenizer=Metaspace(), show_progress=False)
    tok = trainer.train_from_iterator(["मेरा नाम देवदास है", "देवदास का नाम"], num_proc=1)
    assert tok.model.unit_kind == "chars"
    assert "▁देवदास" in tok.get_vocab()
    assert tok.decode(tok.encode("देवदास नाम")) == "देवदास नाम"


def test_vocab_size_counts_learned_tokens_and_reports_final_size(english_counts):
    tok = GreedTokTrainer(k=100, special_tokens=["<|endoftext|>"], show_progress=False).train_from_counts(english_counts)
    assert len(tok.model.ranked_tokens) == 100
    assert tok.vocab_size == 1 + 256 + 100 == tok.training_info["final_vocab_size"]
    assert tok.token_to_id("<|endoftext|>") == 0
    assert isinstance(tok.pre_tokenizer, ByteLevel)


def test_train_from_datasets_column_equals_training_on_the_same_texts(hindi_text):
    datasets = pytest.importorskip("datasets")
    lines = [line for line in hindi_text.splitlines() if line]
    ds = datasets.Dataset.from_dict({"text": lines, "n": list(range(len(lines)))})
    from_ds = GreedTokTrainer(k=200, show_progress=False).train_from_dataset(ds, "text", num_proc=1)
    from_list = GreedTokTrainer(k=200, show_progress=False).train_from_iterator(lines, num_proc=1)
    assert from_ds.model.ranked_tokens == from_list.model.ranked_tokens
    with pytest.raises(ValueError, match="no column 'body'"):
        GreedTokTrainer(k=10, show_progress=False).train_from_dataset(ds, "body")
