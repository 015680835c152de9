"""Superword GreedTok (issue 31): word-level GreedTok to t tokens, then GreedTok on superword
chunks with those tokens pinned. Checked against Algorithm 1 written out literally
(tests/helpers.py), stage by stage, and on the properties the curriculum promises."""
from __future__ import annotations

from collections import Counter

import pytest
import regex
from corpora import EXAMPLE_TEXT, corpus
from helpers import LATIN_WORDS, MIXED_WORDS, literal_cover, literal_superwords, superword_chunks
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTrainer
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer
from hf_greedtok.unicode_scripts import scripts_of_token


def _check_literal(chunks, k, t, floor, max_len, **kwargs):
    t = min(t, k)
    for chunk in chunks:
        assert ByteLevel("superwords").pre_tokenize(chunk) == [chunk]     # each entry is one chunk
    tok = GreedTokSuperwordTrainer(k=k, word_tokens=t, min_frequency=floor, max_token_length=max_len,
                                   show_progress=False, num_threads=1, **kwargs).train_from_counts(chunks)
    ours = list(tok.model.ranked_tokens)
    assert ours == literal_superwords(chunks, k, t, max_len, floor, **kwargs)[:len(ours)]


@settings(max_examples=40, deadline=None)
@given(chunks=st.dictionaries(superword_chunks(LATIN_WORDS), st.integers(1, 6), min_size=1, max_size=6),
       k=st.integers(1, 12), t=st.integers(0, 6), floor=st.integers(1, 4))
def test_the_trainer_is_the_literal_curriculum(chunks, k, t, floor):
    _check_literal(chunks, k, t, floor, 6)


@settings(max_examples=40, deadline=None)
@given(chunks=st.dictionaries(superword_chunks(MIXED_WORDS), st.integers(1, 6), min_size=1, max_size=5),
       k=st.integers(1, 10), t=st.integers(0, 5), floor=st.integers(1, 3), keep=st.booleans())
def test_with_several_scripts_the_trainer_is_the_literal_curriculum(chunks, k, t, floor, keep):
    _check_literal(chunks, k, t, floor, 7, keep_other_scripts=keep)


def test_stage_one_is_word_level_greedtok_on_the_words_of_the_chunks(english_text):
    trainer = GreedTokSuperwordTrainer(k=3000, word_tokens=1000, show_progress=False)
    tok = trainer.train_from_iterator(english_text.splitlines())
    chunks: Counter = Counter()
    for line in english_text.splitlines():
        chunks.update(ByteLevel("superwords").pre_tokenize(line))
    words = GreedTokTrainer(k=1000, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False).train_from_counts(
        trainer.word_counts(chunks))
    assert tok.model.ranked_tokens[:1000] == words.model.ranked_tokens
    assert tok.training_info["curriculum"]["word_tokens"] == 1000
    assert tok.training_info["pinned_tokens"] == 1000
    assert tok.pre_tokenizer == ByteLevel("superwords")


def test_tokens_span_words_and_cover_reproduces_the_training_partition(english_text):
    """The first invariant on chunks: cover encoding of every training chunk is stage 2's
    partition, so the corpus's cover tokens are the trainer's objective."""
    tok = GreedTokSuperwordTrainer(k=3000, show_progress=False).train_from_iterator(english_text.splitlines())
    spanning = [t for t in tok.model.ranked_tokens if b" " in t.strip(b" ")]
    assert len(spanning) > 30
    assert b" of the" in tok.model.ranked_tokens
    lines = english_text.splitlines()
    cover = sum(len(ids) for ids in tok.encode_batch(lines, mode="cover"))
    assert cover == tok.training_info["objective_tokens"]
    optimal = sum(len(ids) for ids in tok.encode_batch(lines, mode="optimal"))
    assert optimal <= cover
    for line in lines[:500]:
        assert tok.decode(tok.encode(line)) == line


def test_with_digits_in_chunks_tokens_span_numbers_and_words():
    text = ["The meeting of 12 May 1990 was held at 3 pm in room 101."] * 40 + ["Room 101 is on floor 1."] * 40
    kept_apart = GreedTokSuperwordTrainer(k=30, min_frequency=5, show_progress=False).train_from_iterator(text)
    inside = GreedTokSuperwordTrainer(k=30, min_frequency=5, digits_in_chunks=True,
                                      show_progress=False).train_from_iterator(text)
    assert inside.pre_tokenizer == ByteLevel("superwords-digits")

    def number_and_word(tok):
        return [t for t in tok.model.ranked_tokens if regex.search(rb"[0-9]", t) and regex.search(rb"[a-z]", t)]

    assert number_and_word(kept_apart) == []
    assert set(number_and_word(inside)) == {b" of 12 May 1990 was held", b" at 3 pm in room 101.",
                                            b"Room 101 is on floor 1."}
    assert len(inside.encode(text[0])) == 3 < len(kept_apart.encode(text[0]))


def test_the_floor_keeps_rare_phrases_out():
    text = ["in the end the end", "by the way"] * 20 + ["a rare phrase once"]
    tok = GreedTokSuperwordTrainer(k=40, word_tokens=0, min_frequency=5, show_progress=False).train_from_iterator(text)
    assert not any(b"rare" in t for t in tok.model.ranked_tokens)
    assert b" the end" in tok.model.ranked_tokens or b"in the end the end" in tok.model.ranked_tokens


def test_a_cover_of_a_chunk_by_the_literal_rule_equals_the_native_cover():
    tok = GreedTokSuperwordTrainer(k=400, show_progress=False).train([str(EXAMPLE_TEXT)])
    ranked = [t.decode("latin-1") for t in tok.model.ranked_tokens]
    for chunk in ByteLevel("superwords").pre_tokenize(EXAMPLE_TEXT.read_text(encoding="utf-8")[:4000]):
        data = chunk.encode().decode("latin-1")
        pieces = [p.encode("latin-1") for p in literal_cover(ranked, data)]
        assert [tok.model.decode_bytes([i]) for i in tok.encode(chunk, mode="cover")] == pieces


@pytest.mark.parametrize("kwargs, message", [
    ({"word_tokens": -1}, "word_tokens"), ({"word_tokens": 11}, "word_tokens"),
    ({"word_pattern": "superwords"}, "word_pattern"), ({"word_pattern": "superwords-digits"}, "word_pattern"),
    ({"word_pattern": r"\w+"}, "word_pattern"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GreedTokSuperwordTrainer(k=10, **kwargs)


def test_other_script_tokens_are_pinned_after_the_first_t():
    """English-dominant chunks with Han and Devanagari words: stage 1 runs to k, and its Han and
    Devanagari tokens (and pieces of their characters) follow its first t."""
    chunks = {"the 東京 a": 5, "ab the": 7, "東京 नम": 3, "ना a,": 2, "the ab.": 4}
    kept, plain = (GreedTokSuperwordTrainer(k=10, word_tokens=2, min_frequency=1, max_token_length=7,
                                            show_progress=False, keep_other_scripts=keep).train_from_counts(chunks)
                   for keep in (True, False))
    assert kept.training_info["curriculum"]["dominant_script"] == "Latin"
    assert kept.training_info["curriculum"]["other_script_tokens"] == 4
    assert plain.training_info["curriculum"]["other_script_tokens"] == 0
    assert kept.model.ranked_tokens[:2] == plain.model.ranked_tokens[:2] == ["東京".encode(), b"the"]
    assert kept.model.ranked_tokens[2:6] == ["न".encode() + "म".encode()[:2], " नम".encode(), " 東京".encode(),
                                             "ना".encode()]
    for tok, keep in ((kept, True), (plain, False)):
        assert list(tok.model.ranked_tokens) == literal_superwords(chunks, 10, 2, 7, 1, keep_other_scripts=keep)


def _mixed_lines():
    """Every 10th line of English, Hindi and Chinese corpora held out; the rest to train on."""
    train, held_out = [], {}
    for name, n in (("en_brown.txt", 8_000), ("hi_devdas.txt", 2_000), ("zh_reviews.txt", 3_000)):
        lines = corpus(name).read_text(encoding="utf-8").splitlines()[:n]
        train += [line for i, line in enumerate(lines) if i % 10]
        held_out[name] = lines[::10]
    return train, held_out


def test_trained_on_a_mix_other_scripts_take_no_more_tokens_than_with_word_level_greedtok():
    """The guarantee keep_other_scripts gives: every Hindi and Chinese token of word-level GreedTok
    at the same k is in the vocabulary, and optimal encoding of a chunk, a run of words, never
    needs more tokens than its words; without it, English phrases take those ids."""
    train, held_out = _mixed_lines()
    k = 2000
    word_level = GreedTokTrainer(k=k, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False).train_from_iterator(
        train)
    kept = GreedTokSuperwordTrainer(k=k, show_progress=False).train_from_iterator(train)
    plain = GreedTokSuperwordTrainer(k=k, show_progress=False, keep_other_scripts=False).train_from_iterator(train)
    assert kept.training_info["curriculum"]["dominant_script"] == "Latin"
    vocab = set(kept.model.ranked_tokens)
    others = [t for t in word_level.model.ranked_tokens if scripts_of_token(t) - {"Latin"}]
    assert len(others) > 300 and all(t in vocab for t in others)
    assert not all(t in set(plain.model.ranked_tokens) for t in others)

    def tokens(tok, lines):
        return sum(map(len, tok.encode_batch(lines, mode="optimal")))

    for name in ("hi_devdas.txt", "zh_reviews.txt"):
        assert tokens(kept, held_out[name]) <= tokens(word_level, held_out[name]), name
    english = held_out["en_brown.txt"]
    assert tokens(kept, english) < tokens(word_level, english)


def test_the_first_t_of_a_word_level_run_to_k_are_a_run_to_t():
    """What pinning the first t of a longer run rests on: GreedTok's choice at a step does not
    depend on how many steps follow."""
    train, _ = _mixed_lines()
    counts = Counter(w for line in train for w in ByteLevel("gpt4-marks").pre_tokenize(line))
    short, long = (GreedTokTrainer(k=k, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False,
                                   num_threads=2).train_from_counts(counts) for k in (700, 2500))
    assert long.model.ranked_tokens[:700] == short.model.ranked_tokens


def _same_training(resumed, direct):
    """Two tokenizers a superword trainer made are the same: ranking, gains, curriculum, objective."""
    assert list(resumed.model.ranked_tokens) == list(direct.model.ranked_tokens)
    assert resumed.model.gains == direct.model.gains
    for key in ("curriculum", "objective_tokens", "pinned_tokens", "k_learned"):
        assert resumed.training_info[key] == direct.training_info[key], key


@pytest.mark.parametrize("word_tokens", [None, 300])      # 300: t given, and still the other scripts' rule
def test_continue_training_on_several_scripts_equals_training_to_the_new_size(word_tokens):
    """English + Hindi + Chinese: the other-script tokens are those of a word-level run to k, so
    going from 600 to 1,200 runs both stages again, with the default t of 1,200 (300) when t
    was not given."""
    train = _mixed_lines()[0][::2]
    trainer = GreedTokSuperwordTrainer(k=600, word_tokens=word_tokens, show_progress=False)
    first = trainer.train_from_iterator(train)
    assert first.training_info["curriculum"]["other_script_rule"]
    resumed = trainer.continue_training(1200)
    direct = GreedTokSuperwordTrainer(k=1200, word_tokens=word_tokens, show_progress=False).train_from_iterator(train)
    _same_training(resumed, direct)
    assert resumed.training_info["curriculum"]["word_tokens"] == 300
    assert resumed.training_info["curriculum"]["other_script_tokens"] > \
        first.training_info["curriculum"]["other_script_tokens"]


def test_continue_training_with_a_given_t_on_one_script_resumes_stage_two(english_text):
    """One script and t given: stage 1's pins do not depend on k, so stage 2 resumes (its first
    ranks unchanged, the same core) and ends where a direct run ends."""
    lines = english_text.splitlines()
    trainer = GreedTokSuperwordTrainer(k=800, word_tokens=200, show_progress=False)
    first = trainer.train_from_iterator(lines)
    core = trainer.core
    resumed = trainer.continue_training(1600)
    assert trainer.core is core
    assert list(resumed.model.ranked_tokens[:800]) == list(first.model.ranked_tokens)
    _same_training(resumed, GreedTokSuperwordTrainer(k=1600, word_tokens=200, show_progress=False)
                   .train_from_iterator(lines))
    with pytest.raises(ValueError, match="below"):
        trainer.continue_training(100)
    with pytest.raises(RuntimeError, match="previous train"):
        GreedTokSuperwordTrainer(k=10).continue_training(20)


def test_continue_training_with_the_default_t_trains_again(english_text):
    lines = english_text.splitlines()[:3000]
    trainer = GreedTokSuperwordTrainer(k=400, show_progress=False)
    trainer.train_from_iterator(lines)
    core = trainer.core
    resumed = trainer.continue_training(1000)
    assert trainer.core is not core and resumed.training_info["curriculum"]["word_tokens"] == 250
    _same_training(resumed, GreedTokSuperwordTrainer(k=1000, show_progress=False).train_from_iterator(lines))


def test_train_from_dataset_trains_superwords_as_train_from_iterator(english_text):
    from datasets import Dataset

    lines = english_text.splitlines()[:2000]
    trainer = GreedTokSuperwordTrainer(k=500, show_progress=False)
    from_ds = trainer.train_from_dataset(Dataset.from_dict({"text": lines}), "text", num_proc=1)
    _same_training(from_ds, GreedTokSuperwordTrainer(k=500, show_progress=False).train_from_iterator(lines))
    assert from_ds.training_info["curriculum"]["word_tokens"] == 125
