"""One check of a count table, on every path that reads tables, that no flag skips.

A table records the counting pipeline that made its words (``hf-greedtok count`` writes the
record: split, normalizer, special tokens); a table whose record disagrees with the training
pipeline is refused in one line naming the table, the setting, both values and the flags. One
without the record is judged by its entries: a superword trainer needs entries that hold two
words, and the ``superwords-digits`` split entries with digits and words together. Apostrophes
and hyphens join letters in words too (``don't``, ``well-known``), so they are no evidence.
"""
from __future__ import annotations

import pytest

from hf_greedtok import ByteLevel, UnicodeNormalizer
from hf_greedtok.cli import main
from hf_greedtok.errors import CorpusError
from hf_greedtok.formats.count_table import table_record, write_count_table
from hf_greedtok.special_tokens import counting_pipeline
from hf_greedtok.trainers import GreedTokSuperwordTrainer, GreedTokTrainer
from hf_greedtok.word_counts import read_count_tables

TEXT = "".join(f"The well-known rule {n} of the house, don't you see? Page {n}, line {n + 1}.\n"
               for n in range(40))


def _table(path, entries: dict[str, int]):
    path.write_text("".join(f"{w}\t{c}\n" for w, c in entries.items()), encoding="utf-8")
    return path


def _counted(tmp_path, capsys, name, *flags, text=TEXT):
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    text = tmp_path / "text.txt"
    table = tmp_path / name
    assert main(["count", str(text), "-o", str(table), "--quiet", "--num-proc", "1", *flags]) == 0
    capsys.readouterr()
    return table


def test_no_prefix_space_does_not_skip_the_recorded_split(tmp_path, capsys):
    """A word table read by --superwords --no-prefix-space: refused, as without the flag."""
    words = _counted(tmp_path, capsys, "words.tsv")
    argv = ["train", str(words), "--counts", "--superwords", "-k", "50", "--quiet"]
    for extra in ([], ["--no-prefix-space"]):
        assert main([*argv, *extra, "-o", str(tmp_path / "out")]) == 2
        assert "counted with --pattern gpt4-marks, but this run splits text with --superwords" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_chunk_table_without_digits_is_refused_by_digits_in_chunks(tmp_path, capsys):
    pytest.importorskip("pyarrow", reason="superword chunk tables are parquet (the ray extra)")
    chunks = _counted(tmp_path, capsys, "chunks.parquet", "--superwords")
    assert main(["train", str(chunks), "--counts", "--no-prefix-space", "--superwords", "--digits-in-chunks",
                 "-k", "50", "--quiet", "-o", str(tmp_path / "out")]) == 2
    assert "counted with --superwords, but this run splits text with --superwords --digits-in-chunks" \
        in capsys.readouterr().err


@pytest.mark.parametrize("prefix_space", [True, False])
def test_apostrophes_and_hyphens_do_not_make_a_word_table_a_chunk_table(prefix_space, tmp_path):
    """A headerless word table, refused by the Python trainer's reader as by the CLI's."""
    words = _table(tmp_path / "words.tsv", {"the": 9, "don't": 5, "well-known": 3, "house": 2})
    trainer = GreedTokSuperwordTrainer(k=20, show_progress=False)
    with pytest.raises(CorpusError, match="no entry holds two words.*this is a word table"):
        trainer.train([words], counts=True, prefix_space=prefix_space)


def test_headerless_chunk_tables_are_judged_by_their_entries(tmp_path):
    chunks = _table(tmp_path / "chunks.tsv", {" of the house": 4, " don't you see": 3, " 12": 2, "The rule": 2})
    digits_apart = {"superwords": True, "superwords-digits": False}
    for split, accepted in digits_apart.items():
        if accepted:
            assert read_count_tables([chunks], ByteLevel(split), prefix_space=False)[" don't you see"] == 3
        else:
            with pytest.raises(CorpusError, match="no entry holds digits and words together"):
                read_count_tables([chunks], ByteLevel(split), prefix_space=False)
    joined = _table(tmp_path / "joined.tsv", {" of the house": 4, " page 12, line": 2})
    assert read_count_tables([joined], ByteLevel("superwords-digits"), prefix_space=False)[" page 12, line"] == 2


# ---------------------------------------------------------------------- the pipeline a table records

#: Text whose words the normalizer and the special token change: "ﬁ" and "①" are "fi" and "1"
#: under NFKC, and "<|endoftext|>" is cut out of "page<|endoftext|>one".
PIPELINE_TEXT = TEXT + "The ﬁle ① ends the page<|endoftext|>one more page.\n" * 5
EOT = "<|endoftext|>"


@pytest.mark.parametrize("counted, trained, refused, message", [
    (["--normalizer", "NFKC"], ["--normalizer", "NFKC"], [],
     "counted with --normalizer NFKC, but this run has --normalizer none: count the text again with --normalizer "
     "none, or train with --normalizer NFKC"),
    (["--special-token", EOT], ["--special-token", EOT], ["--no-prefix-space"],
     f"counted with --special-token '{EOT}', but this run has no special tokens: count the text again with no "
     f"special tokens, or train with --special-token '{EOT}' (train's --bos-token, --eos-token and --pad-token "
     "are special tokens too)"),
    ([], [], ["--eos-token", EOT],
     f"counted with no special tokens, but this run has --special-token '{EOT}': count the text again with "
     f"--special-token '{EOT}', or train with no special tokens (train's --bos-token, --eos-token and "
     "--pad-token are special tokens too)"),
    # count's normalizer default is train's: NFC for marks, so the same flags agree
    (["--units", "marks"], ["--units", "marks"], ["--units", "marks", "--normalizer", "none"],
     "counted with --normalizer NFC, but this run has --normalizer none: count the text again with --normalizer "
     "none, or train with --normalizer NFC"),
], ids=["normalizer", "special token", "special token of --eos-token", "the normalizer default for marks"])
def test_a_table_trains_only_with_the_settings_that_counted_it(counted, trained, refused, message, tmp_path, capsys):
    table = _counted(tmp_path, capsys, "counts.tsv", *counted, text=PIPELINE_TEXT)
    argv = ["train", str(table), "--counts", "-k", "40", "--quiet", "-o"]
    assert main([*argv, str(tmp_path / "refused"), *refused]) == 2
    assert capsys.readouterr().err == f"hf-greedtok train: error: {table}: {message}\n"
    assert not (tmp_path / "refused").exists()
    assert main([*argv, str(tmp_path / "trained"), *trained]) == 0


def test_count_records_every_setting_that_changes_the_words(tmp_path, capsys):
    """One JSON line with sorted keys, the special tokens sorted: the same settings in any order
    give the same bytes, and a parquet table holds the same record."""
    pytest.importorskip("pyarrow", reason="parquet count tables need the ray extra (pyarrow)")
    flags = ["--normalizer", "NFKC", "--special-token", EOT, "--special-token", "<pad>"]
    a = _counted(tmp_path, capsys, "a.tsv", *flags, text=PIPELINE_TEXT)
    b = _counted(tmp_path, capsys, "b.tsv", *flags[:2], *flags[4:], *flags[2:4], text=PIPELINE_TEXT)
    assert a.read_text(encoding="utf-8").split("\n", 1)[0] == ('# hf-greedtok count table {"normalizer": "NFKC", '
                                                               '"special_tokens": ["<pad>", "<|endoftext|>"], '
                                                               '"split": "gpt4-marks"}')
    assert a.read_bytes() == b.read_bytes()
    parquet = _counted(tmp_path, capsys, "c.parquet", *flags, text=PIPELINE_TEXT)
    assert table_record(parquet) == table_record(a) == {"normalizer": "NFKC", "special_tokens": ["<pad>", EOT],
                                                        "split": "gpt4-marks"}


def test_the_python_trainer_and_writer_use_the_same_record(tmp_path):
    """A table written from Python records its pipeline as count does, and the Python trainer's
    reader refuses it with another pipeline."""
    pre = ByteLevel("gpt4-marks")
    pipeline = counting_pipeline(pre, UnicodeNormalizer("NFKC"), [EOT])
    table = tmp_path / "counts.tsv"
    write_count_table({" file": 1, " fi": 3, " page": 4, "one": 2}, table, *pipeline)
    assert table_record(table) == {"normalizer": "NFKC", "special_tokens": [EOT], "split": "gpt4-marks"}
    with pytest.raises(CorpusError, match=r"counts.tsv: counted with --normalizer NFKC, but this run has "
                                          r"--normalizer none"):
        GreedTokTrainer(k=2, pre_tokenizer=pre, special_tokens=[EOT], show_progress=False).train([table], counts=True)
    tok = GreedTokTrainer(k=2, pre_tokenizer=pre, special_tokens=[EOT], normalizer="NFKC",
                          show_progress=False).train([table], counts=True)
    assert tok.training_info["words"] == 10


def test_a_record_of_only_the_split_is_checked_on_the_split_alone(tmp_path):
    """A table of the previous release records only its split: any normalizer and special
    tokens read it (as before), another split does not."""
    old = tmp_path / "old.tsv"
    old.write_text('# hf-greedtok count table {"split": "gpt4-marks"}\n the\t5\n page\t2\n', encoding="utf-8")
    assert read_count_tables([old], *counting_pipeline(ByteLevel("gpt4-marks"), UnicodeNormalizer("NFKC"), [EOT])) \
        == {" the": 5, " page": 2}
    with pytest.raises(CorpusError, match="counted with --pattern gpt4-marks, but this run splits text with "
                                          "--pattern whitespace"):
        read_count_tables([old], ByteLevel("whitespace"))


@pytest.mark.parametrize("record", ['{"split": "gpt4-marks", "normalizer": "NFX"}',
                                    '{"split": "gpt4-marks", "special_tokens": "<s>"}',
                                    '{"split": "gpt4-marks", "special_tokens": [1]}'])
def test_a_damaged_record_is_refused_naming_its_line(record, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"# hf-greedtok count table {record}\n the\t5\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.tsv, line 1: a count table record that is not"):
        read_count_tables([bad], ByteLevel())


def test_evaluate_reads_only_tables_counted_as_its_tokenizer_counts(tmp_path, capsys):
    """evaluate --counts goes through the same check: its tokenizer's normalizer against the table's."""
    text = tmp_path / "text.txt"
    text.write_text(PIPELINE_TEXT, encoding="utf-8")
    folder = tmp_path / "tok"
    assert main(["train", str(text), "--normalizer", "NFKC", "-k", "40", "-o", str(folder), "--quiet"]) == 0
    plain = _counted(tmp_path, capsys, "plain.tsv", text=PIPELINE_TEXT)
    assert main(["evaluate", str(folder), str(plain), "--counts", "--quiet"]) == 2
    assert capsys.readouterr().err == (f"hf-greedtok evaluate: error: {plain}: counted with --normalizer none, but "
                                       "this run has --normalizer NFKC: count the text again with --normalizer NFKC, "
                                       "or train with --normalizer none\n")
    nfkc = _counted(tmp_path, capsys, "nfkc.tsv", "--normalizer", "NFKC", text=PIPELINE_TEXT)
    assert main(["evaluate", str(folder), str(nfkc), "--counts", "--quiet"]) == 0
