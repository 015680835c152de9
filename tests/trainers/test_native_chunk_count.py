"""Counting chunks natively: ``ChunkTable.add_split_lines`` splits lines and adds each piece's
UTF-8 to the table with no str per piece (``add_split_text``: the lines of a text file's chunk,
with no str per line either), and the word counters use them for tables of a plain byte-level
split. It must count exactly what ``Counter(ByteLevel(split).pre_tokenize(line))``
counts, in the same order, and the counters' tables must equal those of the Python path."""
from __future__ import annotations

from collections import Counter

import pytest
from corpora import CORPORA
from hypothesis import example, given, settings
from hypothesis import strategies as st

import hf_greedtok.word_counts as wc
from hf_greedtok import ByteLevel, Metaspace, UnicodeNormalizer
from hf_greedtok._chunk_table import ChunkTable
from hf_greedtok._trainer import MAX_WORD_UNITS
from hf_greedtok.errors import CorpusError
from hf_greedtok.formats.sources import text_lines
from hf_greedtok.special_tokens import SpecialSplitPreTokenizer
from hf_greedtok.word_counts import count_words, count_words_in_files, native_table_pattern

_SPLITS = ["superwords", "superwords-digits", "gpt4-marks"]

# characters the splits treat specially come often; any code point (lone surrogates too) may come
_char = st.one_of(
    st.sampled_from(list(" \n\r\t.,!?'-—0123456789aZé") + ["\u0301", "\u093f", "\u094d", "\u0915", "日", "😀"]),
    st.integers(0xD800, 0xDFFF).map(chr),
    st.characters(),
)
_lines = st.lists(st.text(_char, max_size=30), max_size=8)


@settings(max_examples=200, deadline=None)
@given(lines=_lines, split=st.sampled_from(_SPLITS), long_chars=st.sampled_from([0, 1, 3, 8, 2**40]))
@example(lines=["plain ascii, words.\n", "latin-1 café\n", "wide \u0915\u093f \ud800 😀\n", ""],
         split="superwords", long_chars=4)
def test_pieces_are_counted_as_the_split_gives_them(lines, split, long_chars):
    """Pieces of at most ``long_chars`` code points are counted in first-seen order; longer
    ones come back, in order, for the caller to cut."""
    pre = ByteLevel(split)
    pieces = [p for line in lines for p in pre.pre_tokenize(line)]
    table = ChunkTable()
    long = table.add_split_lines(pre.native_pattern, lines, long_chars)
    short = Counter(p for p in pieces if len(p) <= long_chars)
    assert table.to_dict() == short and list(table) == list(short)
    assert long == [p for p in pieces if len(p) > long_chars]


@settings(max_examples=150, deadline=None)
@given(lines=_lines, split=st.sampled_from(_SPLITS), long_chars=st.sampled_from([0, 3, 2**40]))
@example(lines=["ascii line, here.\n", "caf\xe9\n", "\u0915\u093f \ud800\n", "\n", "no end"],
         split="superwords", long_chars=4)
def test_a_text_is_counted_as_its_lines_are(lines, split, long_chars):
    """``add_split_text`` cuts a text into lines as ``text_lines`` cuts a chunk of a file, and
    reads each line as the str of it would be read (a wide text's ASCII and Latin-1 lines too)."""
    text = "".join(lines).replace("\0", "")      # text_lines refuses a NUL
    pattern = ByteLevel(split).native_pattern
    from_text, from_lines = ChunkTable(), ChunkTable()
    long = from_text.add_split_text(pattern, text, long_chars)
    cut = text_lines("t.txt", 2, text.encode("utf-8", "surrogatepass"), "surrogatepass")
    assert long == from_lines.add_split_lines(pattern, cut, long_chars)
    assert from_text.to_dict() == from_lines.to_dict() and list(from_text) == list(from_lines)


def test_bad_arguments_are_named_and_add_nothing():
    table = ChunkTable()
    with pytest.raises(TypeError, match=r"^item 2 of lines is bytes, expected str$"):
        table.add_split_lines(ByteLevel("superwords").native_pattern, ["a b\n", "c\n", b"d"], 100)
    assert len(table) == 0
    with pytest.raises(ValueError, match="no native pre-tokenizer for pattern id -1"):
        table.add_split_lines(-1, ["a"], 100)
    with pytest.raises(ValueError, match="long_chars must be >= 0, got -1"):
        table.add_split_lines(ByteLevel("superwords").native_pattern, ["a"], -1)


def test_only_a_plain_native_byte_level_split_counts_natively():
    superwords = ByteLevel("superwords")
    assert native_table_pattern(superwords, None) == superwords.native_pattern >= 0
    assert native_table_pattern(superwords, UnicodeNormalizer("NFKC")) == -1
    assert native_table_pattern(SpecialSplitPreTokenizer(superwords, ("<s>",)), None) == -1
    assert native_table_pattern(ByteLevel(r"\w+|\W"), None) == -1
    assert native_table_pattern(Metaspace(), None) == -1


def _python_path(monkeypatch, count, *args, **kwargs):
    """``count(*args, **kwargs)`` as the counters computed it before the native path."""
    with monkeypatch.context() as m:
        m.setattr(wc, "native_table_pattern", lambda pre, norm: -1)
        return count(*args, **kwargs)


@pytest.mark.parametrize("split", ["superwords", "gpt4-marks"])
def test_corpus_files_count_as_on_the_python_path(monkeypatch, split):
    """The shipped text corpora (English, code, Hindi, Chinese), as files and as documents."""
    files = sorted(CORPORA.glob("*.txt"))
    pre = ByteLevel(split)
    native = count_words_in_files(files, pre, num_proc=1, show_progress=False, table=True)
    python = _python_path(monkeypatch, count_words_in_files, files, pre, num_proc=1, show_progress=False, table=True)
    assert len(native) > 50_000
    assert native.to_dict() == python.to_dict() and list(native) == list(python)
    docs = files[-1].read_text(encoding="utf-8").split("\n\n")
    native = count_words(docs, pre, num_proc=1, show_progress=False, table=True)
    python = _python_path(monkeypatch, count_words, docs, pre, num_proc=1, show_progress=False, table=True)
    assert native.to_dict() == python.to_dict() and list(native) == list(python)


def test_a_chunk_too_long_for_the_trainer_is_cut_as_on_the_python_path(monkeypatch):
    """A line of 120,000 bytes with no line end or punctuation run is one superword chunk: its
    pieces fit the trainer, and both paths count the same pieces (the native path lists them
    after the job's other words)."""
    lines = ["Short line, here.\n", " héllo wörld" * 10_000 + "\n", "Short line, here.\n", "wörld\n"]
    pre = ByteLevel("superwords")
    native = count_words(lines, pre, num_proc=1, show_progress=False, table=True)
    python = _python_path(monkeypatch, count_words, lines, pre, num_proc=1, show_progress=False, table=True)
    assert native.to_dict() == python.to_dict()
    assert native.to_dict()["Short line, here.\n"] == 2
    assert max(native.sizes()) <= MAX_WORD_UNITS < sum(len(line.encode()) for line in lines)


def test_a_document_that_is_not_a_str_is_named():
    with pytest.raises(CorpusError, match=r"item 1 is int, expected str"):
        count_words(["a b", 3], ByteLevel("superwords"), num_proc=1, show_progress=False, table=True)


def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good line\nsecond line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad.txt.*3.*invalid UTF-8 \(byte 0xff\)"):
        count_words_in_files([path], ByteLevel("superwords"), num_proc=1, show_progress=False, table=True)
