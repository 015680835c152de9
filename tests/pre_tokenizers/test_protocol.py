"""The pre-tokenizer protocol and the split registry (issue 30 items 1 and 2).

Every kind answers for itself (hf_greedtok/pre_tokenizers/base.py): the pipeline, the HF export,
the counters and the experiments ask it instead of testing its class, so a new kind is one module
and one registration. A toy kind registered here trains, encodes, saves, loads and exports to
``tokenizers`` without any other change. Each split's name and regex are spelled once, in
hf_greedtok/pre_tokenizers/patterns.py.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Optional

import pytest
import regex

import hf_greedtok
from hf_greedtok import ByteLevel, GreedTokTrainer, Metaspace, Tokenizer
from hf_greedtok.pre_tokenizers import HFPreTokenizer, PreTokenizer, pre_tokenizer_from_dict
from hf_greedtok.pre_tokenizers.kinds import KINDS
from hf_greedtok.pre_tokenizers.patterns import PATTERNS, SPLITS, SPLITS_BY_NAME, find_split, split_label

PACKAGE = Path(hf_greedtok.__file__).parent
TEXTS = ["The cynic is a blackguard whose faulty vision sees things as they are.",
         "  two  spaces, a tab\tand\na line end; naïve café 東京 🙂", ""]


def sources():
    """(path relative to the package, parsed module) of every module of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the registry

def test_each_split_is_spelled_once():
    names = {n for s in SPLITS for n in (s.name, *s.aliases)}
    found = {}
    for path, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    node.value in names or any(part in node.value for part in (r"\p{N}{1,3}", r"\s+(?!\S)"))):
                found.setdefault(path, []).append(node.value)
    assert list(found) == ["pre_tokenizers/patterns.py"], found


def test_names_aliases_and_regexes_find_their_split():
    for s in SPLITS:
        for key in (s.name, *s.aliases, s.regex):
            assert find_split(key) is s
        assert ByteLevel(s.name).pattern == s.regex == PATTERNS[s.name]
        assert split_label(s.name) == split_label(s.regex) == s.label
    assert SPLITS_BY_NAME["cl100k"].name == "gpt4" and SPLITS_BY_NAME["r50k"].name == "gpt2"
    assert find_split(r"\w+") is None and split_label(r"\w+") == repr(r"\w+")


def test_the_registry_imports_nothing():
    tree = ast.parse((PACKAGE / "pre_tokenizers" / "patterns.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
        {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"__future__", "typing"}, imported


# ---------------------------------------------------------------- the protocol

def test_the_rest_of_the_package_asks_the_component():
    kinds = {"ByteLevel", "Metaspace", "HFPreTokenizer"}
    checks = []
    for path, tree in sources():
        if path.startswith("pre_tokenizers/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                if named & kinds:
                    checks.append(f"{path}:{node.lineno}")
    # the one left is in the remote code copied into every saved folder (changing it changes them)
    assert [c.split(":")[0] for c in checks] == ["hf/tokenization_greedtok.py"], checks


@pytest.mark.parametrize("pre", [ByteLevel(), ByteLevel("o200k"), ByteLevel("superwords"), ByteLevel(r"\w+|\W+"),
                                 Metaspace(), Metaspace(units="marks")], ids=repr)
def test_every_kind_answers_for_itself(pre):
    assert isinstance(pre, PreTokenizer) and KINDS[pre.kind] is type(pre)
    assert pre.to_dict()["type"] == pre.kind and pre_tokenizer_from_dict(pre.to_dict()) == pre
    for text in TEXTS:
        words = pre.pre_tokenize(text)
        hf_words = [w for w, _ in pre.hf_pre_tokenizer().pre_tokenize_str(_hf_normalized(pre, text))]
        assert hf_words == [pre.token_to_str(pre.word_units(w)) if pre.unit_kind == "bytes" else w for w in words]
    assert (pre.native_pattern >= 0) == (isinstance(pre, ByteLevel) and find_split(pre.pattern) is not None)
    assert (pre.token_decoder() is None) == pre.tokens_spell_text == (pre.unit_kind == "bytes")


def _hf_normalized(pre: PreTokenizer, text: str) -> str:
    for step in pre.hf_normalizers():
        text = step.normalize_str(text)
    return text


def test_a_foreign_vocabularys_pre_tokenizer_has_no_export():
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    pre = HFPreTokenizer(hf.to_str())
    assert not pre.exports_to_hf and pre.lookup is None and pre.native_pattern == -1
    with pytest.raises(ValueError, match="no HF export"):
        pre.hf_pre_tokenizer()


# ---------------------------------------------------------------- a new kind: one module, one registration

@dataclass(frozen=True)
class Lines(PreTokenizer):
    """A toy kind: each line (with its line end) is one word, its singletons bytes."""

    kind: ClassVar[str] = "TestLines"
    unit_kind: ClassVar[str] = "bytes"
    tokens_spell_text: ClassVar[bool] = True
    pattern: str = r"[^\n]*\n|[^\n]+"

    @functools.cached_property
    def _regex(self):
        return regex.compile(self.pattern)

    def pre_tokenize(self, text: str) -> list[str]:
        return self._regex.findall(text)

    word_units = staticmethod(ByteLevel.word_units)
    token_to_str = staticmethod(ByteLevel.token_to_str)
    str_to_token = staticmethod(ByteLevel.str_to_token)
    hf_decoder = ByteLevel.hf_decoder

    def hf_pre_tokenizer(self, alphabet: Optional[Any] = None):
        return ByteLevel(self.pattern).hf_pre_tokenizer(alphabet)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "pattern": self.pattern}

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "Lines":
        return cls(spec["pattern"])


def test_a_new_kind_trains_saves_loads_and_exports(monkeypatch, tmp_path):
    monkeypatch.setitem(KINDS, Lines.kind, Lines)
    lines = ["the cat sat on the mat\n", "the dog sat on the log\n"] * 20
    tok = GreedTokTrainer(k=60, pre_tokenizer=Lines(), show_progress=False).train_from_iterator(lines, num_proc=1)
    text = "the cat sat on the log\nthe dog"
    ids = tok.encode(text)
    assert tok.decode(ids) == text and tok.pre_tokenizer.label == "Lines"
    again = Tokenizer.load(tok.save(tmp_path / "lines"))
    assert again.pre_tokenizer == Lines() and again.encode(text) == ids
    from hf_greedtok.hf.pipeline import build_backend
    for mode in ("cover", "optimal"):
        assert build_backend(tok, mode).encode(text).ids == tok.encode(text, mode=mode)
