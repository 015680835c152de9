"""A superword tokenizer inside transformers (issue 31 item 3): the native fast path, the
backend and the pure ``tokenizer.json`` (stock ``Split`` + Unigram, loaded without
hf_greedtok) give the same ids; offsets are valid; ``word_ids()`` counts chunks, and
``is_split_into_words=True`` keeps tokens inside the words given."""
from __future__ import annotations

import pytest
from corpora import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTokenizerFast
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer


@pytest.fixture(scope="module")
def trained():
    lines = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()[:20000]
    return GreedTokSuperwordTrainer(k=3000, show_progress=False).train_from_iterator(lines)


@pytest.fixture(scope="module")
def folder(trained, tmp_path_factory):
    out = tmp_path_factory.mktemp("superwords")
    GreedTokTokenizerFast.from_greedtok(trained, mode="optimal").save_pretrained(out)
    return out


def unseen() -> list[str]:
    lines = corpus("en_python_docs.txt").read_text(encoding="utf-8").splitlines()[:1500]
    return lines + corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines()[:200]


def test_the_native_path_the_backend_and_the_pure_file_agree(trained, folder):
    from tokenizers import Tokenizer as Backend
    from transformers import AutoTokenizer

    lines = unseen()
    native = [list(ids) for ids in trained.encode_batch(lines, mode="optimal")]
    hf = AutoTokenizer.from_pretrained(str(folder))
    assert hf(lines, add_special_tokens=False)["input_ids"] == native
    pure = Backend.from_file(str(folder / "tokenizer.json"))          # stock tokenizers, no custom code
    assert [e.ids for e in pure.encode_batch(lines, add_special_tokens=False)] == native
    assert any(b" " in trained.model.decode_bytes([i]).strip(b" ") for row in native for i in row)
    assert [hf.decode(ids) for ids in native] == lines


@pytest.fixture(scope="module")
def loaded(folder):
    """(the pure tokenizer.json in stock tokenizers, the folder's GreedTokTokenizerFast), loaded once."""
    from tokenizers import Tokenizer as Backend

    return Backend.from_file(str(folder / "tokenizer.json")), GreedTokTokenizerFast.from_pretrained(str(folder))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_any_text_round_trips_with_valid_offsets(trained, loaded, text):
    pure, fast = loaded
    ids = trained.encode(text, mode="optimal")
    assert trained.decode(ids) == text
    assert pure.encode(text, add_special_tokens=False).ids == ids
    enc = fast(text, add_special_tokens=False, return_offsets_mapping=True)
    assert enc["input_ids"] == ids
    spans = enc["offset_mapping"]
    assert all(0 <= a <= b <= len(text) for a, b in spans)
    assert not spans or spans[-1][1] == len(text)


def test_word_ids_count_chunks_and_split_words_stay_apart(folder, trained):
    tok = GreedTokTokenizerFast.from_pretrained(str(folder))
    text = "It was one of the best of the times, said he."
    chunks = ByteLevel("superwords").pre_tokenize(text)
    enc = tok(text, add_special_tokens=False)
    # a token spanning words belongs to its chunk: word_ids() numbers chunks, not words
    assert sorted(set(enc.word_ids())) == list(range(len(chunks)))
    assert len(set(enc.word_ids())) < len(text.split(" "))
    words = text.split(" ")
    split = tok(words, is_split_into_words=True, add_special_tokens=False)
    # each given word is encoded alone, so no token crosses them
    assert split["input_ids"] == [i for w in words for i in trained.encode(w, mode="optimal")]
    assert split.word_ids() == [k for k, w in enumerate(words) for _ in trained.encode(w, mode="optimal")]


def test_train_new_from_iterator_retrains_superwords_with_the_folder_s_curriculum(tmp_path):
    """A superword folder retrained on new text is the superword trainer's tokenizer at the new
    size (stage 1, the floor, the curriculum), not word-level GreedTok on the chunks; t given at
    training keeps its share of k, and digits in chunks stay in chunks."""
    from transformers import AutoTokenizer

    lines = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()
    old_text, new_text = lines[:6000], lines[6000:12000]
    trained = GreedTokSuperwordTrainer(k=1200, word_tokens=400, min_frequency=8, digits_in_chunks=True,
                                       show_progress=False).train_from_iterator(old_text)
    GreedTokTokenizerFast.from_greedtok(trained, mode="optimal").save_pretrained(tmp_path / "sw")
    hf = AutoTokenizer.from_pretrained(str(tmp_path / "sw"))
    new = hf.train_new_from_iterator([new_text[i:i + 500] for i in range(0, len(new_text), 500)], vocab_size=856)
    direct = GreedTokSuperwordTrainer(k=600, word_tokens=200, min_frequency=8, digits_in_chunks=True,
                                      show_progress=False).train_from_iterator(new_text)
    assert list(new.greedtok.model.ranked_tokens) == list(direct.model.ranked_tokens)
    assert new.greedtok.training_info["curriculum"] == direct.training_info["curriculum"]
    assert new.greedtok.pre_tokenizer == ByteLevel("superwords-digits") and len(new) == 856
    # GreedTok on the chunks alone, what this call trained before, ends 282 of its tokens in a space here
    assert sum(t.endswith(b" ") for t in new.greedtok.model.ranked_tokens) < 10
    # options given to the call replace the recorded ones
    other = hf.train_new_from_iterator(new_text, vocab_size=856, word_tokens=0, min_frequency=4)
    assert other.greedtok.training_info["curriculum"]["word_tokens"] == 0
    assert other.greedtok.training_info["min_frequency"] == 4
