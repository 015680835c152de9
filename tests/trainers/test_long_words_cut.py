"""Words and superword chunks longer than the trainer's limit (65,535 singletons: positions in a
word are uint16) are cut into pieces by one function, :func:`hf_greedtok.word_counts.cut_word`,
on every path that makes training counts, instead of refusing the corpus (issue 40, item 5).
The cut is checked against a literal greedy packing written here with ``regex``; the CLI side
(train and count on long lines) is in tests/cli/test_superwords_cli.py."""
from __future__ import annotations

from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTrainer, Metaspace, count_words, count_words_in_files, read_count_tables
from hf_greedtok._trainer import MAX_WORD_UNITS
from hf_greedtok.errors import CorpusError
from hf_greedtok.pre_tokenizers.patterns import GPT4_MARKS, SUPERWORDS
from hf_greedtok.word_counts import cut_word


def utf8_size(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def literal_cut(text: str, limit: int, word_regex, size) -> list[str]:
    """Greedy packing, literally: the words of ``word_regex`` (None: the text is one word) added to
    the open piece while it stays within ``limit``; a word that does not fit closes it, and a
    word longer than ``limit`` is added one character at a time, closing a piece before the
    character that would pass the limit."""
    words = regex.findall(word_regex, text) if word_regex else [text] if text else []
    pieces, cur = [], ""
    for w in words:
        if size(cur + w) <= limit:
            cur += w
            continue
        if cur:
            pieces.append(cur)
        cur = ""
        if size(w) <= limit:
            cur = w
            continue
        for c in w:
            if size(cur + c) > limit:
                pieces.append(cur)
                cur = ""
            cur += c
    return pieces + [cur] if cur else pieces


# letters (ASCII, CJK, Devanagari with its signs), a combining mark, punctuation, digits,
# whitespace and line ends, a 4-byte emoji and a lone surrogate
CHARS = st.sampled_from(list("abc xy,.!?'-\n\r\t09") + ["é", "中", "文", "😀", "\u0301", "क", "ि", "्", "\ud800"])


@settings(max_examples=400, deadline=None)
@given(st.text(CHARS, min_size=1, max_size=120), st.integers(4, 40), st.sampled_from(["superwords", "superwords-digits"]))
def test_a_chunk_is_packed_at_its_gpt4_marks_word_ends(text, limit, split):
    pieces = cut_word(text, ByteLevel(split), limit)
    assert "".join(pieces) == text
    assert all(pieces) and all(utf8_size(p) <= limit for p in pieces)
    assert pieces == literal_cut(text, limit, GPT4_MARKS.regex, utf8_size)


@settings(max_examples=300, deadline=None)
@given(st.text(CHARS, min_size=1, max_size=120), st.integers(4, 40), st.sampled_from(["gpt4-marks", "gpt4", "o200k", r"\S+|\s+"]))
def test_a_word_level_word_is_cut_at_the_limit_in_bytes_on_character_boundaries(text, limit, pattern):
    pieces = cut_word(text, ByteLevel(pattern), limit)
    assert "".join(pieces) == text and all(utf8_size(p) <= limit for p in pieces)
    assert pieces == literal_cut(text, limit, None, utf8_size)
    # every piece but the last is full: the next character would not have fitted
    assert all(utf8_size(p) + utf8_size(q[0]) > limit for p, q in zip(pieces, pieces[1:]))


@settings(max_examples=200, deadline=None)
@given(st.text(CHARS, min_size=1, max_size=120), st.integers(1, 30), st.sampled_from(["chars", "marks", "vowels"]))
def test_metaspace_words_are_cut_at_the_limit_in_units(text, limit, units):
    pre = Metaspace(units=units)
    pieces = cut_word(text, pre, limit)
    assert "".join(pieces) == text
    assert all(pieces) and all(len(pre.word_units(p)) <= limit for p in pieces)
    whole = list(pre.word_units(text))
    got = [u for p in pieces for u in pre.word_units(p)]
    assert got == whole            # cut between units: each piece's units are the word's
    assert len(pieces) == -(-len(whole) // limit)


def test_the_trainers_limit_is_the_default_and_a_word_that_fits_is_not_cut():
    assert MAX_WORD_UNITS == 65535
    fits = "a" * 65535
    assert cut_word(fits, ByteLevel("superwords")) == [fits]
    word = "é" * 35_000                                    # 70,000 bytes, 35,000 characters
    pieces = cut_word(word, ByteLevel("superwords"))
    assert [utf8_size(p) for p in pieces] == [65534, 4466]    # 65,535 would split a character
    assert cut_word(word, Metaspace()) == [word]            # 35,000 characters fit as characters
    assert cut_word("", ByteLevel()) == [""] == cut_word("", Metaspace(units="marks"))


def test_a_limit_a_character_does_not_fit_in_is_refused():
    with pytest.raises(ValueError, match="at least 4"):
        cut_word("abc", ByteLevel(), 3)
    with pytest.raises(ValueError, match="at least 1"):
        cut_word("abc", Metaspace(), 0)


def long_line() -> str:
    """A line of 120,000+ bytes: ASCII words with no digit or punctuation (one chunk), a run of
    CJK letters (one word under every split), and a 70,000-byte word."""
    words = [("abcdefghij" * 3)[k % 10:k % 10 + 1 + k % 7] for k in range(20_000)]
    cjk = "".join(chr(0x4E00 + (k * 7919) % 2000) for k in range(25_000))
    return " ".join(words) + " " + cjk + " " + "x" * 70_000 + "\n"


def expected_counts(lines, pre) -> Counter:
    return Counter(p for line in lines for w in pre.pre_tokenize(line) for p in cut_word(w, pre))


@pytest.mark.parametrize("split", ["superwords", "gpt4-marks"])
def test_every_counter_counts_the_pieces(split, tmp_path):
    pre = ByteLevel(split)
    lines = ["a short line, with words\n", long_line(), "a short line, with words\n"]
    want = expected_counts(lines, pre)
    assert max(map(utf8_size, want)) <= MAX_WORD_UNITS
    assert sum(utf8_size(w) * c for w, c in want.items()) == sum(map(utf8_size, lines))
    assert count_words(lines, pre, num_proc=1, show_progress=False) == want
    path = tmp_path / "long.txt"
    path.write_text("".join(lines), encoding="utf-8")
    assert count_words_in_files([path], pre, num_proc=1, show_progress=False) == want
    # the Ray counter's task body (run here without Ray): the same worker function
    pytest.importorskip("pyarrow")
    from hf_greedtok.distributed.counting import _count_text_range
    *parts, _ = _count_text_range(str(path), 0, -1, 1, 1, pre, None, "strict", False)   # whole file, one partition
    assert dict(zip(*(parts[0].column(c).to_pylist() for c in ("word", "count")))) == want


def test_a_count_table_entry_longer_than_the_limit_is_cut(tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text("the\t5\n" + "x" * 70_000 + "\t3\n", encoding="utf-8")
    counts = read_count_tables([table], ByteLevel())
    assert counts == Counter({" the": 5, " " + "x" * 65_534: 3, "x" * 4466: 3})


def test_train_from_counts_trains_a_long_word_as_its_pieces():
    pre = ByteLevel("superwords")
    line = long_line()
    chunks = Counter(pre.pre_tokenize(line) * 3 + ["a short line, with words\n"] * 4)
    cut = expected_counts([line] * 3 + ["a short line, with words\n"] * 4, pre)
    assert len(cut) > len(chunks)
    a = GreedTokTrainer(k=200, pre_tokenizer=pre, show_progress=False).train_from_counts(chunks)
    b = GreedTokTrainer(k=200, pre_tokenizer=pre, show_progress=False).train_from_counts(cut)
    assert a.model.ranked_tokens == b.model.ranked_tokens
    assert a.training_info["distinct_words"] == len(cut)
    assert a.decode(a.encode(line)) == line


def test_counts_that_only_overflow_once_pieces_add_up_are_refused_as_too_large():
    # the first piece of the longer word is the other word: one count of 2**63, past int64
    words = {"a" * 70_000: 2**62, "a" * 65_535: 2**62}
    with pytest.raises(CorpusError, match="counts too large"):
        GreedTokTrainer(k=10, pre_tokenizer=ByteLevel("gpt4-marks"), show_progress=False).train_from_counts(words)


def test_no_token_is_longer_than_hf_tokenizers_can_free(tmp_path):
    """A 65,535-byte token (BPE merged a 70,000-byte word; GreedTok took it as a candidate)
    crashed the process when HF tokenizers freed the Unigram of the saved folder (its trie is
    freed one stack frame a byte): candidates, pinned tokens and max_token_length stop at
    MAX_TOKEN_LENGTH, and the folder of such a corpus loads and frees in a process of its own."""
    import subprocess
    import sys

    from hf_greedtok import GreedTokTokenizerFast
    from hf_greedtok.defaults import MAX_TOKEN_LENGTH

    for bad in ({"max_token_length": MAX_TOKEN_LENGTH + 1}, {"pinned_tokens": ["a" * (MAX_TOKEN_LENGTH + 1)]}):
        with pytest.raises(ValueError, match="1024"):
            GreedTokTrainer(k=10, **bad)
    lines = ["lorem" * 14_000, "lorem" * 14_000, " ".join(["lorem ipsum"] * 7000)]
    tok = GreedTokTrainer(k=60, bpe_candidates=2.0, show_progress=False).train_from_iterator(lines)
    assert max(map(len, tok.model.ranked_tokens)) <= MAX_TOKEN_LENGTH
    GreedTokTokenizerFast.from_greedtok(tok, mode="optimal").save_pretrained(tmp_path / "tok")
    code = ("import gc, sys; from tokenizers import Tokenizer; t = Tokenizer.from_file(sys.argv[1]); "
            "assert t.decode(t.encode(sys.argv[2]).ids) == sys.argv[2]; del t; gc.collect()")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "tok" / "tokenizer.json"), lines[0][:5000]],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
