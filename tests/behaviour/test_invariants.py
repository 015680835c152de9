"""The four invariants of DESIGN.md on real English and Hindi data.

1. Train/encode consistency. 2. Lossless round trip. 3. optimal <= cover, = brute force.
4. Determinism across runs, word order, processes, hash seeds and thread counts.
"""
from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import char_model

from hf_greedtok import GreedTokTrainer, Metaspace


@pytest.fixture(scope="module")
def english_tok(english_counts):
    trainer = GreedTokTrainer(k=1500, show_progress=False)
    return trainer, trainer.train_from_counts(english_counts)


@pytest.fixture(scope="module")
def hindi_tok(hindi_counts):
    trainer = GreedTokTrainer(k=1500, show_progress=False)
    return trainer, trainer.train_from_counts(hindi_counts)


# ---------------------------------------------------------------- 1. consistency

@pytest.mark.parametrize("which", ["english", "hindi"])
def test_cover_encoding_reproduces_the_trainers_partition(which, request):
    counts = request.getfixturevalue(f"{which}_counts")
    trainer, tok = request.getfixturevalue(f"{which}_tok")
    words = list(counts)
    ids, offsets = tok.encode_words(words, mode="cover")
    for w, word in enumerate(words):
        token_bytes = [tok.model.decode_bytes([i]) for i in ids[offsets[w]:offsets[w + 1]]]
        assert [len(t) for t in token_bytes] == trainer.core.word_token_lengths(w), word
    total = int(np.dot(np.diff(offsets), np.fromiter(counts.values(), dtype=np.int64)))
    assert total == trainer.core.objective == tok.training_info["objective_tokens"]


# ---------------------------------------------------------------- 2. lossless

HARD_STRINGS = [
    "", " ", "\0", "a\0b", "\n\n\r\n\t  x", "naïve café", "e\u0301\u0302", "👨‍👩‍👧‍👦 family", "🏳️‍🌈",
    "किताब पढ़ी।", "क्षत्रिय", "東京タワー", "x" * 5000, "Ω" * 20_000 + "!", "a\u2028b\u2029c",
    "<|endoftext|> 'll 've", "\ufeffBOM",
]


@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_round_trip_of_hard_strings(english_tok, mode):
    _, tok = english_tok
    for text in HARD_STRINGS:
        assert tok.decode(tok.encode(text, mode=mode)) == text


def test_round_trip_of_real_text(english_tok, english_text, hindi_tok, hindi_text):
    for (_, tok), text in ((english_tok, english_text), (hindi_tok, hindi_text)):
        for mode in ("cover", "optimal"):
            assert tok.decode(tok.encode(text, mode=mode)) == text


def test_lone_surrogates_are_encoded_as_replacement_character(english_tok):
    _, tok = english_tok
    assert tok.decode(tok.encode("a\ud800b\udfffc")) == "a\ufffdb\ufffdc"


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_round_trip_any_unicode_byte_level(english_tok, text):
    _, tok = english_tok
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode(tok.encode(text, mode="optimal")) == text


@pytest.fixture(scope="module")
def metaspace_tok(hindi_text):
    trainer = GreedTokTrainer(k=300, pre_tokenizer=Metaspace(), show_progress=False)
    return trainer.train_from_iterator(hindi_text.splitlines(), num_proc=1)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\u2581"), max_size=60))
def test_round_trip_any_unicode_metaspace(metaspace_tok, text):
    # Characters outside the trained alphabet go through byte fallback; nothing is unknown.
    assert metaspace_tok.decode(metaspace_tok.encode(text)) == text
    assert metaspace_tok.decode(metaspace_tok.encode(text, mode="optimal")) == text


# ---------------------------------------------------------------- 3. optimal

@pytest.mark.parametrize("which", ["english", "hindi"])
def test_optimal_never_uses_more_tokens_than_cover(which, request):
    _, tok = request.getfixturevalue(f"{which}_tok")
    words = list(request.getfixturevalue(f"{which}_counts"))
    _, cover = tok.encode_words(words, mode="cover")
    _, optimal = tok.encode_words(words, mode="optimal")
    assert (np.diff(optimal) <= np.diff(cover)).all()
    assert (np.diff(optimal) < np.diff(cover)).any()     # and it does save somewhere


def brute_force_min(word: str, vocab: set[str]) -> int:
    best = {0: 0}
    for end in range(1, len(word) + 1):
        best[end] = min(best[start] + 1 for start in range(end)
                        if end - start == 1 or word[start:end] in vocab)
    return best[len(word)]


def all_segmentations(word, vocab):
    if not word:
        yield []
        return
    for n in range(1, len(word) + 1):
        if n == 1 or word[:n] in vocab:
            for rest in all_segmentations(word[n:], vocab):
                yield [word[:n]] + rest


@pytest.mark.parametrize("seed", range(40))
def test_optimal_equals_brute_force_on_small_vocabularies(seed):
    rng = random.Random(seed)
    alphabet = "abc"
    vocab = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4))) for _ in range(8)})
    rng.shuffle(vocab)
    model = char_model(vocab, alphabet)
    for _ in range(30):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
        got = [model.id_to_token(i) for i in model.encoder.encode_word(word, "optimal")]
        assert "".join(got) == word
        segs = list(all_segmentations(word, set(vocab)))
        fewest = min(map(len, segs))
        assert len(got) == fewest == brute_force_min(word, set(vocab))
        # Tie rule: the last token is as long as possible, recursively from the right.
        best = max((s for s in segs if len(s) == fewest), key=lambda s: [len(t) for t in reversed(s)])
        assert got == best


# ---------------------------------------------------------------- 4. determinism

def test_ranking_independent_of_word_order(english_counts, english_tok):
    _, tok = english_tok
    items = list(english_counts.items())
    random.Random(7).shuffle(items)
    again = GreedTokTrainer(k=1500, show_progress=False).train_from_counts(dict(items))
    assert again.model.ranked_tokens == tok.model.ranked_tokens


def test_ranking_identical_across_processes_and_hash_seeds(tmp_path, english_counts):
    words = dict(itertools.islice(english_counts.items(), 3000))
    table = tmp_path / "words.tsv"
    table.write_text("".join(f"{w.strip()}\t{c}\n" for w, c in words.items()), encoding="utf-8")
    script = (
        "import sys; from hf_greedtok import GreedTokTrainer;"
        "t = GreedTokTrainer(k=300, show_progress=False).train([sys.argv[1]], counts=True);"
        "print(repr(t.model.ranked_tokens))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", script, str(table)], env=env, cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout
        outputs.add(out)
    assert len(outputs) == 1


def test_encoding_identical_across_thread_counts(english_tok, english_text):
    _, tok = english_tok
    words = tok.pre_tokenize(english_text) * 3
    one = tok.encode_words(words, num_threads=1)
    two = tok.encode_words(words, num_threads=2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    batches = tok.encode_batch(english_text.splitlines(), num_threads=2)
    assert [b.tolist() for b in batches] == [tok.encode(t) for t in english_text.splitlines()]
