"""Where the tests' data lives, and readers of it: the tests' own cuts of the shared corpora and
vocabularies (tests/data/corpora, tests/data/vocab: tests/data/README.md), the whole corpora of
$HF_GREEDTOK_SHARED for the tests marked ``corpora``, and the example text. A plain module (not
conftest) so that tests and helper scripts can import it."""
from __future__ import annotations

import itertools
import os
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
DATA = TESTS / "data"
BAD = DATA / "bad"                  # one file per bad input (tests/data/bad/README.md)
CORPORA = DATA / "corpora"          # cuts of the shared corpora, shipped with the tests
VOCAB = DATA / "vocab"              # cl100k_base and r50k_base, whole
EXAMPLE_TEXT = REPO / "examples" / "data" / "devils_dictionary.txt"
SHARED_VARIABLE = "HF_GREEDTOK_SHARED"


def corpus(name: str) -> Path:
    """The path of the tests' own cut of corpus ``name`` (tests/data/corpora).

    Raises:
        FileNotFoundError: no such cut ships (tests/data/make_test_data.py writes them).
    """
    path = CORPORA / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the tests ship no cut of {name} (tests/data/make_test_data.py)")
    return path


def whole_corpus(name: str) -> Path:
    """The path of the whole corpus ``name`` in $HF_GREEDTOK_SHARED/corpora, for tests marked
    ``corpora``; skips the calling test, naming the variable, when it is not set or lacks the file."""
    shared = os.environ.get(SHARED_VARIABLE)
    path = Path(shared or "") / "corpora" / name
    if not shared or not path.is_file():
        pytest.skip(f"needs the whole corpus {name}: set {SHARED_VARIABLE} to the folder holding corpora/ "
                    f"(and run `pytest -m corpora`)")
    return path


def head_counts(name: str, n: int) -> Counter:
    """The first n entries of a word<TAB>count table, as {word: count} (no pre-tokenization)."""
    counts: Counter = Counter()
    with open(corpus(name), encoding="utf-8") as f:
        for line in itertools.islice(f, n):
            word, count = line.rstrip("\n").split("\t")
            counts[word] += int(count)
    return counts


def corpus_of_size(path: Path, mb: float, *names: str) -> Path:
    """Write to ``path`` the cuts ``names`` one after another, repeated until the file holds at
    least ``mb`` MB, for tests that need a run to last (counting time follows the bytes, whether
    or not they repeat); returns path."""
    parts = [corpus(name).read_bytes() for name in names]
    with open(path, "wb") as f:
        written = 0
        while written < mb * 1e6:
            for part in parts:
                f.write(part)
                written += len(part)
    return path
