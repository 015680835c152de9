"""Count tables read by ``--counts`` (issue 29 items 4 and 5): TSV and parquet alike.

A parquet table that ``hf-greedtok count`` wrote holds every counted word; ``train --counts
--no-prefix-space`` on it trains what ``train`` on the text trains. The TSV table leaves out the
words it cannot hold (line ends, tabs), so the two agree where no such word is left out. Within
one table a word is listed once; several tables add up.
"""
from __future__ import annotations

import json
import re

import pytest
from corpora import EXAMPLE_TEXT, corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok.cli import main
from hf_greedtok.errors import CorpusError
from hf_greedtok.formats import count_table
from hf_greedtok.word_counts import iter_count_tables, read_count_tables

pa = pytest.importorskip("pyarrow", reason="parquet count tables need the ray extra (pyarrow)")
pq = pytest.importorskip("pyarrow.parquet")


def _model(folder) -> tuple[dict, dict]:
    saved = json.loads((folder / "greedtok.json").read_text(encoding="utf-8"))
    return saved["model"], saved["training"]


def _count(text, out, *options, capsys) -> str:
    assert main(["count", str(text), "-o", str(out), "--quiet", "--num-proc", "1", *options]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name, units", [("en_brown.txt", []), ("hi_devdas.txt", ["--units", "marks"])])
def test_a_parquet_table_count_wrote_trains_what_the_text_trains(name, units, tmp_path, capsys):
    text = corpus(name)
    table = tmp_path / "counts.parquet"
    normalizer = ["--normalizer", "NFC"] if units else []      # train's default for marks
    _count(text, table, *units, *normalizer, capsys=capsys)
    from_table, from_text = tmp_path / "from-table", tmp_path / "from-text"
    assert main(["train", str(table), "--counts", "--no-prefix-space", *units, "-k", "800", "-o", str(from_table),
                 "--quiet"]) == 0
    assert main(["train", str(text), *units, "-k", "800", "-o", str(from_text), "--quiet"]) == 0
    (model_a, info_a), (model_b, info_b) = _model(from_table), _model(from_text)
    assert model_a == model_b                            # ranked tokens, gains, ids, alphabet
    for key in ("words", "distinct_words", "objective_tokens"):
        assert info_a[key] == info_b[key], key


def test_tsv_and_parquet_tables_of_the_same_counts_train_the_same_tokenizer(tmp_path, capsys):
    """With the whitespace split the TSV leaves out only the word "\\n" (one byte, no candidate
    in it): both tables give the same tokens. (With GPT-4's split it also leaves out words such
    as ".\\n", which the parquet table keeps: see the test above.)"""
    text = corpus("en_brown.txt")
    tables = {fmt: tmp_path / f"counts.{fmt}" for fmt in ("parquet", "tsv")}
    for fmt, table in tables.items():
        said = _count(text, table, "--pattern", "whitespace", capsys=capsys)
        if fmt == "tsv":
            assert re.search(r"; 1 words \([0-9,]+ occurrences\) left out", said), said
    models = {}
    for fmt, table in tables.items():
        out = tmp_path / f"tok-{fmt}"
        assert main(["train", str(table), "--counts", "--no-prefix-space", "--pattern", "whitespace", "-k", "800",
                     "-o", str(out), "--quiet"]) == 0
        models[fmt] = _model(out)[0]
    assert models["parquet"] == models["tsv"]


def test_evaluate_reads_a_parquet_table_as_its_tsv(tmp_path, capsys):
    source = corpus("en_wiki2012_wordcounts.tsv")
    lines = source.read_text(encoding="utf-8").splitlines()[:3000]
    tsv = tmp_path / "wiki.tsv"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [line.split("\t") for line in lines]
    parquet = tmp_path / "wiki.parquet"
    pq.write_table(pa.table({"word": [w for w, _ in rows], "count": pa.array([int(c) for _, c in rows],
                                                                              pa.int32())}), parquet)
    folder = tmp_path / "tok"
    assert main(["train", str(tsv), "--counts", "-k", "300", "-o", str(folder), "--quiet"]) == 0
    capsys.readouterr()
    results = []
    for table in (tsv, parquet):
        assert main(["evaluate", str(folder), str(table), "--counts", "--json", "--quiet"]) == 0
        result = json.loads(capsys.readouterr().out)
        result.pop("inputs")
        results.append(result)
    assert results[0] == results[1]


def test_a_parquet_table_under_another_name_is_read_as_parquet(tmp_path):
    table = tmp_path / "counts.bin"
    pq.write_table(pa.table({"word": pa.array(["the", "cat"]).dictionary_encode(),
                             "count": pa.array([3, 2], pa.uint16()), "extra": ["x", "y"]}), table)
    assert list(iter_count_tables([table])) == [(table, 1, "the", 3), (table, 2, "cat", 2)]
    assert read_count_tables([table], ByteLevel()) == {" the": 3, " cat": 2}


def test_parquet_rows_are_numbered_across_read_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(count_table, "_PARQUET_BATCH_ROWS", 2)
    table = tmp_path / "counts.parquet"
    pq.write_table(pa.table({"word": ["a", "b", "c", "d", "b"], "count": [1, 2, 3, 4, 5]}), table)
    with pytest.raises(CorpusError, match=r"counts.parquet, row 5: word 'b' listed again \(first on row 2\)"):
        list(iter_count_tables([table]))
    pq.write_table(pa.table({"word": ["a", "b", "c", "d", "e"], "count": [1, 2, 3, 0, 5]}), table)
    with pytest.raises(CorpusError, match=r"counts.parquet, row 4: count 0 must be >= 1"):
        list(iter_count_tables([table]))


def test_a_word_listed_twice_in_one_table_is_an_error_and_tables_add_up(tmp_path):
    """Issue 29 item 4: within one file a repeated word was summed silently."""
    one = tmp_path / "one.tsv"
    one.write_text("the\t10\ncat\t5\n\nthe\t2\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"one.tsv, line 4: word 'the' listed again \(first on line 1\)"):
        read_count_tables([one], ByteLevel())
    one.write_text("the\t10\ncat\t5\n", encoding="utf-8")
    two = tmp_path / "two.parquet"
    pq.write_table(pa.table({"word": ["the", "dog"], "count": [2, 7]}), two)
    assert read_count_tables([one, two], ByteLevel()) == {" the": 12, " cat": 5, " dog": 7}
    # Different entries that pre-tokenize to the same word are not duplicates: their counts add.
    one.write_text("the\t10\n the\t5\n", encoding="utf-8")
    assert read_count_tables([one], ByteLevel(), prefix_space=False) == {"the": 10, " the": 5}
    one.write_text("a b\t3\nb\t4\n", encoding="utf-8")
    assert read_count_tables([one], ByteLevel()) == {" a": 3, " b": 7}


def test_compare_and_hierarchical_read_parquet_tables(tmp_path, capsys):
    """They read --counts through the same reader: a table count wrote gives the report of the text."""
    from corpora import EXAMPLE_TEXT
    table = tmp_path / "devil.parquet"
    _count(EXAMPLE_TEXT, table, capsys=capsys)
    reports = {}
    for name, inputs in (("table", [str(table), "--counts", "--no-prefix-space"]), ("text", [str(EXAMPLE_TEXT)])):
        out = tmp_path / f"cmp-{name}"
        assert main(["compare", *inputs, "-k", "100", "--no-plots", "-o", str(out), "--quiet"]) == 0
        reports[name] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in reports["table"]["corpus"].items() if k != "source"} == \
        {k: v for k, v in reports["text"]["corpus"].items() if k != "source"}
    for key in ("summary", "table3", "grid", "curves"):
        assert reports["table"][key] == reports["text"][key], key
    halves = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    rows = pq.read_table(table).to_pylist()
    for half, part in zip(halves, (rows[::2], rows[1::2])):
        pq.write_table(pa.table({"word": [r["word"] for r in part], "count": [r["count"] for r in part]}), half)
    capsys.readouterr()
    out = tmp_path / "hier"
    assert main(["hierarchical", *map(str, halves), "--counts", "--no-prefix-space", "-k", "50", "-o", str(out),
                 "--quiet"]) == 0
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["summary"]["candidates_hierarchical"] > 0


# ---------------------------------------------------------------------- the split a table records

def test_a_table_records_its_split_and_train_reads_it_as_written(tmp_path, capsys):
    """``count`` records the split (a TSV's first line, parquet's schema metadata); a recorded
    table's entries are read as written, so ``--no-prefix-space`` is no longer needed to train
    from it what the text trains."""
    text = corpus("en_brown.txt")
    tsv, parquet = tmp_path / "c.tsv", tmp_path / "c.parquet"
    _count(text, tsv, "--pattern", "whitespace", capsys=capsys)
    _count(text, parquet, "--superwords", capsys=capsys)
    assert tsv.read_text(encoding="utf-8").splitlines()[0] == \
        '# hf-greedtok count table {"normalizer": "none", "special_tokens": [], "split": "whitespace"}'
    assert pq.read_schema(parquet).metadata[b"hf_greedtok"] == \
        b'{"normalizer": "none", "special_tokens": [], "split": "superwords"}'
    assert (count_table.table_split(tsv), count_table.table_split(parquet)) == ("whitespace", "superwords")
    models = []
    for argv in ([str(tsv), "--counts"], [str(tsv), "--counts", "--no-prefix-space"], [str(text)]):
        out = tmp_path / f"tok{len(models)}"
        assert main(["train", *argv, "--pattern", "whitespace", "-k", "500", "-o", str(out), "--quiet"]) == 0
        models.append(_model(out)[0])
    assert models[0] == models[1] == models[2]
    # the record is not an entry: the reader sees the same words with and without it
    entries = list(iter_count_tables([tsv]))
    assert entries[0][1] == 2 and sum(c for *_, c in entries) > 350_000      # the 20,000 lines of the cut


@pytest.mark.parametrize("counted, flags, message", [
    ([], ["--superwords"], "counted with --pattern gpt4-marks, but this run splits text with --superwords"),
    (["--superwords"], ["--superwords", "--digits-in-chunks"],
     "counted with --superwords, but this run splits text with --superwords --digits-in-chunks"),
    (["--superwords"], [], "counted with --superwords, but this run splits text with --pattern gpt4-marks"),
    (["--pattern", "gpt2"], ["--pattern", "gpt4"], "counted with --pattern gpt2, but this run splits text with "
                                                   "--pattern gpt4"),
    (["--units", "marks"], ["--units", "chars"], "counted with --units marks, but this run splits text with "
                                                 "--units chars"),
])
@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_train_refuses_a_table_of_another_split(counted, flags, message, suffix, tmp_path, capsys):
    if "--superwords" in counted:
        suffix = ".parquet"          # count refuses a TSV of chunks (their line ends)
    table = tmp_path / f"c{suffix}"
    _count(corpus("hi_devdas.txt"), table, *counted, capsys=capsys)
    out = tmp_path / "tok"
    assert main(["train", str(table), "--counts", *flags, "-k", "300", "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"hf-greedtok train: error: {table}: {message}: count the text again with those flags, or " \
                  "train with the table's\n"
    assert not out.exists() and list(tmp_path.iterdir()) == [table]


def test_tables_without_the_record_are_read_as_before(tmp_path):
    """A table written by an earlier release (or by hand) has no record: its entries follow a
    space unless prefix_space is off, and no split is checked."""
    old = tmp_path / "old.tsv"
    old.write_text("the\t5\nof the\t2\n", encoding="utf-8")
    assert count_table.table_split(old) is None
    assert read_count_tables([old], ByteLevel("superwords")) == {" the": 5, " of the": 2}
    assert read_count_tables([old], ByteLevel("superwords"), prefix_space=False) == {"the": 5, "of the": 2}
    bad = tmp_path / "bad.tsv"
    bad.write_text("# hf-greedtok count table {split}\nthe\t5\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.tsv, line 1: a count table record that is not"):
        read_count_tables([bad], ByteLevel())


@pytest.mark.parametrize("split", [["--superwords"], ["--pattern", "superwords-digits"]])
def test_count_refuses_a_tsv_of_superword_chunks(split, tmp_path, capsys):
    """The last chunk of every line keeps its line end, which a TSV entry cannot hold."""
    assert main(["count", str(corpus("en_brown.txt")), *split, "-o", str(tmp_path / "c.tsv"), "--quiet"]) == 2
    assert "superword chunks keep theirs" in capsys.readouterr().err and list(tmp_path.iterdir()) == []


def test_superwords_refuse_a_word_table_without_the_record(tmp_path, capsys):
    """An older word table has no record; --superwords still refuses it: none of its entries
    holds two words, so no token could span words (a chunk table without the record trains)."""
    words, chunks = tmp_path / "w.tsv", tmp_path / "ch.parquet"
    _count(EXAMPLE_TEXT, words, capsys=capsys)
    _count(EXAMPLE_TEXT, chunks, "--superwords", capsys=capsys)
    # as an earlier release wrote them: no first line, no schema metadata
    words.write_text(words.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
    pq.write_table(pq.read_table(chunks).replace_schema_metadata(None), chunks)
    assert count_table.table_split(words) is None and count_table.table_split(chunks) is None
    argv = ["--counts", "--no-prefix-space", "--superwords", "-k", "300", "--quiet"]
    assert main(["train", str(words), *argv, "-o", str(tmp_path / "a")]) == 2
    assert "no entry holds two words, so no token could span words; this is a word table" in capsys.readouterr().err
    assert main(["train", str(chunks), *argv, "-o", str(tmp_path / "b")]) == 0


def test_count_refuses_a_tsv_that_would_hold_no_word(tmp_path, capsys):
    """Metaspace words of lines holding tabs keep them: a TSV would be empty, exit 0 before."""
    text = tmp_path / "t.txt"
    text.write_text("the\tcat\nsat\ton\n", encoding="utf-8")     # (a word<TAB>count text is refused as a table)
    assert main(["count", str(text), "--units", "chars", "-o", str(tmp_path / "c.tsv"), "--quiet"]) == 2
    assert "a TSV table would hold none of the 2 words" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]
    assert main(["count", str(text), "--units", "chars", "-o", str(tmp_path / "c.parquet"), "--quiet"]) == 0


@settings(max_examples=100, deadline=None)
@given(counts=st.dictionaries(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1,
                                      max_size=10), st.integers(1, 2**62), min_size=1, max_size=30))
def test_a_chunk_table_writes_the_parquet_file_a_counter_writes(counts, tmp_path_factory):
    """Issue 41: `count --superwords` writes from its native table's sorted buffer, not a str per
    chunk; the file is byte for byte the one the Counter path writes (any Unicode, ties in order)."""
    from hf_greedtok._chunk_table import ChunkTable
    folder = tmp_path_factory.mktemp("tables")
    table = ChunkTable()
    table.add_counts(counts)
    pre = ByteLevel("superwords")
    a = count_table.write_count_table(counts, folder / "a.parquet", pre)
    b = count_table.write_count_table(table, folder / "b.parquet", pre)
    assert (folder / "a.parquet").read_bytes() == (folder / "b.parquet").read_bytes()
    assert (a.words, a.occurrences) == (b.words, b.occurrences) == (len(counts), sum(counts.values()))
    text, offsets, values = table.sorted_parts()
    assert [(bytes(text[offsets[i]:offsets[i + 1]]).decode(), int(values[i])) for i in range(len(values))] \
        == count_table.sorted_items(counts)


def test_a_lone_surrogate_is_refused_by_both_writers_and_nothing_is_written(tmp_path):
    from hf_greedtok._chunk_table import ChunkTable
    table = ChunkTable()
    table.add_counts({" a\ud800": 2, " b": 1})
    for counts in ({" a\ud800": 2, " b": 1}, table):
        with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
            count_table.write_count_table(counts, tmp_path / "t.parquet", ByteLevel("superwords"))
    assert list(tmp_path.iterdir()) == []


def test_count_superwords_from_text_and_documents_writes_what_the_counter_counts(tmp_path, capsys):
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines(keepends=True)
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"text": line}) + "\n" for line in lines[:500]), encoding="utf-8")
    out = tmp_path / "t.parquet"
    assert main(["count", str(EXAMPLE_TEXT), str(docs), "-o", str(out), "--superwords", "--quiet"]) == 0
    printed = capsys.readouterr().out
    from collections import Counter

    from hf_greedtok.word_counts import count_words
    expected = Counter(count_words(lines, ByteLevel("superwords"), show_progress=False))
    expected.update(count_words(lines[:500], ByteLevel("superwords"), show_progress=False))
    table = pq.read_table(out)
    assert list(zip(table.column("word").to_pylist(), table.column("count").to_pylist())) \
        == count_table.sorted_items(expected)
    assert printed.startswith(f"{sum(expected.values()):,} words, {len(expected):,} distinct")
