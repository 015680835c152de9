"""One folder truth: every reader of a tokenizer folder (AutoTokenizer, ``hf-greedtok encode``,
evaluate's encoder, FolderEncoder, Tokenizer.load) opens it through the same function and so
gives the same ids, or the same refusal naming the file, whoever wrote the folder."""
from __future__ import annotations

import builtins
import json
import shlex
import shutil
import subprocess
import sys

import pytest
from corpora import EXAMPLE_TEXT, REPO
from transformers import AutoTokenizer

import hf_greedtok.formats.folder_files as folder_files
from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Tokenizer
from hf_greedtok.cli import main
from hf_greedtok.cli.evaluate import _load_backend as evaluate_encoder
from hf_greedtok.errors import GreedTokFileError
from hf_greedtok.formats.manifest import MANIFEST_NAME
from hf_greedtok.hf.folder import TokenizerFolder, save_greedtok_folder
from hf_greedtok.hf.folder_encoder import FolderEncoder

TEXT = "The Supreme Court, having passed a law, goes directly to its operation against himself."
LINES = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:1500]


def train(k: int, lines: list[str]) -> Tokenizer:
    return GreedTokTrainer(k=k, show_progress=False).train_from_iterator(lines, num_proc=1)


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    tok = train(300, LINES)
    assert tok.mode == "optimal"        # the trainers' default, as the CLI's
    # a model whose own mode is cover: from_greedtok(tok, mode="optimal") then has two modes to keep apart
    tok.mode = "cover"
    # cover and optimal differ on TEXT, so a reader taking the wrong mode is seen
    assert tok.encode(TEXT, mode="cover") != tok.encode(TEXT, mode="optimal")
    return tok


@pytest.fixture(scope="module")
def folders(tok, tmp_path_factory) -> dict:
    """{how it was written: (folder, the mode it records)}."""
    root = tmp_path_factory.mktemp("folders")
    corpus = root / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    assert main(["train", str(corpus), "-k", "300", "-o", str(root / "train"), "--quiet"]) == 0
    GreedTokTokenizerFast.from_greedtok(tok, mode="cover").save_pretrained(root / "from_greedtok-cover")
    GreedTokTokenizerFast.from_greedtok(tok, mode="optimal").save_pretrained(root / "from_greedtok-optimal")
    save_greedtok_folder(tok, root / "save_greedtok_folder", mode="optimal")
    train_mode = json.loads((root / "train" / "tokenizer_config.json").read_text())["mode"]
    return {"train": (root / "train", train_mode), "from_greedtok-cover": (root / "from_greedtok-cover", "cover"),
            "from_greedtok-optimal": (root / "from_greedtok-optimal", "optimal"),
            "save_greedtok_folder": (root / "save_greedtok_folder", "optimal")}


def with_config(source, folder, *, keep_manifest=False, **settings) -> None:
    """A copy of the folder ``source`` at ``folder`` whose tokenizer_config.json has ``settings``,
    edited by hand: no manifest, as after a user's edit of a folder saved before manifests (or,
    ``keep_manifest``, the manifest the save wrote)."""
    shutil.copytree(source, folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config.update(settings)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    if not keep_manifest:
        (folder / MANIFEST_NAME).unlink()


def encode_cli(folder, capsys) -> list[int]:
    assert main(["encode", str(folder), TEXT]) == 0
    return json.loads(capsys.readouterr().out)["ids"]


READERS = {
    "AutoTokenizer": lambda folder, capsys: AutoTokenizer.from_pretrained(str(folder)).encode(TEXT),
    "hf-greedtok encode": encode_cli,
    "FolderEncoder": lambda folder, capsys: FolderEncoder(folder).encode_flat([TEXT])[0].tolist(),
    "Tokenizer.load": lambda folder, capsys: Tokenizer.load(folder).encode(TEXT),
    "evaluate": lambda folder, capsys: evaluate_encoder(folder)[1].encode(TEXT).ids,
}


@pytest.fixture
def opened(monkeypatch) -> list:
    """The folders open_folder checked, in order."""
    seen = []
    original = folder_files.open_folder

    def counted(folder, *args):
        seen.append(folder.name)
        return original(folder, *args)
    monkeypatch.setattr(folder_files, "open_folder", counted)
    return seen


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("writer", ["train", "from_greedtok-cover", "from_greedtok-optimal", "save_greedtok_folder"])
def test_every_reader_gives_the_ids_of_the_mode_the_folder_records(tok, folders, writer, reader, capsys, opened):
    folder, mode = folders[writer]
    ids = READERS[reader](folder, capsys)
    assert opened[:1] == [folder.name]         # through the one opener, first
    if writer == "train":
        assert ids == AutoTokenizer.from_pretrained(str(folder)).encode(TEXT)
        assert ids == Tokenizer.load(folder).encode(TEXT, mode=mode)
    else:
        assert ids == tok.encode(TEXT, mode=mode)


def test_a_saved_folder_writes_its_mode_once(tok, folders):
    for writer in ("from_greedtok-optimal", "save_greedtok_folder"):
        folder, _ = folders[writer]
        config = json.loads((folder / "tokenizer_config.json").read_text())
        ranked = json.loads((folder / "greedtok.json").read_text())
        assert config["mode"] == ranked["mode"] == "optimal"
        assert TokenizerFolder.open(folder).mode == Tokenizer.load(folder).mode == "optimal"


def test_a_folder_saved_with_two_modes_encodes_with_the_configs(tok, folders, tmp_path, capsys):
    """Folders saved before the fix hold cover in greedtok.json under an optimal config."""
    folder = tmp_path / "old"
    shutil.copytree(folders["from_greedtok-optimal"][0], folder)
    (folder / "greedtok.json").write_text(tok.to_json(mode="cover"), encoding="utf-8")
    (folder / MANIFEST_NAME).unlink()
    optimal = tok.encode(TEXT, mode="optimal")
    assert {name: read(folder, capsys) == optimal for name, read in READERS.items()} == dict.fromkeys(READERS, True)


def test_tokenizer_save_refuses_a_folder_that_train_wrote(folders, tmp_path):
    folder = tmp_path / "trained"
    shutil.copytree(folders["train"][0], folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    other = train(200, LINES[500:])
    with pytest.raises(FileExistsError, match=f"{folder}: holds another tokenizer's files .*tokenizer_config.json.*"
                                              "save to a new folder, or .*save_pretrained"):
        other.save(folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    # its own kind of folder it replaces, as before
    other.save(tmp_path / "plain")
    tok2 = train(150, LINES[:500])
    tok2.save(tmp_path / "plain")
    assert Tokenizer.load(tmp_path / "plain").model.ranked_tokens == tok2.model.ranked_tokens


@pytest.mark.parametrize("save", ["save_pretrained", "save_greedtok_folder"])
def test_saving_a_model_over_a_train_folder_rewrites_every_file(folders, tmp_path, save, capsys):
    folder = tmp_path / "trained"
    shutil.copytree(folders["train"][0], folder)
    other = train(200, LINES[500:])
    if save == "save_pretrained":
        GreedTokTokenizerFast.from_greedtok(other, mode="cover").save_pretrained(folder)
    else:
        save_greedtok_folder(other, folder, mode="cover")
    ids = other.encode(TEXT, mode="cover")
    assert {name: read(folder, capsys) == ids for name, read in READERS.items()} == dict.fromkeys(READERS, True)


def copy_greedtok_json_of_another_tokenizer(folder, tmp_path):
    train(200, LINES[500:]).save(tmp_path / "other")
    shutil.copy(tmp_path / "other" / "greedtok.json", folder / "greedtok.json")


def edit_tokenizer_json(change):
    def edit(folder, tmp_path):
        data = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
        change(data)
        (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return edit


MISMATCHES = {
    "greedtok.json of another tokenizer": (copy_greedtok_json_of_another_tokenizer, "its vocabulary has 556 tokens"),
    "another split": (edit_tokenizer_json(lambda d: d["pre_tokenizer"]["pretokenizers"][0]["pattern"].update(
        Regex=r"\s+|\S+")), "its split is "),
    "another normalizer": (edit_tokenizer_json(lambda d: d.update(normalizer={"type": "NFKC"})),
                           "its normalizer is NFKC, the ranked token file's None"),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("mismatch", MISMATCHES)
def test_tokenizer_json_and_greedtok_json_of_two_tokenizers_are_refused_without_a_manifest(
        folders, tmp_path, mismatch, reader, capsys):
    folder = tmp_path / "mixed"
    shutil.copytree(folders["from_greedtok-cover"][0], folder)
    (folder / MANIFEST_NAME).unlink()
    make, what = MISMATCHES[mismatch]
    make(folder, tmp_path)
    problem = f"tokenizer.json does not match greedtok.json: {what}"
    if reader == "hf-greedtok encode":
        assert main(["encode", str(folder), TEXT]) == 2
        err = capsys.readouterr().err
        assert problem in err and str(folder) in err and len(err.strip().splitlines()) == 1
    else:
        with pytest.raises(GreedTokFileError, match=f"{folder}: {problem}"):
            READERS[reader](folder, capsys)


@pytest.fixture(scope="module")
def lookup_folder(tmp_path_factory):
    """A BPE folder with a morphology lookup (MorphLookupTokenizerFast), written by `train`."""
    root = tmp_path_factory.mktemp("lookup")
    (root / "corpus.txt").write_text("\n".join(LINES[:300]) + "\n", encoding="utf-8")
    (root / "lookup.tsv").write_text("talks\ttalk|s\n", encoding="utf-8")
    assert main(["train", str(root / "corpus.txt"), "-k", "20", "-o", str(root / "tok"), "--quiet",
                 "--algorithm", "bpe", "--units", "chars", "--lookup", str(root / "lookup.tsv")]) == 0
    return root / "tok"


@pytest.mark.parametrize("manifest", [True, False])
@pytest.mark.parametrize("kind", ["greedtok", "lookup"])
def test_a_truncated_tokenizer_json_is_named_by_autotokenizer(folders, lookup_folder, tmp_path, kind, manifest):
    folder = tmp_path / "truncated"
    shutil.copytree(folders["from_greedtok-optimal"][0] if kind == "greedtok" else lookup_folder, folder)
    text = (folder / "tokenizer.json").read_text(encoding="utf-8")
    (folder / "tokenizer.json").write_text(text[: len(text) // 2], encoding="utf-8")
    if not manifest:
        (folder / MANIFEST_NAME).unlink()
    with pytest.raises(GreedTokFileError, match=f"{folder / 'tokenizer.json'}: not valid JSON .* truncated"):
        AutoTokenizer.from_pretrained(str(folder))


#: {edit: (folder, the mode edited into its config, the mode it was saved for, the file that says so)}
MODE_EDITS = {
    "cover into an optimal folder": ("from_greedtok-optimal", "cover", "optimal",
                                     "tokenizer.json is a standard file, which encodes with optimal"),
    "optimal into a cover folder": ("from_greedtok-cover", "optimal", "cover", "greedtok.json's \"mode\""),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("edit", MODE_EDITS)
def test_a_mode_edited_into_the_config_is_refused_by_every_reader(folders, tmp_path, edit, reader, capsys):
    """Another mode gives other ids than the saved tokenizer: whether or not a manifest is there."""
    source, edited, saved, why = MODE_EDITS[edit]
    for keep_manifest in (True, False):
        folder = tmp_path / f"edited-{keep_manifest}"
        with_config(folders[source][0], folder, keep_manifest=keep_manifest, mode=edited)
        problem = f"\"mode\" is '{edited}', but the folder was saved for '{saved}' ({why})"
        if reader == "hf-greedtok encode":
            assert main(["encode", str(folder), TEXT]) == 2
            err = capsys.readouterr().err
            assert f"{folder / 'tokenizer_config.json'}: {problem}" in err and len(err.strip().splitlines()) == 1
        else:
            with pytest.raises(GreedTokFileError) as refused:
                READERS[reader](folder, capsys)
            assert str(refused.value).startswith(f"{folder / 'tokenizer_config.json'}: {problem}")


@pytest.mark.parametrize("edit", MODE_EDITS)
def test_the_fix_printed_for_an_edited_mode_works(tok, folders, tmp_path, edit):
    source, edited, saved, _ = MODE_EDITS[edit]
    folder = tmp_path / "edited"
    with_config(folders[source][0], folder, keep_manifest=True, mode=edited)
    with pytest.raises(GreedTokFileError) as refused:
        TokenizerFolder.open(folder)
    restore, command = str(refused.value).split(f"; to encode with {edited}, then save a copy in that mode: ")
    assert restore.endswith(f"Set \"mode\" back to \"{saved}\"")
    config = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, "mode": saved}))
    assert Tokenizer.load(folder).encode(TEXT) == tok.encode(TEXT, mode=saved)
    program, flag, code = shlex.split(command)        # as a shell splits it
    assert (program, flag) == ("python", "-c")
    subprocess.run([sys.executable, flag, code], check=True, cwd=tmp_path, capture_output=True)
    copy = tmp_path / f"edited-{edited}"
    assert TokenizerFolder.open(copy).mode == edited
    assert AutoTokenizer.from_pretrained(str(copy)).encode(TEXT) == tok.encode(TEXT, mode=edited)


@pytest.mark.parametrize("source", ["train", "saved by 0.1"])
def test_a_config_edit_that_keeps_the_ids_loads_everywhere_and_is_honoured(folders, tmp_path, capsys, source):
    """Users set model_max_length, padding_side or a chat template before a run; the manifest
    (the 0.1 folder's lists the config too) does not stand in the way."""
    original = folders["train"][0] if source == "train" else REPO / "tests" / "data" / "saved_before_layout"
    folder = tmp_path / "edited"
    with_config(original, folder, keep_manifest=True, model_max_length=2048, padding_side="left",
                chat_template="{% for m in messages %}{{ m['content'] }}{% endfor %}")
    assert {name: read(folder, capsys) == read(original, capsys) for name, read in READERS.items()} \
        == dict.fromkeys(READERS, True)
    hf = AutoTokenizer.from_pretrained(str(folder))
    assert (hf.model_max_length, hf.padding_side) == (2048, "left")
    assert hf.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False) == "hi"


@pytest.fixture
def no_prompts(monkeypatch) -> None:
    """Fail the test if anything asks a question on standard input (transformers' "run custom code?")."""
    def no_prompt(*args):
        raise AssertionError("prompted")
    monkeypatch.setattr(builtins, "input", no_prompt)


SET_BACK = "\"tokenizer_class\": \"GreedTokTokenizer\" (the class of its greedtok.json)"
#: {change: (the config edit, the problem named, whether the folder keeps its greedtok.json)}
CONFIGS_THAT_WOULD_PROMPT = {
    "no tokenizer_class": (lambda config: config.pop("tokenizer_class"),
                           "no \"tokenizer_class\": not a folder that hf-greedtok train or save_pretrained wrote; "
                           f"add {SET_BACK}", True),
    "a class edited in a GreedTok folder": (lambda config: config.update(tokenizer_class="GreedTokTokenizr"),
                                            "\"tokenizer_class\" 'GreedTokTokenizr' is not a class of transformers or "
                                            f"hf-greedtok; set back {SET_BACK}", True),
    "a class of its own code": (lambda config: config.update(tokenizer_class="FooTokenizer", auto_map={
        "AutoTokenizer": [None, "tokenization_greedtok.FooTokenizerFast"]}),
        "\"tokenizer_class\" 'FooTokenizer' is not a class of transformers or hf-greedtok but the folder's own code "
        "(its \"auto_map\"), which hf-greedtok does not run; load it with AutoTokenizer.from_pretrained(folder, "
        "trust_remote_code=True)", False),
}


@pytest.mark.parametrize("command", ["tokenize", "encode", "evaluate"])
@pytest.mark.parametrize("config_change", CONFIGS_THAT_WOULD_PROMPT)
def test_a_folder_whose_code_transformers_would_run_is_refused_in_one_line(folders, tmp_path, no_prompts, capsys,
                                                                          config_change, command):
    folder = tmp_path / "classless"
    # optimal: its standard tokenizer.json is one transformers' own classes could read
    shutil.copytree(folders["from_greedtok-optimal"][0], folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    change, problem, greedtok = CONFIGS_THAT_WOULD_PROMPT[config_change]
    change(config)                        # auto_map stays: transformers would ask to run its code
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    (folder / MANIFEST_NAME).unlink()
    if not greedtok:
        (folder / "greedtok.json").unlink()

    docs = tmp_path / "docs.txt"
    docs.write_text(TEXT + "\n", encoding="utf-8")
    argv = {"tokenize": ["tokenize", str(folder), str(docs), "-o", str(tmp_path / "out"), "--quiet"],
            "encode": ["encode", str(folder), TEXT], "evaluate": ["evaluate", str(folder), str(docs), "--quiet"]}
    assert main(argv[command]) == 2
    assert capsys.readouterr().err == f"hf-greedtok {command}: error: {folder / 'tokenizer_config.json'}: {problem}\n"
    if greedtok:                          # the edit the message asks for works
        (folder / "tokenizer_config.json").write_text(json.dumps({**config, "tokenizer_class": "GreedTokTokenizer"}))
        assert main(argv[command]) == 0


def test_a_class_that_cannot_read_a_cover_tokenizer_json_is_named_by_every_reader(folders, tmp_path, capsys):
    """transformers' own class would hand the cover-mode file to plain tokenizers, which refuses
    it with a traceback; AutoTokenizer itself never reaches hf-greedtok with that class."""
    folder = tmp_path / "stock-class"
    with_config(folders["from_greedtok-cover"][0], folder, tokenizer_class="PreTrainedTokenizerFast")
    problem = (f"{folder / 'tokenizer_config.json'}: \"tokenizer_class\" is 'PreTrainedTokenizerFast', which cannot "
               "read this tokenizer.json (hf-greedtok's own: GreedTok cover mode or a morphology lookup); "
               f"set back {SET_BACK}")
    for name, read in READERS.items():
        if name == "hf-greedtok encode":
            assert main(["encode", str(folder), TEXT]) == 2
            assert capsys.readouterr().err == f"hf-greedtok encode: error: {problem}\n"
        elif name != "AutoTokenizer":
            with pytest.raises(GreedTokFileError) as refused:
                read(folder, capsys)
            assert str(refused.value) == problem, name


def test_an_unknown_mode_in_the_config_is_named_by_every_reader(folders, tmp_path, capsys):
    folder = tmp_path / "fastest"
    with_config(folders["from_greedtok-cover"][0], folder, mode="fastest")
    for name, read in READERS.items():
        if name == "hf-greedtok encode":
            assert main(["encode", str(folder), TEXT]) == 2
            assert "tokenizer_config.json: \"mode\" must be 'cover' or 'optimal', got 'fastest'" in capsys.readouterr().err
        else:
            with pytest.raises(GreedTokFileError, match="tokenizer_config.json: \"mode\" must be 'cover' or 'optimal'"):
                read(folder, capsys)


def test_tokenizer_save_refuses_a_folder_of_other_files(tok, tmp_path):
    """A dataset folder or a user's own folder is not a saved tokenizer's: nothing is written there."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(FileExistsError, match=f"{folder}: holds files that are not a saved tokenizer's "
                                              r"\(notes.txt\); save to a new folder or an empty one"):
        tok.save(folder)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    tok.save(tmp_path / "empty")
    tok.save(tmp_path / "empty")          # a folder save wrote is saved over
    assert Tokenizer.load(tmp_path / "empty").encode(TEXT) == tok.encode(TEXT)


def test_a_folder_without_its_config_is_refused_by_every_reader_with_a_fix_that_works(tok, folders, tmp_path, capsys):
    """tokenizer.json and greedtok.json without tokenizer_config.json: AutoTokenizer, which never
    reaches hf-greedtok without the config, would read tokenizer.json alone as a plain tokenizer
    (or fail on a cover-mode file), so every reader here refuses the folder, in the same words."""
    folder = tmp_path / "configless"
    shutil.copytree(folders["from_greedtok-cover"][0], folder)
    (folder / "tokenizer_config.json").unlink()
    problem = (f"{folder / 'tokenizer_config.json'}: no such file: the folder is incomplete (it has tokenizer.json "
               "but not tokenizer_config.json, which says how to read it); restore tokenizer_config.json, or use "
               "greedtok.json alone (a Tokenizer.save folder): ")
    readers = {**READERS, "TokenizerFolder.open": lambda folder, capsys: TokenizerFolder.open(folder),
               "Tokenizer.load of greedtok.json": lambda folder, capsys: Tokenizer.load(folder / "greedtok.json")}
    del readers["AutoTokenizer"]
    for name, read in readers.items():
        if name == "hf-greedtok encode":
            assert main(["encode", str(folder), TEXT]) == 2
            assert capsys.readouterr().err.startswith(f"hf-greedtok encode: error: {problem}")
        else:
            with pytest.raises(GreedTokFileError) as refused:
                read(folder, capsys)
            assert str(refused.value).startswith(problem), name
    command = str(refused.value).removeprefix(problem)
    assert command == f"mkdir {tmp_path / 'configless-greedtok'} && cp {folder / 'greedtok.json'} " \
                      f"{tmp_path / 'configless-greedtok'}/"
    subprocess.run(command, shell=True, check=True)
    assert Tokenizer.load(tmp_path / "configless-greedtok").encode(TEXT) == tok.encode(TEXT, mode="cover")
    assert encode_cli(tmp_path / "configless-greedtok", capsys) == tok.encode(TEXT, mode="cover")


@pytest.mark.parametrize("auto_map", [False, True], ids=["stock", "stock with an auto_map"])
def test_a_pretrained_tokenizer_fast_folder_is_read_by_transformers_class(folders, tmp_path, no_prompts, capsys,
                                                                         auto_map):
    """A class transformers knows is what AutoTokenizer loads, whatever auto_map says beside it
    (it asks to run a folder's code only for a class it does not know); so do the commands."""
    from transformers import PreTrainedTokenizerFast
    folder = tmp_path / "stock"
    PreTrainedTokenizerFast(tokenizer_file=str(folders["train"][0] / "tokenizer.json")).save_pretrained(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["tokenizer_class"] = "PreTrainedTokenizerFast"
    if auto_map:
        config["auto_map"] = {"AutoTokenizer": [None, "tokenization_stock.StockTokenizerFast"]}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))

    expected = AutoTokenizer.from_pretrained(str(folder)).encode(TEXT, add_special_tokens=False)
    assert encode_cli(folder, capsys) == expected
    docs = tmp_path / "docs.txt"
    docs.write_text(TEXT + "\n", encoding="utf-8")
    assert main(["evaluate", str(folder), str(docs), "--quiet"]) == 0
    assert main(["tokenize", str(folder), str(docs), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    assert FolderEncoder(folder).encode_flat([TEXT])[0].tolist() == AutoTokenizer.from_pretrained(str(folder)).encode(
        TEXT)
