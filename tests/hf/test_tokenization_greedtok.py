"""GreedTok inside Hugging Face: the tokenizers backend, GreedTokTokenizerFast and its files.

Real text (the cuts in tests/data/corpora): English (Brown), Hindi (Devdas), Chinese (reviews).
"""
from __future__ import annotations

import copy
import json
import pickle
import shutil

import numpy as np
import pytest
from corpora import EXAMPLE_TEXT, corpus
from tokenizers import Tokenizer as HFTokenizer
from transformers import AutoTokenizer, PreTrainedTokenizerFast

import hf_greedtok
from hf_greedtok import GreedTokFileError, GreedTokTokenizerFast, GreedTokTrainer, Metaspace
from hf_greedtok.hf.pipeline import build_backend, export_optimal_tokenizer_json, standard_json

SPECIALS = ["<s>", "</s>", "<pad>"]


def real_lines(name: str, n: int) -> list[str]:
    lines = corpus(name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()][:n]


@pytest.fixture(scope="module")
def texts() -> dict[str, list[str]]:
    return {"en": real_lines("en_brown.txt", 3000), "hi": real_lines("hi_devdas.txt", 1500),
            "zh": real_lines("zh_reviews.txt", 1500)}


@pytest.fixture(scope="module", params=["bytes", "chars"])
def core(request, texts):
    """GreedTok trained on English + Hindi + Chinese lines: byte level or Metaspace."""
    pre = Metaspace() if request.param == "chars" else None
    trainer = GreedTokTrainer(k=3000, special_tokens=SPECIALS, show_progress=False,
                              **({"pre_tokenizer": pre} if pre else {}))
    return trainer.train_from_iterator(texts["en"][:1500] + texts["hi"][:800] + texts["zh"][:800], num_proc=1)


@pytest.fixture(scope="module")
def byte_core(texts):
    trainer = GreedTokTrainer(k=3000, special_tokens=SPECIALS, show_progress=False)
    core = trainer.train_from_iterator(texts["en"][:1500] + texts["hi"][:800] + texts["zh"][:800], num_proc=1)
    core.mode = "cover"     # this module's folder tests are about a cover folder (its tokenizer.json guarded)
    return core


@pytest.fixture
def tok(byte_core) -> GreedTokTokenizerFast:
    return GreedTokTokenizerFast.from_greedtok(byte_core, bos_token="<s>", eos_token="</s>", pad_token="<pad>")


def all_lines(texts) -> list[str]:
    return texts["en"] + texts["hi"] + texts["zh"] + ["naïve café 東京 🙂", " leading", "a  b\t\n", ""]


# ---------------------------------------------------------------------- 1. components

@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_backend_gives_native_ids_on_real_text(core, texts, mode):
    backend = build_backend(core, mode)
    lines = all_lines(texts)
    got = [e.ids for e in backend.encode_batch(lines, add_special_tokens=False)]
    want = [ids.tolist() for ids in core.encode_batch(lines, mode=mode)]
    assert got == want
    assert [backend.decode(ids) for ids in got[-50:]] == lines[-50:]


def test_cover_step_keeps_one_word_id_per_word_and_byte_exact_offsets(byte_core):
    backend = build_backend(byte_core, "cover")
    text = "héllo wörld, 東京"
    enc = backend.encode(text, add_special_tokens=False)
    # every word's tokens share its word id, in order
    assert enc.word_ids == sorted(enc.word_ids)
    assert len(set(enc.word_ids)) == len(byte_core.pre_tokenize(text))
    # offsets are character offsets into the input; a multi-byte character's pieces all point at it
    for token, (a, b) in zip(enc.tokens, enc.offsets):
        assert 0 <= a < b <= len(text)
    assert "".join(text[a:b] for a, b in sorted(set(enc.offsets))) == text


def test_cover_step_works_inside_any_tokenizer(byte_core, texts):
    """The step is an ordinary custom pre-tokenizer: a plain tokenizers.Tokenizer can hold it."""
    from tokenizers import models, pre_tokenizers

    from hf_greedtok.hf.pipeline import GreedTokPreTokenizer, standard_pre_tokenizer, unigram_vocab
    plain = HFTokenizer(models.Unigram(unigram_vocab(byte_core)))
    plain.pre_tokenizer = pre_tokenizers.Sequence([
        standard_pre_tokenizer(byte_core.pre_tokenizer), pre_tokenizers.PreTokenizer.custom(GreedTokPreTokenizer(byte_core))])
    line = texts["en"][7]
    assert plain.encode(line).ids == byte_core.encode(line, mode="cover")


# ---------------------------------------------------------------------- 2. the transformers API

def test_call_single_batch_and_pairs(tok, byte_core, texts):
    line = texts["en"][3]
    assert tok(line)["input_ids"] == byte_core.encode(line)
    batch = tok(texts["en"][:4])
    assert batch["input_ids"] == [byte_core.encode(t) for t in texts["en"][:4]]
    pair = tok(texts["en"][0], texts["hi"][0])
    assert pair["input_ids"] == byte_core.encode(texts["en"][0]) + byte_core.encode(texts["hi"][0])
    assert tok.convert_ids_to_tokens(tok("the cat")["input_ids"]) == byte_core.tokenize("the cat")


def test_bos_eos_template(byte_core):
    tok = GreedTokTokenizerFast.from_greedtok(byte_core, bos_token="<s>", eos_token="</s>",
                                              add_bos_token=True, add_eos_token=True)
    ids = tok("a cat")["input_ids"]
    assert ids == [0] + byte_core.encode("a cat") + [1]
    assert tok.decode(ids, skip_special_tokens=True) == "a cat"
    assert tok.decode(ids) == "<s>a cat</s>"
    assert tok("a", "b")["input_ids"] == [0, *byte_core.encode("a"), 1, 0, *byte_core.encode("b"), 1]


@pytest.mark.parametrize("side", ["right", "left"])
def test_padding_sides_and_multiple_of(tok, texts, side):
    batch = tok(texts["en"][:5], padding=True, pad_to_multiple_of=8, padding_side=side, return_tensors="np")
    ids, mask = batch["input_ids"], batch["attention_mask"]
    assert ids.dtype == np.int64 and ids.shape[1] % 8 == 0
    lengths = [len(tok(t)["input_ids"]) for t in texts["en"][:5]]
    assert mask.sum(axis=1).tolist() == lengths
    pad_at = ids[:, -1] if side == "right" else ids[:, 0]
    assert (pad_at[mask.sum(axis=1) < ids.shape[1]] == tok.pad_token_id).all()


def test_truncation_strategies_stride_and_overflow(tok, texts):
    a, b = texts["en"][10], texts["en"][11]
    full = tok(a)["input_ids"]
    assert tok(a, truncation=True, max_length=5)["input_ids"] == full[:5]
    pair = tok(a, b, truncation="only_second", max_length=len(full) + 3)["input_ids"]
    assert pair[:len(full)] == full and len(pair) == len(full) + 3
    out = tok(a, truncation=True, max_length=6, stride=2, return_overflowing_tokens=True)
    windows = out["input_ids"]
    assert len(windows) > 1 and windows[0] == full[:6] and windows[1][:2] == full[4:6]
    assert out["overflow_to_sample_mapping"] == [0] * len(windows)
    assert tok([a, b], truncation="longest_first", max_length=4, padding="max_length",
               return_tensors="np")["input_ids"].shape == (2, 4)


def test_offsets_and_word_ids(tok):
    text = "Naïve cafés, 東京!"
    enc = tok(text, return_offsets_mapping=True)
    words = enc.word_ids()
    assert words == sorted(words) and len(set(words)) == len(tok.greedtok.pre_tokenize(text))
    for (a, b) in enc["offset_mapping"]:
        assert 0 <= a < b <= len(text)
    assert text[slice(*enc["offset_mapping"][0])].startswith("N")


def test_tensors_pt_when_torch_is_installed(tok):
    torch = pytest.importorskip("torch")
    assert isinstance(tok(["a b", "c"], padding=True, return_tensors="pt")["input_ids"], torch.Tensor)


def test_added_and_special_tokens(tok, byte_core):
    n = len(tok)
    assert tok.add_tokens(["<extra>"]) == 1 and tok.add_special_tokens({"additional_special_tokens": ["<sep>"]}) == 1
    ids = tok("x <extra> y<sep>")["input_ids"]
    assert n in ids and n + 1 in ids
    assert tok.decode(ids, skip_special_tokens=True) == "x <extra> y"
    assert tok.convert_ids_to_tokens([0, n, n + 1]) == ["<s>", "<extra>", "<sep>"]
    # a special token in the text is one id; with split_special_tokens it is ordinary text
    assert tok("a<s>b")["input_ids"] == byte_core.encode("a") + [0] + byte_core.encode("b")
    assert 0 not in tok("a<s>b", split_special_tokens=True)["input_ids"]


def test_decode_batch_decode_vocab(tok, texts):
    lines = texts["hi"][:3] + texts["zh"][:3]
    batch = tok(lines)["input_ids"]
    assert tok.batch_decode(batch) == lines
    vocab = tok.get_vocab()
    assert len(vocab) == len(tok) == tok.greedtok.vocab_size
    assert vocab["Ġthe"] == tok.convert_tokens_to_ids("Ġthe")


def test_apply_chat_template(tok):
    tok.chat_template = ("{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}"
                         "{% if add_generation_prompt %}<s>assistant:{% endif %}")
    chat = [{"role": "user", "content": "Define a cynic."}]
    text = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    assert text == "<s>user: Define a cynic.</s><s>assistant:"
    ids = tok.apply_chat_template(chat, add_generation_prompt=True)
    ids = ids["input_ids"] if not isinstance(ids, list) else ids
    assert ids == tok(text, add_special_tokens=False)["input_ids"] and ids.count(0) == 2


def test_modes(byte_core, texts):
    cover = GreedTokTokenizerFast.from_greedtok(byte_core, mode="cover")
    optimal = GreedTokTokenizerFast.from_greedtok(byte_core, mode="optimal")
    lines = texts["en"][:300]
    c = sum(len(x) for x in cover(lines)["input_ids"])
    o = sum(len(x) for x in optimal(lines)["input_ids"])
    assert o <= c
    assert optimal(lines[5])["input_ids"] == byte_core.encode(lines[5], mode="optimal")
    with pytest.raises(ValueError, match="mode must be 'cover' or 'optimal', got 'greedy'"):
        GreedTokTokenizerFast.from_greedtok(byte_core, mode="greedy")


def test_train_new_from_iterator(tok, texts):
    tok.add_eos_token = True
    batches = [texts["en"][i:i + 100] for i in range(0, 1000, 100)]
    new = tok.train_new_from_iterator(batches, vocab_size=1500)
    assert isinstance(new, GreedTokTokenizerFast) and len(new) == 1500 and new.mode == tok.mode
    assert new.pad_token == "<pad>" and new.convert_tokens_to_ids("<pad>") == 2
    line = texts["en"][2000]
    assert new.add_eos_token and new(line)["input_ids"][-1] == new.eos_token_id
    assert new.decode(new(line)["input_ids"], skip_special_tokens=True) == line
    with pytest.raises(ValueError, match="leaves no learned tokens"):
        tok.train_new_from_iterator(batches, vocab_size=200)


def test_train_new_from_iterator_keeps_the_recorded_training_settings(texts):
    """Longest token, frequency floor and pinned tokens of the first training carry over."""
    old = GreedTokTrainer(k=400, max_token_length=6, min_frequency=3, pinned_tokens=[" zebra"],
                          show_progress=False).train_from_iterator(texts["en"][:500])
    new = GreedTokTokenizerFast.from_greedtok(old).train_new_from_iterator(texts["en"][500:1500], vocab_size=856)
    direct = GreedTokTrainer(k=600, max_token_length=6, min_frequency=3, pinned_tokens=[" zebra"],
                             show_progress=False).train_from_iterator(texts["en"][500:1500])
    assert list(new.greedtok.model.ranked_tokens) == list(direct.model.ranked_tokens)
    assert new.greedtok.model.ranked_tokens[0] == b" zebra" and max(map(len, direct.model.ranked_tokens)) <= 6


# ---------------------------------------------------------------------- 3. saving and loading

def test_save_pretrained_and_autotokenizer(tok, tmp_path, texts):
    tok.add_tokens(["<extra>"])
    files = tok.save_pretrained(tmp_path / "t")
    names = sorted(p.name for p in (tmp_path / "t").iterdir())
    assert names == ["greedtok.json", "hf_greedtok_manifest.json", "tokenization_greedtok.py", "tokenizer.json",
                     "tokenizer_config.json"]
    assert {str(tmp_path / "t" / n) for n in ("greedtok.json", "tokenizer.json")} <= set(map(str, files))
    config = json.loads((tmp_path / "t" / "tokenizer_config.json").read_text())
    assert config["auto_map"]["AutoTokenizer"][1] == "tokenization_greedtok.GreedTokTokenizerFast"
    assert config["mode"] == "cover"
    loaded = AutoTokenizer.from_pretrained(tmp_path / "t")
    assert type(loaded) is GreedTokTokenizerFast and loaded.mode == "cover"
    lines = texts["en"][:50] + ["x <extra> y"]
    assert loaded(lines)["input_ids"] == tok(lines)["input_ids"]


def test_cli_output_folder_loads_with_autotokenizer(tmp_path):
    from hf_greedtok.cli import main
    out = tmp_path / "devil"
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "400", "--output", str(out), "--quiet",
                 "--bos-token", "<s>", "--eos-token", "</s>", "--pad-token", "<pad>", "--add-eos-token"]) == 0
    loaded = AutoTokenizer.from_pretrained(out)
    assert isinstance(loaded, GreedTokTokenizerFast)
    batch = loaded(["The cynic", "is a blackguard."], padding=True, return_tensors="np")
    assert batch["input_ids"].shape[0] == 2
    assert loaded.decode(loaded("is a blackguard.")["input_ids"]) == "is a blackguard.</s>"


def test_push_to_hub_uploads_the_saved_files(tok, tmp_path, monkeypatch, texts):
    """push_to_hub offline: the hub client is intercepted and what it would upload is loaded back."""
    from huggingface_hub import HfApi
    uploaded: dict[str, bytes] = {}

    def create_repo(self, repo_id, **kwargs):
        from huggingface_hub import RepoUrl
        return RepoUrl(f"https://huggingface.co/{repo_id}")

    def create_commit(self, repo_id, operations, **kwargs):
        for op in operations:
            src = op.path_or_fileobj
            uploaded[op.path_in_repo] = open(src, "rb").read() if isinstance(src, str) else bytes(src)
        return None

    def no_remote_card(*args, **kwargs):          # a new repository has no README.md yet
        from huggingface_hub.errors import EntryNotFoundError
        raise EntryNotFoundError("README.md")

    monkeypatch.setattr("transformers.utils.hub.ModelCard.load", no_remote_card)
    monkeypatch.setattr(HfApi, "create_repo", create_repo)
    monkeypatch.setattr(HfApi, "create_commit", create_commit)
    tok.push_to_hub("someone/greedtok-test")
    saved = tmp_path / "saved"
    tok.save_pretrained(saved)
    assert set(uploaded) - {"README.md"} == {p.name for p in saved.iterdir()}
    hub = tmp_path / "hub"
    hub.mkdir()
    for name, data in uploaded.items():
        (hub / name).write_bytes(data)
    loaded = AutoTokenizer.from_pretrained(hub)
    assert loaded(texts["en"][:20])["input_ids"] == tok(texts["en"][:20])["input_ids"]


# ---------------------------------------------------------------------- 4. the pure export

def test_optimal_export_loads_without_custom_code_and_matches_native(core, texts, tmp_path):
    path = export_optimal_tokenizer_json(core, tmp_path / "tokenizer.json", bos_token="<s>")
    plain = HFTokenizer.from_file(str(path))
    lines = all_lines(texts)
    got = [e.ids for e in plain.encode_batch(lines)]
    assert got == [[0] + ids.tolist() for ids in core.encode_batch(lines, mode="optimal")]
    assert plain.decode(got[0], skip_special_tokens=True) == lines[0]
    # transformers' generic class reads the same file
    generic = PreTrainedTokenizerFast(tokenizer_file=str(path))
    assert generic(lines[:10])["input_ids"] == got[:10]


def test_an_optimal_folder_tokenizer_json_is_the_pure_optimal_tokenizer(core, tmp_path, texts):
    GreedTokTokenizerFast.from_greedtok(core, mode="optimal").save_pretrained(tmp_path / "t")
    only = tmp_path / "only-json"
    only.mkdir()
    shutil.copy(tmp_path / "t" / "tokenizer.json", only / "tokenizer.json")
    generic = AutoTokenizer.from_pretrained(only)
    assert not isinstance(generic, GreedTokTokenizerFast)
    lines = texts["hi"][:100] + ["<0x41> <s>x", "a<pad>b"]
    assert generic(lines)["input_ids"] == [ids.tolist() for ids in core.encode_batch(lines, mode="optimal")]


def test_a_cover_folder_tokenizer_json_refuses_to_load_alone(tok, tmp_path):
    """Its standard part alone is the optimal encoder, a different tokenizer: a clear refusal
    (also when tokenizer_config.json is missing), never different ids."""
    tok.save_pretrained(tmp_path / "t")
    (tmp_path / "t" / "tokenizer_config.json").unlink()
    with pytest.raises(Exception, match="Unknown tokenizer version 'hf-greedtok: this tokenizer.json alone"):
        AutoTokenizer.from_pretrained(tmp_path / "t")
    with pytest.raises(Exception, match="load its folder with hf-greedtok installed"):
        HFTokenizer.from_file(str(tmp_path / "t" / "tokenizer.json"))


# ---------------------------------------------------------------------- 5. pickling

@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_pickle_and_deepcopy(byte_core, texts, mode):
    tok = GreedTokTokenizerFast.from_greedtok(byte_core, mode=mode, pad_token="<pad>")
    tok.add_tokens(["<extra>"])
    lines = texts["zh"][:30] + ["a <extra> b"]
    want = tok(lines, padding=True)["input_ids"]
    for clone in (pickle.loads(pickle.dumps(tok)), copy.deepcopy(tok)):
        assert type(clone) is GreedTokTokenizerFast and clone.mode == mode
        assert clone(lines, padding=True)["input_ids"] == want
    assert pickle.dumps(tok) == pickle.dumps(copy.deepcopy(tok))


# ---------------------------------------------------------------------- bad input

def test_missing_or_corrupted_ranked_token_file(tok, tmp_path):
    tok.save_pretrained(tmp_path / "t")
    (tmp_path / "t" / "greedtok.json").unlink()
    with pytest.raises(GreedTokFileError, match="greedtok.json: missing: the folder's hf_greedtok_manifest.json lists it"):
        AutoTokenizer.from_pretrained(tmp_path / "t")
    tok.save_pretrained(tmp_path / "u")
    ranked = tmp_path / "u" / "greedtok.json"
    ranked.write_text(ranked.read_text()[:5000])
    with pytest.raises(GreedTokFileError, match="greedtok.json: not valid JSON"):
        AutoTokenizer.from_pretrained(tmp_path / "u")


def test_tokenizer_json_that_does_not_match_the_ranked_tokens(tok, tmp_path):
    tok.save_pretrained(tmp_path / "t")
    path = tmp_path / "t" / "tokenizer.json"
    data = json.loads(path.read_text())
    data["model"]["vocab"][300], data["model"]["vocab"][301] = data["model"]["vocab"][301], data["model"]["vocab"][300]
    path.write_text(json.dumps(data))
    (tmp_path / "t" / "hf_greedtok_manifest.json").unlink()     # which would name tokenizer.json as changed
    with pytest.raises(ValueError, match="tokenizer.json does not match greedtok.json: its vocabulary has .* at id 300"):
        AutoTokenizer.from_pretrained(tmp_path / "t")


def test_unknown_mode_in_config(tok, tmp_path):
    tok.save_pretrained(tmp_path / "t")
    path = tmp_path / "t" / "tokenizer_config.json"
    path.write_text(path.read_text().replace('"mode": "cover"', '"mode": "fastest"'))
    (tmp_path / "t" / "hf_greedtok_manifest.json").unlink()     # which would name the config as changed
    with pytest.raises(ValueError, match="got 'fastest'"):
        AutoTokenizer.from_pretrained(tmp_path / "t")


def test_lone_surrogates_are_encoded_as_replacement_character(tok):
    assert tok("a\ud800b")["input_ids"] == tok("a\ufffdb")["input_ids"]
    assert tok(["x", "a\udc00b"], ["y\ud800", "z"])["input_ids"] == tok(["x", "a\ufffdb"], ["y\ufffd", "z"])["input_ids"]
    with pytest.raises(ValueError, match="text input must be of type"):
        tok(12)


def test_package_registers_with_autotokenizer():
    from transformers.models.auto.tokenization_auto import tokenizer_class_from_name
    assert tokenizer_class_from_name("GreedTokTokenizerFast") is hf_greedtok.GreedTokTokenizerFast
