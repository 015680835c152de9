"""hf_greedtok.hf.folder.TokenizerFolder: a tokenizer folder is opened once — its files checked,
its manifest verified and its config read once — and whatever encodes with it reads it from there."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from corpora import EXAMPLE_TEXT

import hf_greedtok.formats.folder_files as folder_module
import hf_greedtok.formats.greedtok_json as greedtok_json
from hf_greedtok import GreedTokTrainer, Tokenizer
from hf_greedtok.errors import GreedTokFileError
from hf_greedtok.hf.folder import TokenizerFolder, save_greedtok_folder
from hf_greedtok.hf.folder_encoder import FolderEncoder, load_folder_tokenizer
from hf_greedtok.hf.tokenize_local import tokenize_local

DOCS = ["The cynic is a blackguard.\n", "BORE, n. A person who talks when you wish him to listen.\n"]


@pytest.fixture(scope="module")
def trained() -> Tokenizer:
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:2000]
    return GreedTokTrainer(k=300, special_tokens=["<s>"], show_progress=False).train_from_iterator(lines, num_proc=1)


@pytest.fixture
def calls(monkeypatch) -> dict:
    """How often the folder's manifest is verified, a JSON file of it read and a ranked token
    file loaded."""
    seen = {"verify_manifest": [], "read_folder_json": [], "load": []}

    def counted(module, name):
        original = getattr(module, name)

        def wrapper(path, *args, **kwargs):
            seen[name].append(getattr(path, "name", str(path)))
            return original(path, *args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)
    counted(folder_module, "verify_manifest")
    counted(folder_module, "read_folder_json")
    counted(greedtok_json, "load")
    return seen


@pytest.mark.parametrize("save", ["save_pretrained", "Tokenizer.save"])
def test_tokenize_opens_the_folder_once(trained, tmp_path, calls, save):
    folder = tmp_path / "tok"
    if save == "Tokenizer.save":
        trained.save(folder)
    else:
        save_greedtok_folder(trained, folder, mode="optimal")
    inputs = tmp_path / "docs.txt"
    inputs.write_text("".join(DOCS), encoding="utf-8")

    tokenize_local(inputs, folder, tmp_path / "out")

    if save == "Tokenizer.save":         # Tokenizer.load checks that folder's manifest itself
        assert calls == {"verify_manifest": [], "read_folder_json": [], "load": ["tok"]}
    else:
        assert calls == {"verify_manifest": ["tok"], "read_folder_json": ["tokenizer_config.json", "tokenizer.json"],
                         "load": ["greedtok.json"]}
    ids = pq.read_table(tmp_path / "out").column("input_ids").to_pylist()
    assert ids == load_folder_tokenizer(folder)(DOCS)["input_ids"]


def test_an_opened_folder_says_what_it_is(trained, tmp_path):
    save_greedtok_folder(trained, tmp_path / "tok", mode="cover")
    folder = TokenizerFolder.open(tmp_path / "tok")
    assert (folder.is_greedtok, folder.tokenizer_class, folder.mode) == (True, "GreedTokTokenizer", "cover")
    assert folder.greedtok() is folder.greedtok()
    tok, mode, backend = folder.greedtok_backend()
    assert (mode, backend.encode("The cynic").ids) == ("cover", tok.encode("The cynic", mode="cover"))
    assert folder.greedtok_backend("optimal")[1] == "optimal"
    with pytest.raises(ValueError, match="mode: mode must be 'cover' or 'optimal', got 'fast'"):
        folder.greedtok_backend("fast")
    assert FolderEncoder(folder).encode_table(DOCS).equals(FolderEncoder(tmp_path / "tok").encode_table(DOCS))


def test_a_folder_changed_since_it_was_saved_does_not_open(trained, tmp_path):
    save_greedtok_folder(trained, tmp_path / "tok")
    saved = tmp_path / "tok" / "tokenizer.json"
    saved.write_text(saved.read_text(encoding="utf-8") + " ", encoding="utf-8")     # still valid JSON
    with pytest.raises(GreedTokFileError, match="tokenizer.json: changed since the folder was saved"):
        TokenizerFolder.open(tmp_path / "tok")
