"""Superword tokenizers are measured per word (issue 40 item 4): their pre-tokens are chunks
(runs of words), but ``words`` and ``tokens_per_word`` of evaluate_word_counts, compare and the
trainer's training_info count the words of the word split in those chunks, so that they compare
with a word-level tokenizer's; the chunk figures sit beside them. Word counts here come from the
``regex`` package and the split's own regex, not from the code under test."""
from __future__ import annotations

import pytest
import regex
from corpora import EXAMPLE_TEXT

from hf_greedtok import ByteLevel, GreedTokTrainer
from hf_greedtok.experiments.compare import compare_word_counts, heldout_grid
from hf_greedtok.experiments.evaluation import evaluate_word_counts
from hf_greedtok.pre_tokenizers.patterns import DEFAULT_SPLIT, GPT4_MARKS, SUPERWORDS, WHITESPACE
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer
from hf_greedtok.word_counts import count_words

# Digits, runs of punctuation, double and trailing spaces, tabs, blank lines, CRLF, accents:
# chunk edges of every kind. On it the gpt4-marks split of the chunks gives the gpt4-marks words
# of the lines themselves.
TRICKY = ("It is a truth,  I said... page 12 of 300!\n\tTabs and   spaces  \nnaïve café — résumé\n\n\n"
          "The end.\n  indented line, (parens) and 'quotes' don't\r\n")
WORD_LEVEL_KEYS = ["mode", "words", "distinct_words", "characters", "tokens_cover", "tokens_optimal",
                   "tokens_per_word", "tokens_per_word_cover", "tokens_per_word_optimal", "chars_per_token",
                   "chars_per_token_cover", "chars_per_token_optimal", "token_saving_ratio", "vocab_size"]
CHUNK_KEYS = {"chunks", "distinct_chunks", "tokens_per_chunk", "tokens_per_chunk_cover", "tokens_per_chunk_optimal",
              "word_split"}


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)        # as the file counter reads them


def _matches(pattern: str, lines: list[str]) -> list[str]:
    return [m for line in lines for m in regex.findall(pattern, line)]


@pytest.fixture(scope="module")
def training_lines() -> list[str]:
    return _lines(EXAMPLE_TEXT.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def superword(training_lines):
    return GreedTokSuperwordTrainer(k=600, show_progress=False).train_from_iterator(training_lines)


@pytest.fixture(scope="module")
def word_level(training_lines):
    return GreedTokTrainer(k=600, pre_tokenizer=ByteLevel(DEFAULT_SPLIT), show_progress=False
                           ).train_from_iterator(training_lines)


def test_superword_training_info_is_per_word_with_the_chunks_beside(superword, word_level, training_lines):
    info = superword.training_info
    words = _matches(GPT4_MARKS.regex, training_lines)
    chunks = _matches(SUPERWORDS.regex, training_lines)
    assert len(chunks) < len(words) / 3                  # chunks really hold several words here
    assert (info["words"], info["distinct_words"]) == (len(words), len(set(words)))
    assert (info["chunks"], info["distinct_chunks"]) == (len(chunks), len(set(chunks)))
    assert info["tokens_per_word"] == info["objective_tokens"] / len(words)
    assert info["tokens_per_chunk"] == info["objective_tokens"] / len(chunks)
    # a word-level run counts the same words, so the two tokens per word compare
    assert word_level.training_info["words"] == info["words"]
    assert not CHUNK_KEYS & set(word_level.training_info)


def test_continued_training_keeps_training_info_per_word(superword, training_lines):
    # word_tokens given: stage 2 resumes (the path through GreedTokTrainer.continue_training)
    trainer = GreedTokSuperwordTrainer(k=300, word_tokens=150, show_progress=False)
    trainer.train_from_iterator(training_lines)
    info = trainer.continue_training(600).training_info
    keys = ("words", "distinct_words", "chunks", "distinct_chunks", "objective_tokens", "tokens_per_word",
            "tokens_per_chunk")
    assert {k: info[k] for k in keys} == {k: superword.training_info[k] for k in keys}


@pytest.mark.parametrize("text", ["training", "tricky"])
def test_evaluate_word_counts_of_a_superword_tokenizer_counts_words(superword, training_lines, text):
    lines = training_lines if text == "training" else _lines(TRICKY)
    counts = count_words(lines, superword.pre_tokenizer, None, show_progress=False)
    r = evaluate_word_counts(superword, counts)
    words = _matches(GPT4_MARKS.regex, lines)
    chunks = _matches(SUPERWORDS.regex, lines)
    assert (r["words"], r["distinct_words"]) == (len(words), len(set(words)))
    assert (r["chunks"], r["distinct_chunks"]) == (len(chunks), len(set(chunks)))
    assert r["word_split"] == "gpt4-marks"
    # token totals from encoding the lines, independently of the counting
    for mode in ("cover", "optimal"):
        tokens = sum(len(superword.encode(line, mode=mode)) for line in lines)
        assert r[f"tokens_{mode}"] == tokens
        assert r[f"tokens_per_word_{mode}"] == tokens / len(words)
        assert r[f"tokens_per_chunk_{mode}"] == tokens / len(chunks)
    # the headline figures are the tokenizer's own encoder's
    assert r["mode"] == superword.mode
    assert (r["tokens_per_word"], r["tokens_per_chunk"]) == (r[f"tokens_per_word_{superword.mode}"],
                                                             r[f"tokens_per_chunk_{superword.mode}"])
    assert r["characters"] == sum(map(len, lines))


def test_a_word_level_tokenizer_keeps_its_metrics(word_level, superword, training_lines):
    counts = count_words(training_lines, word_level.pre_tokenizer, None, show_progress=False)
    r = evaluate_word_counts(word_level, counts)
    assert list(r) == WORD_LEVEL_KEYS
    words = _matches(GPT4_MARKS.regex, training_lines)
    assert (r["words"], r["distinct_words"]) == (len(words), len(set(words)))
    assert r["tokens_per_word_cover"] == r["tokens_cover"] / len(words)
    assert r["tokens_per_word"] == r[f"tokens_per_word_{word_level.mode}"]
    # the comparable number: superwords take fewer tokens per word of the same text
    chunks = count_words(training_lines, superword.pre_tokenizer, None, show_progress=False)
    assert evaluate_word_counts(superword, chunks)["tokens_per_word_optimal"] < r["tokens_per_word_optimal"]


def test_the_curriculum_word_split_decides_the_words(training_lines):
    tok = GreedTokSuperwordTrainer(k=300, word_pattern="whitespace", show_progress=False
                                   ).train_from_iterator(training_lines[:3000])
    lines = ["don't stop, she said; then she stopped.\n", "Of the two, the one was better.\n"]
    counts = count_words(lines, tok.pre_tokenizer, None, show_progress=False)
    spaced, gpt4 = len(_matches(WHITESPACE.regex, lines)), len(_matches(GPT4_MARKS.regex, lines))
    assert (spaced, gpt4) == (16, 20)            # the two splits disagree on these lines
    r = evaluate_word_counts(tok, counts)
    assert r["word_split"] == "whitespace" and r["words"] == spaced
    del tok.training_info["curriculum"]          # a superword folder without one: the default split
    r = evaluate_word_counts(tok, counts)
    assert r["word_split"] == "gpt4-marks" and r["words"] == gpt4
    tok.training_info["curriculum"] = {"word_pattern": "superwords"}
    with pytest.raises(ValueError, match="cannot be the chunk split 'superwords'"):
        evaluate_word_counts(tok, counts)


def test_compare_on_chunks_divides_by_words(training_lines):
    lines = training_lines[:2000]
    counts = count_words(lines, ByteLevel("superwords"), None, show_progress=False)
    r = compare_word_counts(counts, [40, 120], pattern="superwords", source="chunks", show_progress=False)
    words = _matches(GPT4_MARKS.regex, lines)
    chunks = _matches(SUPERWORDS.regex, lines)
    assert r.corpus["words"] == len(words) and r.corpus["distinct_words"] == len(set(words))
    assert (r.corpus["chunks"], r.corpus["distinct_chunks"]) == (len(chunks), len(set(chunks)))
    for g in r.grid:
        assert g["tokens_per_word_greedtok"] == g["tokens_greedtok"] / len(words)
        assert g["tokens_per_word_bpe"] == g["tokens_bpe"] / len(words)
    assert r.tokens_per_word_greedtok[120] == r.tokens_greedtok[120] / len(words)
    assert f"{len(words):,} words" in r.to_markdown() and f"{len(chunks):,} chunks" in r.to_markdown()
    held = _lines(TRICKY)
    rows = heldout_grid(r, [("tricky", count_words(held, ByteLevel("superwords"), None, show_progress=False))])
    assert {(row["words"], row["chunks"]) for row in rows} == {(len(_matches(GPT4_MARKS.regex, held)),
                                                               len(_matches(SUPERWORDS.regex, held)))}
    assert all(row["tokens_per_word_greedtok"] == row["tokens_greedtok"] / row["words"] for row in rows)
