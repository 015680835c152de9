"""The chunk table (issue 41): {chunk: count} held as UTF-8 back to back, what the superword
trainer counts a corpus into. It must hold exactly what a Counter holds, and split its chunks
into words exactly as ``ByteLevel(split).pre_tokenize`` does."""
from __future__ import annotations

import pickle
from collections import Counter

import pytest
from corpora import EXAMPLE_TEXT
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok._chunk_table import ChunkTable
from hf_greedtok.pre_tokenizers.patterns import SPLITS
from hf_greedtok.trainers.superwords import chunk_words
from hf_greedtok.word_counts import count_words, count_words_in_files

_counts = st.dictionaries(st.text(min_size=1, max_size=12), st.integers(1, 2**40), max_size=20)
_word_splits = [s.name for s in SPLITS if not s.spans_words and s.native_id >= 0]


@settings(max_examples=150, deadline=None)
@given(first=_counts, second=_counts)
def test_adding_and_merging_hold_what_a_counter_holds(first, second):
    """Arbitrary Unicode keys (lone surrogates too), in first-seen order, through pickling."""
    a, b = ChunkTable(), ChunkTable()
    a.add_counts(first)
    b.add_counts(second)
    a.merge(b)
    expected = Counter(first) + Counter(second)
    assert a.to_dict() == expected and list(a) == list(expected)
    assert len(a) == len(expected)
    assert a.distinct_bytes == sum(len(k.encode("utf-8", "surrogatepass")) for k in expected)
    assert a.sizes().tolist() == [len(k.encode("utf-8", "surrogatepass")) for k in expected]
    assert a.counts().tolist() == list(expected.values())
    assert pickle.loads(pickle.dumps(a)).to_dict() == expected


@settings(max_examples=150, deadline=None)
@given(chunks=st.dictionaries(st.text(max_size=40).filter(bool), st.integers(1, 9), max_size=8),
       split=st.sampled_from(_word_splits))
def test_words_are_those_of_the_word_split(chunks, split):
    table = ChunkTable()
    table.add_counts(chunks)
    pre = ByteLevel(split)
    assert table.words(pre.native_pattern).to_dict() == chunk_words(chunks, pre)


def test_counts_past_int64_and_bad_counts_are_refused():
    table = ChunkTable()
    table.add(" of the", 2**63 - 1)
    with pytest.raises(OverflowError, match="' of the' passes 2\\*\\*63-1"):
        table.add(" of the", 1)
    with pytest.raises(ValueError, match="must be >= 1"):
        table.add(" a", 0)
    with pytest.raises(ValueError, match="must be >= 1"):
        table.add_counts({" a": -2})
    with pytest.raises(ValueError, match="no native pre-tokenizer"):
        table.words(-1)
    with pytest.raises(ValueError, match="cannot merge itself"):
        table.merge(table)


@given(st.lists(st.tuples(st.text(max_size=8), st.integers(1, 2**40)), max_size=30), st.binary(max_size=5))
def test_a_table_from_arrow_buffers_holds_what_adding_each_entry_does(entries, prefix):
    """Arrow's string layout (a data buffer and n + 1 offsets, not from 0) into a table."""
    import numpy as np
    from hf_greedtok._chunk_table import table_from_buffers
    data = prefix + b"".join(w.encode("utf-8", "surrogatepass") for w, _ in entries)
    offsets = np.cumsum([len(prefix)] + [len(w.encode("utf-8", "surrogatepass")) for w, _ in entries])
    expected = ChunkTable()
    for w, c in entries:
        expected.add(w, c)
    got = table_from_buffers(data, offsets, [c for _, c in entries])
    assert got.to_dict() == expected.to_dict() and list(got) == list(expected)


def test_table_buffers_that_do_not_agree_are_refused():
    from hf_greedtok._chunk_table import table_from_buffers
    for offsets, counts, message in (([0, 1], [1, 1], "2 offsets for 2 counts"), ([0, 4], [1], "outside its 3 bytes"),
                                     ([0, 2, 1], [1, 1], "decrease at entry 1"), ([0, 3], [0], "got 0 at entry 0")):
        with pytest.raises(ValueError, match=message):
            table_from_buffers(b"a b", offsets, counts)
    assert len(table_from_buffers(None, [0], [])) == 0


@pytest.mark.parametrize("split", ["superwords", "superwords-digits", "gpt4-marks"])
@pytest.mark.parametrize("num_proc", [1, 2])
def test_counting_into_a_table_counts_as_the_counter_does(split, num_proc, monkeypatch):
    import hf_greedtok.formats.sources as sources
    import hf_greedtok.word_counts as wc
    monkeypatch.setattr(wc, "_PARALLEL_MIN_BYTES", 0)        # workers even on the example text,
    monkeypatch.setattr(sources, "CHUNK_BYTES", 1 << 15)     # in 12 jobs whose tables merge
    pre = ByteLevel(split)
    as_counter = count_words_in_files([EXAMPLE_TEXT], pre, num_proc=num_proc, show_progress=False)
    as_table = count_words_in_files([EXAMPLE_TEXT], pre, num_proc=num_proc, show_progress=False, table=True)
    assert isinstance(as_table, ChunkTable)
    assert as_table.to_dict() == as_counter and list(as_table) == list(as_counter)
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines(keepends=True)
    assert count_words(lines, pre, num_proc=num_proc, show_progress=False, table=True).to_dict() == as_counter


@pytest.mark.parametrize("normalizer", [None, "NFKC"])
def test_count_tables_read_into_a_table_hold_what_the_counter_holds(normalizer, tmp_path):
    """`train --counts --superwords` reads tables into a chunk table: the same entries, in the same
    order, as the Counter, with special tokens cut out, long chunks cut into pieces and
    entries of several tables summed."""
    from hf_greedtok.normalizers import normalizer_from_name
    from hf_greedtok.special_tokens import counting_pipeline
    from hf_greedtok.word_counts import read_count_tables

    long_chunk = " the cat sat" * 7000           # 84,000 bytes: cut at word ends
    (tmp_path / "a.tsv").write_text(f" the cat sat\t5\n the<s> dog ran\t3\n{long_chunk}\t2\n Ｔhe cat\t4\n",
                                    encoding="utf-8")
    (tmp_path / "b.tsv").write_text(" the cat sat\t1\n a dog\t9\n", encoding="utf-8")
    pre, norm = counting_pipeline(ByteLevel("superwords"), normalizer_from_name(normalizer or "none"), ["<s>"])
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv"]
    as_counter = read_count_tables(paths, pre, norm, prefix_space=False)
    as_table = read_count_tables(paths, pre, norm, prefix_space=False, table=True)
    assert as_table.to_dict() == as_counter and list(as_table) == list(as_counter)
    assert as_counter[" the cat sat"] == 6 and not any("<s>" in c for c in as_counter)
    assert max(map(len, as_counter)) < 65_536 < len(long_chunk)


@pytest.mark.parametrize("name", ["en_brown.txt", "zh_reviews.txt", "hi_devdas.txt"])
def test_a_real_corpus_counts_and_splits_into_words_as_the_counter_does(name):
    from corpora import corpus
    path = corpus(name)
    pre = ByteLevel("superwords")
    as_counter = count_words_in_files([path], pre, num_proc=2, show_progress=False)
    as_table = count_words_in_files([path], pre, num_proc=2, show_progress=False, table=True)
    assert as_table.to_dict() == as_counter and list(as_table) == list(as_counter)
    words = ByteLevel("gpt4-marks")
    assert as_table.words(words.native_pattern).to_dict() == chunk_words(as_counter, words)


def test_setdefault_keeps_the_first_value_as_a_dict_does():
    table, plain = ChunkTable(), {}
    for row, word in enumerate([" the cat", " a dog", " the cat", "é", " a dog", "\ud800"], 1):
        assert table.setdefault(word, row) == plain.setdefault(word, row)
    assert table.to_dict() == plain
    with pytest.raises(ValueError, match="must be >= 1"):
        table.setdefault("x", 0)
