"""Where the tests' real data lives, and readers of it: the corpora and vocabularies of
../shared (or $HF_GREEDTOK_SHARED) and the example text. A test without its file skips with a
reason. A plain module (not conftest) so that tests and helper scripts can import it."""
from __future__ import annotations

import itertools
import os
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
BAD = TESTS / "data" / "bad"        # one file per bad input (tests/data/bad/README.md)
SHARED = Path(os.environ.get("HF_GREEDTOK_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
VOCAB = SHARED / "vocab"
EXAMPLE_TEXT = REPO / "examples" / "data" / "devils_dictionary.txt"


def corpus(name: str) -> Path:
    """The path of corpus ``name`` in CORPORA; skips the calling test when it is missing."""
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"real corpus {path} not available (set HF_GREEDTOK_SHARED)")
    return path


def head_counts(name: str, n: int) -> Counter:
    """The first n entries of a word<TAB>count table, as {word: count} (no pre-tokenization)."""
    counts: Counter = Counter()
    with open(corpus(name), encoding="utf-8") as f:
        for line in itertools.islice(f, n):
            word, count = line.rstrip("\n").split("\t")
            counts[word] += int(count)
    return counts
