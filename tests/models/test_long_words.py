"""Long words (issue 12, item 4): the O(n)-memory cover equals Algorithm 4, and allocation
failures inside the native encoders reach the caller as MemoryError instead of vanishing."""
from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import textwrap

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import char_model, literal_cover, token_strings

from hf_greedtok import Tokenizer, _encoder
from corpora import VOCAB, corpus


@contextlib.contextmanager
def long_word_cover_for_every_word():
    """Route every word of two or more units through the long-word cover."""
    old = _encoder._set_cover_long_min_units(2)
    try:
        yield
    finally:
        _encoder._set_cover_long_min_units(old)


def test_paper_example_6_through_the_long_word_cover():
    with long_word_cover_for_every_word():
        model = char_model(["ab", "cd", "ef", "abc", "abcd", "efg", "abcdefg"], "abcdefg")
        assert token_strings(model, "abcdefg") == ["abcdefg"]
        model = char_model(["aya"], "ay")                       # Example 5: aya|y|a
        assert token_strings(model, "ayaya") == ["aya", "y", "a"]
        model = char_model(["ab"], "ab")                        # adjacent instances stay two
        assert token_strings(model, "abab") == ["ab", "ab"]


ALPHABET = "aby "
tokens = st.text(ALPHABET, min_size=2, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(tokens, min_size=1, max_size=12, unique=True), st.lists(st.text(ALPHABET, max_size=40), max_size=8))
def test_both_covers_equal_the_literal_algorithm_4(ranked, words):
    short = char_model(ranked, ALPHABET)
    with long_word_cover_for_every_word():
        long = char_model(ranked, ALPHABET)
        got_long = [token_strings(long, w) for w in words]
    for word, via_long in zip(words, got_long):
        expected = literal_cover(ranked, word)
        assert token_strings(short, word) == expected
        assert via_long == expected


@pytest.fixture(scope="module")
def cl100k():
    path = VOCAB / "cl100k_base.tiktoken"
    if not path.is_file():
        pytest.skip(f"{path} not available")
    return Tokenizer.from_tiktoken(path)


def test_long_word_cover_equals_the_short_word_cover_on_real_text(cl100k):
    """Every word of Brown and the Python stdlib, with cl100k's 100k ranked tokens."""
    text = corpus("en_brown.txt").read_text(encoding="utf-8")[:400_000] \
        + corpus("code_python_stdlib.txt").read_text(encoding="utf-8")[:400_000]
    words = cl100k.pre_tokenize(text)
    expected, expected_offsets = cl100k.model.encoder.encode_words(words, "cover")
    fresh = _encoder.RankedEncoder(*cl100k.model.encoder.__reduce__()[1])     # a cold word cache
    with long_word_cover_for_every_word():
        got, offsets = fresh.encode_words(words, "cover")
    assert (offsets == expected_offsets).all() and (got == expected).all()


@pytest.fixture(scope="module")
def cl100k_encoder_pair(cl100k):
    """Two cold copies of cl100k's encoder: one only ever runs the long-word cover, so neither
    word cache hands one cover's result to the other."""
    args = cl100k.model.encoder.__reduce__()[1]
    return _encoder.RankedEncoder(*args), _encoder.RankedEncoder(*args)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=300))
def test_long_word_cover_equals_the_sort_based_cover_on_any_unicode(cl100k, cl100k_encoder_pair, text):
    """Arbitrary Unicode (lone surrogates included), whole and split by the GPT-4 pattern."""
    sort_based, long_word = cl100k_encoder_pair
    words = [text, *cl100k.pre_tokenize(text)]
    with long_word_cover_for_every_word():
        got, got_offsets = long_word.encode_words(words, "cover")
    expected, offsets = sort_based.encode_words(words, "cover")
    assert (got_offsets == offsets).all() and (got == expected).all()


def test_words_past_the_bound_equal_the_sort_based_cover(cl100k):
    """Real text glued into words of 4,096+ units, encoded with the bound raised above them."""
    text = corpus("code_python_stdlib.txt").read_text(encoding="utf-8")[:200_000]
    words = [regex.sub(r"\s+", "", text[a:a + 9000]) for a in range(0, 180_000, 9000)] + [" " * 9000, "=" * 5000]
    assert min(len(w) for w in words) >= 4096
    long, long_offsets = cl100k.model.encoder.encode_words(words, "cover")
    old = _encoder._set_cover_long_min_units(1 << 40)
    try:
        fresh = _encoder.RankedEncoder(*cl100k.model.encoder.__reduce__()[1])
        short, short_offsets = fresh.encode_words(words, "cover")
    finally:
        _encoder._set_cover_long_min_units(old)
    assert (long_offsets == short_offsets).all() and (long == short).all()
    assert cl100k.decode(long.tolist()) == "".join(words)


def run_under_memory_limit(setup: str, run: str, extra_mb: int) -> subprocess.CompletedProcess:
    """Run ``setup`` with cl100k loaded as ``tok`` (encoder ``enc``), cap the address space at
    its size then plus ``extra_mb`` MB, and run ``run``: the encoder's allocations are what
    runs out."""
    script = "\n".join([
        "import resource",
        "import numpy as np",
        "from hf_greedtok import Tokenizer",
        f"tok = Tokenizer.from_tiktoken({str(VOCAB / 'cl100k_base.tiktoken')!r})",
        "enc = tok.model.encoder",
        textwrap.dedent(setup),
        "vm = next(int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmSize:'))",
        f"limit = vm + {extra_mb} * 2**20",
        "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))",
        textwrap.dedent(run),
    ])
    # cwd: `python -c` puts its working directory first on sys.path, and the checkout's
    # uncompiled hf_greedtok/ must not shadow the installed package
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())


CODES = """
    codes = np.full(50_000_000, ord("a"), dtype=np.uint32)
    offsets = np.array([0, codes.shape[0]], dtype=np.int64)
"""


@pytest.mark.parametrize("setup, call", [
    (CODES, 'enc.encode_codes(codes, offsets, "cover")'),
    (CODES, 'enc.encode_codes(codes, offsets, "optimal")'),
    ('word = "a" * 100_000_000', 'enc.encode_words([word], "cover")'),
], ids=["cover buffers", "optimal back pointers", "a word's units"])
def test_allocation_failure_in_the_encoder_is_a_memory_error(cl100k, setup, call):
    """With 64 MB to spare, 5e7 units need more: 200 MB of int32 back pointers (optimal), cover
    flags plus bucket links (cover), or 4 bytes per byte of a 100 MB word. The encoder must
    raise MemoryError, not print it and return []."""
    result = run_under_memory_limit(setup, f"""
        try:
            ids, _ = {call}
        except MemoryError:
            print("MemoryError raised")
        else:
            print("returned", len(ids), "ids")
    """, extra_mb=64)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "MemoryError raised", (result.stdout, result.stderr)
    assert "Exception ignored" not in result.stderr


def test_cover_of_a_long_run_of_spaces_fits_in_linear_memory(cl100k):
    """2 MB of spaces with cl100k (space tokens up to 80 long): the sort-based cover needed
    about 1.7 GB for its occurrences; the long-word cover needs a few bytes per unit."""
    result = run_under_memory_limit("""
        word = " " * 2_000_000
    """, """
        ids, _ = enc.encode_words([word], "cover")
        assert tok.decode(ids.tolist()) == word
        opt, _ = enc.encode_words([word], "optimal")
        print(len(ids), len(opt))
    """, extra_mb=200)
    assert result.returncode == 0, result.stderr
    cover_len, optimal_len = map(int, result.stdout.split())
    assert optimal_len <= cover_len


def test_a_pooled_worker_frees_what_a_long_word_grew():
    """After a 20M-unit word in both modes (about 260 MB of scratch), the process is back near
    where it started: pooled workers do not keep their long-word buffers."""
    script = textwrap.dedent("""
        from hf_greedtok import Tokenizer
        tok = Tokenizer.from_tiktoken(%r)
        def rss_mb():
            return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:")) / 1024
        tok.model.encoder.encode_words(["warm up"], "cover")
        word = "ab" * 10_000_000
        before = rss_mb()
        for mode in ("cover", "optimal"):
            ids, _ = tok.model.encoder.encode_words([word], mode)
            del ids
        print(round(rss_mb() - before))
    """) % str(VOCAB / "cl100k_base.tiktoken")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            cwd=tempfile.gettempdir())     # outside the checkout: see run_under_memory_limit
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) < 40


def test_a_worker_keeps_a_long_texts_scratch_for_the_next_long_text_and_frees_it_after_short_ones():
    """A text's scratch (UTF-8 bytes, word ends, block classes: here about 100 MB for a text of
    11M code points) stays with the worker while it encodes one such text after another (the
    process does not grow from call to call), and goes with the next call of short texts."""
    script = textwrap.dedent("""
        from hf_greedtok import Tokenizer
        tok = Tokenizer.from_tiktoken(%r)
        enc = tok.model.encoder
        def rss_mb():
            return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:")) / 1024
        text = "Tokens \\U0001F600 cost 12 ab-cd, 'll\\n" * 400_000        # a 4-byte str
        enc.encode_texts(["warm up"], tok._native_pattern, "cover", 1)
        before = rss_mb()
        enc.encode_texts([text], tok._native_pattern, "cover", 1)
        first = rss_mb()
        for _ in range(3):
            enc.encode_texts([text], tok._native_pattern, "cover", 1)
        again = rss_mb()
        enc.encode_texts(["short", "texts"], tok._native_pattern, "cover", 1)
        print(round(first - before), round(again - first), round(rss_mb() - before))
    """) % str(VOCAB / "cl100k_base.tiktoken")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            cwd=tempfile.gettempdir())     # outside the checkout: see run_under_memory_limit
    assert result.returncode == 0, result.stderr
    kept, grown, left = map(int, result.stdout.split()[-3:])
    assert kept > 80            # the scratch stayed after the long text
    assert grown < 10           # ... and was reused, not allocated again
    assert left < 40            # short texts let it go
