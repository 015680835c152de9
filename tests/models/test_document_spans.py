"""A long document on several threads (issue 42): ``encode_batch_flat`` cuts a text longer than a
thread's share right after a line feed between two non-spaces ("x\\nA"), encodes the spans on
different threads and joins their ids. The ids are those of the uncut text, under every split we
ship, in both modes, on arbitrary Unicode documents and on every corpus as one str (the tests'
cuts; the whole corpora with ``-m corpora``)."""
from __future__ import annotations

import contextlib

import pytest
from corpora import EXAMPLE_TEXT, VOCAB, corpus, whole_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel, GreedTokTrainer, Tokenizer
from hf_greedtok._encoder import _spans, _thread_minimums
from hf_greedtok.pre_tokenizers.patterns import SPLITS


@contextlib.contextmanager
def small_cuts(chars_per_thread: int = 8, cut_chars: int = 16):
    """Documents of a few hundred characters (by default) cut as a megabyte would be."""
    old = _thread_minimums(chars_per_thread, cut_chars)
    try:
        yield
    finally:
        _thread_minimums(*old)


@pytest.fixture(scope="module")
def tokenizers() -> dict[str, Tokenizer]:
    """A small GreedTok vocabulary for each native split (byte level), trained on the example text."""
    out = {}
    for split in SPLITS:
        trainer = GreedTokTrainer(k=400, pre_tokenizer=ByteLevel(split.name), show_progress=False)
        out[split.name] = trainer.train([str(EXAMPLE_TEXT)])
    return out


# lines of letters, digits, punctuation, spaces, marks and other scripts, with the line ends
# (LF, CRLF, blank lines, trailing spaces) that decide where a cut may fall
_pieces = st.sampled_from(["\n", "\n\n", "\r\n", " \n", "\n ", "x\nA", "!\n", "'s\n", "\u00e9\n", " "])
_documents = st.lists(st.one_of(st.text(max_size=12), _pieces), min_size=1, max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(doc=_documents, threads=st.integers(2, 4))
def test_a_document_cut_across_threads_gives_the_ids_of_the_uncut_text(tokenizers, doc, threads):
    for name, tok in tokenizers.items():
        for mode in ("cover", "optimal"):
            whole = tok.encode_batch_flat([doc], mode=mode)[0].tolist()
            with small_cuts():
                cut = tok.encode_batch_flat([doc, doc], mode=mode, num_threads=threads)
            ids, offsets = cut[0].tolist(), cut[1].tolist()
            assert ids[:offsets[1]] == whole and ids[offsets[1]:] == whole, (name, mode)


def test_the_cut_falls_after_a_line_feed_between_non_spaces(tokenizers):
    """Where no line feed sits between two non-spaces (CRLF ends, blank lines, trailing spaces), the
    text is not cut and still encodes whole; where one does, both threads take a span."""
    tok = tokenizers["gpt4"]
    for doc in ("no line feed at all " * 10, "line\r\n" * 30, "a \n" * 40, "x\n\ny" * 20,
                "The cynic.\nA blackguard.\n" * 20):
        whole = tok.encode_batch_flat([doc])[0].tolist()
        with small_cuts():
            assert tok.encode_batch_flat([doc], num_threads=2)[0].tolist() == whole


def test_spans_cover_each_text_and_start_after_a_line_feed_between_non_spaces():
    doc = "The cynic.\nA blackguard.\n" * 20 + "one line, no end"
    with small_cuts():
        spans = _spans([doc, "short"], 3)
    assert [s[:3] for s in spans if s[0] == 1] == [(1, 0, 5)] and len(spans) == 4
    starts = [lo for i, lo, _, _ in spans if i == 0]
    assert starts[0] == 0 and all(doc[p - 1] == "\n" and not doc[p].isspace() and not doc[p - 2].isspace()
                                  for p in starts[1:])
    assert "".join(doc[lo:hi] for i, lo, hi, _ in spans if i == 0) == doc
    assert len({piece for i, *_, piece in spans if i == 0}) == 3      # the document's spans: a piece each
    with small_cuts():
        assert _spans(["line\r\n" * 30], 2) == [(0, 0, 180, 0)]     # CRLF: no cut
    assert _spans([doc], 2) == [(0, 0, len(doc), 0)]                 # below a megabyte: no cut


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 3])
def test_the_two_halves_of_a_document_go_to_two_pieces_wherever_the_cut_falls(offset):
    """A cut just before the middle once gave thread 0 both halves (6 MB of Brown on two
    threads ran at one thread's speed): spans go to pieces of work by their middles."""
    half = "x" * (40 + offset) + "\nA"
    doc = half + "y" * (84 - len(half))
    with small_cuts():
        spans = _spans([doc], 2)
    assert [(lo, piece) for _, lo, _, piece in spans] == [(0, 0), (41 + offset, 1)]


CORPUS_NAMES = ["en_brown.txt", "en_python_docs.txt", "en_shakespeare_milton.txt", "code_python_stdlib.txt",
                "hi_devdas.txt", "zh_reviews.txt"]


def assert_two_threads_give_tiktokens_ids(text: str, cut: bool = True) -> None:
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from hf_greedtok.pre_tokenizers.patterns import GPT4
    assert len(_spans([text], 2)) == (2 if cut else 1)
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    one, two = (tok.encode_batch_flat([text], num_threads=t)[0].tolist() for t in (1, 2))
    assert one == two
    ranks = load_tiktoken_bpe(str(VOCAB / "cl100k_base.tiktoken"))
    ref = tiktoken.Encoding("cl100k_file", pat_str=GPT4.regex, mergeable_ranks=ranks, special_tokens={})
    assert two == ref.encode_ordinary(text)


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_every_corpus_as_one_document_gives_the_same_ids_on_two_threads(name):
    """The tests' cuts (0.4-2.3 MB), cut across threads from 64K characters on."""
    with small_cuts(1 << 12, 1 << 16):
        assert_two_threads_give_tiktokens_ids(corpus(name).read_text(encoding="utf-8"))


@pytest.mark.corpora
@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_every_whole_corpus_as_one_document_gives_the_same_ids_on_two_threads(name):
    """The whole corpora (0.4-12 MB), at the thresholds users get: cut past a megabyte."""
    text = whole_corpus(name).read_text(encoding="utf-8")
    assert_two_threads_give_tiktokens_ids(text, cut=len(text) > 1 << 20)
