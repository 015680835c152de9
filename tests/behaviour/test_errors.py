"""Bad input gets a clear error that names the problem and the place, and loses nothing."""
from __future__ import annotations

import json

import pytest

from hf_greedtok import (ByteLevel, CorpusError, GreedTokFileError, GreedTokTrainer, Tokenizer,
                         count_words_in_files, read_count_tables)
from hf_greedtok.formats.manifest import MANIFEST_NAME


def trainer(k=10):
    return GreedTokTrainer(k=k, show_progress=False)


def test_empty_corpus(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(CorpusError, match="empty corpus"):
        trainer().train([empty])
    with pytest.raises(CorpusError, match="empty corpus"):
        trainer().train_from_iterator([])


@pytest.mark.parametrize("k", [0, -3, 2.5])
def test_non_positive_vocab_size(k):
    with pytest.raises(ValueError, match=r"k \(the learned tokens\) must be an integer >= 1"):
        GreedTokTrainer(k=k)
    with pytest.raises(ValueError, match=r"vocab_size \(the whole vocabulary.*\) must be an integer >= 1"):
        GreedTokTrainer(vocab_size=k)


def test_invalid_utf8_names_file_and_line(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("first line\nsecond line\ncaf\xe9 third\n".encode("latin-1"))
    with pytest.raises(CorpusError) as err:
        trainer().train([bad])
    assert err.value.line == 3 and str(bad) in str(err.value) and "0xe9" in str(err.value)
    # An explicit policy accepts it instead.
    counts = count_words_in_files([bad], ByteLevel(), encoding_errors="replace", show_progress=False)
    assert counts["\ufffd"] == 1 or any("\ufffd" in w for w in counts)


def test_nul_bytes_name_file_and_line(tmp_path):
    bad = tmp_path / "binary.txt"
    bad.write_bytes(b"ok\nok\nok\x00\n")
    with pytest.raises(CorpusError, match="NUL") as err:
        trainer().train([bad])
    assert err.value.line == 3


@pytest.mark.parametrize("line, problem", [
    ("the\n", "found 1"), ("the\t12\textra\n", "found 3"), ("the\ttwelve\n", "not an integer"),
    ("the\t0\n", ">= 1"), ("\t5\n", "empty word"),
])
def test_count_table_bad_line_names_line_number(tmp_path, line, problem):
    table = tmp_path / "counts.tsv"
    table.write_text("of\t10\nand\t7\n" + line, encoding="utf-8")
    with pytest.raises(CorpusError, match=problem) as err:
        read_count_tables([table], ByteLevel())
    assert err.value.line == 3


def test_missing_input_file(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        trainer().train([tmp_path / "nope.txt"])


def test_non_string_items_in_iterable():
    with pytest.raises(CorpusError, match="item 1 is int"):
        trainer().train_from_iterator(["fine", 3], num_proc=1)


@pytest.fixture()
def saved(tmp_path):
    tok = trainer(20).train_from_iterator(["the cat sat on the mat"] * 3, num_proc=1)
    return tok, tok.save(tmp_path / "tok")


def test_truncated_file_is_reported_as_corrupted(saved):
    _, path = saved
    path.write_text(path.read_text()[:200])
    with pytest.raises(GreedTokFileError, match="not valid JSON") as err:
        Tokenizer.load(path.parent)
    assert str(path) in str(err.value)


def test_modified_tokens_fail_the_checksum(saved):
    _, path = saved
    data = json.loads(path.read_text())
    data["model"]["ranked_tokens"][0] = "Ġdog"
    path.write_text(json.dumps(data))
    with pytest.raises(GreedTokFileError, match="checksum"):
        Tokenizer.load(path)


def test_foreign_json_and_other_version(saved, tmp_path):
    foreign = tmp_path / "tokenizer.json"
    foreign.write_text(json.dumps({"model": {"type": "BPE"}}))
    with pytest.raises(GreedTokFileError, match="not an hf-greedtok file"):
        Tokenizer.load(foreign)
    _, path = saved
    data = json.loads(path.read_text())
    data["version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(GreedTokFileError, match="unsupported version 99"):
        Tokenizer.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(GreedTokFileError, match="no such file"):
        Tokenizer.load(tmp_path)


def test_save_is_atomic_and_leaves_no_temporary_files(saved):
    tok, path = saved
    tok.save(path.parent)
    assert sorted(p.name for p in path.parent.iterdir()) == ["greedtok.json", MANIFEST_NAME]
    assert Tokenizer.load(path.parent).model.ranked_tokens == tok.model.ranked_tokens


def test_unknown_mode_and_bad_ids(saved):
    tok, _ = saved
    with pytest.raises(ValueError, match="mode"):
        tok.encode("x", mode="fastest")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.decode([10**6])


@pytest.mark.parametrize("good_rows", [1, 5000])
def test_invalid_utf8_in_a_count_table_names_its_own_line(good_rows, tmp_path):
    """The table was decoded in buffered blocks: line 1 was reported for 2, 4235 for 5001."""
    table = tmp_path / "counts.tsv"
    table.write_bytes("".join(f"w{i}\t{i + 1}\n" for i in range(good_rows)).encode() + b"caf\xe9\t3\n")
    with pytest.raises(CorpusError, match="invalid UTF-8 \\(byte 0xe9") as err:
        read_count_tables([table], ByteLevel())
    assert err.value.line == good_rows + 1


@pytest.mark.parametrize("count", ["+100", "1_000", "\u0661\u0660\u0660", " 7", "7 ", "-3", "1e3"])
def test_counts_are_ascii_digits_only(count, tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text(f"of\t10\nthe\t{count}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="not an integer in ASCII digits") as err:
        read_count_tables([table], ByteLevel())
    assert err.value.line == 2


def test_a_byte_order_mark_opening_a_table_is_dropped(tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text("\ufeffthe\t12\nof\t3\n", encoding="utf-8")
    assert read_count_tables([table], ByteLevel()) == {" the": 12, " of": 3}


def test_inputs_that_are_not_regular_files_say_what_they_are(tmp_path):
    with pytest.raises(CorpusError, match="is a directory, not a text file"):
        count_words_in_files([tmp_path], ByteLevel(), show_progress=False)
    with pytest.raises(CorpusError, match="a directory with no input file in it"):    # tables: its files
        read_count_tables([tmp_path], ByteLevel())


def test_tables_with_cr_line_ends_read_and_report_lines(tmp_path):
    table = tmp_path / "mac.tsv"
    table.write_bytes(b"the\t5\r\nof\t3\rand\t2\r")
    assert read_count_tables([table], ByteLevel()) == {" the": 5, " of": 3, " and": 2}
    table.write_bytes(b"the\t5\rof\t3\rcaf\xe9\t2\r")
    with pytest.raises(CorpusError, match="invalid UTF-8") as err:
        read_count_tables([table], ByteLevel())
    assert err.value.line == 3
