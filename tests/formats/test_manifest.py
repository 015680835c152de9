"""The folder manifest: loaders reject a folder whose files do not all belong together.

Every save writes ``hf_greedtok_manifest.json`` (sha256 of each file it wrote) last;
``Tokenizer.load``, ``GreedTokTokenizerFast``/``AutoTokenizer`` and the CLI check it. Folders
saved before the manifest existed still load, unchecked.
"""
from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from hf_greedtok import GreedTokFileError, GreedTokTokenizerFast, GreedTokTrainer, Tokenizer
from hf_greedtok.formats.manifest import MANIFEST_NAME, read_manifest

TEXTS = ["the cat sat on the mat", "the dog sat on the log"] * 5


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return GreedTokTrainer(k=20, show_progress=False).train_from_iterator(TEXTS, num_proc=1)


@pytest.fixture()
def pretrained(tok, tmp_path):
    folder = tmp_path / "hf"
    files = GreedTokTokenizerFast.from_greedtok(tok, pad_token="<pad>").save_pretrained(folder)
    return folder, files


def test_save_pretrained_lists_every_file_it_wrote(pretrained):
    folder, files = pretrained
    listed = read_manifest(folder)
    on_disk = {p.name for p in folder.iterdir()} - {MANIFEST_NAME}
    assert set(listed) == on_disk
    assert {"greedtok.json", "tokenizer.json", "tokenizer_config.json", "tokenization_greedtok.py"} <= on_disk


def test_tokenizer_save_lists_its_one_file(tok, tmp_path):
    tok.save(tmp_path)
    assert list(read_manifest(tmp_path)) == ["greedtok.json"]


@pytest.mark.parametrize("name", ["tokenizer.json", "tokenizer_config.json", "tokenization_greedtok.py"])
def test_a_missing_file_is_named_by_every_loader(name, pretrained):
    """A half-deleted folder (the old --overwrite crashed between rmtree and rename) loaded."""
    folder, _ = pretrained
    (folder / name).unlink()
    # the manifest does not guard the config users edit; the folder's reader names it missing
    problem = "no such file: the folder is incomplete" if name == "tokenizer_config.json" else "missing"
    with pytest.raises(GreedTokFileError, match=f"{name}: {problem}"):
        Tokenizer.load(folder)
    if name != "tokenizer_config.json":   # without it AutoTokenizer never reaches our class (item 7, HF side)
        with pytest.raises(GreedTokFileError, match=name):
            AutoTokenizer.from_pretrained(str(folder))


def test_a_config_edited_by_hand_loads_and_a_changed_tokenizer_json_is_named(pretrained):
    """The manifest lists tokenizer_config.json (so --overwrite knows it) but does not verify it:
    users edit its settings before a run."""
    folder, _ = pretrained
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["model_max_length"] = 7
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert "tokenizer_config.json" in read_manifest(folder)
    assert AutoTokenizer.from_pretrained(str(folder)).model_max_length == 7
    (folder / "tokenizer.json").write_text((folder / "tokenizer.json").read_text() + " ")
    with pytest.raises(GreedTokFileError, match="tokenizer.json: changed since the folder was saved"):
        AutoTokenizer.from_pretrained(str(folder))


def test_an_edited_training_section_is_detected(tok, tmp_path):
    """greedtok.json's own checksum covers only the model section; the manifest covers the file."""
    path = tok.save(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["mode"] = "optimal"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GreedTokFileError, match="greedtok.json: changed since the folder was saved"):
        Tokenizer.load(tmp_path)


def test_folders_saved_before_manifests_still_load(pretrained):
    folder, _ = pretrained
    (folder / MANIFEST_NAME).unlink(missing_ok=True)
    assert Tokenizer.load(folder).vocab_size > 256
    assert isinstance(AutoTokenizer.from_pretrained(str(folder)), GreedTokTokenizerFast)


def test_an_unreadable_manifest_is_an_error(pretrained):
    folder, _ = pretrained
    (folder / MANIFEST_NAME).write_text("{\"format\": \"hf-greedtok-manif")
    with pytest.raises(GreedTokFileError, match=f"{MANIFEST_NAME}: unreadable folder manifest"):
        Tokenizer.load(folder)


def test_a_manifest_cannot_point_outside_its_folder(pretrained):
    folder, _ = pretrained
    data = json.loads((folder / MANIFEST_NAME).read_text())
    data["files"]["../elsewhere.json"] = "0" * 64
    (folder / MANIFEST_NAME).write_text(json.dumps(data))
    with pytest.raises(GreedTokFileError, match="not a path inside the folder"):
        Tokenizer.load(folder)


def test_missing_tokenizer_json_without_a_manifest_is_reported_as_missing(pretrained):
    """transformers passes greedtok.json's own path as the vocabulary when tokenizer.json is
    missing; that was reported as a vocabulary mismatch of 16 tokens."""
    folder, _ = pretrained
    (folder / MANIFEST_NAME).unlink(missing_ok=True)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(GreedTokFileError, match="tokenizer.json: no such file") as err:
        AutoTokenizer.from_pretrained(str(folder))
    assert "does not match" not in str(err.value)


def test_filename_prefix_gets_its_own_manifest(tok, tmp_path):
    GreedTokTokenizerFast.from_greedtok(tok).save_pretrained(tmp_path, filename_prefix="small")
    listed = read_manifest(tmp_path, f"small-{MANIFEST_NAME}")
    assert "small-greedtok.json" in listed and "small-tokenizer.json" in listed
    (tmp_path / "small-tokenizer.json").unlink()
    with pytest.raises(GreedTokFileError, match="small-tokenizer.json: missing"):
        Tokenizer.load(tmp_path / "small-greedtok.json")
