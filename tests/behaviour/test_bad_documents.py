"""Bad JSON Lines and parquet documents (tests/data/bad/docs_*) through ``count`` and
``tokenize`` on both engines (issue 29): each exits 2 with the same one line on stderr, naming
the file and the line (JSON Lines) or row (parquet), on the local engine and on Ray, where the
error is raised inside a task on a worker (before: a remote traceback of 70 lines with colour
codes, and no file name for JSON Lines or parquet); nothing is written.
"""
from __future__ import annotations


import pytest
from corpora import BAD, EXAMPLE_TEXT

pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")

from hf_greedtok.cli import main  # noqa: E402


CASES = {
    "docs_invalid_json.jsonl": "line 2: invalid JSON at column 10: Unterminated string starting at",
    "docs_invalid_utf8.jsonl": "line 3: invalid UTF-8 (byte 0xe9); pass --encoding-errors replace or ignore "
                               "(encoding_errors=) to accept it",
    "docs_not_an_object.jsonl": "line 2: a JSON Lines document is an object, found list",
    "docs_missing_field.jsonl": "line 2: no 'text' field (keys: 'body'; choose it with --text-column / text_column, "
                                "a dotted path for a nested field)",
    "docs_number.jsonl": "line 3: 'text' is a number, not text",
    "docs_not_parquet.parquet": ": not a readable parquet file (Parquet magic bytes not found in footer. Either "
                                "the file is corrupted or this is not a parquet file.)",
    "docs_missing_column.parquet": ": no column 'text' (columns: ['body']; choose it with --text-column / "
                                   "text_column, a dotted path for a struct field)",
    "docs_null_text.parquet": ": row 3: 'text' is null, not text",
    "docs_numbers_column.parquet": ": column 'text' holds int64, not text",
}


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tok") / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "100", "-o", str(folder), "--quiet"]) == 0
    return folder


def expected_line(command: str, name: str) -> str:
    where = CASES[name]
    source = str(BAD / name)
    return f"hf-greedtok {command}: error: {source}{',' if where.startswith('line') else ''}" \
           f"{' ' if where.startswith('line') else ''}{where}"


@pytest.mark.parametrize("engine", ["local", "ray"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("command", ["count", "tokenize"])
def test_a_bad_document_file_is_named_in_one_line_on_both_engines(command, name, engine, tok, tmp_path, capsys,
                                                                   request):
    if engine == "ray":
        request.getfixturevalue("cluster")      # the module's local cluster, joined by the command
        capsys.readouterr()                     # what Ray printed while it started
    out = tmp_path / "out"
    argv = ["count", BAD / name, "-o", out / "counts.tsv"] if command == "count" else \
        ["tokenize", tok, BAD / name, "-o", out / "ids"]
    rc = main([*map(str, argv), "--engine", engine, "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.splitlines() == [expected_line(command, name)]
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_encoding_errors_replace_reads_invalid_utf8_in_json_lines(engine, tok, tmp_path, request):
    """``--encoding-errors`` applies to JSON Lines as to text files (it was ignored for .jsonl)."""
    import pyarrow.parquet as pq

    from hf_greedtok import Tokenizer
    if engine == "ray":
        request.getfixturevalue("cluster")
    assert main(["tokenize", str(tok), str(BAD / "docs_invalid_utf8.jsonl"), "-o", str(tmp_path / "ids"),
                 "--engine", engine, "--encoding-errors", "replace", "--quiet"]) == 0
    encoder = Tokenizer.load(tok)
    assert pq.read_table(tmp_path / "ids").column("input_ids").to_pylist() == \
        [encoder.encode(d) for d in ["one", "two", "caf\ufffd", "four"]]
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"text": "one"}\n{"text": "two"}\n{"text": "caf"}\n{"text": "four"}\n', encoding="utf-8")
    for name, source in (("ignored.tsv", BAD / "docs_invalid_utf8.jsonl"), ("clean.tsv", clean)):
        assert main(["count", str(source), "-o", str(tmp_path / name), "--engine", engine, "--encoding-errors",
                     "ignore", "--quiet"]) == 0
    assert (tmp_path / "ignored.tsv").read_bytes() == (tmp_path / "clean.tsv").read_bytes()
