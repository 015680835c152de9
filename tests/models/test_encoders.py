"""The fused batch path (issue 14, item 1): ``Tokenizer.encode_batch`` splits each text with the
native pre-tokenizer and encodes its words without the GIL, from the first character to the
last id. It must give exactly the ids of splitting each text in Python and encoding word by
word (the split itself equals the ``regex`` package's: tests/pre_tokenizers/test_native_split.py): on every
text corpus we ship, with tiktoken's cl100k vocabulary and a trained one, in both modes, with
special tokens, a normalizer and any number of threads."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from corpora import CORPORA, VOCAB
from fuzz_paths import per_word_copy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTrainer, Tokenizer, UnicodeNormalizer, _pretokenize
from hf_greedtok.pre_tokenizers import PATTERNS

TEXT_CORPORA = sorted(p.name for p in CORPORA.glob("*.txt"))
NATIVE = ("gpt4", "gpt2", "o200k", "whitespace", "gpt4-marks", "superwords")
SPECIALS = ["<|endoftext|>", "<pad>"]


def lines_of(name: str, limit: int = 6000) -> list[str]:
    return (CORPORA / name).read_text(encoding="utf-8").splitlines(keepends=True)[:limit]


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    return Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")


@pytest.fixture(scope="module", params=NATIVE)
def trained(request) -> Tokenizer:
    """A 1,000-token GreedTok vocabulary per split pattern, trained on a mix of the corpora."""
    text = [line for name in TEXT_CORPORA for line in lines_of(name, 400)]
    trainer = GreedTokTrainer(k=1000, pre_tokenizer=ByteLevel(pattern=request.param), special_tokens=SPECIALS,
                              show_progress=False)
    return trainer.train_from_iterator(text, num_proc=1)


# id(tok) -> (tok, its per-word copy): the entry keeps tok alive, so a later tokenizer (a test's
# own, e.g. with a normalizer) can never reuse its id and be compared with the wrong copy
_REGEX_COPIES: dict[int, tuple[Tokenizer, Tokenizer]] = {}


def assert_same_ids(tok: Tokenizer, texts: list[str], **kwargs) -> None:
    if id(tok) not in _REGEX_COPIES:
        _REGEX_COPIES[id(tok)] = (tok, per_word_copy(tok))
    got = tok.encode_batch(texts, **kwargs)
    expected = _REGEX_COPIES[id(tok)][1].encode_batch(texts, **kwargs)
    assert len(got) == len(expected)
    for k, (a, b) in enumerate(zip(got, expected)):
        assert a.dtype == np.int32 and a.tolist() == b.tolist(), (k, texts[k][:80])


@pytest.mark.parametrize("pattern", NATIVE)
def test_the_shipped_patterns_are_native(pattern):
    assert ByteLevel(pattern=pattern).native_pattern >= 0
    assert ByteLevel(pattern=PATTERNS[pattern] + "|x").native_pattern == -1


def test_a_custom_pattern_keeps_the_regex_split():
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken", pattern=r"\w+|\W")
    assert tok._native_pattern == -1
    assert tok.pre_tokenizer.pre_tokenize("ab, cd") == ["ab", ",", " ", "cd"]
    assert tok.decode(tok.encode("ab, cd")) == "ab, cd"


@pytest.mark.parametrize("corpus_name", TEXT_CORPORA)
@pytest.mark.parametrize("mode", ["cover", "optimal"])
def test_cl100k_ids_equal_the_regex_path_on_every_corpus(cl100k, corpus_name, mode):
    assert cl100k._native_pattern >= 0
    assert_same_ids(cl100k, lines_of(corpus_name), mode=mode)


@pytest.mark.parametrize("corpus_name", TEXT_CORPORA)
def test_trained_ids_equal_the_regex_path_on_every_corpus(trained, corpus_name):
    lines = lines_of(corpus_name, 3000)
    for mode in ("cover", "optimal"):
        assert_same_ids(trained, lines, mode=mode)
    assert_same_ids(trained, ["".join(lines)])             # the whole text as one


def test_ids_do_not_depend_on_the_thread_count(cl100k):
    lines = lines_of("en_brown.txt", 20000)
    assert sum(map(len, lines)) > 4 * (1 << 16)             # enough characters for 2 threads to split
    one = cl100k.encode_batch(lines)
    two = cl100k.encode_batch(lines, num_threads=2)
    assert [a.tolist() for a in one] == [b.tolist() for b in two]


def test_two_threads_share_a_batch_whose_characters_sit_in_its_last_text(cl100k):
    """Two threads take chunks of texts from both ends of a batch; when one long text holds
    nearly every character, the chunks after it are empty, and the ids and offsets must still
    be those of one thread."""
    text = "".join(lines_of("en_brown.txt", 3000))
    for texts in (["a", "b c", "", text], [text, "x", "y", "z"], ["", text, "", ""]):
        one = cl100k.encode_batch_flat(texts)
        two = cl100k.encode_batch_flat(texts, num_threads=2)
        assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])


def test_python_threads_sharing_the_native_threads_slots_get_their_own_ids(cl100k):
    """Each native thread keeps its slice's ids in its slot between calls; calls from several
    Python threads at once (a slot taken falls back to a pooled worker), each bigger or smaller
    than the last, must still get exactly their own ids and offsets."""
    lines = lines_of("en_brown.txt", 24000)
    batches = [lines, lines[:9000], lines[5000:], lines[:15000][::-1]]
    want = [cl100k.encode_batch_flat(b) for b in batches]
    errors = []

    def work(k):
        try:
            for i in range(6):
                j = (k + i) % len(batches)
                ids, offsets = cl100k.encode_batch_flat(batches[j], num_threads=2)
                if not (np.array_equal(ids, want[j][0]) and np.array_equal(offsets, want[j][1])):
                    errors.append((k, i, j))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def test_special_tokens_and_a_normalizer(trained):
    texts = ["<|endoftext|>The cynic<pad>", "a<pad><pad>b", "<pad>", "", "no specials here", "x<|endoftext|> y"]
    for allow in (True, False):
        assert_same_ids(trained, texts, allow_special=allow)
    nfkc = Tokenizer(trained.model, trained.pre_tokenizer, normalizer=UnicodeNormalizer("NFKC"))
    assert_same_ids(nfkc, ["ｆｕｌｌ ｗｉｄｔｈ ①②", "ﬁne café"])
    assert nfkc.encode("ｆｕｌｌ") == nfkc.encode("full")
    # specials are found before normalizing: a full-width look-alike stays text
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in "<pad>")
    assert_same_ids(nfkc, [f"a{wide}b<pad>", wide])
    assert trained.model.special_token_ids["<pad>"] not in nfkc.encode(wide)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=60),
                      max_size=6))
def test_arbitrary_unicode_including_lone_surrogates(cl100k, texts, split_path):
    for mode in ("cover", "optimal"):
        assert_same_ids(cl100k, texts, mode=mode)


# ASCII texts take their own loop (each word looked up as the scanner ends it, no ends written):
# every ASCII code point, words of 1..15 bytes near the text's end (fewer than 16 bytes left to
# read), of 16..1,024 bytes (long cache keys) and past 1,024 (around the cache)
_ENGLISH_LIKE = st.text(st.sampled_from(list("aeiostAEZ  .,;'!\n\r\t07")), max_size=80)
_LONG_RUNS = st.builds(lambda k, c, tail: c * k + tail, st.integers(1, 1100), st.sampled_from(["a", "ab", " ", "1", ".", "\n"]),
                       st.text(st.characters(max_codepoint=0x7F), max_size=10))
_ASCII_TEXTS = st.lists(st.one_of(st.text(st.characters(max_codepoint=0x7F), max_size=60), _ENGLISH_LIKE, _LONG_RUNS),
                        max_size=6)


# Documents of mostly ASCII with a few other code points (Latin-1, BMP, astral, lone surrogates)
# spread through them: 64-code-point blocks of ASCII and of the rest alternate (their UTF-8 is
# copied whole or written a code point at a time), words cross blocks, and a text has more words
# than one lookup batch (SPAN_WORDS), new ones and cached ones mixed.
_MIXED_DOCUMENTS = st.lists(st.one_of(_ENGLISH_LIKE, _ENGLISH_LIKE, st.text(st.characters(
    codec=None, min_codepoint=0x80, max_codepoint=0x10FFFF), min_size=1, max_size=3)), max_size=24).map("".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_MIXED_DOCUMENTS, min_size=1, max_size=4))
def test_mostly_ascii_documents_with_other_code_points_give_the_per_word_ids(cl100k, texts, split_path):
    for mode in ("cover", "optimal"):
        assert_same_ids(cl100k, texts, mode=mode)


# Documents mostly of other scripts, in strs of each kind: Latin-1 words (1 byte a code point),
# Cyrillic and CJK (2 bytes), with emoji (4 bytes); CJK runs make words of 16..600 UTF-8 bytes
# (the long cache keys, Chinese's common case), spaces, line ends and digits between them. Each
# block of 64 code points is written as UTF-8 a code point at a time and its word starts become
# ends in bytes, batch after batch.
_SCRIPT_WORDS = st.one_of(
    st.text(st.sampled_from("caféàüñ ÀÉ"), min_size=1, max_size=12),
    st.text(st.sampled_from("привет мир"), min_size=1, max_size=12),
    st.builds(lambda c, k: c * k, st.sampled_from(["中文", "书", "好的", "。"]), st.integers(1, 200)),
    st.text(st.sampled_from("的一是不了人我在有他这中"), min_size=1, max_size=40),
    st.sampled_from([" ", "\n", "  ", "\n\n", "123", "1234567", "\U0001f600", "\U0001f600x", "'s", ", "]))
_SCRIPT_DOCUMENTS = st.lists(_SCRIPT_WORDS, min_size=1, max_size=40).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_SCRIPT_DOCUMENTS, min_size=1, max_size=4))
def test_documents_of_other_scripts_give_the_per_word_ids(cl100k, texts, split_path):
    for mode in ("cover", "optimal"):
        assert_same_ids(cl100k, texts, mode=mode)
        assert_same_ids(cl100k, texts, mode=mode)      # again: from the cache, long words too


@pytest.fixture(params=["blocks", "scanner"])
def split_path(request):
    """Texts (of any length) through the blocks of 64 code points where the split allows them
    (GPT-4's; GPT4_MARKS on ASCII), or through the word scanner (the only path of the other
    splits: their "blocks" runs skip)."""
    if request.param == "blocks" and request.node.callspec.params.get("trained", "gpt4") not in ("gpt4", "gpt4-marks"):
        pytest.skip("this split has no block path")
    old = _pretokenize._set_blocks_min_units(0 if request.param == "blocks" else 1 << 62)
    yield request.param
    _pretokenize._set_blocks_min_units(old)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=_ASCII_TEXTS)
def test_ascii_texts_give_the_ids_of_the_per_word_path(trained, texts, split_path):
    assert all(t.isascii() for t in texts)
    assert_same_ids(trained, texts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=_ASCII_TEXTS)
def test_ascii_texts_give_cl100k_the_ids_of_the_per_word_path(cl100k, texts, split_path):
    for mode in ("cover", "optimal"):
        assert_same_ids(cl100k, texts, mode=mode)


@pytest.mark.parametrize("corpus_name", TEXT_CORPORA)
def test_lines_as_one_text_give_the_per_word_ids(cl100k, corpus_name, split_path):
    """A corpus's lines joined, and its ASCII lines joined: long texts whose words cross blocks."""
    lines = lines_of(corpus_name)
    text, ascii_text = "".join(lines), "".join(line for line in lines if line.isascii())
    assert_same_ids(cl100k, [text, ascii_text, ascii_text[:1000], ascii_text[1:5000]])


def test_a_text_that_is_not_str_is_named():
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    with pytest.raises(TypeError, match="text 1 is bytes, expected str"):
        tok.encode_batch(["ok", b"bytes"])


class _Lines(list):
    """A list subclass: encode_texts takes it as any other sequence (a tuple of its items)."""


def test_a_list_a_tuple_a_subclass_and_a_generator_give_the_same_ids_and_keep_no_reference(cl100k):
    """encode_texts references a list's texts itself (no tuple copy) and releases them with the
    call, also when a text that is not str stops it half-way."""
    texts = ["".join(line) for line in lines_of("en_brown.txt", 3000)]     # fresh objects
    counts = [sys.getrefcount(t) for t in texts]
    pattern = cl100k._native_pattern
    want = cl100k.model.encode_texts(texts, pattern, "cover", 2)
    for kind in (tuple, _Lines, lambda xs: (x for x in xs)):
        ids, offsets = cl100k.model.encode_texts(kind(texts), pattern, "cover", 2)
        assert np.array_equal(ids, want[0]) and np.array_equal(offsets, want[1])
    with pytest.raises(TypeError, match="text 2000 is int, expected str"):
        cl100k.model.encode_texts(texts[:2000] + [7] + texts[2000:], pattern, "cover", 1)
    assert [sys.getrefcount(t) for t in texts] == counts


def test_a_list_emptied_by_another_thread_during_the_call_still_gives_its_ids(cl100k):
    """The texts of a list stay alive while the native threads read them without the GIL, even
    when another Python thread empties the list (whose items then have no other reference):
    that thread waits for the GIL, which the call holds until its threads start."""
    base = lines_of("en_brown.txt", 20000)
    want = cl100k.encode_batch_flat(base, num_threads=2)
    shared: list[str] = []
    go = threading.Event()

    def empty_it():
        go.wait()
        shared.clear()

    for _ in range(5):
        shared[:] = ["".join(line) for line in base]       # items referenced by the list only
        go.clear()
        emptier = threading.Thread(target=empty_it)
        emptier.start()
        go.set()
        ids, offsets = cl100k.model.encode_texts(shared, cl100k._native_pattern, "cover", 2)
        emptier.join()
        assert shared == []
        assert np.array_equal(ids, want[0]) and np.array_equal(offsets, want[1])


def test_memory_error_inside_the_batch_reaches_the_caller(tmp_path):
    """A failed allocation in the nogil loop (here the code points of one 300 MB text) raises
    MemoryError in Python instead of vanishing."""
    code = textwrap.dedent(f"""
        import resource, sys
        from hf_greedtok import Tokenizer
        tok = Tokenizer.from_tiktoken({str(VOCAB / "cl100k_base.tiktoken")!r})
        tok.encode("warm up")
        text = "a" * (300 << 20)
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (size + (64 << 20), resource.RLIM_INFINITY))
        try:
            tok.encode(text)
        except MemoryError:
            print("MemoryError")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.stdout.strip() == "MemoryError", result.stderr[-2000:]


@settings(max_examples=300, deadline=None)
@given(st.text("abcxyzABCXYZ", min_size=1, max_size=12), st.booleans())
def test_a_table_word_of_letters_is_split_as_the_pattern_splits_it(word, prefix_space):
    import regex
    for name in NATIVE:
        pre = ByteLevel(pattern=name)
        assert pre.count_table_word(word, prefix_space) == \
            regex.findall(PATTERNS[name], " " + word if prefix_space else word), name
