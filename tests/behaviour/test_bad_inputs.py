"""The bad-input suite: every defect of tests/data/bad/ (one file each) through the real command.

Each case must exit 2 with exactly one line on stderr naming the file (and line) and the
problem, print no traceback, and create no output folder (nor a temporary one beside it).
Defects of saved folders are made from a freshly trained folder (see tests/data/bad/README.md).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpora import BAD, EXAMPLE_TEXT

from hf_greedtok.cli import main
from hf_greedtok.formats.manifest import MANIFEST_NAME

SMALL_TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 20


def run(argv, capsys) -> str:
    """Run the command in-process; return stderr after checking the error conventions."""
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture()
def small_corpus(tmp_path) -> Path:
    path = tmp_path / "inputs" / "small.txt"
    path.parent.mkdir()
    path.write_text(SMALL_TEXT, encoding="utf-8")
    return path


def assert_nothing_written(parent: Path) -> None:
    """No output folder and no temporary folder in the output's parent."""
    assert list(parent.iterdir()) == []


TRAIN_CASES = {
    "invalid UTF-8 on line 2": (["counts_invalid_utf8_line2.tsv", "--counts"],
                                ["counts_invalid_utf8_line2.tsv, line 2:", "invalid UTF-8", "0xe9"]),
    "invalid UTF-8 on line 5001": (["counts_invalid_utf8_line5001.tsv", "--counts"],
                                   ["counts_invalid_utf8_line5001.tsv, line 5001:", "invalid UTF-8"]),
    "count with a plus sign": (["counts_plus_sign.tsv", "--counts"],
                               ["counts_plus_sign.tsv, line 2:", "'+100'", "ASCII digits"]),
    "count with an underscore": (["counts_underscore.tsv", "--counts"],
                                 ["counts_underscore.tsv, line 2:", "'1_000'", "ASCII digits"]),
    "count in Arabic-Indic digits": (["counts_arabic_indic_digits.tsv", "--counts"],
                                     ["counts_arabic_indic_digits.tsv, line 2:", "ASCII digits"]),
    "count with a space": (["counts_space_padded.tsv", "--counts"],
                           ["counts_space_padded.tsv, line 2:", "' 7'", "ASCII digits"]),
    "word listed twice in one table": (["counts_duplicate_word.tsv", "--counts"],
                                       ["counts_duplicate_word.tsv, line 4:", "'the'", "first on line 1"]),
    "empty corpus": (["corpus_empty.txt"], ["corpus_empty.txt: empty corpus"]),
    "whitespace-only corpus": (["corpus_whitespace_only.txt"], ["corpus_whitespace_only.txt:", "only whitespace"]),
    "whitespace-only corpus, BPE": (["corpus_whitespace_only.txt", "--algorithm", "bpe"],
                                    ["corpus_whitespace_only.txt:", "only whitespace"]),
    "whitespace-only corpus, chars": (["corpus_whitespace_only.txt", "--units", "chars"],
                                      ["corpus_whitespace_only.txt:", "only whitespace"]),
}


@pytest.mark.parametrize("case", TRAIN_CASES)
def test_bad_training_file(case, tmp_path, capsys):
    args, expected = TRAIN_CASES[case]
    out_parent = tmp_path / "out"
    out_parent.mkdir()
    argv = ["train", BAD / args[0], *args[1:], "-k", "5", "-o", out_parent / "tok", "--quiet"]
    err = run(argv, capsys)
    for text in expected:
        assert text in err
    assert_nothing_written(out_parent)


PARQUET_CASES = {
    "not parquet at all": ("counts_not_parquet.parquet", ["counts_not_parquet.parquet: not a parquet file"]),
    "no count column": ("counts_parquet_no_count_column.parquet",
                        ["counts_parquet_no_count_column.parquet: not a count table", "no column 'count'"]),
    "count as text": ("counts_parquet_count_as_text.parquet",
                      ["counts_parquet_count_as_text.parquet: not a count table", "column 'count' is string",
                       "integer"]),
    "null word": ("counts_parquet_null_word.parquet", ["counts_parquet_null_word.parquet, row 3: word is null"]),
    "zero count": ("counts_parquet_zero_count.parquet", ["counts_parquet_zero_count.parquet, row 2: count 0",
                                                         ">= 1"]),
    "empty word": ("counts_parquet_empty_word.parquet", ["counts_parquet_empty_word.parquet, row 2: empty word"]),
    "NUL in word": ("counts_parquet_nul_in_word.parquet", ["counts_parquet_nul_in_word.parquet, row 2: NUL"]),
    "word listed twice": ("counts_parquet_duplicate_word.parquet",
                          ["counts_parquet_duplicate_word.parquet, row 4:", "'the'", "first on row 1"]),
}


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("case", PARQUET_CASES)
def test_bad_parquet_count_table(case, command, trained, tmp_path, capsys):
    """Issue 29 item 5: a parquet table is read with the checks of a TSV one, errors naming the row."""
    pytest.importorskip("pyarrow")
    name, expected = PARQUET_CASES[case]
    out_parent = tmp_path / "out"
    out_parent.mkdir()
    if command == "train":
        argv = ["train", BAD / name, "--counts", "-k", "5", "-o", out_parent / "tok", "--quiet"]
    else:
        argv = ["evaluate", trained["greedtok"], BAD / name, "--counts", "--quiet"]
    err = run(argv, capsys)
    for text in expected:
        assert text in err
    assert_nothing_written(out_parent)


def test_parquet_table_without_pyarrow_says_what_to_install(tmp_path, capsys, monkeypatch):
    for module in ("pyarrow", "pyarrow.parquet", "pyarrow.compute"):
        monkeypatch.setitem(sys.modules, module, None)      # import pyarrow now raises ImportError
    table = tmp_path / "counts.parquet"
    table.write_bytes((BAD / "counts_parquet_duplicate_word.parquet").read_bytes())
    err = run(["train", table, "--counts", "-k", "5", "-o", tmp_path / "out" / "tok", "--quiet"], capsys)
    assert "counts.parquet" in err and "pyarrow" in err and "pip install 'hf-greedtok[ray]'" in err
    assert not (tmp_path / "out").exists()


def test_latin1_candidates_file_names_file_and_line(small_corpus, tmp_path, capsys):
    out = tmp_path / "out" / "tok"
    err = run(["train", small_corpus, "-k", "5", "-o", out, "--quiet", "--candidates",
               BAD / "candidates_latin1.txt"], capsys)
    assert "candidates_latin1.txt, line 3: invalid UTF-8 (byte 0xe9" in err
    assert not out.parent.exists()


def test_empty_lookup_file(small_corpus, tmp_path, capsys):
    out = tmp_path / "out" / "tok"
    err = run(["train", small_corpus, "-k", "5", "-o", out, "--quiet", "--units", "chars",
               "--lookup", BAD / "lookup_empty.tsv"], capsys)
    assert "lookup_empty.tsv: no usable entries" in err
    assert not out.parent.exists()


# (a directory is an input: its files are read; tests/formats/test_input_layer.py)
@pytest.mark.parametrize("corpus, kind", [(Path("/dev/null"), "is a character device")])
def test_corpus_that_is_not_a_file_says_what_it_is(corpus, kind, tmp_path, capsys):
    if not corpus.exists():
        pytest.skip(f"{corpus} does not exist here")
    err = run(["train", corpus, "-k", "5", "-o", tmp_path / "tok", "--quiet"], capsys)
    assert f"{corpus}: {kind}" in err and "no such file" not in err
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_num_proc_must_be_a_positive_integer(value, small_corpus, tmp_path, capsys):
    err = run(["train", small_corpus, "-k", "5", "-o", tmp_path / "out", "--num-proc", value, "--quiet"], capsys)
    assert "--num-proc" in err
    assert not (tmp_path / "out").exists()


def test_output_under_a_file_names_the_output(small_corpus, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker / "sub" / "tok"
    err = run(["train", small_corpus, "-k", "5", "-o", out, "--quiet"], capsys)
    assert f"--output {out}" in err and "is not a folder" in err
    assert blocker.read_text() == "not a folder"


def test_output_in_an_unwritable_place_names_the_output_not_a_temporary_path(small_corpus, capsys):
    # /proc refuses new folders even to root, for whom permission bits do not count.
    out = Path("/proc/hf-greedtok-test-output")
    if not Path("/proc/self").exists():
        pytest.skip("no /proc")
    err = run(["train", small_corpus, "-k", "5", "-o", out, "--quiet"], capsys)
    assert f"--output {out}: cannot be created" in err
    assert ".new-" not in err and f".{out.name}." not in err


def test_counts_table_with_a_byte_order_mark_drops_it(tmp_path, capsys):
    """Chosen policy: a BOM opening a table is an encoding signature, not part of the first word."""
    out = tmp_path / "tok"
    assert main(["train", str(BAD / "counts_bom.tsv"), "--counts", "-k", "2", "-o", str(out), "--quiet"]) == 0
    ranked = json.loads((out / "greedtok.json").read_text(encoding="utf-8"))["model"]["ranked_tokens"]
    assert "Ġthe" in ranked                      # the first word, read as " the"
    assert not any("\ufeff" in t or "ï»¿" in t for t in ranked)


# ---------------------------------------------------------------------- damaged folders

def test_greedtok_json_with_an_invalid_regex_names_file_and_pattern(capsys):
    err = run(["encode", BAD / "greedtok_bad_regex", "the cat"], capsys)
    assert "greedtok_bad_regex/greedtok.json: invalid split pattern" in err and "(unclosed" in err


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict[str, Path]:
    """GreedTok, BPE and BPE-with-lookup folders written by `train` on the same small corpus."""
    root = tmp_path_factory.mktemp("trained")
    corpus = root / "small.txt"
    corpus.write_text(SMALL_TEXT, encoding="utf-8")
    lookup = root / "lookup.tsv"
    lookup.write_text("sat\ts|at\n", encoding="utf-8")
    options = {"greedtok": [], "bpe": ["--algorithm", "bpe"],
               "lookup": ["--algorithm", "bpe", "--units", "chars", "--lookup", str(lookup)]}
    folders = {}
    for name, extra in options.items():
        folders[name] = root / name
        assert main(["train", str(corpus), "-k", "10", "-o", str(folders[name]), "--quiet", *extra]) == 0
    return folders


def damaged(trained, algorithm, tmp_path, *, keep_manifest: bool) -> Path:
    folder = tmp_path / f"{algorithm}-damaged"
    shutil.copytree(trained[algorithm], folder)
    if not keep_manifest:        # as saved before manifests existed
        (folder / MANIFEST_NAME).unlink(missing_ok=True)
    return folder


@pytest.mark.parametrize("command", ["encode", "evaluate"])
@pytest.mark.parametrize("algorithm", ["greedtok", "bpe"])
@pytest.mark.parametrize("keep_manifest", [True, False])
def test_truncated_tokenizer_json_names_the_file(command, algorithm, keep_manifest, trained, tmp_path, capsys):
    folder = damaged(trained, algorithm, tmp_path, keep_manifest=keep_manifest)
    text = (folder / "tokenizer.json").read_text(encoding="utf-8")
    (folder / "tokenizer.json").write_text(text[:len(text) // 2], encoding="utf-8")
    argv = [command, folder, "the cat"] if command == "encode" else [command, folder, EXAMPLE_TEXT, "--quiet"]
    err = run(argv, capsys)
    assert f"{folder / 'tokenizer.json'}: not valid JSON" in err and "truncated" in err


@pytest.mark.parametrize("command", ["encode", "evaluate"])
@pytest.mark.parametrize("algorithm", ["greedtok", "bpe"])
@pytest.mark.parametrize("keep_manifest", [True, False])
def test_missing_tokenizer_json_is_reported_as_missing(command, algorithm, keep_manifest, trained, tmp_path, capsys):
    folder = damaged(trained, algorithm, tmp_path, keep_manifest=keep_manifest)
    (folder / "tokenizer.json").unlink()
    argv = [command, folder, "the cat"] if command == "encode" else [command, folder, EXAMPLE_TEXT, "--quiet"]
    err = run(argv, capsys)
    assert f"{folder / 'tokenizer.json'}: " in err and ("missing" in err or "no such file" in err)
    assert "does not match" not in err


@pytest.mark.parametrize("command", ["encode", "evaluate"])
@pytest.mark.parametrize("keep_manifest", [True, False])
def test_missing_tokenizer_config_is_an_error_not_a_plain_tokenizer(command, keep_manifest, trained, tmp_path, capsys):
    """Issue 12 item 7: without tokenizer_config.json, AutoTokenizer would load tokenizer.json
    alone as a plain Unigram (other ids) and evaluate would drop the GreedTok metrics."""
    folder = damaged(trained, "greedtok", tmp_path, keep_manifest=keep_manifest)
    (folder / "tokenizer_config.json").unlink()
    argv = [command, folder, "the cat"] if command == "encode" else [command, folder, EXAMPLE_TEXT, "--quiet"]
    err = run(argv, capsys)
    assert f"{folder / 'tokenizer_config.json'}: " in err


@pytest.mark.parametrize("command", ["encode", "evaluate"])
@pytest.mark.parametrize("algorithm, name", [("greedtok", "greedtok.json"), ("lookup", "morph_lookup.tsv")])
def test_missing_model_file_is_named(command, algorithm, name, trained, tmp_path, capsys):
    folder = damaged(trained, algorithm, tmp_path, keep_manifest=False)
    (folder / name).unlink()
    argv = [command, folder, "the cat"] if command == "encode" else [command, folder, EXAMPLE_TEXT, "--quiet"]
    err = run(argv, capsys)
    assert f"{folder / name}: no such file" in err


def test_files_from_two_saves_do_not_load_together(trained, tmp_path, capsys):
    """A greedtok.json from another training beside this tokenizer.json: the manifest names it."""
    folder = damaged(trained, "greedtok", tmp_path, keep_manifest=True)
    other = tmp_path / "other"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "10", "-o", str(other), "--quiet"]) == 0
    capsys.readouterr()
    shutil.copy(other / "greedtok.json", folder / "greedtok.json")
    err = run(["encode", folder, "the cat"], capsys)
    assert f"{folder / 'greedtok.json'}: changed since the folder was saved" in err


# ---------------------------------------------------------------------- through a real process

@pytest.mark.parametrize("argv, expected", [
    (["train", str(BAD / "counts_invalid_utf8_line5001.tsv"), "--counts", "-k", "5", "--quiet"],
     "counts_invalid_utf8_line5001.tsv, line 5001: invalid UTF-8"),
    (["encode", str(BAD / "greedtok_bad_regex"), "the cat"], "invalid split pattern"),
])
def test_console_errors_are_one_line_without_traceback(argv, expected, tmp_path):
    if argv[0] == "train":
        argv = argv + ["-o", str(tmp_path / "out")]
    result = subprocess.run([sys.executable, "-m", "hf_greedtok.cli", *argv], capture_output=True, text=True,
                            cwd=tmp_path, env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"})
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_table_count_past_int64_names_its_table_and_line(tmp_path, capsys):
    table = tmp_path / "t.tsv"
    table.write_text("the\t5\nof the\t99999999999999999999999\n", encoding="utf-8")
    err = run(["train", table, "--counts", "-k", "5", "-o", tmp_path / "tok", "--quiet"], capsys)
    assert err.startswith(f"hf-greedtok train: error: {table}, line 2: word ' of' has count 99999999999999999999999, "
                          "above 2**63-1")
    more = tmp_path / "u.tsv"
    more.write_text(f"the\t{2**63 - 10}\n", encoding="utf-8")
    err = run(["train", tmp_path / "t.tsv", more, "--counts", "-k", "5", "-o", tmp_path / "tok", "--quiet"], capsys)
    assert f"{table}, line 2:" in err        # the first entry past the bound, here the same line


@pytest.mark.parametrize("argv, message", [
    (["count", "{text}", "-o", "{tmp}/t.csv"], "--output {tmp}/t.csv: a count table is .tsv"),
    (["count", "{empty}", "-o", "{tmp}/t.tsv"], "{empty}: empty corpus"),
    (["train", "{text}", "-k", "5", "--no-prefix-space", "-o", "{tmp}/tok"], "--no-prefix-space says how count-table"),
    (["evaluate", "{tmp}", "{text}", "--no-prefix-space"], "--no-prefix-space says how count-table"),
])
def test_options_that_would_pass_silently_are_refused(argv, message, small_corpus, tmp_path, capsys):
    empty = small_corpus.parent / "empty.txt"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    names = {"text": small_corpus, "empty": empty, "tmp": out}
    err = run([a.format(**names) for a in argv + ["--quiet"]], capsys)
    assert message.format(**names) in err
    assert list(out.iterdir()) == []
