"""Script-aware GreedTok on units it never saw in training (issue 19 item 1).

Trained on the Hindi news word counts, the tokenizer meets new units in Devdas: mostly a nukta
letter followed by a vowel sign (NFC keeps ज़ as ज + U+093C, the precomposed letters being
composition exclusions). Every character of its units is a singleton, so such a unit falls back
to its longest seen prefix and single characters, never to the bytes of a character it knows;
and the pure optimal tokenizer.json still encodes exactly like the native encoder, because a
lone vowel sign or mark scores below every path that keeps seen units whole.
"""
from __future__ import annotations

import pytest
from corpora import corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Metaspace, export_optimal_tokenizer_json
from hf_greedtok.indic.units import UnitSplitter

NUKTA_JA_AA = "\u091c\u093c\u093e"         # ज़ा: ज + nukta + the vowel sign aa


def devdas_lines() -> list[str]:
    return [t for t in corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines() if t.strip()]


@pytest.fixture(scope="module", params=["marks", "vowels"])
def news_tok(request):
    return GreedTokTrainer(k=2000, pre_tokenizer=Metaspace(units=request.param), normalizer="NFC",
                           show_progress=False).train([corpus("hi_news_wordcounts.tsv")], counts=True)


def test_every_character_of_a_unit_is_a_singleton(news_tok):
    alphabet = set(news_tok.model.alphabet)
    assert {c for unit in alphabet for c in unit} <= alphabet
    # the lone nukta and vowel sign are there for the fallback, though no word has them alone
    assert {"\u093c", "\u093e"} <= alphabet


def test_an_unseen_unit_keeps_its_characters_and_the_text_round_trips(news_tok):
    known = set(news_tok.model.alphabet)
    split = UnitSplitter(news_tok.pre_tokenizer.units).split
    lines = devdas_lines()
    unseen = {u for line in lines for u in split(news_tok.normalizer(line))} - known
    assert unseen, "Devdas should bring units the news counts never had"
    for line, ids in zip(lines, news_tok.encode_batch(lines)):
        assert news_tok.decode(ids.tolist()) == news_tok.normalizer(line)
    # each unseen unit made of characters the news units have: no byte token at all
    known_chars = {c for unit in known for c in unit}
    for unit in sorted(u for u in unseen if set(u) <= known_chars) + [NUKTA_JA_AA]:
        tokens = news_tok.model.decode_tokens(news_tok.encode(unit))
        assert not any(t.startswith("<0x") for t in tokens), (unit, tokens)


def test_no_byte_token_spells_a_known_character_on_devdas(news_tok):
    """Stronger than counting: walk the tokens over the text; every run of byte tokens must
    spell characters that are not singletons."""
    known = {c for unit in news_tok.model.alphabet for c in unit}     # the code points of its units
    for line in devdas_lines():
        tokens = news_tok.model.decode_tokens(news_tok.encode(line))
        run = b""
        for t in tokens + ["<end>"]:
            if t.startswith("<0x") and len(t) == 6:
                run += bytes([int(t[3:5], 16)])
                continue
            if run:
                spelled = run.decode("utf-8")
                assert not set(spelled) & known, (line, spelled)
                run = b""


DEVANAGARI = st.sampled_from(["\u0915", "\u091c", "\u0921", "\u0930", "\u0905", "\u093c", "\u093e", "\u093f",
                              "\u0940", "\u0947", "\u094d", "\u0902", "\u0901", "\u0903", " ", "\u200d", "a"])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.lists(DEVANAGARI, max_size=24).map("".join))
def test_pure_optimal_export_equals_native_optimal_on_any_mark_sequence(news_tok, text, tmp_path_factory):
    """Arbitrary bases, nuktas, vowel signs, viramas and modifiers in any order: units seen and
    unseen, lone marks after spaces; the pure file, GreedTokTokenizerFast and the native
    encoder give the same ids in both modes."""
    path = tmp_path_factory.getbasetemp() / f"pure-{news_tok.pre_tokenizer.units}.json"
    if not path.exists():
        export_optimal_tokenizer_json(news_tok, path)
    pure = HFTokenizer.from_file(str(path))
    ids = news_tok.encode(text, mode="optimal")
    assert pure.encode(text).ids == ids
    for mode in ("cover", "optimal"):
        hf = GreedTokTokenizerFast.from_greedtok(news_tok, mode=mode)
        assert hf(text, add_special_tokens=False)["input_ids"] == news_tok.encode(text, mode=mode)


def test_pure_optimal_export_equals_native_optimal_on_devdas(news_tok, tmp_path):
    """Real text: with a lone vowel sign scored like any piece, Viterbi would cut आत्मा into
    आत्म + ा (two pieces) where the native encoder, which never cuts a seen unit, needs three."""
    pure = HFTokenizer.from_file(str(export_optimal_tokenizer_json(news_tok, tmp_path / "tokenizer.json")))
    lines = devdas_lines()
    native = [ids.tolist() for ids in news_tok.encode_batch(lines, mode="optimal")]
    assert [e.ids for e in pure.encode_batch(lines)] == native
