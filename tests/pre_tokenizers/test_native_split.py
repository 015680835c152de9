"""The native pre-tokenizer (issue 14 item 2): ``hf_greedtok._pretokenize.split(native_id(PATTERN), text)``
gives exactly ``regex.findall(PATTERN, text)`` for the six split patterns we ship (GPT-4's
cl100k_base, GPT-2's r50k_base, GPT-4o's o200k_base, the GreedTok paper's whitespace words,
GPT-4's with combining marks in its letter runs, and the superword chunks), over any text:
arbitrary Unicode including lone surrogates, text crowded with the patterns' tricky parts, every code point, and every shared corpus. Its character classes come from a
header generated from the installed ``regex``; a test regenerates it and compares.

Default run: about 3,000 hypothesis examples per pattern (arbitrary, tricky, and Latin-1-only
text, which the scanner reads as bytes) and the first 2 MB of each corpus.
``pytest -m slow tests/pre_tokenizers/test_native_split.py``: 100,000 examples per pattern and whole corpora.
"""
from __future__ import annotations

import importlib.util
import re

import pytest
import regex
from corpora import CORPORA, REPO, corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_greedtok import _pretokenize
from hf_greedtok.pre_tokenizers.patterns import (GPT2_PATTERN, GPT4_MARKS_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS,
                                                 SPLIT_NAMES, SPLITS, SUPERWORDS_DIGITS, SUPERWORDS_PATTERN,
                                                 WHITESPACE_PATTERN, native_id)

# pattern id of _pretokenize.pxd: PATTERN_GPT4 = 0, PATTERN_GPT2 = 1, PATTERN_O200K = 2, PATTERN_WHITESPACE = 3,
# PATTERN_GPT4_MARKS = 4, PATTERN_SUPERWORDS = 5, PATTERN_SUPERWORDS_DIGITS = 6
NATIVE = {"gpt4": (GPT4_PATTERN, 0), "gpt2": (GPT2_PATTERN, 1), "o200k": (O200K_PATTERN, 2),
          "whitespace": (WHITESPACE_PATTERN, 3), "gpt4-marks": (GPT4_MARKS_PATTERN, 4),
          "superwords": (SUPERWORDS_PATTERN, 5), "superwords-digits": (SUPERWORDS_DIGITS.regex, 6)}
NAMES = list(NATIVE)
COMPILED = {name: regex.compile(pattern) for name, (pattern, _) in NATIVE.items()}
GENERATOR = REPO / "src_ext" / "hf_greedtok" / "gen_unicode_props.py"
HEADER = REPO / "src_ext" / "hf_greedtok" / "_unicode_props.h"
DEFAULT_CORPUS_CHARS = 2_000_000


def split(pattern: str, text: str) -> list[str]:
    """The words of ``text`` from the native scanner of the regex ``pattern``."""
    return _pretokenize.split(native_id(pattern), text)


def assert_same_split(name: str, text: str) -> None:
    """split == regex.findall (and count_words == their number); on a difference, names the first
    differing word and its offset."""
    got, want = split(NATIVE[name][0], text), COMPILED[name].findall(text)
    assert _pretokenize.count_words(native_id(NATIVE[name][0]), text) == len(want), name
    if got != want:
        k = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        at = sum(map(len, want[:k]))
        pytest.fail(f"{name}: word {k} at code point {at} differs: native {got[k:k + 3]!r}, "
                    f"regex {want[k:k + 3]!r} (context {text[max(0, at - 10):at + 10]!r})")


# ---------------------------------------------------------------- examples: the semantics, spelled out

@pytest.mark.parametrize("name, text, words", [
    # contractions: case-insensitive in cl100k (also U+017F LONG S for s), case-sensitive in GPT-2
    ("gpt4", "it'ſ IT'S we'LL", ["it", "'ſ", " IT", "'S", " we", "'LL"]),
    ("gpt2", "I'M it's", ["I", "'", "M", " it", "'s"]),
    # \s+(?!\S) gives back the space before a word; \s*[\r\n] ends at the run's last newline
    ("gpt4", "a  \n  b\t\tc", ["a", "  \n", " ", " b", "\t", "\tc"]),
    ("o200k", "x\r\n\r\n  y", ["x", "\r\n\r\n", " ", " y"]),
    # any one non-letter, non-digit, non-CR/LF code point joins the letters after it (NBSP, tab, lone
    # surrogate), but " ?[^\s\p{L}\p{N}]++" takes a space and a surrogate first
    ("gpt4", "x\u00a0y \u00a0z\ud800w \ud800w", ["x", "\u00a0y", " ", "\u00a0z", "\ud800w", " \ud800", "w"]),
    ("gpt4", "12345 x1", ["123", "45", " x", "1"]),
    ("gpt4", "!!!\n\nok", ["!!!\n\n", "ok"]),
    # U+001C..U+001F are str.isspace() but not regex's \s
    ("whitespace", "a\x1cb  c\u00a0d\n", ["a\x1cb", " ", " c", "\u00a0", "d", "\n"]),
    # o200k: upper* lower+ as one word, all-caps words, marks in both classes, contractions attached
    ("o200k", "HTTPServer isn't ABC'S", ["HTTPServer", " isn't", " ABC'S"]),
    ("o200k", "a\u0301B\u02b0C", ["a\u0301", "B\u02b0", "C"]),
    ("o200k", "\u0301\u0301 a", ["\u0301\u0301", " a"]),
    ("o200k", "a/b//\n", ["a", "/b", "//\n"]),
    # gpt4 cuts a Devanagari word at each vowel sign and virama; gpt4-marks keeps them in the letter run
    ("gpt4", " लड़कियाँ कार्य", [" लड", "़क", "िय", "ाँ", " क", "ार", "्य"]),
    ("gpt4-marks", " लड़कियाँ कार्य", [" लड़कियाँ", " कार्य"]),
    # a mark is no letter: like any non-letter it may lead a letter run, else it is punctuation
    ("gpt4-marks", "\u0301a \u0301\u0301! e\u0301'S", ["\u0301a", " \u0301\u0301", "!", " e\u0301", "'S"]),
    ("gpt4-marks", "\u0301!\n\n\u0301", ["\u0301!\n\n", "\u0301"]),
    # superwords: gpt4-marks words and single punctuation chain into one chunk within a line;
    # digits (1-3), runs of 2+ punctuation (with the space before them) and the space before a
    # digit stay apart, as in GPT-4's split; a chunk or a run keeps the line ends after it
    ("superwords", "Hello, world. The year 1990 was great!!\n",
     ["Hello, world. The year", " ", "199", "0", " was great", "!!\n"]),
    # an apostrophe or bracket between letters, or after a space, is single punctuation; "--"
    # and "..." are runs, and the chunk resumes after them
    ("superwords", "don't (stop) me -- now: a.b.c... e.g. x\r\n",
     ["don't (stop) me", " --", " now: a.b.c", "...", " e.g. x\r\n"]),
    ("superwords", "x ! y !? z", ["x ! y", " !?", " z"]),
    # of two spaces the last joins the next chunk; a tab (any one non-letter but CR/LF) may lead
    # letters, as in gpt4, so "and\tTabs" is one chunk
    ("superwords", "(hello) 5 apples,  and\tTabs", ["(hello)", " ", "5", " apples,", " ", " and\tTabs"]),
    # no chunk crosses a line end or ends in a space: trailing spaces go with the line end
    ("superwords", "one\ntwo  \n\nthree ,x", ["one\n", "two", "  \n\n", "three ,x"]),
    ("superwords", "end.\n\nNext line\n", ["end.\n\n", "Next line\n"]),
    # vowel signs and viramas stay in their words; the danda is single punctuation
    ("superwords", " लड़कियाँ कार्य करती हैं। 12 बजे", [" लड़कियाँ कार्य करती हैं।", " ", "12", " बजे"]),
    # code: indentation keeps its last space for the next chunk; punctuation next to punctuation
    # ends a chunk ('x[' then '0', ']' then ' ==')
    ("superwords", '    if x[0] == "a":  # comment\n',
     ["   ", " if x[", "0", "]", " ==", ' "a', '":', " ", " # comment\n"]),
    # the possessive prefix: a mark leads a chunk only before a letter or mark, else it is
    # punctuation, as a lone surrogate is (regex gives it no class)
    ("superwords", "\u0301! \u0301\u0301 x\ud800 \ud800\ud800.", ["\u0301!", " \u0301\u0301 x\ud800", " \ud800\ud800."]),
    ("superwords", "a\ud800b \ud800 c", ["a\ud800b \ud800 c"]),
    # superwords-digits: digits are part of a chunk's runs, as letters are
    ("superwords-digits", "Hello, world. The year 1990 was great!!\n",
     ["Hello, world. The year 1990 was great", "!!\n"]),
    ("superwords-digits", "(hello) 5 apples,  and\tTabs", ["(hello) 5 apples,", " ", " and\tTabs"]),
    ("superwords-digits", " लड़कियाँ कार्य करती हैं। 12 बजे", [" लड़कियाँ कार्य करती हैं। 12 बजे"]),
    ("superwords-digits", "v2.6.32 (1\u0301) 3,000.5\n\n", ["v2.6.32 (1\u0301) 3,000.5\n\n"]),
    ("superwords-digits", "\u0301! 12\u0301 -- 7", ["\u0301!", " 12\u0301", " --", " 7"]),
])
def test_examples(name, text, words):
    assert COMPILED[name].findall(text) == words
    assert split(NATIVE[name][0], text) == words


# what may end a run of ASCII letters, which the scanners take in blocks of 8 bytes (1-byte text)
# or 4 code points: the text's end, ASCII letters' neighbours ("@[`{"), DEL, Latin-1 letters and
# non-letters, a mark, a digit, a space, letters of 2- and 4-byte str kinds
RUN_ENDS = ["", "@", "[", "`", "{", "\x7f", "\x80", "\u00aa", "\u00c0", "\u00d7", "\u00e9", "\u00ff", "\u0301",
            "7", " ", "\n", "'s", "\u0101", "\u4e2d", "\U0001d400", "\U0001f600"]


@pytest.mark.parametrize("letters", ["aZbYcXdWeVfUgThSiRjQ", "ABCDEFGHIJKLMNOPQRST", "abcdefghijklmnopqrst",
                                     "HTTPSERVERhttpserver"], ids=["mixed", "upper", "lower", "upper-lower"])
@pytest.mark.parametrize("name", NAMES)
def test_ascii_letter_runs_end_where_regex_ends_them_at_every_block_offset(name, letters):
    """Runs of 0..19 ASCII letters (mixed case; upper case, lower case, both: o200k's classes)
    starting at offsets 0..8, before every kind of run end, in a 1-byte text and the same text
    widened to 4 bytes a code point."""
    for offset in range(9):
        for length in range(20):
            for end in RUN_ENDS:
                text = "." * offset + letters[:length] + end
                assert_same_split(name, text)
                assert_same_split(name, text + "\U0001f600")     # the same runs read as code points
                assert_same_split(name, "x" * offset + letters[:length] + end + "z" * offset)


# GPT-4's block split fixes up two runs from its block's masks when the run ends in the block,
# else a code point at a time: digits (a word every three) and the whitespace after a line end
# (a word of its own unless another line end follows it). What may follow such a run.
FIXED_RUN_ENDS = ["", "a", ".", "\n", "\r\n", " a", "\u00e9", "\u0660", "\u3000", "\u4e2d", "\U0001d7ce", "\ud800"]
# a 1-byte str, and the same code points in a 2- and 4-byte one (the last code point sets the kind)
STR_KINDS = ["", "\u00ff", "\u4e2d", "\U0001f600"]


@pytest.mark.parametrize("run", ["7", "\u0663", " ", "\t", "\u00a0", "\u3000"],
                         ids=["digits", "arabic-indic-digits", "spaces", "tabs", "nbsp", "ideographic-space"])
def test_digit_and_whitespace_runs_end_where_regex_ends_them_across_block_ends(run):
    """Runs of 1 to 70 digits, or of spaces after a line end, starting at every third offset of
    a 64-code-point block and ending in it, at its end or in the next block, before every kind
    of run end, in strs of each kind (GPT-4's split, the block path)."""
    old = _pretokenize._set_blocks_min_units(0)
    before = "\n" if run.isspace() else "."      # whitespace is fixed up after a line end
    try:
        for start in range(1, 67, 3):           # the run's first code point
            for length in (1, 2, 3, 4, 5, 6, 7, 30, 31, 32, 33, 61, 62, 63, 64, 65, 66, 70):
                for end in FIXED_RUN_ENDS:
                    for kind in STR_KINDS:
                        assert_same_split("gpt4", "x" * (start - 1) + before + run * length + end + kind)
    finally:
        _pretokenize._set_blocks_min_units(old)


@pytest.mark.parametrize("name", NAMES)
def test_empty_text_has_no_words(name):
    assert split(NATIVE[name][0], "") == []


# ---------------------------------------------------------------- hypothesis: any text

# every code point, lone surrogates (Cs) included: hypothesis leaves Cs out unless asked
ANY_CHAR = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), st.characters(categories=["Cs"]))
# short texts (where the edge cases are) and longer ones (where words meet)
SPACES = list("\t\n\x0b\x0c\r \x85\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000") \
    + ["\r\n", "\n\n", "  ", " \n ", "\x1c", "\x1f", "\u200b", "\ufeff"]
CONTRACTION = ["'", "\u2019", "/"] + list("sdmtlvreSDMTLVRE") + ["\u017f", "\u212a", "k", "K", "\u0130", "\u0131", "\u00df"] \
    + ["'s", "'S", "'\u017f", "'t", "'T", "'d", "'D", "'m", "'M", "'ll", "'LL", "'lL", "'ve", "'VE", "'re", "'Re", "'x"]
# superwords' chunks end where punctuation meets punctuation, a digit or after a line end
PUNCTUATION = list(",.!?:;()[]\"-#") + [" ,", ", ", " (", "--", "...", "!!\n", ".\r\n", "\u0964", "\u00bf"]
TRICKY = st.one_of(
    st.sampled_from(SPACES + CONTRACTION + PUNCTUATION),
    st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo"]),
    st.characters(categories=["Mn", "Mc", "Me"]),
    st.characters(categories=["Nd", "Nl", "No"]),
    st.characters(categories=["P", "S", "Cc", "Cf", "Co", "Cn", "Zs"]),
    st.characters(categories=["Cs"]),
    st.sampled_from("aZ0 .\u01c5\u02b0\u4e2d\u0915\u093f"),
)
ANY_TEXT = st.text(alphabet=ANY_CHAR, max_size=100) | st.text(alphabet=ANY_CHAR, min_size=20, max_size=100)
TRICKY_TEXT = (st.lists(TRICKY, max_size=60) | st.lists(TRICKY, min_size=15, max_size=60)).map("".join)

# texts of code points below 256 only: a str of kind 1, which the scanner reads byte by byte
LATIN1_TEXT = st.lists(st.one_of(st.characters(max_codepoint=0xFF),
                                  st.sampled_from([c for c in SPACES + CONTRACTION + PUNCTUATION
                                                   if max(map(ord, c)) < 256])),
                       max_size=60).map("".join)

# GPT-4's split takes texts 64 code points at a time (_gpt4_blocks.h) from 32 code points on (and
# GPT4_MARKS ASCII texts), the scanner below that; the tests run both ways (split_path). Runs of
# 63-65 cross a block's end.
ASCII_PIECES = list(" \t\n\x0b\x0c\r'.,!-/aZsdmtlvreSDMTLVRE09\x00\x1c\x7f")
ASCII_TEXT = st.text(st.characters(max_codepoint=0x7F), max_size=200)
ASCII_TRICKY = st.lists(st.builds(lambda c, k: c * k, st.sampled_from(ASCII_PIECES),
                                  st.sampled_from([1, 1, 1, 2, 3, 4, 5, 63, 64, 65])),
                        max_size=40).map("".join)

# the split_path fixture only sets a module flag, which holds for every example
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]


@pytest.fixture(params=["blocks", "scanner"])
def split_path(request):
    """Texts (of any length) through the blocks of 64 code points where the split allows them, or
    through the word scanner (the only path of the other splits: their "blocks" runs skip)."""
    if request.param == "blocks" and request.node.callspec.params.get("name") not in ("gpt4", "gpt4-marks"):
        pytest.skip("this split has no block path")
    old = _pretokenize._set_blocks_min_units(0 if request.param == "blocks" else 1 << 62)
    yield request.param
    _pretokenize._set_blocks_min_units(old)


@pytest.fixture(scope="module")
def slow_selected(request):
    """The slow runs (minutes) only go with `-m slow`: the project's pytest runs every marker by default."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("long run: select it with `pytest -m slow tests/pre_tokenizers/test_native_split.py`")


DEFAULT = settings(max_examples=1_000, derandomize=True, database=None, deadline=None, suppress_health_check=_HEALTH)
SLOW = settings(max_examples=50_000, derandomize=False, database=None, deadline=None, print_blob=True,
                suppress_health_check=_HEALTH)


# 1,000 arbitrary + 1,000 tricky texts a pattern by default; 50,000 + 50,000 in the slow run
@pytest.mark.parametrize("name", NAMES)
@DEFAULT
@given(text=ANY_TEXT)
def test_any_text(name, text, split_path):
    assert_same_split(name, text)


@pytest.mark.parametrize("name", NAMES)
@DEFAULT
@given(text=TRICKY_TEXT)
def test_tricky_text(name, text, split_path):
    assert_same_split(name, text)


@pytest.mark.parametrize("name", NAMES)
@DEFAULT
@given(text=LATIN1_TEXT)
def test_latin1_text(name, text, split_path):
    assert max(map(ord, text), default=0) < 256
    assert_same_split(name, text)


@pytest.mark.parametrize("name", NAMES)
@DEFAULT
@given(text=ASCII_TEXT | ASCII_TRICKY)
def test_ascii_text(name, text, split_path):
    assert text.isascii()
    assert_same_split(name, text)


@pytest.mark.slow
@pytest.mark.usefixtures("slow_selected")
@pytest.mark.parametrize("texts", [ANY_TEXT, TRICKY_TEXT, LATIN1_TEXT, ASCII_TRICKY], ids=["any", "tricky", "latin1", "ascii"])
@pytest.mark.parametrize("name", NAMES)
@SLOW
@given(data=st.data())
def test_text_slow(name, texts, data, split_path):
    assert_same_split(name, data.draw(texts))


# ---------------------------------------------------------------- every code point

@pytest.fixture(scope="module")
def every_code_point() -> str:
    return "".join(map(chr, range(0x110000)))


@pytest.mark.parametrize("name", NAMES)
def test_every_code_point_in_order(name, every_code_point, split_path):
    assert_same_split(name, every_code_point)


@pytest.mark.parametrize("name", NAMES)
def test_every_code_point_between_a_space_and_a_contraction(name, every_code_point, split_path):
    """Each code point once after a space, before letters (cased or not), as a contraction letter,
    and before and after single punctuation."""
    assert_same_split(name, "".join(f" {c}a'{c}B{c}\u0301" for c in every_code_point[::3]))
    assert_same_split(name, "".join(f"{c}  '{c}{c}\n" for c in every_code_point[1::3]))
    assert_same_split(name, "".join(f"A{c}1{c}/{c}\u02b0" for c in every_code_point[2::3]))
    assert_same_split(name, "".join(f"x.{c} ,{c}." for c in every_code_point))


# ---------------------------------------------------------------- the shared corpora

CORPUS_FILES = sorted(p.name for p in CORPORA.glob("*") if p.is_file() and p.suffix in {".txt", ".tsv"}) \
    if CORPORA.is_dir() else []


def corpus_text(file: str, limit: int | None) -> str:
    path = CORPORA / file
    if not path.is_file():
        pytest.skip(f"real corpus {path} not available (set HF_GREEDTOK_SHARED)")
    with open(path, encoding="utf-8", newline="") as f:     # keep \r\n as it is in the file
        return f.read() if limit is None else f.read(limit)


def test_the_corpora_are_there():
    if not CORPORA.is_dir():
        pytest.skip(f"real corpora {CORPORA} not available (set HF_GREEDTOK_SHARED)")
    assert {"en_brown.txt", "hi_devdas.txt", "zh_reviews.txt", "code_python_stdlib.txt"} <= set(CORPUS_FILES)


def _check_corpus(file: str, name: str, limit: int | None) -> None:
    """As one text, line by line, and its ASCII lines as one text (ASCII's own paths)."""
    text = corpus_text(file, limit)
    assert_same_split(name, text)
    pattern, compiled = NATIVE[name][0], COMPILED[name]
    lines = text.splitlines(keepends=True)
    for k, line in enumerate(lines):
        if split(pattern, line) != compiled.findall(line):
            assert_same_split(name, line)   # fails, naming the word
            raise AssertionError(f"{file} line {k + 1}")
    assert_same_split(name, "".join(line for line in lines if line.isascii()))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("file", CORPUS_FILES)
def test_corpus(file, name, split_path):
    """The first 2 MB of the corpus, as one text and line by line."""
    _check_corpus(file, name, DEFAULT_CORPUS_CHARS)


@pytest.mark.slow
@pytest.mark.usefixtures("slow_selected")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("file", CORPUS_FILES)
def test_whole_corpus(file, name, split_path):
    _check_corpus(file, name, None)


# ---------------------------------------------------------------- the generated Unicode tables

def _generator():
    spec = importlib.util.spec_from_file_location("gen_unicode_props", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_header_is_what_the_installed_regex_generates(tmp_path):
    """Rerun ``python src_ext/hf_greedtok/gen_unicode_props.py`` (and rebuild) when this fails.

    The tables must be byte-identical; the versions line may differ (another regex release or
    Python with the same Unicode classes), which is then reported, not failed on."""
    out = tmp_path / "_unicode_props.h"
    assert _generator().main(["gen_unicode_props.py", str(out)]) == 0
    fresh, committed = out.read_bytes(), HEADER.read_bytes()
    versions = re.compile(rb"^ \* regex .*\n", re.M)
    assert versions.search(committed) and versions.search(fresh)
    assert versions.sub(b"", fresh) == versions.sub(b"", committed), \
        "_unicode_props.h is stale: the installed regex classifies code points differently; regenerate it"
    if fresh != committed:
        pytest.skip(f"tables identical; versions differ: {versions.search(fresh).group().strip().decode()} "
                    f"here, {versions.search(committed).group().strip().decode()} committed")


def test_the_header_records_its_source():
    head = HEADER.read_text(encoding="ascii").splitlines()[:3]
    assert "GENERATED by src_ext/hf_greedtok/gen_unicode_props.py -- do not edit" in head[0]
    assert head[1].startswith(" * regex ") and "unicodedata " in head[1]


# ---------------------------------------------------------------- which patterns are native

@pytest.mark.parametrize("name", NAMES)
def test_native_pattern_id_of_each_shipped_pattern(name):
    pattern, pattern_id = NATIVE[name]
    assert native_id(pattern) == pattern_id
    assert native_id(PATTERNS[name]) == pattern_id
    assert native_id(str(pattern + "x")[:-1]) == pattern_id     # equal, not identical, string


def test_the_registry_numbers_the_scanners_as_the_compiled_module_does():
    # _pretokenize.pxd's cpdef ids: PATTERN_<NAME> for each split, PATTERN_NONE, PATTERN_LAST
    compiled = {name: getattr(_pretokenize, name) for name in dir(_pretokenize) if name.startswith("PATTERN_")}
    scanners = {name: i for name, i in compiled.items() if name not in ("PATTERN_NONE", "PATTERN_LAST")}
    assert scanners == {"PATTERN_" + s.name.upper().replace("-", "_"): s.native_id for s in SPLITS}
    assert compiled["PATTERN_NONE"] == -1 and compiled["PATTERN_LAST"] == max(s.native_id for s in SPLITS)
    assert [s.native_id for s in SPLITS] == list(range(len(SPLITS)))
    assert {s.name: s.native_id for s in SPLITS} == {name: i for name, (_, i) in NATIVE.items()}


def test_the_cli_offers_every_shipped_split():
    assert set(SPLIT_NAMES) == set(NATIVE) == set(PATTERNS) - {"cl100k", "r50k"}


def test_the_aliases_name_the_same_patterns():
    assert PATTERNS["cl100k"] is GPT4_PATTERN and PATTERNS["r50k"] is GPT2_PATTERN and PATTERNS["o200k"] is O200K_PATTERN


@pytest.mark.parametrize("name", NAMES)
def test_a_pattern_differing_by_one_character_is_not_native(name):
    pattern = NATIVE[name][0]
    for k in range(len(pattern)):
        for variant in (pattern[:k] + pattern[k + 1:], pattern[:k] + "x" + pattern[k + 1:],
                        pattern[:k] + pattern[k] + pattern[k:]):
            if variant != pattern:
                assert native_id(variant) == -1, (k, variant)
    for variant in (pattern + " ", " " + pattern, pattern.upper(), f"(?:{pattern})"):
        if variant != pattern:
            assert native_id(variant) == -1


@pytest.mark.parametrize("pattern", ["", "gpt4", "cl100k", "whitespace", r"\w+|\s+", r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""])
def test_other_patterns_are_not_native(pattern):
    assert native_id(pattern) == -1
    with pytest.raises(ValueError, match="no native pre-tokenizer"):
        split(pattern, "some text")


def test_split_rejects_non_strings():
    with pytest.raises(TypeError):
        split(GPT4_PATTERN, b"bytes")
    with pytest.raises(TypeError):
        split(GPT4_PATTERN, None)
    with pytest.raises(TypeError):
        _pretokenize.split(None, "text")
    last = _pretokenize.PATTERN_LAST
    with pytest.raises(ValueError, match=f"no native pre-tokenizer for pattern id {last + 1}"):
        _pretokenize.split(last + 1, "text")


@pytest.mark.parametrize("name", NAMES)
def test_count_words_is_the_number_of_words_split_gives(name):
    """The scanner alone (what the benchmarks time) counts the very words of the split, on a
    Latin-1 text, one with BMP characters and one beyond the BMP (the three str kinds)."""
    text = corpus("en_brown.txt").read_text(encoding="utf-8")[:200_000]
    for extra in ("", " naïve café 東京 — ok", " emoji 🙂🙂 x"):
        sample = text + extra
        assert _pretokenize.count_words(NATIVE[name][1], sample) == len(COMPILED[name].findall(sample))
    with pytest.raises(ValueError, match="no native pre-tokenizer"):
        _pretokenize.count_words(-1, "x")
