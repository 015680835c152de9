"""hf_greedtok.hf.folder: the CLI's transformers-free GreedTok folders are, file for file, what
GreedTokTokenizerFast.save_pretrained writes, and load into the backend AutoTokenizer builds."""
from __future__ import annotations

import json

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Metaspace
from hf_greedtok.errors import GreedTokFileError
from hf_greedtok.formats.manifest import write_save_manifest
from hf_greedtok.hf.folder import TokenizerFolder, save_greedtok_folder

SPECIALS = ["<s>", "</s>", "<pad>", "<x>"]
TEXT = "The cynic is a blackguard whose faulty vision sees things as they are — naïve café 東京 🙂 <x> end"


@pytest.fixture(scope="module", params=["bytes", "chars"])
def trained(request):
    pre = {"bytes": None, "chars": Metaspace()}[request.param]
    kwargs = {} if pre is None else {"pre_tokenizer": pre}
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:3000]
    return GreedTokTrainer(k=300, special_tokens=SPECIALS, show_progress=False, **kwargs) \
        .train_from_iterator(lines, num_proc=1)


@pytest.mark.parametrize("options", [
    {},
    {"pad_token": "<pad>"},
    {"mode": "optimal", "bos_token": "<s>", "eos_token": "</s>", "add_bos_token": True, "add_eos_token": True},
    {"eos_token": "</s>", "add_eos_token": True, "pad_token": "<pad>"},
    {"bos_token": "<s>", "add_bos_token": True, "eos_token": "</s>"},
], ids=["plain", "pad", "optimal-bos-eos", "eos", "bos"])
def test_folder_is_the_save_pretrained_folder_byte_for_byte(trained, tmp_path, options):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    written = save_greedtok_folder(trained, ours, **options)
    GreedTokTokenizerFast.from_greedtok(trained, **options).save_pretrained(theirs)
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in theirs.iterdir())
    assert sorted(p.name for p in written) == sorted(p.name for p in theirs.iterdir())
    for path in theirs.iterdir():
        assert (ours / path.name).read_bytes() == path.read_bytes(), path.name


def test_named_token_must_be_a_special_token(trained, tmp_path):
    with pytest.raises(ValueError, match="'<unk>' is not a special token"):
        save_greedtok_folder(trained, tmp_path / "t", bos_token="<unk>")
    with pytest.raises(ValueError, match="add_eos_token needs eos_token"):
        save_greedtok_folder(trained, tmp_path / "t", add_eos_token=True)


@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_backend_encodes_as_the_auto_tokenizer_backend(trained, tmp_path, mode):
    from transformers import AutoTokenizer
    hf = GreedTokTokenizerFast.from_greedtok(trained, mode=mode, bos_token="<s>", add_bos_token=True)
    hf.add_tokens(["blackguard"])                 # an added token only tokenizer.json knows
    hf.save_pretrained(tmp_path / "tok")
    tok, saved_mode, backend = TokenizerFolder.open(tmp_path / "tok").greedtok_backend()
    assert saved_mode == mode
    auto = AutoTokenizer.from_pretrained(str(tmp_path / "tok")).backend_tokenizer
    assert tok.model.ranked_tokens == trained.model.ranked_tokens
    assert backend.get_vocab_size(with_added_tokens=True) == auto.get_vocab_size(with_added_tokens=True)
    for special in (False, True):
        ours, theirs = backend.encode(TEXT, add_special_tokens=special), auto.encode(TEXT, add_special_tokens=special)
        assert (ours.ids, ours.offsets) == (theirs.ids, theirs.offsets)


def test_backend_refuses_a_tokenizer_json_of_another_vocabulary(trained, tmp_path):
    files = save_greedtok_folder(trained, tmp_path / "tok")
    path = tmp_path / "tok" / "tokenizer.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["vocab"] = data["model"]["vocab"][:-1]
    path.write_text(json.dumps(data), encoding="utf-8")
    write_save_manifest(tmp_path / "tok", files[:-1])      # edited, then its manifest re-written to match
    with pytest.raises(GreedTokFileError, match="tokenizer.json does not match greedtok.json"):
        TokenizerFolder.open(tmp_path / "tok")
