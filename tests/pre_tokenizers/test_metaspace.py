"""Metaspace tokenizers lose nothing and every path agrees (issue 12, items 5, 6, 7 and 10).

* Encoding prepends "▁" to each run of text, also to the run after a special token, so decoding
  must drop one space there too: "<pad>x" comes back as "<pad>x", not "<pad> x" (item 5).
* The pure optimal tokenizer.json equals the native optimal encoder on any text, characters
  outside the alphabet and literal "<0xNN>" included (item 6).
* A folder's tokenizer.json that cannot encode like the folder refuses to load alone (item 7).
* One normalizer (the Rust one) on both paths; "" is no token everywhere (item 10).
"""
from __future__ import annotations

import pytest
from corpora import corpus
from tokenizers import Tokenizer as HFTokenizer
from transformers import AutoTokenizer

from hf_greedtok import (CBPETrainer, GreedTokTokenizerFast, GreedTokTrainer, Metaspace, Tokenizer,
                         UnicodeNormalizer, export_optimal_tokenizer_json)

SPECIALS = ["<|endoftext|>", "<pad>"]
AROUND_SPECIALS = ["<pad>x", "a<pad>b", "<pad> x", "x<pad>", "<pad><pad>x", " <pad>  x ", "<pad>",
                   "<|endoftext|>▁x", "the cat<|endoftext|><pad>sat on", "<pad>\nx"]
# Outside a Hindi alphabet: Latin, the byte-token spelling, emoji, newer marks, lone combining marks.
UNSEEN = ["<0x41>", "<0x41><pad>", "x<0xE2>😀aé", "naïve café 東京 🙂", "\u0915\u08d3\u093c", "\u0899\u0301",
          "é😀▁x", "<|endoftext|><0x0A>", "a\u200db\u200c", "\u0301\u0301x"]


def hindi_lines(n: int) -> list[str]:
    return [t for t in corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines() if t.strip()][:n]


@pytest.fixture(scope="module", params=["chars", "marks", "vowels"])
def hindi_tok(request) -> Tokenizer:
    """GreedTok over Hindi only (so Latin letters, digits and '<', 'x', '>' are outside the alphabet)."""
    norm = None if request.param == "chars" else UnicodeNormalizer("NFC")
    trainer = GreedTokTrainer(k=300, pre_tokenizer=Metaspace(units=request.param), normalizer=norm,
                              special_tokens=SPECIALS, show_progress=False)
    return trainer.train_from_iterator(hindi_lines(2000), num_proc=1)


@pytest.fixture(scope="module")
def mixed_tok() -> Tokenizer:
    """Character-level GreedTok over Hindi and English lines."""
    lines = hindi_lines(800) + corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()[:800]
    trainer = GreedTokTrainer(k=300, pre_tokenizer=Metaspace(), special_tokens=SPECIALS, show_progress=False)
    return trainer.train_from_iterator(lines, num_proc=1)


def expected(tok: Tokenizer, text: str) -> str:
    """The documented round trip: normalized, and U+2581 in the text comes back as a space."""
    return (tok.normalizer(text) if tok.normalizer else text).replace("\u2581", " ")


@pytest.mark.parametrize("text", AROUND_SPECIALS)
def test_text_after_a_special_token_gets_no_extra_space(mixed_tok, text, tmp_path):
    ids = mixed_tok.encode(text)
    assert mixed_tok.decode(ids) == expected(mixed_tok, text)
    for mode in ("cover", "optimal"):
        hf = GreedTokTokenizerFast.from_greedtok(mixed_tok, mode=mode)
        hf_ids = hf(text, add_special_tokens=False)["input_ids"]
        assert hf_ids == mixed_tok.encode(text, mode=mode)
        assert hf.decode(hf_ids) == expected(mixed_tok, text)
        assert hf.decode(hf_ids, skip_special_tokens=True) == mixed_tok.decode(hf_ids, skip_special_tokens=True)
    pure = HFTokenizer.from_file(str(export_optimal_tokenizer_json(mixed_tok, tmp_path / "tokenizer.json")))
    assert pure.decode(pure.encode(text).ids, skip_special_tokens=False) == expected(mixed_tok, text)


def test_special_tokens_added_by_transformers_decode_without_extra_space(mixed_tok):
    hf = GreedTokTokenizerFast.from_greedtok(mixed_tok)
    hf.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    ids = hf("<|im_start|>user", add_special_tokens=False)["input_ids"]
    assert ids[0] == hf.convert_tokens_to_ids("<|im_start|>") and hf.decode(ids) == "<|im_start|>user"


@pytest.mark.parametrize("units", ["marks", "vowels"])
def test_cbpe_decodes_text_after_special_tokens(units):
    backend = CBPETrainer(num_merges=200, units=units, special_tokens=SPECIALS,
                          show_progress=False).train_from_iterator(hindi_lines(1000))
    for text in ["<pad>कार्यालय", "में<|endoftext|>कहा", "<pad> x"]:
        assert backend.decode(backend.encode(text).ids, skip_special_tokens=False) == text


@pytest.mark.parametrize("text", UNSEEN + AROUND_SPECIALS)
def test_optimal_export_equals_the_native_encoder_outside_the_alphabet(hindi_tok, text, tmp_path):
    pure = HFTokenizer.from_file(str(export_optimal_tokenizer_json(hindi_tok, tmp_path / "tokenizer.json")))
    ids = hindi_tok.encode(text, mode="optimal")
    assert pure.encode(text).ids == ids
    assert pure.decode(ids, skip_special_tokens=False) == hindi_tok.decode(ids) == expected(hindi_tok, text)
    hf = GreedTokTokenizerFast.from_greedtok(hindi_tok, mode="optimal")
    assert hf(text, add_special_tokens=False)["input_ids"] == ids


@pytest.mark.parametrize("text", UNSEEN + ["", "हिंदी भाषा"])
def test_cover_native_equals_hf_outside_the_alphabet(hindi_tok, text):
    hf = GreedTokTokenizerFast.from_greedtok(hindi_tok, mode="cover")
    ids = hindi_tok.encode(text)
    assert hf(text, add_special_tokens=False)["input_ids"] == ids
    assert hindi_tok.decode(ids) == hf.decode(ids) == expected(hindi_tok, text)


def test_empty_text_is_no_token_everywhere(hindi_tok):
    assert hindi_tok.encode("") == [] and hindi_tok.pre_tokenize("") == []
    assert GreedTokTokenizerFast.from_greedtok(hindi_tok)("", add_special_tokens=False)["input_ids"] == []


def test_native_and_hf_normalize_newer_marks_alike():
    # Python 3.11's unicodedata (Unicode 14) gives U+08D3 combining class 0 and leaves this order;
    # the Rust normalizer in tokenizers moves it after the nukta (class 7 before 220).
    from tokenizers.normalizers import NFC
    text = "\u0915\u08d3\u093c"
    assert UnicodeNormalizer("NFC")(text) == NFC().normalize_str(text)
    assert UnicodeNormalizer("NFC")("a\ud800\u0065\u0301") == "a\ufffd\u00e9"


def test_cover_folder_without_tokenizer_config_is_refused(mixed_tok, tmp_path):
    GreedTokTokenizerFast.from_greedtok(mixed_tok, mode="cover").save_pretrained(tmp_path / "cover")
    assert AutoTokenizer.from_pretrained(tmp_path / "cover")("x<pad>")["input_ids"] == mixed_tok.encode("x<pad>")
    (tmp_path / "cover" / "tokenizer_config.json").unlink()
    with pytest.raises(Exception, match="this tokenizer.json alone would encode differently"):
        AutoTokenizer.from_pretrained(tmp_path / "cover")
    GreedTokTokenizerFast.from_greedtok(mixed_tok, mode="optimal").save_pretrained(tmp_path / "optimal")
    (tmp_path / "optimal" / "tokenizer_config.json").unlink()
    plain = AutoTokenizer.from_pretrained(tmp_path / "optimal")      # exact: the same ids
    assert plain(AROUND_SPECIALS, add_special_tokens=False)["input_ids"] == \
        [ids.tolist() for ids in mixed_tok.encode_batch(AROUND_SPECIALS, mode="optimal")]


def test_a_single_character_special_token_keeps_optimal_exact(tmp_path):
    """A one-character special token is one Unigram piece that text with special tokens disabled
    would still select, so no pure file is exact: the export refuses, and optimal mode runs the
    native encoder inside the HF pipeline."""
    lines = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()[:500]
    tok = GreedTokTrainer(k=100, special_tokens=["§", "<pad>"], pre_tokenizer=Metaspace(), show_progress=False) \
        .train_from_iterator(lines, num_proc=1)
    with pytest.raises(ValueError, match="the special token '§' is a single character"):
        export_optimal_tokenizer_json(tok, tmp_path / "tokenizer.json")
    hf = GreedTokTokenizerFast.from_greedtok(tok, mode="optimal", split_special_tokens=True)
    for text in ["a§b", "§x", "<pad>§"]:
        assert hf(text, add_special_tokens=False)["input_ids"] == tok.encode(text, mode="optimal", allow_special=False)


def test_a_special_token_spelled_like_a_byte_token_is_a_clear_error():
    # At byte level "§" is also how byte 0xA7 is shown, so HF could not tell the two apart.
    lines = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()[:200]
    tok = GreedTokTrainer(k=50, special_tokens=["§"], show_progress=False).train_from_iterator(lines, num_proc=1)
    with pytest.raises(ValueError, match="token string '§' is both id 0 and id 168"):
        GreedTokTokenizerFast.from_greedtok(tok)


@pytest.mark.parametrize("units", ["chars", "marks"])
def test_bpe_never_learns_a_token_spelled_like_a_byte_fallback_piece(units):
    # Text that spells "<0x41>" must not teach BPE a token sharing the byte's id (it would decode as "A").
    trainer = CBPETrainer(num_merges=60, units=units, special_tokens=["<pad>"], show_progress=False)
    backend = trainer.train_from_iterator(["value <0x41> and <0x41>more x<0x41> q<pad>y"] * 200)
    assert trainer.training_info["dropped_merges"] >= 1
    for text in ["<0x41>", "q<0x41>", "a <0x41> b", "x<0x41>more"]:
        assert backend.decode(backend.encode(text).ids, skip_special_tokens=False) == text
