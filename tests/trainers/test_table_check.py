"""One check of a count table's split, on every path that reads tables, that no flag skips.

A table records the split that made its words (``hf-greedtok count`` writes the record); one
without the record is judged by its entries: a superword trainer needs entries that hold two
words, and the ``superwords-digits`` split entries with digits and words together. Apostrophes
and hyphens join letters in words too (``don't``, ``well-known``), so they are no evidence.
"""
from __future__ import annotations

import pytest

from hf_greedtok import ByteLevel
from hf_greedtok.cli import main
from hf_greedtok.errors import CorpusError
from hf_greedtok.trainers import GreedTokSuperwordTrainer
from hf_greedtok.word_counts import read_count_tables

TEXT = "".join(f"The well-known rule {n} of the house, don't you see? Page {n}, line {n + 1}.\n"
               for n in range(40))


def _table(path, entries: dict[str, int]):
    path.write_text("".join(f"{w}\t{c}\n" for w, c in entries.items()), encoding="utf-8")
    return path


def _counted(tmp_path, capsys, name, *flags):
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
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
