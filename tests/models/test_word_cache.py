"""The word cache of a loaded tokenizer starts warm (issue 14 item 5).

The trainer saves the training text's most frequent words with the file ("cache_words"); loading
the file, or unpickling it as every ``datasets.map`` worker does, encodes them into the native
word cache, so the first batch of a fresh process finds its common words there.
"""
from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pytest
from corpora import corpus

from hf_greedtok import GreedTokFileError, GreedTokTrainer, Tokenizer
from hf_greedtok.defaults import CACHE_WORDS
from hf_greedtok.trainers import most_frequent


@pytest.fixture(scope="module")
def table() -> dict[str, int]:
    """The first 30,000 rows of the Wikipedia word-count table."""
    rows = corpus("en_wiki2012_wordcounts.tsv").read_text(encoding="utf-8").splitlines()[:30_000]
    return {w: int(c) for w, c in (r.split("\t") for r in rows)}


def test_most_frequent_keeps_the_words_counted_more_than_the_nth(table):
    words, counts = list(table), np.array(list(table.values()), dtype=np.int64)
    got = most_frequent(words, counts, 1000)
    nth = sorted(table.values(), reverse=True)[999]
    assert got == sorted(w for w, c in table.items() if c > nth)
    assert 900 < len(got) <= 1000


def test_most_frequent_does_not_depend_on_the_order_of_the_words(table):
    items = list(table.items())
    random.Random(7).shuffle(items)
    shuffled = most_frequent([w for w, _ in items], np.array([c for _, c in items]), 1000)
    assert shuffled == most_frequent(list(table), np.array(list(table.values())), 1000)
    assert most_frequent(["a", "b"], np.array([1, 2]), 0) == []


@pytest.fixture(scope="module")
def trained(table) -> Tokenizer:
    return GreedTokTrainer(k=500, show_progress=False).train_from_counts(
        {" " + w: c for w, c in table.items()})


def test_the_trainer_keeps_the_most_frequent_training_words(trained, table):
    assert len(trained.cache_words) <= CACHE_WORDS
    assert " the" in trained.cache_words and trained.cache_words == tuple(sorted(trained.cache_words))
    least_kept = min(table[w[1:]] for w in trained.cache_words)
    assert all(c < least_kept for w, c in table.items() if " " + w not in trained.cache_words)


def test_a_loaded_tokenizer_has_them_in_its_cache(trained, tmp_path):
    trained.save(tmp_path)
    loaded = Tokenizer.load(tmp_path)
    assert loaded.cache_words == trained.cache_words
    encoder = loaded.model.encoder
    warm = encoder.cached_words(loaded.mode)
    assert warm > 0.9 * len(trained.cache_words)
    loaded.encode_batch_flat(list(trained.cache_words))       # all hits: nothing new is cached
    assert encoder.cached_words(loaded.mode) == warm
    some = list(trained.cache_words[:200])
    assert loaded.encode_batch_flat(some)[0].tolist() == trained.encode_batch_flat(some)[0].tolist()


def test_an_unpickled_tokenizer_has_them_in_its_cache(trained):
    copy = pickle.loads(pickle.dumps(trained))
    assert copy.cache_words == trained.cache_words
    assert copy.model.encoder.cached_words(copy.mode) > 0.9 * len(trained.cache_words)


def test_files_without_cache_words_load_and_bad_ones_are_refused(trained, tmp_path):
    data = json.loads(trained.to_json())
    del data["cache_words"]
    bare = Tokenizer.from_json(json.dumps(data))
    assert bare.cache_words == () and bare.model.encoder.cached_words() == 0
    assert "cache_words" not in json.loads(bare.to_json())
    data["cache_words"] = "the"
    with pytest.raises(GreedTokFileError, match="cache_words must be a list of strings"):
        Tokenizer.from_json(json.dumps(data))


@pytest.mark.parametrize("suffix", ["", "zzzzzz"], ids=["6-byte keys", "12-byte keys"])
def test_the_word_cache_stays_bounded_across_calls(suffix):
    """Memory per thread does not grow with the words seen: the cache holds at most 2**18 words
    per mode (then starts again), whatever the calls bring, keys of up to 8 bytes or of 9..15;
    the ids stay a fresh tokenizer's."""
    from corpora import VOCAB
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    letters = "abcdefghijklmnopqrstuvwxyz"

    def word(i: int) -> str:      # distinct words of letters, one GPT-4 word each
        return "".join(letters[(i // 26 ** k) % 26] for k in range(5)) + suffix
    held = []
    for call in range(4):
        first = call * 100_000
        texts = [" ".join(word(i) for i in range(j, j + 100)) for j in range(first, first + 100_000, 100)]
        ids, offsets = tok.encode_batch_flat(texts)
        held.append(tok.model.encoder.cached_words("cover"))
        want, _ = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken").encode_batch_flat(texts[-50:])
        assert ids[offsets[-51]:].tolist() == want.tolist()
    assert max(held) <= 2 ** 18
    assert held[2] < held[1]          # past 2**18 words the cache started again


def _one_byte_apart(word: str) -> list[str]:
    """word, and each word that differs from it in one code point (its lowest bit flipped)."""
    return [word] + [word[:i] + chr(ord(word[i]) ^ 1) + word[i + 1:] for i in range(len(word))]


def test_words_of_1_to_17_bytes_one_byte_apart_keep_their_own_ids():
    """Keys of 1..15 bytes share one table (_word_cache.h: the key as two 8-byte words with its
    length, up to 3 ids inline, more in the arena); longer ones are hashed. Words one byte
    apart, at every position of every length on both sides of the 8- and 15-byte edges, through
    a cold and then a warm cache, as words and as texts (the batch path's two passes), each
    decode to themselves and get the same ids every time: no two keys meet in one slot."""
    from corpora import VOCAB
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    words = [w for n in range(1, 18)
             for base in ("abcdefghijklmnopq", " information_xyz", "zqxjkvbwzqxjkvbwq")   # 1, few, many ids
             for w in _one_byte_apart(base[:n])]
    words = list(dict.fromkeys(words))
    ids, offsets = tok.model.encoder.encode_words(words + words, "cover")
    rows = [ids[offsets[k]:offsets[k + 1]].tolist() for k in range(2 * len(words))]
    counts = {len(r) for r in rows}
    assert {1, 2, 3} <= counts and max(counts) > 3
    for k, word in enumerate(words):
        assert tok.decode(rows[k]) == word
        assert rows[len(words) + k] == rows[k], word
    pieces = [tok.pre_tokenizer.pre_tokenize(w) for w in words]     # a text's words under GPT-4's split
    flat = [p for ps in pieces for p in ps]
    ids, offsets = tok.model.encoder.encode_words(flat, "cover")
    want, at = [], 0
    for ps in pieces:
        want.append(ids[offsets[at]:offsets[at + len(ps)]].tolist())
        at += len(ps)
    fresh = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    for _ in range(2):
        ids, offsets = fresh.encode_batch_flat(words)
        assert [ids[offsets[k]:offsets[k + 1]].tolist() for k in range(len(words))] == want


def test_a_char_model_word_of_3_and_4_code_points_is_keyed_by_12_and_16_bytes():
    """Without byte level a key is the word's code points, 4 bytes each: 3 code points (12
    bytes) take the short words' table, 4 (16 bytes) the hashed one. Cold and warm, each word's
    cover is Algorithm 4's."""
    from helpers import char_model, literal_cover
    ranked = ["ab", "bc", "abc", "cd", "bcd", "dab", "ca"]
    model = char_model(ranked, "abcd")
    words = [w for base in ("abcd", "dabc", "cabd") for n in (3, 4) for w in _one_byte_apart(base[:n])
             if set(w) <= set("abcd")]
    for _ in range(2):
        for word in words:
            got = [model.id_to_token(i) for i in model.encoder.encode_word(word, "cover")]
            assert got == literal_cover(ranked, word), word
