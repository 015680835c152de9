"""The SuperBPE-style peer (hf_greedtok.experiments.superbpe): stage-2 chunks as SuperBPE's own
``Split`` makes them, no stage-2 merge = plain BPE, the "chunks" scope = the tokenizer SuperBPE's
code would ship, lossless round trips on any text, superword tokens and fewer tokens than BPE on
held-out English, bad sizes refused. Trained on slices of the corpora in tests/data (a few seconds)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from corpora import corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok.experiments.superbpe import (SUPERBPE_STAGE2_PATTERN, SuperBPEPeer, superbpe_chunks,
                                              train_superbpe_style)
from hf_greedtok.hf.pipeline import standard_pre_tokenizer

TOTAL = 2048              # total ids of every peer here
HALF = TOTAL // 2         # t of the two-stage peers: 1,024 stage-1 merges, 768 stage-2 merges
N_TRAIN, N_HELD = 4000, 2000


def _lines(name: str, n: int, start: int = 0) -> list[str]:
    with open(corpus(name), encoding="utf-8") as f:
        return f.read().split("\n")[start:start + n]


@pytest.fixture(scope="module")
def brown() -> tuple[list[str], list[str]]:
    """(training lines, held-out lines) of the Brown corpus: its first 4,000 lines and the next 2,000."""
    lines = _lines("en_brown.txt", N_TRAIN + N_HELD)
    return lines[:N_TRAIN], lines[N_TRAIN:]


@pytest.fixture(scope="module")
def peers(brown) -> dict[str, SuperBPEPeer]:
    train, _ = brown
    return {"plain": train_superbpe_style(train, TOTAL, TOTAL - 256, stage1_scope="words"),
            "plain chunks": train_superbpe_style(train, TOTAL, TOTAL - 256, stage1_scope="chunks"),
            "words": train_superbpe_style(train, TOTAL, HALF, stage1_scope="words"),
            "chunks": train_superbpe_style(train, TOTAL, HALF)}


def _hf_split(line: str) -> list[str]:
    from tokenizers import Regex, pre_tokenizers
    split = pre_tokenizers.Split(Regex(SUPERBPE_STAGE2_PATTERN), behavior="isolated")
    return [piece for piece, _ in split.pre_tokenize_str(line)]


# any text: every character but lone surrogates, with the awkward pieces drawn often
_PIECES = ["\r\n", "\n", "\r", " ", "  ", "\t", "1234567", "３", "٣", "😀", "👩‍👩‍👧", "🇫🇷", "中文的", "한국어",
           "e\u0301", "\u0915\u093f", "नमस्ते", "...", " --", ":/", "'s", " (self", "\u00a0", "\u2028", "\ufeff"]
ANY_TEXT = st.lists(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(_PIECES)),
                    max_size=40).map("".join)
# the same without code points Python's Unicode (14.0 in 3.11) leaves unassigned: ``regex`` knows
# newer Unicode than tokenizers' Oniguruma, which reads 17,144 of them (e.g. U+3D000, a letter for
# ``regex``) as neither letters nor digits; on assigned characters the two agree
ASSIGNED_TEXT = st.lists(st.one_of(st.characters(blacklist_categories=("Cs", "Cn")), st.sampled_from(_PIECES)),
                         max_size=40).map("".join)


# --- the chunks -------------------------------------------------------------------------------

def test_chunks_are_superbpe_split(brown):
    """``regex`` gives the pieces that SuperBPE's ``Split(Regex(...), "isolated")`` gives."""
    lines = brown[0][:1000] + _lines("code_python_stdlib.txt", 1000) + _lines("zh_reviews.txt", 300) \
        + _lines("hi_devdas.txt", 300)
    for line in lines:
        assert superbpe_chunks(line) == _hf_split(line), line
    assert superbpe_chunks("By the way, it costs 1234 dollars...  ok") == \
        ["By the way, it costs ", "123", "4", " dollars", "...", " ", " ok"]
    # a GPT-4 word may straddle two chunks: " \r\n" is one word, " " a chunk of its own
    assert superbpe_chunks("a \r\nb") == ["a", " ", "\r\nb"]
    assert ByteLevel("gpt4").pre_tokenize("a \r\nb") == ["a", " \r\n", "b"]


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_chunks_cover_any_text(text):
    assert "".join(superbpe_chunks(text)) == text


@settings(max_examples=300, deadline=None)
@given(ASSIGNED_TEXT)
def test_chunks_are_superbpe_split_on_any_assigned_text(text):
    assert superbpe_chunks(text) == _hf_split(text)


def test_chunks_differ_from_superbpe_split_only_on_newer_unicode():
    assert superbpe_chunks("A\U0003d000:") == ["A\U0003d000:"]      # a letter for ``regex``
    assert _hf_split("A\U0003d000:") == ["A", "\U0003d000:"]        # unassigned for Oniguruma


# --- (a) no stage-2 merge: plain BPE ---------------------------------------------------------------

def test_without_stage2_merges_it_is_plain_bpe(brown, peers):
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers
    train, held = brown
    plain = peers["plain"]
    assert plain.vocab_size == plain.stage1.get_vocab_size() == TOTAL and plain.transition == TOTAL - 256
    # stage 1 is HF BPE on GPT-4 words as anyone trains it
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(ByteLevel("gpt4"))
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(train, trainers.BpeTrainer(vocab_size=TOTAL, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    assert json.loads(bpe.to_str())["model"] == json.loads(plain.stage1.to_str())["model"]
    for lines in (train[:2000], held):
        expected = [e.ids for e in bpe.encode_batch(lines, add_special_tokens=False)]
        assert plain.encode(lines) == expected          # the same ids, line by line
        counts, ok = plain.measure(lines)
        assert counts.tolist() == [len(i) for i in expected] and ok.all()


def test_stage2_alphabet_ids_are_stage1_ids(peers):
    """BpeTrainer numbers its alphabet by code point: a stage-1 token keeps its id in stage 2, so
    stage 2 breaks ties between pairs as SuperBPE's resumed trainer does (lowest ids first)."""
    for peer in peers.values():
        vocab = peer.stage2.get_vocab()
        n1 = peer.stage1.get_vocab_size()
        assert all(vocab[chr(0xF0000 + i)] == i for i in range(n1))
        assert all(peer.stage1_ids(i) == [i] for i in range(n1))


# --- the "chunks" scope is SuperBPE's own encoder ---------------------------------------------------

def _merges(backend) -> list[tuple[str, str]]:
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
            for m in json.loads(backend.to_str())["model"]["merges"]]


def _superbpe_format(peer: SuperBPEPeer):
    """The tokenizer SuperBPE's code saves for these merges: Split on the stage-2 regex, byte level,
    one BPE whose merges are stage 1's then stage 2's (written as byte-level strings)."""
    from tokenizers import Regex
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers
    stage1 = {i: s for s, i in peer.stage1.get_vocab().items()}

    def spelled(symbols: str) -> str:
        return "".join(stage1[ord(c) - 0xF0000] for c in symbols)

    vocab = {spelled(s): i for s, i in peer.stage2.get_vocab().items()}
    merges = _merges(peer.stage1) + [(spelled(a), spelled(b)) for a, b in _merges(peer.stage2)]
    tok = HFTokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SUPERBPE_STAGE2_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    return tok


@pytest.mark.parametrize("name", ["chunks", "plain chunks"])
def test_chunks_scope_encodes_as_superbpe_tokenizer(brown, peers, name):
    peer = peers[name]
    assert peer.duplicate_tokens == 0         # else SuperBPE's format would hold fewer ids
    reference = _superbpe_format(peer)
    lines = brown[1] + _lines("en_shakespeare_milton.txt", 1000) + _lines("code_python_stdlib.txt", 1000)
    assert peer.encode(lines) == [e.ids for e in reference.encode_batch(lines, add_special_tokens=False)]


def _boundaries(line: str) -> set[int]:
    """Byte offsets in ``line`` where one GPT-4 word of a chunk ends and the next begins."""
    cuts, at = set(), 0
    for chunk in superbpe_chunks(line):
        for word in ByteLevel("gpt4").pre_tokenize(chunk)[:-1]:
            at += len(word.encode())
            cuts.add(at)
        at += len(ByteLevel("gpt4").pre_tokenize(chunk)[-1].encode())
    return cuts


def test_scopes_differ_only_where_a_stage1_merge_joins_two_words(peers):
    """Stage-1 tokens come from single GPT-4 words, but applied to a whole chunk (SuperBPE) a merge
    may join two words whose bytes form one word elsewhere: " 'tis" is the GPT-4 words " '" and
    "tis", but "'t" is a stage-1 token (from "don't"), so SuperBPE reads " ", "'t", "is"; encoding
    word by word never does. (55 of these 3,000 lines.)"""
    words, chunks = peers["plain"], peers["plain chunks"]
    assert json.loads(words.stage1.to_str())["model"] == json.loads(chunks.stage1.to_str())["model"]
    lines = _lines("en_shakespeare_milton.txt", 3000)
    by_words, by_chunks = words.encode(lines), chunks.encode(lines)
    differ = [k for k in range(len(lines)) if by_words[k] != by_chunks[k]]
    assert 0 < len(differ) < 0.05 * len(lines)
    for k in differ:
        ends, at = [], 0
        for i in by_chunks[k]:
            at += len(chunks.token_bytes(i))
            ends.append(at)
        starts = [0] + ends[:-1]
        cuts = _boundaries(lines[k])
        assert any(a < cut < b for a, b in zip(starts, ends) for cut in cuts), lines[k]


# --- (b) round trips ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["words", "chunks"])
def test_every_line_round_trips(brown, peers, name):
    peer = peers[name]
    for lines in (brown[1], _lines("hi_devdas.txt", 1500), _lines("zh_reviews.txt", 1000),
                  _lines("code_python_stdlib.txt", 2000)):
        counts, ok = peer.measure(lines)
        assert ok.all(), [line for line, good in zip(lines, ok) if not good][:3]
        assert (counts <= np.array([len(line.encode()) for line in lines])).all()


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_any_text_round_trips(peers, lines):
    for name in ("words", "chunks"):
        peer = peers[name]
        counts, ok = peer.measure(lines)
        assert ok.all(), (name, lines)
        ids = peer.encode(lines)
        assert [len(i) for i in ids] == counts.tolist()
        assert [b"".join(map(peer.token_bytes, i)) for i in ids] == [line.encode() for line in lines]
        assert [peer.decode(i) for i in ids] == lines


# --- (c) superwords, fewer tokens ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["words", "chunks"])
def test_stage2_tokens_span_words(peers, name):
    peer = peers[name]
    spanning = [peer.token_bytes(i) for i in range(peer.stage1.get_vocab_size(), peer.vocab_size)
                if re.search(rb"[A-Za-z] [A-Za-z]", peer.token_bytes(i))]
    assert b" of the" in spanning and len(spanning) >= 50
    # a stage-1 token never does (GPT-4 words hold no letter, space, letter)
    assert not [i for i in range(peer.stage1.get_vocab_size()) if re.search(rb"[A-Za-z] ", peer.token_bytes(i))]


@pytest.mark.parametrize("name", ["words", "chunks"])
def test_fewer_tokens_than_bpe_on_held_out_english(brown, peers, name):
    """SuperBPE's claim at equal total vocabulary, t = half: on these 2,000 held-out Brown lines
    67,684 tokens against BPE's 70,705 at 2,048 total ids (-4.3 %); -2.3 % at 1,024, -6.8 % at
    4,096 (both scopes alike)."""
    held = brown[1]
    bpe, _ = peers["plain"].measure(held)
    two_stage, _ = peers[name].measure(held)
    assert two_stage.sum() < 0.97 * bpe.sum()
    assert peers[name].vocab_size == peers["plain"].vocab_size == TOTAL


# --- (d) sizes, the description ----------------------------------------------------------------------

@pytest.mark.parametrize("vocab_size, transition", [(1024, -1), (1024, 769), (300, 45), (256, 1), (70_000, 65_300)])
def test_bad_transitions_are_refused(vocab_size, transition):
    with pytest.raises(ValueError, match="transition"):
        train_superbpe_style(["a b c"], vocab_size, transition)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="stage1_scope"):
        train_superbpe_style(["a b c"], 300, 10, stage1_scope="lines")
    with pytest.raises(TypeError):
        train_superbpe_style(["a b c"], 300.0, 10)
    with pytest.raises(TypeError):
        train_superbpe_style(["a b c"], 300, True)


def test_small_text_and_edges():
    # t = 0: stage 2 does everything, from the bytes; the text runs out of pairs: fewer ids, said so
    peer = train_superbpe_style(["abab abab", "", "x"], 1000, 0)
    assert peer.transition == 0 and 256 < peer.vocab_size < 1000 and "the text gave" in peer.trainer
    counts, ok = peer.measure(["abab abab", "", "x", "ab 😀"])
    assert ok.all() and counts.tolist()[:3] == [1, 0, 1]
    empty = train_superbpe_style([], 300, 10)
    assert empty.vocab_size == 256 and empty.measure(["hé"])[1].all()


def test_description(peers):
    d = peers["chunks"].describe()
    assert d["name"] == "SuperBPE-style BPE" and d["vocab_size"] == TOTAL and d["normalization"] == "none"
    assert d["pre_tokenization"] == "GPT-4 split, then SuperBPE's stage-2 chunks"
    assert "transition t = 1,024" in d["trainer"] and "768 on SuperBPE's stage-2 chunks" in d["trainer"]
