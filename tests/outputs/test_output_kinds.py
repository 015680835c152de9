"""Issue 29: `--overwrite` replaces only a folder of the command's own kind, as its manifest says.

Every command's folder records its kind (tokenizer, dataset, compare, tsr, hierarchical); a
tokenized dataset is never replaced by `train`, nor a tokenizer by `tokenize`, and the report
commands replace their own reports, plots included. Folders written before manifests existed
are recognised by the names their command wrote.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from corpora import CORPORA, EXAMPLE_TEXT, REPO, VOCAB

from hf_greedtok import GreedTokFileError, GreedTokTokenizerFast, GreedTokTrainer, Tokenizer
from hf_greedtok.cli import main
from hf_greedtok.errors import OutputError
from hf_greedtok.formats.manifest import (DATASET_MANIFEST_NAME, KINDS, MANIFEST_NAME, read_folder_manifest,
                                          write_manifest)
from hf_greedtok.output_folders import DESCRIPTIONS, check_replaceable, folder_kind, write_folder

BAD = REPO / "tests" / "data" / "bad"
SAVED_BEFORE_LAYOUT = REPO / "tests" / "data" / "saved_before_layout"
TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 20


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(argv, capsys) -> str:
    """Run the command in-process; it must exit 2 with one line and no traceback. Returns the line."""
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture()
def work(tmp_path, monkeypatch) -> Path:
    (tmp_path / "small.txt").write_text(TEXT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def train(out: Path, k: int = 20) -> None:
    assert main(["train", str(EXAMPLE_TEXT), "-k", str(k), "-o", str(out), "--quiet"]) == 0


def tokenize(tokenizer: Path, out: Path, *extra: str) -> int:
    return main(["tokenize", str(tokenizer), "small.txt", "-o", str(out), "--quiet", *extra])


# ---------------------------------------------------------------------- finding 1: tokenize vs train

def test_tokenize_refuses_to_replace_a_tokenizer_folder(work, capsys):
    """`tokenize TOK INPUT -o TRAINED --overwrite` exited 0 and replaced the tokenizer with parquet."""
    train(work / "tok")
    train(work / "trained", k=30)
    before = snapshot(work / "trained")
    err = refused(["tokenize", "tok", "small.txt", "-o", "trained", "--overwrite", "--quiet"], capsys)
    assert "--output trained: is a tokenizer folder" in err
    assert "replaces only a tokenized dataset written by `hf-greedtok tokenize`" in err
    assert snapshot(work / "trained") == before
    assert sorted(p.name for p in work.iterdir()) == ["small.txt", "tok", "trained"]


def test_train_refuses_a_dataset_folder_with_a_true_reason(work, capsys):
    """It was refused as holding "'_hf_greedtok_manifest.json', which hf-greedtok did not write"."""
    train(work / "tok")
    assert tokenize(work / "tok", work / "ids") == 0
    before = snapshot(work / "ids")
    err = refused(["train", "small.txt", "-k", "3", "-o", "ids", "--overwrite", "--quiet"], capsys)
    assert "--output ids: is a tokenized dataset written by `hf-greedtok tokenize`" in err
    assert "replaces only a tokenizer folder" in err and "did not write" not in err
    assert snapshot(work / "ids") == before


def test_tokenize_and_train_still_replace_their_own_folders(work, capsys):
    train(work / "tok")
    assert tokenize(work / "tok", work / "ids") == 0
    assert tokenize(work / "tok", work / "ids", "--overwrite", "--attention-mask") == 0
    import pyarrow.parquet as pq
    assert pq.read_table(work / "ids").column_names == ["input_ids", "attention_mask"]
    assert read_folder_manifest(work / "ids", DATASET_MANIFEST_NAME).kind == "dataset"
    assert main(["train", "small.txt", "-k", "3", "-o", "tok", "--overwrite", "--quiet"]) == 0
    assert len(Tokenizer.load(work / "tok").model.ranked_tokens) == 3


# ---------------------------------------------------------------------- finding 2: reports replace their own

@pytest.fixture(scope="module")
def parallel_sample(tmp_path_factory) -> Path:
    """Two languages and English of the parallel corpus (as tests/experiments/test_tsr.py)."""
    pytest.importorskip("tiktoken")
    source = CORPORA / "multi_isocodes_parallel.tsv"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path_factory.mktemp("tsr") / "sample.tsv"
    path.write_text(lines[0] + "".join(l for l in lines[1:] if l.split("\t", 1)[0] in ("fr", "ta")),
                    encoding="utf-8")
    return path


def tsr_argv(sample: Path, out: Path, *extra: str) -> list[str]:
    return ["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--parallel", str(sample), "-o", str(out),
            "--min-strings", "10", "--quiet", *extra]


def test_tsr_overwrite_replaces_its_own_report_with_plots(parallel_sample, tmp_path, capsys):
    """It was refused: "holds 'tax_cl100k_base.png', which hf-greedtok did not write"."""
    out = tmp_path / "report"
    assert main(tsr_argv(parallel_sample, out)) == 0
    assert (out / "tax_cl100k_base.png").is_file() and (out / "tsr_cl100k_base.png").is_file()
    manifest = read_folder_manifest(out)
    assert manifest.kind == "tsr" and {"tax_cl100k_base.png", "report.json"} <= set(manifest.files)
    assert main(tsr_argv(parallel_sample, out, "--overwrite", "--no-plots")) == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_NAME, "report.json", "report.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_compare_overwrite_replaces_its_own_report_with_plots(work, capsys):
    """heldout.png was not among the known names: compare refused its own held-out report."""
    argv = ["compare", "small.txt", "-k", "3", "5", "-o", "cmp", "--quiet", "--holdout-fraction", "0.2",
            "--no-sentencepiece"]
    assert main(argv) == 0
    assert {"heldout.png", "tokens_per_word.png", "d_inst.png"} <= {p.name for p in (work / "cmp").iterdir()}
    assert read_folder_manifest(work / "cmp").kind == "compare"
    assert main(argv[:5] + ["-o", "cmp", "--quiet", "--no-plots", "--overwrite"]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in (work / "cmp").iterdir()) == [MANIFEST_NAME, "report.json", "report.md"]
    assert json.loads((work / "cmp" / "report.json").read_text())["settings"]["k_max"] == 5


def test_hierarchical_overwrite_replaces_its_own_folder(work):
    (work / "b.txt").write_text(EXAMPLE_TEXT.read_text(encoding="utf-8")[:20000], encoding="utf-8")
    argv = ["hierarchical", "small.txt", "b.txt", "-k", "10", "-o", "h", "--quiet"]
    assert main(argv) == 0
    listed = read_folder_manifest(work / "h")
    assert listed.kind == "hierarchical" and f"tokenizer/{MANIFEST_NAME}" in listed.files
    assert read_folder_manifest(work / "h" / "tokenizer").kind == "tokenizer"
    assert main(argv[:3] + ["-k", "20", "-o", "h", "--quiet", "--overwrite"]) == 0
    assert json.loads((work / "h" / "report.json").read_text())["summary"]["k"] == 20


# ---------------------------------------------------------------------- every kind against every other

def written(tmp_path: Path, kind: str) -> Path:
    """A folder of ``kind`` as write_folder writes it (the manifest every command's folder ends with)."""
    out = tmp_path / kind
    write_folder(out, lambda folder: (folder / "report.md").write_text(kind), kind=kind)
    return out


@pytest.mark.parametrize("expected", KINDS)
@pytest.mark.parametrize("found", KINDS)
def test_each_kind_replaces_only_its_own_kind(found, expected, tmp_path):
    out = written(tmp_path, found)
    if found == expected:
        check_replaceable(out, expected)
        write_folder(out, lambda folder: (folder / "report.md").write_text("new"), kind=expected, overwrite=True)
        assert (out / "report.md").read_text() == "new"
        return
    before = snapshot(out)
    with pytest.raises(OutputError) as err:
        write_folder(out, lambda folder: None, kind=expected, overwrite=True)
    message = str(err.value)
    assert message == (f"--output {out}: is {DESCRIPTIONS[found]}; this --overwrite replaces only "
                       f"{DESCRIPTIONS[expected]}: not replacing it (choose another --output)")
    assert "\n" not in message
    assert snapshot(out) == before and sorted(p.name for p in tmp_path.iterdir()) == [found]


def test_every_save_records_its_kind(tmp_path):
    tok = GreedTokTrainer(k=10, show_progress=False).train_from_iterator(TEXT.splitlines(), num_proc=1)
    tok.save(tmp_path / "saved")
    GreedTokTokenizerFast.from_greedtok(tok).save_pretrained(tmp_path / "pretrained")
    for folder in ("saved", "pretrained"):
        data = json.loads((tmp_path / folder / MANIFEST_NAME).read_text())
        assert data["kind"] == "tokenizer" and data["version"] == 1
        check_replaceable(tmp_path / folder, "tokenizer")
    with pytest.raises(ValueError, match="unknown folder kind 'model'"):
        write_manifest(tmp_path / "saved", [], kind="model")


@pytest.mark.parametrize("name, kind", [(MANIFEST_NAME, "tokenizer"), (DATASET_MANIFEST_NAME, "dataset"),
                                        (f"small-{MANIFEST_NAME}", "tokenizer")])
def test_a_manifest_without_kind_is_its_names_kind(name, kind, tmp_path):
    """Version 1 manifests written before kinds existed stay readable."""
    (tmp_path / "a.bin").write_bytes(b"x")
    path = write_manifest(tmp_path, [tmp_path / "a.bin"], name)
    data = json.loads(path.read_text())
    assert data.pop("kind") == kind
    path.write_text(json.dumps(data))
    assert read_folder_manifest(tmp_path, name) == (kind, {"a.bin": data["files"]["a.bin"]})


# ---------------------------------------------------------------------- folders written before

def test_the_folder_saved_by_0_1_is_still_replaced_by_train_only(work, capsys):
    """tests/data/saved_before_layout: a manifest without "kind", named as a tokenizer's."""
    old = work / "old"
    shutil.copytree(SAVED_BEFORE_LAYOUT, old)
    before = snapshot(old)
    err = refused(["compare", "small.txt", "-k", "3", "-o", "old", "--overwrite", "--quiet", "--no-plots"], capsys)
    assert "is a tokenizer folder" in err and "a comparison report" in err
    assert snapshot(old) == before
    assert main(["train", "small.txt", "-k", "3", "-o", "old", "--overwrite", "--quiet"]) == 0
    assert len(Tokenizer.load(old).model.ranked_tokens) == 3
    assert json.loads((old / MANIFEST_NAME).read_text())["kind"] == "tokenizer"


@pytest.fixture(scope="module")
def legacy(tmp_path_factory) -> dict[str, Path]:
    """A folder of each command as written before manifests existed: the real command's folder
    with its top-level manifest removed."""
    root = tmp_path_factory.mktemp("legacy")
    (root / "a.txt").write_text(TEXT, encoding="utf-8")
    (root / "b.txt").write_text(EXAMPLE_TEXT.read_text(encoding="utf-8")[:20000], encoding="utf-8")
    runs = {
        "tokenizer": ["train", "a.txt", "-k", "10"],
        "compare": ["compare", "a.txt", "-k", "3"],
        "compare-no-plots": ["compare", "a.txt", "-k", "3", "--no-plots"],
        "hierarchical": ["hierarchical", "a.txt", "b.txt", "-k", "10"],
        "dataset": ["tokenize", "tokenizer", "a.txt"],
    }
    folders = {}
    for name, argv in runs.items():
        argv = [str(root / a) if a.endswith(".txt") or a == "tokenizer" else a for a in argv]
        assert main([*argv, "-o", str(root / name), "--quiet"]) == 0
        folders[name] = root / name
    for folder in folders.values():
        for manifest in (MANIFEST_NAME, DATASET_MANIFEST_NAME):
            (folder / manifest).unlink(missing_ok=True)
    return folders


@pytest.mark.parametrize("name, kind", [("tokenizer", "tokenizer"), ("compare", "compare"),
                                        ("compare-no-plots", "compare"), ("hierarchical", "hierarchical")])
def test_a_folder_written_before_manifests_is_replaced_only_by_its_command(name, kind, legacy, tmp_path):
    folder = tmp_path / name
    shutil.copytree(legacy[name], folder)
    assert folder_kind(folder) == kind
    for other in KINDS:
        if other != kind:
            with pytest.raises(OutputError, match=re.escape(f"is {DESCRIPTIONS[kind]}, saved before manifests "
                                                            f"existed; this --overwrite replaces only")):
                check_replaceable(folder, other)
    check_replaceable(folder, kind)


def test_a_tsr_report_written_before_manifests_is_tsrs(parallel_sample, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(tsr_argv(parallel_sample, out)) == 0
    (out / MANIFEST_NAME).unlink()
    assert folder_kind(out) == "tsr"
    with pytest.raises(OutputError, match="is a TSR report"):
        check_replaceable(out, "compare")
    assert main(tsr_argv(parallel_sample, out, "--overwrite", "--no-plots")) == 0, capsys.readouterr().err
    assert read_folder_manifest(out).kind == "tsr"


@pytest.mark.parametrize("files", [
    {"tokenizer.json": "{}"},                                   # no tokenizer_config.json nor greedtok.json
    {"report.md": "# notes"},                                   # no report.json: which command?
    {"report.md": "# r", "report.json": "{\"mine\": 1}"},       # a report.json none of ours wrote
    {"greedtok.json": "{}", "report.json": "{\"table3\": []}"},  # names of two commands mixed
    {},                                                         # empty: nothing says it is ours
])
def test_a_folder_without_manifest_that_no_command_wrote_is_refused(files, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for name, text in files.items():
        (out / name).write_text(text)
    assert folder_kind(out) is None
    for kind in KINDS:
        with pytest.raises(OutputError, match="has no hf-greedtok manifest and is not "):
            check_replaceable(out, kind)


def test_a_dataset_without_manifest_is_not_replaced(legacy, tmp_path):
    """Parquet files without a manifest: no command's known names; nothing says they are ours."""
    folder = tmp_path / "ids"
    shutil.copytree(legacy["dataset"], folder)
    with pytest.raises(OutputError, match="holds 'part-00000.parquet', which hf-greedtok did not write"):
        check_replaceable(folder, "dataset")


# ---------------------------------------------------------------------- bad manifests (tests/data/bad)

def test_a_manifest_kind_that_is_not_a_string_names_the_manifest(capsys):
    folder = BAD / "manifest_kind_not_a_string"
    err = refused(["encode", folder, "the cat"], capsys)
    assert f"{folder / MANIFEST_NAME}: invalid manifest: \"kind\" must be a non-empty string" in err
    with pytest.raises(GreedTokFileError, match="kind"):
        Tokenizer.load(folder)


def test_a_folder_of_an_unknown_kind_is_not_replaced(work, capsys):
    out = work / "vectors"
    shutil.copytree(BAD / "output_of_unknown_kind", out)
    before = snapshot(out)
    err = refused(["train", "small.txt", "-k", "3", "-o", "vectors", "--overwrite", "--quiet"], capsys)
    assert "is a folder of kind 'embeddings' (written by a newer hf-greedtok?)" in err
    assert snapshot(out) == before
