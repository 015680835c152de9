"""One input layer on both engines: every kind of input (tests/input_kinds.py) gives the same
bytes with ``--engine ray`` as with ``--engine local``, for ``count``, ``train`` and ``train
--superwords`` (count tables, and every file of the folders, manifest included), and every bad
input the same one-line error. The local half of the matrix (every kind of the same documents
alike): tests/formats/test_input_layer.py.

One local cluster for the module (the ``cluster`` fixture), joined by each in-process ``main``.
"""
from __future__ import annotations

import gzip

import pytest
from input_kinds import COMMANDS, KIND_NAMES, kinds_fixture, run

from hf_greedtok.cli import main

pytest.importorskip("ray", reason="the Ray engine needs the ray extra: pip install 'hf-greedtok[ray]'")
pytest.importorskip("pyarrow", reason="parquet inputs need pyarrow (the ray extra)")

kinds = kinds_fixture()


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", KIND_NAMES)
def test_ray_writes_the_bytes_the_local_engine_writes(name, command, kinds, cluster, tmp_path, capsys):
    if name not in kinds:
        pytest.skip("reading .zst needs zstandard: pip install 'hf-greedtok[zstd]'")
    capsys.readouterr()                     # what Ray printed while it started
    local = run(command, kinds[name], tmp_path / "local", "local", capsys)
    assert run(command, kinds[name], tmp_path / "ray", "ray", capsys) == local


def bad_inputs(folder) -> dict[str, list[str]]:
    """{case: INPUT arguments (and options)} of inputs every engine refuses."""
    def put(name: str, data: bytes) -> str:
        (folder / name).write_bytes(data)
        return str(folder / name)

    (folder / "empty").mkdir()
    return {
        "missing file": [str(folder / "none.txt")],
        "empty glob": [str(folder / "*.md")],
        "empty directory": [str(folder / "empty")],
        "count table as text": [put("words.tsv", b"the\t12\nof\t3\n")],
        "text column on text": [put("plain.txt", b"some text\n"), "--text-column", "body"],
        "damaged gzip": [put("cut.txt.gz", gzip.compress(b"some text\n" * 100)[:20])],
        "NUL byte": [put("nul.txt", b"fine\nbad\0byte\n")],
        "invalid UTF-8": [put("latin1.txt", "fine\ncaf\xe9\n".encode("latin-1"))],
        "bad JSON line": [put("bad.jsonl.gz", gzip.compress(b'{"text": "one"}\n{"text": \n'))],
        "missing nested field": [put("nested.jsonl", b'{"meta": {"title": "x"}}\n'), "--text-column", "meta.body"],
    }


@pytest.mark.parametrize("command", ["count", "train"])
def test_every_bad_input_gives_the_same_line_on_both_engines(command, cluster, tmp_path, capsys):
    capsys.readouterr()
    out = ["-o", str(tmp_path / ("c.tsv" if command == "count" else "tok"))] + (["-k", "5"] if command == "train"
                                                                               else [])
    for case, args in bad_inputs(tmp_path).items():
        lines = {}
        for engine in ("local", "ray"):
            assert main([command, *args, *out, "--engine", engine, "--quiet"]) == 2, (case, engine)
            lines[engine] = capsys.readouterr().err.splitlines()
        assert len(lines["local"]) == 1 and lines["ray"] == lines["local"], case
    assert not (tmp_path / "c.tsv").exists() and not (tmp_path / "tok").exists()


def test_standard_input_is_refused_on_ray_in_one_line(cluster, tmp_path, capsys):
    capsys.readouterr()
    assert main(["count", "-", "-o", str(tmp_path / "c.tsv"), "--engine", "ray", "--quiet"]) == 2
    assert capsys.readouterr().err == ("hf-greedtok count: error: -: standard input is read by `count` and `train` "
                                       "on the local engine only; give files\n")


def test_tokenize_on_ray_gives_the_rows_of_the_local_engine(kinds, cluster, tmp_path, capsys):
    import pyarrow.parquet as pq
    assert main(["train", *kinds["txt"].inputs, "-k", "60", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    for name in ("txt-bom-crlf", "jsonl-nested", "txt.gz", "directory"):
        rows = {}
        for engine in ("local", "ray"):
            out = tmp_path / name / engine
            assert main(["tokenize", str(tmp_path / "tok"), *kinds[name].inputs, *kinds[name].options, "-o", str(out),
                         "--engine", engine, "--quiet"]) == 0, capsys.readouterr().err
            rows[engine] = pq.read_table(out).column("input_ids").to_pylist()
        assert rows["ray"] == rows["local"] and len(rows["local"]) == 180, name


@pytest.mark.parametrize("command", list(COMMANDS))
def test_one_text_file_in_byte_ranges_gives_the_local_bytes(command, cluster, tmp_path, capsys, monkeypatch):
    from input_kinds import Kind

    import hf_greedtok.formats.sources as sources
    lines = [f"The {k}th cynic sees things as they are, not as they ought to be.\n" for k in range(600)]
    lines[0] = "\ufeff" + lines[0]       # a BOM opening the file: dropped
    lines[300] = "\ufeff" + lines[300]   # and one opening a line inside it: text, kept
    path = tmp_path / "one.txt"
    path.write_text("".join(lines), encoding="utf-8")
    monkeypatch.setattr(sources, "RANGE_BYTES", 2000)     # about 30 lines a task
    assert len(sources.line_ranges(str(path))) > 10
    kind = Kind([str(path)], [], "lf")
    capsys.readouterr()
    assert run(command, kind, tmp_path / "ray", "ray", capsys) == run(command, kind, tmp_path / "local", "local",
                                                                        capsys)


def test_tokenize_on_ray_in_byte_ranges_keeps_the_rows_in_order(kinds, cluster, tmp_path, capsys, monkeypatch):
    import pyarrow.parquet as pq

    import hf_greedtok.formats.sources as sources
    assert main(["train", *kinds["txt"].inputs, "-k", "60", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    path = tmp_path / "one.txt"
    path.write_text("".join(f"Line {k}: the cynic sees things as they are.\n" for k in range(500)), encoding="utf-8")
    monkeypatch.setattr(sources, "RANGE_BYTES", 1500)
    rows = {}
    for engine in ("local", "ray"):
        out = tmp_path / engine
        assert main(["tokenize", str(tmp_path / "tok"), str(path), "-o", str(out), "--engine", engine, "--quiet"]) == 0
        rows[engine] = pq.read_table(out).column("input_ids").to_pylist()
    assert len(list((tmp_path / "ray").glob("*.parquet"))) > 10        # one part per range
    assert rows["ray"] == rows["local"] and len(rows["local"]) == 500


def test_an_error_in_a_later_byte_range_names_the_files_line(cluster, tmp_path, capsys, monkeypatch):
    import hf_greedtok.formats.sources as sources
    path = tmp_path / "bad.txt"
    path.write_bytes(b"".join(b"line %d of fine text\n" % k for k in range(400)) + "caf\xe9\n".encode("latin-1"))
    monkeypatch.setattr(sources, "RANGE_BYTES", 500)
    capsys.readouterr()
    for engine in ("local", "ray"):
        assert main(["count", str(path), "-o", str(tmp_path / "c.tsv"), "--engine", engine, "--quiet"]) == 2
        assert f"{path}, line 401: invalid UTF-8" in capsys.readouterr().err, engine
