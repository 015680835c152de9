"""Output folders of the command: never delete the user's data, replace only our own folders,
read back every folder `train` writes, and write the same bytes for the same run."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, corpus

from hf_greedtok import Tokenizer
from hf_greedtok.cli import main
from hf_greedtok.formats.manifest import MANIFEST_NAME

TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 20


@pytest.fixture()
def workdir(tmp_path, monkeypatch) -> Path:
    """A working directory holding a corpus and a user's file, as the issue's session had."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "corpus.txt").write_text(TEXT, encoding="utf-8")
    (work / "notes.md").write_text("my notes", encoding="utf-8")
    monkeypatch.chdir(work)
    return work


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


COMMANDS = {
    "train": lambda inputs, out: ["train", *inputs, "-k", "5", "-o", out, "--overwrite", "--quiet"],
    "compare": lambda inputs, out: ["compare", *inputs, "-k", "5", "-o", out, "--overwrite", "--quiet",
                                    "--no-plots"],
    "hierarchical": lambda inputs, out: ["hierarchical", *inputs, "-k", "5", "-o", out, "--overwrite", "--quiet"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("output", [".", "..", "sub/..", "data", "data/other.txt"])
def test_output_that_would_delete_the_working_directory_or_an_input_is_refused(command, output, workdir, capsys):
    """Issue 12 item 1: `train corpus.txt -o . --overwrite` removed the working directory."""
    (workdir / "sub").mkdir()
    (workdir / "data").mkdir()
    shutil.copy(workdir / "corpus.txt", workdir / "data" / "other.txt")
    inputs = ["data/other.txt", "corpus.txt"]
    before = snapshot(workdir.parent)
    assert main(COMMANDS[command](inputs, output)) == 2
    err = capsys.readouterr().err
    assert f"--output {output}:" in err and ("working directory" in err or "input" in err)
    assert snapshot(workdir.parent) == before
    assert sorted(p.name for p in workdir.iterdir()) == ["corpus.txt", "data", "notes.md", "sub"]


def test_output_through_a_symlink_to_the_input_folder_is_refused(workdir, capsys):
    (workdir / "data").mkdir()
    shutil.move(workdir / "corpus.txt", workdir / "data" / "corpus.txt")
    (workdir / "link").symlink_to(workdir / "data", target_is_directory=True)
    assert main(COMMANDS["train"](["data/corpus.txt"], "link")) == 2
    assert "contains the input data/corpus.txt" in capsys.readouterr().err
    assert (workdir / "data" / "corpus.txt").read_text(encoding="utf-8") == TEXT


def test_lookup_and_candidates_are_inputs_too(workdir, capsys):
    (workdir / "tables").mkdir()
    (workdir / "tables" / "cands.txt").write_text("the\ncat\n", encoding="utf-8")
    argv = COMMANDS["train"](["corpus.txt"], "tables") + ["--candidates", "tables/cands.txt"]
    assert main(argv) == 2
    assert "contains the input tables/cands.txt" in capsys.readouterr().err
    assert (workdir / "tables" / "cands.txt").exists()


def test_overwrite_refuses_a_folder_with_files_we_did_not_write(workdir, capsys):
    out = workdir / "tok"
    assert main(COMMANDS["train"](["corpus.txt"], "tok")) == 0
    (out / "my-weights.bin").write_bytes(b"\0" * 10)
    before = snapshot(out)
    assert main(COMMANDS["train"](["corpus.txt"], "tok")) == 2
    assert "'my-weights.bin', which hf-greedtok did not write" in capsys.readouterr().err
    assert snapshot(out) == before


def test_overwrite_refuses_a_regular_file(workdir, capsys):
    assert main(COMMANDS["train"](["corpus.txt"], "notes.md")) == 2
    assert "notes.md: is a file" in capsys.readouterr().err
    assert (workdir / "notes.md").read_text(encoding="utf-8") == "my notes"


def test_overwrite_replaces_our_folder_and_leaves_nothing_beside_it(workdir, capsys):
    out = workdir / "tok"
    assert main(COMMANDS["train"](["corpus.txt"], "tok")) == 0
    first = Tokenizer.load(out).model.ranked_tokens
    assert main(["train", "corpus.txt", "-k", "8", "-o", "tok", "--overwrite", "--quiet"]) == 0
    assert len(Tokenizer.load(out).model.ranked_tokens) == 8 != len(first)
    assert sorted(p.name for p in workdir.iterdir()) == ["corpus.txt", "notes.md", "tok"]


def test_overwrite_replaces_a_folder_saved_before_manifests(workdir):
    """Legacy folders (no manifest) are ours if they hold only the file names we write."""
    out = workdir / "tok"
    assert main(COMMANDS["train"](["corpus.txt"], "tok")) == 0
    (out / MANIFEST_NAME).unlink(missing_ok=True)
    assert main(["train", "corpus.txt", "-k", "8", "-o", "tok", "--overwrite", "--quiet"]) == 0
    assert len(Tokenizer.load(out).model.ranked_tokens) == 8


# ---------------------------------------------------------------------- every folder `train` writes

FOLDER_KINDS = {
    "greedtok bytes": ["-k", "40"],
    "greedtok marks": ["-k", "40", "--units", "marks"],
    "bpe": ["-k", "40", "--algorithm", "bpe"],
    "bpe chars": ["-k", "40", "--algorithm", "bpe", "--units", "chars"],
    "cbpe": ["-k", "40", "--algorithm", "cbpe"],
    "cbpe with lookup": ["-k", "40", "--algorithm", "cbpe", "--lookup", "LOOKUP"],
}


@pytest.fixture(scope="module")
def hindi(tmp_path_factory) -> tuple[Path, Path]:
    """The first 400 lines of a real Hindi novel and 300 rows of a real segmentation table."""
    root = tmp_path_factory.mktemp("hindi")
    text = root / "hi.txt"
    lines = corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    text.write_text("".join(lines[:400]), encoding="utf-8")
    lookup = root / "lookup.tsv"
    rows = corpus("hi_morph_segments.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    lookup.write_text("".join(rows[:300]), encoding="utf-8")
    return text, lookup


@pytest.mark.parametrize("kind", FOLDER_KINDS)
def test_encode_and_evaluate_read_every_folder_train_writes(kind, hindi, tmp_path, capsys):
    """Issue 12 item 12: encode said "greedtok.json: no such file" for BPE and CBPE folders."""
    text, lookup = hindi
    out = tmp_path / "tok"
    options = [str(lookup) if o == "LOOKUP" else o for o in FOLDER_KINDS[kind]]
    assert main(["train", str(text), "-o", str(out), "--quiet", *options]) == 0
    capsys.readouterr()
    sample = "देवदास ने कहा — hello, 東京!"
    assert main(["encode", str(out), sample]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["decoded"] == sample and shown["round_trip"]
    assert len(shown["tokens"]) == len(shown["ids"]) > 0
    assert main(["evaluate", str(out), str(text), "--json", "--quiet"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["fertility"] > 1
    assert ("tokens_per_word" in metrics) == kind.startswith("greedtok")


def test_encode_mode_is_refused_for_bpe_folders(hindi, tmp_path, capsys):
    out = tmp_path / "bpe"
    assert main(["train", str(hindi[0]), "-k", "20", "--algorithm", "bpe", "-o", str(out), "--quiet"]) == 0
    assert main(["encode", str(out), "x", "--mode", "optimal"]) == 2
    assert "--mode" in capsys.readouterr().err


def test_encode_and_evaluate_read_a_tokenizer_save_folder(tmp_path, capsys):
    folder = tmp_path / "saved"
    from hf_greedtok import GreedTokTrainer
    GreedTokTrainer(k=30, show_progress=False).train([EXAMPLE_TEXT]).save(folder)
    assert main(["encode", str(folder), "The cynic"]) == 0
    assert json.loads(capsys.readouterr().out)["round_trip"]
    assert main(["evaluate", str(folder), str(EXAMPLE_TEXT), "--json", "--quiet"]) == 0
    assert "tokens_per_word" in json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------- same run, same bytes

@pytest.mark.parametrize("options", [[], ["--algorithm", "bpe"], ["--units", "chars", "--mode", "optimal"]])
def test_two_identical_runs_write_byte_identical_folders(options, tmp_path, capsys):
    """Issue 12 item 13: greedtok.json held the training's wall time."""
    folders = []
    for run in ("a", "b"):
        out = tmp_path / run
        assert main(["train", str(EXAMPLE_TEXT), "-k", "200", "-o", str(out), "--quiet", *options]) == 0
        folders.append(snapshot(out))
    assert folders[0] == folders[1]
    assert MANIFEST_NAME in folders[0] and "tokenizer_config.json" in folders[0]


def test_parallel_counting_gives_the_serial_counter_in_the_same_order(monkeypatch):
    """Worker results are merged in input order, whatever order the workers finish in, so the
    word order (which feeds training) does not depend on scheduling."""
    from hf_greedtok import ByteLevel, count_words_in_files
    from hf_greedtok import word_counts
    from hf_greedtok.formats import sources
    monkeypatch.setattr(word_counts, "_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(sources, "CHUNK_BYTES", 2048)      # ~190 chunks of the example text
    serial = count_words_in_files([EXAMPLE_TEXT], ByteLevel(), num_proc=1, show_progress=False)
    for _ in range(3):
        parallel = count_words_in_files([EXAMPLE_TEXT], ByteLevel(), num_proc=2, show_progress=False)
        assert list(parallel.items()) == list(serial.items())


def test_hierarchical_tokenizer_folder_has_its_own_manifest(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(EXAMPLE_TEXT.read_text(encoding="utf-8")[:20000], encoding="utf-8")
    out = tmp_path / "h"
    assert main(["hierarchical", str(a), str(b), "-k", "20", "-o", str(out), "--quiet"]) == 0
    listed = json.loads((out / "tokenizer" / MANIFEST_NAME).read_text())["files"]
    assert {"greedtok.json", "tokenizer.json", "tokenizer_config.json"} <= set(listed)
    assert Tokenizer.load(out / "tokenizer").vocab_size > 256
    os.remove(out / "tokenizer" / "tokenizer.json")
    with pytest.raises(ValueError, match="tokenizer.json: missing"):
        Tokenizer.load(out / "tokenizer")
