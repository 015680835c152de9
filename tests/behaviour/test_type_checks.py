"""Checks at the door (issue 13, item 5): a pre-tokenizer or normalizer of another library (HF
tokenizers' objects, strings where objects are expected) is a TypeError at construction that
names the class to use, not an AttributeError deep inside training or encoding."""
from __future__ import annotations

import pytest
from tokenizers import normalizers as hf_normalizers
from tokenizers import pre_tokenizers as hf_pre_tokenizers

from hf_greedtok import (ByteLevel, CBPETrainer, GreedTokModel, GreedTokTrainer, GreedWMCTrainer, Metaspace,
                         Tokenizer, UnicodeNormalizer)

TRAINERS = [GreedTokTrainer, GreedWMCTrainer]


@pytest.fixture(scope="module")
def model() -> GreedTokModel:
    tok = GreedTokTrainer(k=5, show_progress=False).train_from_iterator(["the cynic is a blackguard"] * 3,
                                                                       num_proc=1)
    return tok.model


def make(owner, model: GreedTokModel, **kwargs):
    """``owner`` built with ``kwargs`` (a Tokenizer gets ``model`` and, by default, ByteLevel)."""
    if owner is Tokenizer:
        return Tokenizer(model, kwargs.pop("pre_tokenizer", ByteLevel()), **kwargs)
    return owner(k=10, show_progress=False, **kwargs)


@pytest.mark.parametrize("owner", [*TRAINERS, Tokenizer], ids=lambda c: c.__name__)
@pytest.mark.parametrize("theirs, ours", [
    (hf_pre_tokenizers.ByteLevel(), "hf_greedtok.ByteLevel()"),
    (hf_pre_tokenizers.Metaspace(), "hf_greedtok.Metaspace()"),
    (hf_pre_tokenizers.Whitespace(), "hf_greedtok.ByteLevel() (byte-level units) or hf_greedtok.Metaspace()"),
    ("byte-level", "hf_greedtok.ByteLevel() (byte-level units) or hf_greedtok.Metaspace()"),
], ids=["tokenizers-ByteLevel", "tokenizers-Metaspace", "tokenizers-Whitespace", "str"])
def test_foreign_pre_tokenizer_is_a_type_error_naming_ours(owner, model, theirs, ours):
    with pytest.raises(TypeError) as err:
        make(owner, model, pre_tokenizer=theirs)
    message = str(err.value)
    assert message.startswith(f"{owner.__name__}: pre_tokenizer must be hf_greedtok.ByteLevel or "
                              "hf_greedtok.Metaspace, got ")
    assert type(theirs).__name__ in message and f"use {ours}" in message


@pytest.mark.parametrize("owner", [*TRAINERS, CBPETrainer, Tokenizer], ids=lambda c: c.__name__)
@pytest.mark.parametrize("theirs, form", [(hf_normalizers.NFKC(), "NFKC"), (hf_normalizers.Lowercase(), "NFC"),
                                          (42, "NFC")], ids=["tokenizers-NFKC", "tokenizers-Lowercase", "int"])
def test_foreign_normalizer_is_a_type_error_naming_ours(owner, model, theirs, form):
    with pytest.raises(TypeError) as err:
        if owner is CBPETrainer:
            CBPETrainer(num_merges=10, normalizer=theirs, show_progress=False)
        else:
            make(owner, model, normalizer=theirs)
    message = str(err.value)
    assert message.startswith(f"{owner.__name__}: normalizer must be hf_greedtok.UnicodeNormalizer")
    assert f"use hf_greedtok.UnicodeNormalizer('{form}')" in message


def test_tokenizer_takes_no_normalizer_name(model):
    with pytest.raises(TypeError, match=r"Tokenizer: normalizer must be hf_greedtok.UnicodeNormalizer or "
                                        r"None, got str; use hf_greedtok.UnicodeNormalizer\('NFKD'\)"):
        Tokenizer(model, ByteLevel(), normalizer="nfkd")


@pytest.mark.parametrize("owner", TRAINERS, ids=lambda c: c.__name__)
def test_our_components_and_names_still_pass(owner, model):
    trainer = owner(k=10, pre_tokenizer=Metaspace(), normalizer="NFC", show_progress=False)
    assert isinstance(trainer.pre_tokenizer, Metaspace) and trainer.normalizer == UnicodeNormalizer("NFC")
    assert owner(k=10, normalizer="none", show_progress=False).normalizer is None
    assert isinstance(owner(k=10, show_progress=False).pre_tokenizer, ByteLevel)
    tok = Tokenizer(model, ByteLevel(), normalizer=UnicodeNormalizer("NFKC"))
    assert tok.normalizer == UnicodeNormalizer("NFKC")
    assert CBPETrainer(num_merges=5, normalizer=UnicodeNormalizer("NFD")).normalizer == UnicodeNormalizer("NFD")
