"""Superword GreedTok (issue 31): word-level GreedTok to t tokens, then GreedTok on superword
chunks with those tokens pinned. Checked against Algorithm 1 written out literally
(tests/helpers.py), stage by stage, and on the properties the curriculum promises."""
from __future__ import annotations

from collections import Counter

import pytest
from corpora import EXAMPLE_TEXT
from helpers import all_substrings, literal_cover, naive_greedtok, occurrences
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTrainer
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer


def literal_superwords(chunks: dict[str, int], k: int, t: int, max_len: int, floor: int) -> list[str]:
    """The curriculum, literally: Algorithm 1 on the chunks' gpt4-marks words to t tokens, then
    Algorithm 1 on the chunks to k tokens with those first; stage 2's candidates are the chunks'
    substrings of 2..max_len characters with at least ``floor`` count-weighted occurrences."""
    split = ByteLevel("gpt4-marks").pre_tokenize
    words: Counter = Counter()
    for chunk, c in chunks.items():
        for w in split(chunk):
            words[w] += c
    stage1, _, _ = naive_greedtok(dict(words), all_substrings(words, max_len), t)
    frequent = {s for s in all_substrings(chunks, max_len)
                if sum(c * len(occurrences(s, w)) for w, c in chunks.items()) >= floor}
    ranked, _, _ = naive_greedtok(chunks, frequent, k, pinned=stage1)
    return ranked


# Chunks as the superwords split makes them: words with their space, single punctuation.
_words = st.sampled_from(["a", "b", "ab", "ba", "aab", "the", "of"])
_chunk = st.builds(lambda first, rest, stop: first + "".join(" " + w for w in rest) + stop,
                   _words, st.lists(_words, max_size=3), st.sampled_from(["", ",", "."]))


@settings(max_examples=40, deadline=None)
@given(chunks=st.dictionaries(_chunk, st.integers(1, 6), min_size=1, max_size=6),
       k=st.integers(1, 12), t=st.integers(0, 6), floor=st.integers(1, 4))
def test_the_trainer_is_the_literal_curriculum(chunks, k, t, floor):
    t = min(t, k)
    for chunk in chunks:
        assert ByteLevel("superwords").pre_tokenize(chunk) == [chunk]     # each entry is one chunk
    tok = GreedTokSuperwordTrainer(k, word_tokens=t, min_frequency=floor, max_token_length=6,
                                   show_progress=False, num_threads=1).train_from_counts(chunks)
    ours = [token.decode() for token in tok.model.ranked_tokens]
    assert ours == literal_superwords(chunks, k, t, 6, floor)[:len(ours)]


def test_stage_one_is_word_level_greedtok_on_the_words_of_the_chunks(english_text):
    trainer = GreedTokSuperwordTrainer(3000, word_tokens=1000, show_progress=False)
    tok = trainer.train_from_iterator(english_text.splitlines())
    chunks: Counter = Counter()
    for line in english_text.splitlines():
        chunks.update(ByteLevel("superwords").pre_tokenize(line))
    words = GreedTokTrainer(1000, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False).train_from_counts(
        trainer.word_counts(chunks))
    assert tok.model.ranked_tokens[:1000] == words.model.ranked_tokens
    assert tok.training_info["curriculum"]["word_tokens"] == 1000
    assert tok.training_info["pinned_tokens"] == 1000
    assert tok.pre_tokenizer == ByteLevel("superwords")


def test_tokens_span_words_and_cover_reproduces_the_training_partition(english_text):
    """The first invariant on chunks: cover encoding of every training chunk is stage 2's
    partition, so the corpus's cover tokens are the trainer's objective."""
    tok = GreedTokSuperwordTrainer(3000, show_progress=False).train_from_iterator(english_text.splitlines())
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


def test_the_floor_keeps_rare_phrases_out():
    text = ["in the end the end", "by the way"] * 20 + ["a rare phrase once"]
    tok = GreedTokSuperwordTrainer(40, word_tokens=0, min_frequency=5, show_progress=False).train_from_iterator(text)
    assert not any(b"rare" in t for t in tok.model.ranked_tokens)
    assert b" the end" in tok.model.ranked_tokens or b"in the end the end" in tok.model.ranked_tokens


def test_a_cover_of_a_chunk_by_the_literal_rule_equals_the_native_cover():
    tok = GreedTokSuperwordTrainer(400, show_progress=False).train([str(EXAMPLE_TEXT)])
    ranked = [t.decode("latin-1") for t in tok.model.ranked_tokens]
    for chunk in ByteLevel("superwords").pre_tokenize(EXAMPLE_TEXT.read_text(encoding="utf-8")[:4000]):
        data = chunk.encode().decode("latin-1")
        pieces = [p.encode("latin-1") for p in literal_cover(ranked, data)]
        assert [tok.model.decode_bytes([i]) for i in tok.encode(chunk, mode="cover")] == pieces


@pytest.mark.parametrize("kwargs, message", [
    ({"word_tokens": -1}, "word_tokens"), ({"word_tokens": 11}, "word_tokens"),
    ({"word_pattern": "superwords"}, "word_pattern"), ({"word_pattern": r"\w+"}, "word_pattern"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GreedTokSuperwordTrainer(10, **kwargs)
