"""A folder's settings are read the same by every reader.

The matrix: folders ``hf-greedtok train`` writes with BOS and EOS added, each alone, named but
not added, or neither; each also with an added token, a special token and a chat template
(``add_tokens``, ``add_special_tokens``, ``chat_template``, then ``save_pretrained``), as users
prepare a folder for a run; both modes; word level and superwords. Every reader gives the ids
``AutoTokenizer.from_pretrained(folder)(text)`` gives: a stock ``PreTrainedTokenizerFast`` on the
same files (optimal folders; a cover folder's tokenizer.json needs the GreedTok step, and stock
loading refuses it), ``hf-greedtok encode``, ``hf-greedtok tokenize``, ``FolderEncoder``, the
folder saved again and reloaded; and ``train_new_from_iterator`` keeps every setting.
"""
from __future__ import annotations

import json
import warnings
from itertools import product

import pyarrow.parquet as pq
import pytest
from corpora import EXAMPLE_TEXT
from transformers import AutoTokenizer, PreTrainedTokenizerFast

from hf_greedtok.cli import main
from hf_greedtok.errors import VocabularySizeWarning
from hf_greedtok.hf.folder_encoder import FolderEncoder

LINES = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:1500]
TEXTS = ["The cynic is a blackguard whose faulty vision sees things as they are.",
         "<|im_start|> blackguard",
         "  two spaces, then a blackguardism<|im_start|>and more",
         ""]
CHAT = [{"role": "user", "content": "What is a cynic?"}, {"role": "assistant", "content": "A blackguard."}]
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
BOS_EOS = {
    "both": ["--bos-token", "<s>", "--eos-token", "</s>", "--add-bos-token", "--add-eos-token"],
    "bos": ["--bos-token", "<s>", "--add-bos-token"],
    "eos": ["--eos-token", "</s>", "--add-eos-token"],
    "named": ["--bos-token", "<s>", "--eos-token", "</s>"],
    "none": [],
}
KINDS = {"words": ["-k", "300"], "superwords": ["--superwords", "--total-vocab-size", "900"]}
CASES = [(b, m, k, extras) for b, m, k in product(BOS_EOS, ("optimal", "cover"), KINDS)
         for extras in ((True, False) if b == "none" else (True,))]


def case_id(case) -> str:
    bos_eos, mode, kind, extras = case
    return f"{bos_eos}-{mode}-{kind}" + ("-added" if extras else "")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "train.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=CASES, ids=case_id)
def folder(request, corpus, tmp_path_factory):
    bos_eos, mode, kind, extras = request.param
    path = tmp_path_factory.mktemp("tok") / "tok"
    assert main(["train", str(corpus), "-o", str(path), "--mode", mode, "--quiet",
                 *KINDS[kind], *BOS_EOS[bos_eos]]) == 0
    if extras:
        tok = AutoTokenizer.from_pretrained(path)
        tok.add_tokens(["blackguard"])
        tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
        tok.chat_template = CHAT_TEMPLATE
        tok.model_max_length = 2048
        tok.save_pretrained(path)
    return request.param, path


def settings(tok) -> dict:
    """What a loaded tokenizer says about itself, beyond its ids."""
    return {"special_tokens": tok.special_tokens_map, "add_bos_token": tok.add_bos_token,
            "add_eos_token": tok.add_eos_token, "chat_template": tok.chat_template,
            "added": sorted(tok.get_added_vocab()), "model_max_length": tok.model_max_length}


def expected_ends(bos_eos: str, tok) -> tuple[list[int], list[int]]:
    bos = [tok.convert_tokens_to_ids("<s>")] if bos_eos in ("both", "bos") else []
    eos = [tok.convert_tokens_to_ids("</s>")] if bos_eos in ("both", "eos") else []
    return bos, eos


def test_autotokenizer_adds_what_the_folder_was_trained_to_add(folder):
    (bos_eos, _, _, extras), path = folder
    auto = AutoTokenizer.from_pretrained(path)
    bos, eos = expected_ends(bos_eos, auto)
    for row in auto(TEXTS)["input_ids"]:
        assert row[:len(bos)] == bos and row[len(row) - len(eos):] == eos
    assert (auto.add_bos_token, auto.add_eos_token) == (bool(bos), bool(eos))
    if extras:
        blackguard, im_start = auto.convert_tokens_to_ids(["blackguard", "<|im_start|>"])
        row = auto("<|im_start|> blackguard", add_special_tokens=False)["input_ids"]
        assert (row[0], row[-1]) == (im_start, blackguard)


def test_stock_tokenizer_on_the_same_files_gives_the_same_ids(folder):
    (_, mode, _, extras), path = folder
    auto = AutoTokenizer.from_pretrained(path)
    if mode == "cover":
        with pytest.raises(Exception, match="GreedTok|hf-greedtok|hf_greedtok"):
            PreTrainedTokenizerFast.from_pretrained(path)
        return
    stock = PreTrainedTokenizerFast.from_pretrained(path)
    assert stock(TEXTS)["input_ids"] == auto(TEXTS)["input_ids"]
    assert stock.special_tokens_map == auto.special_tokens_map
    if extras:
        assert stock.apply_chat_template(CHAT) == auto.apply_chat_template(CHAT)
    assert stock.model_max_length == auto.model_max_length


def test_encode_command_prints_the_autotokenizer_ids(folder, capsys):
    _, path = folder
    auto = AutoTokenizer.from_pretrained(path)
    for text, want in zip(TEXTS, auto(TEXTS)["input_ids"]):
        capsys.readouterr()
        assert main(["encode", str(path), text]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["ids"] == want, text
        assert printed["tokens"] == auto.convert_ids_to_tokens(want)
        assert printed["decoded"] == text and printed["round_trip"] is True
        capsys.readouterr()
        assert main(["encode", str(path), text, "--no-special-tokens"]) == 0
        assert json.loads(capsys.readouterr().out)["ids"] == auto(text, add_special_tokens=False)["input_ids"]


def test_tokenize_command_and_folder_encoder_write_the_autotokenizer_ids(folder, tmp_path):
    _, path = folder
    auto = AutoTokenizer.from_pretrained(path)
    source = tmp_path / "docs.jsonl"      # documents exactly as TEXTS holds them (a text file's keep their "\n")
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), encoding="utf-8")
    out = tmp_path / "ids"
    assert main(["tokenize", str(path), str(source), "-o", str(out), "--quiet"]) == 0
    written = [row for f in sorted(out.glob("*.parquet")) for row in pq.read_table(f)["input_ids"].to_pylist()]
    assert written == auto(TEXTS)["input_ids"]
    ids, offsets = FolderEncoder(path).encode_flat(TEXTS)
    assert [ids[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])] == auto(TEXTS)["input_ids"]


def test_saving_again_and_reloading_changes_nothing(folder, tmp_path):
    _, path = folder
    auto = AutoTokenizer.from_pretrained(path)
    auto.save_pretrained(tmp_path / "again")
    again = AutoTokenizer.from_pretrained(tmp_path / "again")
    assert again(TEXTS)["input_ids"] == auto(TEXTS)["input_ids"]
    assert settings(again) == settings(auto)


def test_setting_one_flag_leaves_the_other(folder):
    (bos_eos, _, _, _), path = folder
    auto = AutoTokenizer.from_pretrained(path)
    bos, eos = expected_ends(bos_eos, auto)
    auto.add_eos_token = False
    assert auto("x")["input_ids"][:len(bos)] == bos and auto.add_bos_token == bool(bos)
    loaded = AutoTokenizer.from_pretrained(path, add_bos_token=False)
    row = loaded("x")["input_ids"]
    assert row[len(row) - len(eos):] == eos and loaded.add_eos_token == bool(eos)


def test_retraining_keeps_every_setting(folder):
    (bos_eos, _, _, _), path = folder
    auto = AutoTokenizer.from_pretrained(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VocabularySizeWarning)    # a small corpus for a retrain
        new = auto.train_new_from_iterator(LINES[:800], vocab_size=700)
    assert settings(new) == settings(auto)
    bos, eos = expected_ends(bos_eos, new)
    for row in new(TEXTS)["input_ids"]:
        assert row[:len(bos)] == bos and row[len(row) - len(eos):] == eos


def test_tokenizer_load_says_which_added_tokens_it_does_not_apply(folder):
    (_, _, _, extras), path = folder
    import hf_greedtok
    if not extras:
        with warnings.catch_warnings():
            warnings.simplefilter("error", hf_greedtok.AddedTokensWarning)
            hf_greedtok.Tokenizer.load(path)
        return
    with pytest.warns(hf_greedtok.AddedTokensWarning, match="'blackguard'"):
        tok = hf_greedtok.Tokenizer.load(path)
    assert tok.token_to_id("blackguard") is None


def test_split_special_tokens_is_read_by_every_reader(corpus, tmp_path, capsys):
    path = tmp_path / "tok"
    assert main(["train", str(corpus), "-o", str(path), "-k", "300", "--bos-token", "<s>", "--add-bos-token",
                 "--quiet"]) == 0
    tok = AutoTokenizer.from_pretrained(path, split_special_tokens=True)
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})     # special only: the native path
    tok.save_pretrained(path)
    auto = AutoTokenizer.from_pretrained(path)
    want = auto(TEXTS)["input_ids"]
    assert auto.convert_ids_to_tokens(want[1])[1] != "<|im_start|>"          # spelled out as text
    ids, offsets = FolderEncoder(path).encode_flat(TEXTS)
    assert [ids[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])] == want
    capsys.readouterr()
    assert main(["encode", str(path), TEXTS[1]]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == want[1]
