"""Encoders over foreign vocabularies: tiktoken files and HF BPE tokenizer.json files."""
from __future__ import annotations

import numpy as np
import pytest
from corpora import EXAMPLE_TEXT, VOCAB

from hf_greedtok import GreedTokFileError, Tokenizer


@pytest.fixture(scope="module")
def cl100k():
    pytest.importorskip("tiktoken")
    path = VOCAB / "cl100k_base.tiktoken"
    if not path.is_file():
        pytest.skip(f"{path} not available")
    return Tokenizer.from_tiktoken(path)


def test_tiktoken_ids_are_the_files_ranks(cl100k, english_text):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    ranks = load_tiktoken_bpe(str(VOCAB / "cl100k_base.tiktoken"))
    text = english_text[:5000]
    for mode in ("cover", "optimal"):
        ids = cl100k.encode(text, mode=mode)
        assert cl100k.decode(ids) == text
        inverse = {r: t for t, r in ranks.items()}
        assert b"".join(inverse[i] for i in ids) == text.encode()
    # tiktoken's own BPE with the same ranks and split: our optimal never needs more tokens.
    enc = tiktoken.Encoding("cl100k_im", pat_str=cl100k.pre_tokenizer.pattern, mergeable_ranks=ranks,
                            special_tokens={})
    assert len(cl100k.encode(text, mode="optimal")) <= len(enc.encode(text))


@pytest.mark.parametrize("which", ["english_text", "hindi_text"])
def test_tiktoken_optimal_never_needs_more_tokens_than_cover(cl100k, which, request):
    words = cl100k.pre_tokenize(request.getfixturevalue(which))
    _, cover = cl100k.encode_words(words, mode="cover")
    _, optimal = cl100k.encode_words(words, mode="optimal")
    assert (np.diff(optimal) <= np.diff(cover)).all()
    if which == "english_text":
        assert optimal[-1] < cover[-1]


def test_bad_tiktoken_file(tmp_path):
    pytest.importorskip("tiktoken")
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("this is not base64 rank\n")
    with pytest.raises(GreedTokFileError, match="bad.tiktoken"):
        Tokenizer.from_tiktoken(bad)


@pytest.fixture(scope="module")
def hf_bpe_file(tmp_path_factory):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|endoftext|>"], show_progress=False)
    tok.train([str(EXAMPLE_TEXT)], trainer)
    path = tmp_path_factory.mktemp("bpe") / "tokenizer.json"
    tok.save(str(path))
    return path


def test_hf_bpe_vocabulary_keeps_its_ids(hf_bpe_file, english_text):
    from tokenizers import Tokenizer as HFTokenizer
    hf = HFTokenizer.from_file(str(hf_bpe_file))
    ours = Tokenizer.from_hf_bpe(hf_bpe_file)
    text = english_text[:3000]
    bpe_ids = hf.encode(text).ids
    for mode in ("cover", "optimal"):
        ids = ours.encode(text, mode=mode)
        assert hf.decode(ids) == text == ours.decode(ids)
    assert len(ours.encode(text, mode="optimal")) <= len(bpe_ids)
    assert ours.token_to_id("<|endoftext|>") == hf.token_to_id("<|endoftext|>")


def test_hf_file_that_is_not_bpe(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text('{"model": {"type": "Unigram", "vocab": []}}')
    with pytest.raises(GreedTokFileError, match="expected 'BPE'"):
        Tokenizer.from_hf_bpe(path)
