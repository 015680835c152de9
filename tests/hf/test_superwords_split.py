"""Superword chunks end to end (issue 31): GreedTok trained with ``ByteLevel("superwords")`` and
``ByteLevel("superwords-digits")`` (digits inside chunks).

Its tokens may span words ("of the "); the native batch path (split and encode in one call, the
scanner ``PATTERN_SUPERWORDS``) must give exactly the ids of encoding each chunk of
``regex.findall`` on its own, in both modes, and decode back to the text; the saved folders
(``GreedTokTokenizerFast``, cover and optimal, loaded with ``AutoTokenizer`` and through its
``tokenizers`` backend, which splits with Oniguruma) and the pure optimal ``tokenizer.json`` must
give the same ids. Trained on the first 10,000 lines of the Brown corpus; encoded on held-out
lines of it and on lines of the other shared texts (code, Hindi, Chinese).
"""
from __future__ import annotations

import pytest
import regex
from corpora import corpus
from tokenizers import Tokenizer as HFTokenizer
from transformers import AutoTokenizer

from hf_greedtok import ByteLevel, GreedTokTokenizerFast, GreedTokTrainer
from hf_greedtok._pretokenize import PATTERN_SUPERWORDS, PATTERN_SUPERWORDS_DIGITS
from hf_greedtok.hf.pipeline import export_optimal_tokenizer_json
from hf_greedtok.normalizers import replace_surrogates
from hf_greedtok.pre_tokenizers.patterns import SUPERWORDS, SUPERWORDS_DIGITS

TRAIN_LINES = 10_000
EDGES = ["", " ", "a  b\t\n", "Hello, world. The year 1990 was great!!\n", "naïve café 東京 🙂",
         "    if x[0] == \"a\":  # comment\n", "end.", " lone \ud800 surrogate, \udfff."]


def lines_of(name: str) -> list[str]:
    with open(corpus(name), encoding="utf-8", newline="") as f:
        return f.read().splitlines(keepends=True)


@pytest.fixture(scope="module", params=[SUPERWORDS, SUPERWORDS_DIGITS], ids=lambda split: split.name)
def tok(request):
    return GreedTokTrainer(k=2000, pre_tokenizer=ByteLevel(request.param.name), show_progress=False) \
        .train_from_iterator(lines_of("en_brown.txt")[:TRAIN_LINES], num_proc=1)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Held-out Brown lines, other domains, edge cases (the last one has lone surrogates)."""
    return lines_of("en_brown.txt")[-600:] + lines_of("code_python_stdlib.txt")[:300] \
        + lines_of("hi_devdas.txt")[:100] + lines_of("zh_reviews.txt")[:100] + EDGES


@pytest.fixture(scope="module")
def clean(texts) -> list[str]:
    """The texts tokenizers' Python binding takes (it refuses a str with lone surrogates)."""
    return [t for t in texts if t == replace_surrogates(t)]


def test_the_split_is_native_and_tokens_span_words(tok):
    native = {SUPERWORDS.regex: PATTERN_SUPERWORDS, SUPERWORDS_DIGITS.regex: PATTERN_SUPERWORDS_DIGITS}
    assert tok._native_pattern == native[tok.pre_tokenizer.pattern]
    assert b"of the " in tok.model.ranked_tokens


@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_native_batch_encodes_chunk_by_chunk_and_decodes_back(tok, texts, mode):
    assert sum(map(len, texts)) >= 2 * (1 << 15)       # enough characters for 2 threads to split
    ids, offsets = tok.encode_batch_flat(texts, mode=mode)
    chunks = regex.compile(tok.pre_tokenizer.pattern)
    for k, text in enumerate(texts):
        got = ids[offsets[k]:offsets[k + 1]].tolist()
        want, _ = tok.encode_words(chunks.findall(text), mode=mode)
        assert got == want.tolist(), (k, text[:80])
        assert tok.decode(got) == replace_surrogates(text)
    two = tok.encode_batch_flat(texts, mode=mode, num_threads=2)
    assert two[0].tolist() == ids.tolist() and two[1].tolist() == offsets.tolist()


@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_a_saved_folder_gives_the_native_ids(tok, clean, tmp_path, mode):
    GreedTokTokenizerFast.from_greedtok(tok, mode=mode).save_pretrained(tmp_path / "t")
    loaded = AutoTokenizer.from_pretrained(tmp_path / "t")
    assert isinstance(loaded, GreedTokTokenizerFast) and loaded.mode == mode
    want = [ids.tolist() for ids in tok.encode_batch(clean, mode=mode)]
    assert loaded(clean, add_special_tokens=False)["input_ids"] == want
    # the tokenizers backend: Oniguruma's split, then the cover step or Unigram
    backend = loaded.backend_tokenizer
    assert [e.ids for e in backend.encode_batch(clean, add_special_tokens=False)] == want


def test_the_pure_optimal_tokenizer_json_gives_the_native_ids(tok, clean, tmp_path):
    plain = HFTokenizer.from_file(str(export_optimal_tokenizer_json(tok, tmp_path / "tokenizer.json")))
    got = [e.ids for e in plain.encode_batch(clean)]
    assert got == [ids.tolist() for ids in tok.encode_batch(clean, mode="optimal")]
    assert [plain.decode(ids) for ids in got] == clean
