"""One input layer for every command (local engine): the same documents, written as any kind of
input (text, text with a BOM and CRLF, JSON Lines flat, nested and with a BOM, parquet, .gz,
.bz2, .xz, .zst, a quoted glob, a directory, standard input), give byte-identical count tables
and tokenizer folders with ``count``, ``train`` and ``train --superwords``; bad inputs are
refused in one line naming the file. The Ray half of the matrix, the same outputs and errors on
Ray: tests/distributed/test_input_layer_ray.py.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from input_kinds import (COMMANDS, KIND_NAMES, crlf, documents, kinds_fixture, run, stdin_bytes,
                         without_source)

from hf_greedtok import ByteLevel, CorpusError
from hf_greedtok.cli import main
from hf_greedtok.formats.sources import input_kind, read_documents, resolve_inputs
from hf_greedtok.word_counts import count_inputs, count_words

pytest.importorskip("pyarrow", reason="parquet inputs need pyarrow (the ray extra)")

kinds = kinds_fixture()


@pytest.fixture(scope="module")
def reference(kinds, tmp_path_factory):
    """What each command makes of the plain text file (and of the CRLF one), the outputs every
    other kind must give."""
    out = {}
    capsys = _NoCapture()
    for command in COMMANDS:
        for docs, kind in (("lf", "txt"), ("crlf", "txt-bom-crlf")):
            folder = tmp_path_factory.mktemp("reference")
            out[command, docs] = without_source(run(command, kinds[kind], folder, "local", capsys))
    return out


class _NoCapture:
    """``run``'s capsys where pytest's (function-scoped) cannot go: main's error goes to stderr."""

    def readouterr(self):
        return type("Captured", (), {"err": ""})()


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", KIND_NAMES)
def test_every_kind_of_the_same_documents_gives_the_same_table_and_folder(name, command, kinds, reference,
                                                                          tmp_path, capsys):
    if name not in kinds:
        pytest.skip("reading .zst needs zstandard: pip install 'hf-greedtok[zstd]'")
    kind = kinds[name]
    assert without_source(run(command, kind, tmp_path, "local", capsys)) == reference[command, kind.docs]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_standard_input_is_read_as_text_lines(command, kinds, reference, tmp_path, capsys, monkeypatch):
    data = "".join(documents()).encode("utf-8")
    with stdin_bytes(data):
        got = run(command, kinds["txt"]._replace(inputs=["-"]), tmp_path, "local", capsys)
    assert without_source(got) == reference[command, "lf"]


def test_the_kinds_hold_the_documents_the_reader_gives(kinds):
    """read_documents, the one reader of a file, on each kind: the documents written."""
    docs = documents()
    for name in ("txt", "jsonl", "jsonl-bom-crlf", "parquet", "txt.gz", "jsonl.gz"):
        [path] = kinds[name].inputs
        assert list(read_documents(path, input_kind(path), "text")) == docs, name
    [path] = kinds["txt-bom-crlf"].inputs
    assert list(read_documents(path, "text", "text")) == crlf(docs)     # BOM dropped, line ends kept
    [path] = kinds["jsonl-nested"].inputs
    assert list(read_documents(path, "json", "meta.body")) == docs


def test_text_lines_keep_their_crlf_so_the_two_references_differ(reference):
    assert reference["count", "lf"] != reference["count", "crlf"]


def test_count_inputs_counts_documents_as_count_words_does(kinds):
    resolved = resolve_inputs(kinds["txt"].inputs + kinds["parquet"].inputs + kinds["jsonl"].inputs)
    assert list(resolved) == ["text", "parquet", "json"]
    want = count_words(documents() * 3, ByteLevel(), num_proc=1, show_progress=False)
    assert count_inputs(resolved, ByteLevel(), num_proc=1, show_progress=False) == want


def test_a_directory_is_its_files_sorted_without_hidden_and_underscore_names(kinds):
    [tree] = kinds["directory"].inputs
    assert resolve_inputs([tree]) == {"text": [f"{tree}/part-0.txt", f"{tree}/part-1.txt", f"{tree}/sub/part-2.txt"]}


def test_a_dotted_text_column_finds_a_key_that_holds_the_dot_first(tmp_path):
    path = tmp_path / "dots.jsonl"
    path.write_text(json.dumps({"meta.body": "flat key", "meta": {"body": "nested"}}) + "\n"
                    + json.dumps({"meta": {"body": "nested only"}}) + "\n", encoding="utf-8")
    assert list(read_documents(str(path), "json", "meta.body")) == ["flat key", "nested only"]


def test_a_dotted_text_column_reaches_a_parquet_struct_field(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"meta": [{"body": "one", "n": 1}, {"body": "two", "n": 2}]}), path)
    assert list(read_documents(str(path), "parquet", "meta.body")) == ["one", "two"]
    with pytest.raises(CorpusError, match=r"no column 'meta.text' \(columns: \['meta'\]"):
        list(read_documents(str(path), "parquet", "meta.text"))


def test_the_kind_is_the_name_under_the_compression_suffix():
    assert [input_kind(n) for n in ("a.jsonl.gz", "a.JSON.xz", "a.ndjson", "a.NDJSON.gz", "a.parquet", "a.txt.zst",
                                    "a.bz2", "-")] == \
        ["json", "json", "json", "json", "parquet", "text", "text", "text"]


def test_ndjson_documents_are_json_lines(kinds, tmp_path):
    """.ndjson was read as text: each line's raw JSON counted as words."""
    [jsonl] = kinds["jsonl"].inputs
    ndjson = tmp_path / "docs.ndjson"
    ndjson.write_bytes(Path(jsonl).read_bytes())
    assert resolve_inputs([ndjson]) == {"json": [str(ndjson)]}
    assert list(read_documents(str(ndjson), input_kind(ndjson), "text")) == documents()


@pytest.mark.parametrize("column_type", ["dictionary", "string_view", "large_string"])
def test_a_parquet_text_column_of_any_string_layout_is_text(column_type, tmp_path):
    """pandas' categoricals are written as dictionary<values=string>; string_view and
    large_string are strings too (they were "not text")."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    docs = ["one doc\n", "two doc\n", "one doc\n"]
    column = {"dictionary": lambda: pa.array(docs).dictionary_encode(),
              "string_view": lambda: pa.array(docs, pa.string_view()),
              "large_string": lambda: pa.array(docs, pa.large_string())}[column_type]()
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"text": column}), path)
    assert column_type in str(pq.read_schema(path).field("text").type)
    assert list(read_documents(str(path), "parquet", "text")) == docs


# ------------------------------------------------------------------ refusals, one line each

def refusal(argv: list, capsys) -> str:
    """The one line a refused command prints (exit 2, nothing else on stderr)."""
    code = main([*map(str, argv), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    return err.strip()


def test_a_count_table_given_as_text_is_refused_with_a_hint_to_add_counts(tmp_path, capsys):
    table = tmp_path / "words.tsv"
    table.write_text("the\t12\nwell-known\t3\ndon't\t2\n", encoding="utf-8")
    for argv in (["count", table, "-o", tmp_path / "c.tsv"], ["train", table, "-k", "5", "-o", tmp_path / "t"]):
        assert refusal(argv, capsys).endswith(f"{table}: looks like a count table (word<TAB>count lines), not "
                                              "text: give it to `train --counts` (Python: read_count_tables)")
    assert main(["train", str(table), "--counts", "-k", "5", "-o", str(tmp_path / "t"), "--quiet"]) == 0


def test_a_table_count_wrote_is_refused_as_text_too(kinds, tmp_path, capsys):
    assert main(["count", *kinds["txt"].inputs, "-o", str(tmp_path / "c.tsv"), "--quiet"]) == 0
    assert "looks like a count table" in refusal(["train", tmp_path / "c.tsv", "-k", "5", "-o", tmp_path / "t"],
                                                 capsys)


def test_text_column_with_text_only_inputs_is_refused_not_ignored(kinds, tmp_path, capsys):
    [text] = kinds["txt"].inputs
    for command in (["count", text, "-o", tmp_path / "c.tsv"], ["train", text, "-k", "5", "-o", tmp_path / "t"]):
        assert refusal([*command, "--text-column", "body"], capsys).endswith(
            f"{text}: --text-column names a field of .jsonl/.parquet documents, and the inputs are text files (no "
            "fields): drop --text-column")
    assert not (tmp_path / "c.tsv").exists() and not (tmp_path / "t").exists()


def test_bad_inputs_are_named_in_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    damaged = tmp_path / "cut.txt.gz"
    damaged.write_bytes(gzip.compress(b"some text\n" * 100)[:20])
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"fine\nbad\0byte\n")
    out = ["-o", tmp_path / "c.tsv"]
    assert refusal(["count", tmp_path / "none.txt", *out], capsys).endswith("none.txt: no such file")
    assert refusal(["count", str(tmp_path / "*.md"), *out], capsys).endswith("*.md: no file matches this pattern")
    assert refusal(["count", tmp_path / "empty", *out], capsys).endswith(
        "empty: a directory with no input file in it (names starting with . or _ are skipped)")
    assert refusal(["count", damaged, *out], capsys).endswith(
        "cut.txt.gz: cannot be read as gzip data (Compressed file ended before the end-of-stream marker was reached)")
    assert refusal(["count", nul, *out], capsys).endswith("nul.txt, line 2: NUL byte: this looks like a binary file, "
                                                          "not text")
    assert refusal(["count", "-", "-", *out], capsys).endswith("-: standard input given twice")
    with pytest.raises(CorpusError, match=r"^-: standard input is read by `count` and `train` on the local engine "
                                          "only; give files$"):
        resolve_inputs(["-"])       # tokenize's and the Ray engine's inputs
    assert not (tmp_path / "c.tsv").exists()


def test_a_compressed_parquet_file_is_refused(tmp_path):
    (tmp_path / "docs.parquet.gz").write_bytes(gzip.compress(b"PAR1"))
    with pytest.raises(CorpusError, match="a compressed parquet file: parquet compresses its own pages"):
        resolve_inputs([tmp_path / "docs.parquet.gz"])


def test_zst_without_zstandard_says_what_to_install(tmp_path, monkeypatch):
    import sys
    (tmp_path / "a.txt.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    monkeypatch.setitem(sys.modules, "zstandard", None)       # import zstandard raises ImportError
    with pytest.raises(ImportError, match=r"a.txt.zst: reading .zst files needs the zstandard package: pip install "
                                          r"'hf-greedtok\[zstd\]'"):
        list(read_documents(str(tmp_path / "a.txt.zst"), "text", "text"))


def _evaluation(folder, kind, capsys) -> dict:
    assert main(["evaluate", str(folder), *kind.inputs, *kind.options, "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    result.pop("inputs")
    return result


def test_evaluate_reads_every_kind_as_train_does(kinds, tmp_path, capsys):
    """A .jsonl is its documents, not raw JSON; a line's end is not measured, in a text file or a document."""
    assert main(["train", *kinds["txt"].inputs, "-k", "60", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    capsys.readouterr()
    want = _evaluation(tmp_path / "tok", kinds["txt"], capsys)
    for name in ("jsonl-nested", "parquet", "txt.xz", "directory"):
        assert _evaluation(tmp_path / "tok", kinds[name], capsys) == want, name


def test_tokenize_reads_every_kind_as_count_does(kinds, tmp_path):
    import pyarrow.parquet as pq
    assert main(["train", *kinds["txt"].inputs, "-k", "60", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    rows = {}
    for name in ("txt", "jsonl-nested", "parquet", "txt.bz2", "glob"):
        out = tmp_path / name
        assert main(["tokenize", str(tmp_path / "tok"), *kinds[name].inputs, *kinds[name].options, "-o", str(out),
                     "--quiet"]) == 0
        rows[name] = pq.read_table(out).column("input_ids").to_pylist()
    assert len(rows["txt"]) == len(documents())
    assert all(got == rows["txt"] for got in rows.values())


def test_the_python_trainers_read_files_as_the_cli_does(kinds, tmp_path):
    from hf_greedtok import GreedTokTrainer
    trainer = GreedTokTrainer(k=60, show_progress=False, num_threads=1)
    want = trainer.train(kinds["txt"].inputs).model.ranked_tokens
    assert trainer.train(kinds["jsonl.gz"].inputs).model.ranked_tokens == want      # not raw JSON
    assert trainer.train(kinds["directory"].inputs).model.ranked_tokens == want


def test_a_file_whose_name_looks_like_a_glob_is_read_as_named(tmp_path):
    (tmp_path / "part[1].txt").write_text("one\n", encoding="utf-8")
    assert resolve_inputs([tmp_path / "part[1].txt"]) == {"text": [str(tmp_path / "part[1].txt")]}


def test_compare_reads_the_lines_of_every_kind_alike(kinds):
    from hf_greedtok.experiments.line_split import read_lines
    want = [d[:-1] for d in documents()]
    for name in ("txt", "txt-bom-crlf", "jsonl", "parquet", "txt.gz", "directory"):
        assert read_lines(kinds[name].inputs) == want, name


@pytest.mark.parametrize("command", ["count", "evaluate"])
def test_an_escaped_lone_surrogate_in_json_lines_is_an_invalid_byte(command, tmp_path, capsys):
    """JSON can escape a lone surrogate ("\\ud800"), which no UTF-8 text holds: refused naming the
    file and line under strict (as an invalid byte), U+FFFD under replace, dropped under ignore."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"text": "hello world"}\n{"text": "a\\ud800b world"}\n', encoding="utf-8")
    args = {"count": ["count", str(docs), "-o", str(tmp_path / "t.parquet")],
            "evaluate": ["evaluate", str(tmp_path / "tok"), str(docs)]}[command]
    if command == "evaluate":
        corpus = tmp_path / "corpus.txt"
        corpus.write_text("hello world\n" * 50, encoding="utf-8")
        assert main(["train", str(corpus), "-k", "5", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    capsys.readouterr()
    assert main([*args, "--quiet"]) == 2
    assert capsys.readouterr().err == (f"hf-greedtok {command}: error: {docs}, line 2: 'text' holds an escaped lone "
                                       "surrogate (\\ud800 at character 2), not text; pass --encoding-errors replace "
                                       "or ignore (encoding_errors=) to accept it\n")
    kinds = {"json": [str(docs)]}
    replaced = count_inputs(kinds, ByteLevel(), encoding_errors="replace", num_proc=1, show_progress=False)
    dropped = count_inputs(kinds, ByteLevel(), encoding_errors="ignore", num_proc=1, show_progress=False)
    def counted(*texts):
        return count_words(texts, ByteLevel(), num_proc=1, show_progress=False)
    assert replaced == counted("hello world", "a\ufffdb world") and dropped == counted("hello world", "ab world")


def test_line_ranges_cut_a_file_after_line_ends_into_the_lines_text_chunks_gives(tmp_path):
    from hf_greedtok.formats.sources import line_ranges, read_range, text_chunks, text_lines
    path = tmp_path / "t.txt"
    long = b"a line longer than a range " * 20 + b"\n"
    data = b"short\n" * 50 + long + b"x\n" * 30 + b"no end"
    path.write_bytes(data)
    ranges = line_ranges(str(path), size=64)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))           # they tile the file
    assert all(data[end - 1:end] == b"\n" for _, end, _ in ranges[:-1])    # each cut after a "\n"
    assert any(long in data[start:end] for start, end, _ in ranges)         # the long line kept whole
    lines = [(first, text_lines(str(path), first, read_range(str(path), start, end), "strict"))
             for start, end, first in ranges]
    assert all(data[:start].count(b"\n") + 1 == first for (start, _, first) in ranges)
    whole = [line for _, chunk in lines for line in chunk]
    assert whole == [line for src, first, d in text_chunks([path]) for line in text_lines(src, first, d, "strict")]
    assert line_ranges(str(path), size=len(data)) == [(0, -1, 1)]           # small enough: read whole


def test_read_range_refuses_a_file_that_shrank_since_it_was_planned(tmp_path):
    from hf_greedtok.formats.sources import line_ranges, read_range
    path = tmp_path / "t.txt"
    path.write_bytes(b"line\n" * 100)
    start, end, _ = line_ranges(str(path), size=100)[-1]
    path.write_bytes(b"line\n" * 10)
    with pytest.raises(CorpusError, match="changed while it was read"):
        read_range(str(path), start, end)


# ------------------------------------------------------------ standard input, told apart as files are

def test_standard_input_with_text_column_is_json_lines(kinds, reference, tmp_path, capsys):
    [jsonl] = kinds["jsonl"].inputs
    with stdin_bytes(Path(jsonl).read_bytes()):
        got = run("count", kinds["jsonl"]._replace(inputs=["-"], options=["--text-column", "text"]), tmp_path,
                  "local", capsys)
    assert without_source(got) == reference["count", "lf"]


@pytest.mark.parametrize("command", ["count", "train"])
@pytest.mark.parametrize("held, message", [
    ("jsonl", "standard input: looks like JSON Lines (a JSON object on its first line), and is read as text lines: "
              "give --text-column FIELD (e.g. --text-column text) to read its documents' field"),
    ("table", "standard input: looks like a count table (word<TAB>count lines), not text: save it to a .tsv file and "
              "give that to `train --counts`"),
    ("bare table", "standard input: looks like a count table (word<TAB>count lines), not text: save it to a .tsv "
                   "file and give that to `train --counts`"),
    ("named table", "standard input: looks like a count table (word<TAB>count lines), not text: save it to a .tsv "
                    "file and give that to `train --counts`"),
])
def test_standard_input_that_is_not_text_is_refused_as_a_file_would_be(command, held, message, kinds, tmp_path,
                                                                        capsys):
    """It was counted as text lines, exit 0."""
    data = {"jsonl": Path(kinds["jsonl"].inputs[0]).read_bytes(),
            "table": b'# hf-greedtok count table {"split": "gpt4-marks"}\n the\t12\n cat\t3\n',
            "bare table": b"the\t12\ncat\t3\n",
            "named table": b"word\tcount\nthe\t12\n"}[held]
    out = {"count": ["-o", tmp_path / "c.tsv"], "train": ["-k", "5", "-o", tmp_path / "t"]}[command]
    with stdin_bytes(data):
        assert refusal([command, "-", *out, "--num-proc", "1"], capsys) == f"hf-greedtok {command}: error: {message}"
    assert list(tmp_path.iterdir()) == []


def test_counts_from_standard_input_are_refused_in_one_line(tmp_path, capsys):
    """`train - --counts` said "-: no such file"."""
    with stdin_bytes(b"the\t12\ncat\t3\n"):
        assert refusal(["train", "-", "--counts", "-k", "5", "-o", tmp_path / "t"], capsys) == (
            "hf-greedtok train: error: standard input: count tables are read from files (a table is read more than "
            "once): save it to a .tsv file and give its path; text on standard input is counted without --counts")


# ------------------------------------------------------------ count tables, read through the same layer

def test_a_table_reads_the_same_compressed_in_a_directory_or_with_a_column_header(kinds, tmp_path):
    """.tsv.gz said "invalid UTF-8", a directory "is a directory", a first line word<TAB>count
    "count 'count' is not an integer"."""
    from hf_greedtok.word_counts import read_count_tables
    assert main(["count", *kinds["txt"].inputs, "-o", str(tmp_path / "c.tsv"), "--quiet"]) == 0
    table = (tmp_path / "c.tsv").read_bytes()
    assert table.startswith(b"# hf-greedtok count table ")    # its split recorded: read as written
    (tmp_path / "c.tsv.gz").write_bytes(gzip.compress(table))
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "part.tsv").write_bytes(table)
    entries = table.split(b"\n", 1)[1]
    (tmp_path / "named.tsv").write_bytes(b"word\tcount\n" + entries)
    def read(path, **options):
        return read_count_tables([path], ByteLevel("gpt4-marks"), **options)     # count's split
    want = read(tmp_path / "c.tsv")
    assert read(tmp_path / "c.tsv.gz") == want and read(tmp_path / "tables") == want
    assert read(tmp_path / "named.tsv", prefix_space=False) == want


def test_a_directory_of_tables_is_its_tables_and_a_compressed_parquet_one_is_refused(tmp_path, capsys):
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "a.tsv").write_text("the\t5\n", encoding="utf-8")
    (tmp_path / "tables" / "b.tsv").write_text("the\t2\ncat\t3\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    from hf_greedtok.word_counts import read_count_tables
    assert read_count_tables([tmp_path / "tables"], ByteLevel()) == {" the": 7, " cat": 3}
    assert refusal(["train", tmp_path / "empty", "--counts", "-k", "5", "-o", tmp_path / "t"], capsys).endswith(
        "empty: a directory with no input file in it (names starting with . or _ are skipped)")
    (tmp_path / "t.parquet.gz").write_bytes(gzip.compress(b"PAR1"))
    assert refusal(["train", tmp_path / "t.parquet.gz", "--counts", "-k", "5", "-o", tmp_path / "t"],
                   capsys).endswith("a compressed parquet file: parquet compresses its own pages; decompress it first")


def test_a_text_file_with_a_column_header_is_a_count_table_too(tmp_path, capsys):
    table = tmp_path / "words.tsv"
    table.write_text("word\tcount\nthe\t12\n", encoding="utf-8")
    assert "looks like a count table" in refusal(["count", table, "-o", tmp_path / "c.tsv"], capsys)
