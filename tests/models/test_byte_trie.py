"""The byte-level trie the encoders walk (issue 42): a table of 8-byte slots, a node per slot.

A byte-level encoder walks its own layout of the ranked tokens' trie, built for it; a
character-level encoder walks the hash trie the trainer shares. Built over the same tokens, with
each byte b a character chr(b), the two are the same trie: every word gives the same ids under
both modes, on both cover paths (sorted occurrences, and the buckets of long words) and the DP.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import _encoder
from hf_greedtok._encoder import RankedEncoder


def encoders(tokens: list[bytes]) -> tuple[RankedEncoder, RankedEncoder]:
    """(byte level, character level) encoders of ``tokens`` ranked in list order; token r has id
    256 + r, byte b the id b."""
    units = np.frombuffer(b"".join(tokens), dtype=np.uint8).astype(np.uint32)
    offsets = np.cumsum([0] + [len(t) for t in tokens]).astype(np.int64)
    ids = np.arange(256, 256 + len(tokens), dtype=np.int32)
    byte_ids = np.arange(256, dtype=np.int32)
    every_byte = np.arange(256, dtype=np.uint32)
    as_bytes = RankedEncoder(units, offsets, ids, every_byte, byte_ids, byte_ids, True)
    as_chars = RankedEncoder(units, offsets, ids, every_byte, byte_ids, byte_ids, False)
    return as_bytes, as_chars


def assert_same_ids(tokens: list[bytes], words: list[bytes]) -> None:
    as_bytes, as_chars = encoders(tokens)
    for mode in ("cover", "optimal"):
        got_bytes, got_counts = as_bytes.encode_words(words, mode)
        got_chars, char_counts = as_chars.encode_words([w.decode("latin-1") for w in words], mode)
        assert got_bytes.tolist() == got_chars.tolist(), mode
        assert got_counts.tolist() == char_counts.tolist(), mode


_TOKENS = st.lists(st.binary(min_size=2, max_size=6), min_size=1, max_size=60, unique=True)
_WORDS = st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=20)


@settings(max_examples=300, deadline=None)
@given(tokens=_TOKENS, words=_WORDS)
def test_any_bytes_give_the_ids_of_the_hash_trie(tokens, words):
    assert_same_ids(tokens, words)


@settings(max_examples=100, deadline=None)
@given(tokens=st.lists(st.binary(min_size=2, max_size=5), min_size=1, max_size=40, unique=True),
       words=st.lists(st.binary(min_size=2, max_size=30), min_size=1, max_size=8))
def test_the_long_word_cover_walks_the_same_trie(tokens, words):
    old = _encoder._set_cover_long_min_units(2)
    try:
        assert_same_ids(tokens, words)
    finally:
        _encoder._set_cover_long_min_units(old)


def test_a_large_vocabulary_of_few_letters_crowds_the_table_and_still_agrees():
    # 20,000 tokens over four bytes: a deep, bushy trie whose slots collide.
    rng = random.Random(0)
    tokens = list(dict.fromkeys(bytes(rng.choice(b"ab\x00\xff") for _ in range(rng.randint(2, 12)))
                                for _ in range(40_000)))[:20_000]
    words = [bytes(rng.choice(b"ab\x00\xff") for _ in range(rng.randint(1, 200))) for _ in range(500)]
    assert_same_ids(tokens, words)


def test_a_byte_level_unit_past_255_is_refused():
    units = np.array([97, 300], dtype=np.uint32)
    with pytest.raises(ValueError, match="unit 300; byte-level units are bytes"):
        RankedEncoder(units, np.array([0, 2], dtype=np.int64), np.array([256], dtype=np.int32),
                      np.arange(256, dtype=np.uint32), np.arange(256, dtype=np.int32),
                      np.arange(256, dtype=np.int32), True)
