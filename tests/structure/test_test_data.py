"""The tests' own data (tests/data/README.md): every cut is listed with its source and licence,
the whole stays under 20 MB, and (with ``-m corpora``) each shipped file is exactly the cut
tests/data/make_test_data.py takes of the shared data."""
from __future__ import annotations

import hashlib
import importlib.util

import pytest
from corpora import CORPORA, DATA, VOCAB, whole_corpus


def make_test_data():
    spec = importlib.util.spec_from_file_location("make_test_data", DATA / "make_test_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped() -> list:
    return sorted([*CORPORA.iterdir(), *VOCAB.iterdir()])


def test_every_shipped_file_is_a_listed_cut_with_its_licence():
    rows = [line for line in (DATA / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    listed = {row.split("`")[1]: row.rstrip(" |").rsplit("|", 1)[1].strip() for row in rows}
    names = [f"{p.parent.name}/{p.name}" for p in shipped()]
    assert sorted(listed) == names
    assert all(listed.values())                                     # a licence in every row
    assert sorted(make_test_data().CUTS) == sorted(p.name for p in shipped())


def test_the_data_stays_under_20_mb():
    assert sum(p.stat().st_size for p in shipped()) <= 20_000_000


def test_the_rank_files_are_openais():
    # Tokenizer.from_tiktoken knows them by these digests (it picks their split from them)
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in VOCAB.iterdir()}
    assert digests == {
        "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "r50k_base.tiktoken": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    }


@pytest.mark.corpora
def test_each_shipped_file_is_its_cut_of_the_shared_data():
    shared = whole_corpus("en_brown.txt").parents[1]          # skips without HF_GREEDTOK_SHARED
    assert make_test_data().differences(shared) == []
