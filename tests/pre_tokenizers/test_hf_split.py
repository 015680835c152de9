"""The HF export of each shipped split splits as ``regex`` does.

``ByteLevel(name).hf_pre_tokenizer()`` (what every saved ``tokenizer.json`` holds) is
``Split(Regex(pattern), "isolated")`` + ``ByteLevel(use_regex=False)``: the same regex run by
``tokenizers``' Oniguruma instead of the ``regex`` package, whose words the native scanners,
the trainer and the encoders use (tests/pre_tokenizers/test_native_split.py). A saved folder
encodes like the native tokenizer only if the two engines give the same words; checked here on
lines of every shared corpus, hypothesis text and every code point in a few contexts.

The one documented difference is the engines' Unicode tables: the code points that ``regex``
(newer Unicode data) puts in ``\\p{L}``, ``\\p{N}`` or ``\\p{M}`` and Oniguruma does not know (its
``\\p{Cn}``, unassigned). Texts here leave them out; :func:`test_the_engines_differ_only_on_code_points_oniguruma_lacks`
pins down that these are all the differences of the classes the patterns use.

Default run: the first 3,000 lines of each corpus, 300 hypothesis texts and every 41st code point
per split. ``pytest -m slow tests/pre_tokenizers/test_hf_split.py``: every code point.
"""
from __future__ import annotations

import functools

import pytest
import regex
from corpora import CORPORA, corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import pre_tokenizers as hf_pre_tokenizers

from hf_greedtok import ByteLevel
from hf_greedtok.hf.pipeline import standard_pre_tokenizer
from hf_greedtok.pre_tokenizers.patterns import SPLIT_NAMES

# the classes the shipped patterns use (o200k's case classes are unions of these categories'
# subsets; they are checked through the splits themselves)
CLASSES = {"letter": r"\p{L}", "digit": r"\p{N}", "mark": r"\p{M}", "space": r"\s"}
N_CODE_POINTS = 0x110000
CORPUS_LINES = 3000
TEXT_FILES = sorted(p.name for p in CORPORA.glob("*.txt")) if CORPORA.is_dir() else []
# each code point once, in turn after a space and before a letter, in a letter run before
# punctuation, after punctuation, doubled, and after a digit before a line end
CONTEXTS = (" {c}a", "a{c}.", ".{c} ", "x {c},", "{c}{c}", "1{c}\n")


@functools.lru_cache(maxsize=None)
def _all_code_points() -> str:
    """Every code point but the surrogates, which tokenizers' Python binding refuses in a str."""
    return "".join(chr(c) for c in range(N_CODE_POINTS) if not 0xD800 <= c <= 0xDFFF)


@functools.lru_cache(maxsize=None)
def _oniguruma_class(pattern: str) -> frozenset[int]:
    """The code points Oniguruma matches with the one-code-point class ``pattern``."""
    text = _all_code_points()
    kept = hf_pre_tokenizers.Split(Regex(pattern), behavior="removed").pre_tokenize_str(text)
    return frozenset(map(ord, text)) - {ord(c) for w, _ in kept for c in w}


@functools.lru_cache(maxsize=None)
def _regex_class(pattern: str) -> frozenset[int]:
    return frozenset(ord(m.group()) for m in regex.finditer(pattern, _all_code_points()))


@functools.lru_cache(maxsize=None)
def unknown_to_oniguruma() -> frozenset[int]:
    """The code points whose classes (:data:`CLASSES`) differ between the engines."""
    return frozenset().union(*(_regex_class(p) ^ _oniguruma_class(p) for p in CLASSES.values()))


def _allowed(c: str) -> bool:
    return not 0xD800 <= ord(c) <= 0xDFFF and ord(c) not in unknown_to_oniguruma()


def assert_same_words(name: str, text: str) -> None:
    """The export's words of ``text`` are regex.findall's, shown as bytes (``ByteLevel.token_to_str``);
    on a difference, names the first differing word."""
    pre = ByteLevel(name)
    got = [w for w, _ in standard_pre_tokenizer(pre).pre_tokenize_str(text)]
    want = [pre.token_to_str(pre.word_units(w)) for w in regex.findall(pre.pattern, text)]
    if got != want:
        k = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"{name}: word {k} differs: Oniguruma {got[k:k + 3]!r}, regex {want[k:k + 3]!r}")


# ---------------------------------------------------------------- the one difference: Unicode tables

def test_the_engines_differ_only_on_code_points_oniguruma_lacks():
    """Every class difference is a code point ``regex`` gives a letter, digit or mark class and
    Oniguruma holds unassigned (newer Unicode data in ``regex``); none is in the shared corpora."""
    unknown = unknown_to_oniguruma()
    for pattern in CLASSES.values():
        assert _oniguruma_class(pattern) <= _regex_class(pattern), pattern
    unassigned = _oniguruma_class(r"\p{Cn}")
    assert unknown <= unassigned
    for file in TEXT_FILES:
        assert unknown.isdisjoint(map(ord, set(corpus(file).read_text(encoding="utf-8")))), file


# ---------------------------------------------------------------- the shared corpora, line by line

@pytest.mark.parametrize("name", SPLIT_NAMES)
@pytest.mark.parametrize("file", TEXT_FILES)
def test_corpus_lines(file, name):
    with open(corpus(file), encoding="utf-8", newline="") as f:     # keep \r\n as it is in the file
        lines = f.read().splitlines(keepends=True)[:CORPUS_LINES]
    pre = ByteLevel(name)
    export, compiled = standard_pre_tokenizer(pre), regex.compile(pre.pattern)
    for k, line in enumerate(lines):
        if [w for w, _ in export.pre_tokenize_str(line)] != \
                [pre.token_to_str(pre.word_units(w)) for w in compiled.findall(line)]:
            assert_same_words(name, line)   # fails, naming the word
            raise AssertionError(f"{file} line {k + 1}")


def test_the_corpora_are_there():
    if not CORPORA.is_dir():
        pytest.skip(f"real corpora {CORPORA} not available (set HF_GREEDTOK_SHARED)")
    assert {"en_brown.txt", "hi_devdas.txt", "zh_reviews.txt", "code_python_stdlib.txt"} <= set(TEXT_FILES)


# ---------------------------------------------------------------- hypothesis text

CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=["Cs"]).filter(_allowed)
TRICKY = st.one_of(
    st.sampled_from(list("\t\n\r \u00a0\u3000.,!?'\"()-#") + ["\r\n", "  ", " \n ", "--", "...", "'s", "'LL"]),
    st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "P", "S", "Zs"]
                  ).filter(_allowed),
)
TEXT = st.text(alphabet=CHAR, max_size=80) | st.lists(TRICKY, max_size=60).map("".join)


@pytest.mark.parametrize("name", SPLIT_NAMES)
@settings(max_examples=300, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=TEXT)
def test_any_text(name, text):
    assert_same_words(name, text)


# ---------------------------------------------------------------- every code point

def _code_points_in_context(step: int) -> str:
    chars = [c for c in _all_code_points()[::step] if _allowed(c)]
    return "".join(CONTEXTS[k % len(CONTEXTS)].format(c=c) for k, c in enumerate(chars))


@pytest.mark.parametrize("name", SPLIT_NAMES)
def test_code_points_in_context(name):
    """Every 41st code point (a prime step: each context meets every block)."""
    assert_same_words(name, _code_points_in_context(41))


@pytest.fixture(scope="module")
def slow_selected(request):
    """The slow runs (minutes) only go with `-m slow`: the project's pytest runs every marker by default."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("long run: select it with `pytest -m slow tests/pre_tokenizers/test_hf_split.py`")


@pytest.mark.slow
@pytest.mark.usefixtures("slow_selected")
@pytest.mark.parametrize("name", SPLIT_NAMES)
def test_every_code_point_in_context(name):
    assert_same_words(name, _code_points_in_context(1))
