"""``evaluate`` and ``train`` report superword folders per word (issue 40 item 4): ``words`` and
``tokens_per_word`` count the words of the word split in the chunks, as for a word-level folder,
with ``chunks`` and ``tokens_per_chunk`` beside them; word-level folders print what they did.
Expected counts come from the ``regex`` package and each split's regex, expected token totals
from encoding the text line by line."""
from __future__ import annotations

import contextlib
import io
import json
import re

import pytest
import regex
from corpora import EXAMPLE_TEXT

from hf_greedtok import Tokenizer
from hf_greedtok.cli import main
from hf_greedtok.pre_tokenizers.patterns import GPT4_MARKS, SUPERWORDS

# chunk edges of every kind: digits, punctuation runs, double and trailing spaces, tabs, blank
# lines, a CRLF line end, accents
TRICKY = ("It is a truth,  I said... page 12 of 300!\n\tTabs and   spaces  \nnaïve café — résumé\n\n\n"
          "The end.\n  indented line, (parens) and 'quotes' don't\r\n")
CHUNK_KEYS = {"chunks", "distinct_chunks", "tokens_per_chunk", "tokens_per_chunk_cover", "tokens_per_chunk_optimal",
              "word_split"}


def _count(pattern: str, lines) -> int:
    return sum(len(regex.findall(pattern, line)) for line in lines)


def _run(argv: list[str]) -> str:
    """main(argv)'s stdout; fails unless it exits 0."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


def _evaluate(folder, *args: str) -> dict:
    return json.loads(_run(["evaluate", str(folder), *args, "--json", "--quiet"]))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The superword and the word-level folder `train` saves at k = 600, and the superword
    run's summary line."""
    base = tmp_path_factory.mktemp("per-word")
    printed = _run(["train", str(EXAMPLE_TEXT), "--superwords", "-k", "600", "-o", str(base / "sw"), "--quiet"])
    _run(["train", str(EXAMPLE_TEXT), "-k", "600", "-o", str(base / "word"), "--quiet"])
    return base / "sw", base / "word", printed


@pytest.fixture(scope="module")
def lines():
    return EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines(keepends=True)


def test_train_prints_tokens_per_word_with_tokens_per_chunk_beside(folders, lines):
    sw, _, printed = folders
    tok = Tokenizer.load(sw)
    words, chunks = _count(GPT4_MARKS.regex, lines), _count(SUPERWORDS.regex, lines)
    tokens = {m: sum(len(tok.encode(line, mode=m)) for line in lines) for m in ("cover", "optimal")}
    found = re.search(r"([0-9.]+) tokens per word on the training words \(optimal, the saved encoder; "
                      r"cover ([0-9.]+)\), ([0-9.]+) per chunk \(([0-9,]+) chunks of ([0-9,]+) words\)", printed)
    assert found, printed
    assert found.groups() == (f"{tokens['optimal'] / words:.4f}", f"{tokens['cover'] / words:.4f}",
                              f"{tokens['optimal'] / chunks:.4f}", f"{chunks:,}", f"{words:,}")
    assert "tokens per chunk on the training chunks" not in printed


def test_evaluate_a_superword_folder_per_word_in_sample_and_held_out(folders, lines, tmp_path):
    sw, _, _ = folders
    held = tmp_path / "tricky.txt"
    held.write_bytes(TRICKY.encode("utf-8"))           # bytes: keep the CRLF
    r = _evaluate(sw, str(EXAMPLE_TEXT), "--held-out", str(held))
    tok = Tokenizer.load(sw)
    for got, text_lines in ((r, lines), (r["held_out"], TRICKY.splitlines(keepends=True))):
        words, chunks = _count(GPT4_MARKS.regex, text_lines), _count(SUPERWORDS.regex, text_lines)
        assert (got["words"], got["chunks"], got["word_split"]) == (words, chunks, "gpt4-marks")
        cover = sum(len(tok.encode(line, mode="cover")) for line in text_lines)
        optimal = sum(len(tok.encode(line, mode="optimal")) for line in text_lines)
        assert (got["tokens_cover"], got["tokens_optimal"]) == (cover, optimal)
        assert got["tokens_per_word_cover"] == cover / words and got["tokens_per_word_optimal"] == optimal / words
        assert got["tokens_per_chunk_cover"] == cover / chunks and got["tokens_per_chunk_optimal"] == optimal / chunks
        # the headline: the folder's encoder, optimal (train's default)
        assert got["mode"] == "optimal"
        assert (got["tokens_per_word"], got["tokens_per_chunk"]) == (optimal / words, optimal / chunks)
        # the text metrics: tokens of each non-blank line (without its end) per whitespace word
        measured = [line.rstrip("\r\n") for line in text_lines if line.strip()]
        text_tokens = sum(len(tok.encode(line)) for line in measured)
        whitespace_words = sum(len(line.split()) for line in measured)
        assert (got["text_tokens"], got["whitespace_words"]) == (text_tokens, whitespace_words)
        assert got["fertility"] == text_tokens / whitespace_words


def test_a_word_level_folder_counts_the_same_words_and_no_chunks(folders, lines):
    sw, word, _ = folders
    r, s = _evaluate(word, str(EXAMPLE_TEXT)), _evaluate(sw, str(EXAMPLE_TEXT))
    assert not CHUNK_KEYS & set(r)
    assert r["words"] == s["words"] == _count(GPT4_MARKS.regex, lines)
    assert r["distinct_words"] == s["distinct_words"]
    assert r["tokens_per_word"] == r["tokens_optimal"] / r["words"]            # the folder's encoder
    # now comparable: the superword folder takes fewer tokens per word of the same text
    assert s["tokens_per_word_optimal"] < r["tokens_per_word_optimal"] < s["tokens_per_chunk_optimal"]


def test_evaluate_counts_weights_the_words_of_each_chunk(folders, tmp_path):
    sw, _, _ = folders
    table = {"of the king": 7, "said the Devil": 3, "yes, indeed": 2, "page 12": 5, "naïve": 1}
    path = tmp_path / "chunks.tsv"
    path.write_text("".join(f"{w}\t{c}\n" for w, c in table.items()), encoding="utf-8")
    r = _evaluate(sw, str(path), "--counts")
    tok = Tokenizer.load(sw)
    # a table entry is read as if it followed a space in running text (no --no-prefix-space)
    assert r["words"] == sum(c * _count(GPT4_MARKS.regex, [" " + w]) for w, c in table.items()) == 52
    assert r["chunks"] == sum(c * _count(SUPERWORDS.regex, [" " + w]) for w, c in table.items()) == 28
    cover = sum(c * len(tok.encode(" " + w, mode="cover")) for w, c in table.items())
    assert r["tokens_cover"] == cover and r["tokens_per_word_cover"] == cover / 52
    assert r["tokens_per_chunk_cover"] == cover / 28


def test_evaluate_a_chunk_table_from_count_superwords_as_its_text(folders, tmp_path):
    sw, _, _ = folders
    text, table = tmp_path / "tricky.txt", tmp_path / "chunks.parquet"
    text.write_bytes((TRICKY * 3).encode("utf-8"))       # every chunk three times: counts > 1
    _run(["count", str(text), "--superwords", "-o", str(table), "--quiet"])
    r = _evaluate(sw, str(table), "--counts")
    lines = (TRICKY * 3).splitlines(keepends=True)
    assert (r["words"], r["chunks"]) == (_count(GPT4_MARKS.regex, lines), _count(SUPERWORDS.regex, lines))
    from_text = _evaluate(sw, str(text))
    for key in ("words", "distinct_words", "chunks", "distinct_chunks", "tokens_cover", "tokens_per_word",
                "tokens_per_chunk_optimal"):
        assert r[key] == from_text[key], key


def test_a_superword_folder_saved_with_chunk_figures_loads_and_evaluates_per_word(folders, tmp_path, capsys):
    """Folders saved before held chunk figures under words/tokens_per_word in training_info:
    they load, and evaluate counts words from the text, not from training_info."""
    sw, _, _ = folders
    tok = Tokenizer.load(sw)
    info = tok.training_info
    for key in ("chunks", "distinct_chunks", "tokens_per_chunk"):
        info.pop(key)
    info.update(words=17510, distinct_words=9692, tokens_per_word=info["objective_tokens"] / 17510)
    tok.save(tmp_path / "old")
    assert Tokenizer.load(tmp_path / "old").training_info["words"] == 17510
    new = _evaluate(sw, str(EXAMPLE_TEXT))
    old = _evaluate(tmp_path / "old", str(EXAMPLE_TEXT))
    assert {k: v for k, v in old.items() if k != "tokenizer"} == {k: v for k, v in new.items() if k != "tokenizer"}
    # a recorded word split that is a chunk split: exit 2, one line
    tok.training_info["curriculum"]["word_pattern"] = "superwords"
    tok.save(tmp_path / "bad")
    assert main(["evaluate", str(tmp_path / "bad"), str(EXAMPLE_TEXT), "--json", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "cannot be the chunk split 'superwords'" in err
