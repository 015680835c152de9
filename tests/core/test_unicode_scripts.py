"""The Script property of letters and marks (hf_greedtok.unicode_scripts), checked against the
`regex` package's \\p{Script=...} on every letter and mark of the shared corpora."""
from __future__ import annotations

import pytest
import regex
from corpora import corpus

from hf_greedtok.unicode_scripts import (COMMON, PIECE, dominant_script, letter_scripts, most_letters, script_of,
                                         scripts_of_token)

CORPORA = ("en_brown.txt", "en_shakespeare_milton.txt", "en_python_docs.txt", "code_python_stdlib.txt",
           "hi_devdas.txt", "zh_reviews.txt", "multi_isocodes_parallel.tsv")


def test_every_letter_and_mark_of_the_corpora_gets_the_script_regex_gives_it():
    chars = set()
    for name in CORPORA:
        chars |= set(corpus(name).read_text(encoding="utf-8"))
    letters = [ch for ch in chars if regex.match(r"[\p{L}\p{M}]", ch)]
    assert len(letters) > 5000
    scripts = set()
    for ch in letters:
        script = script_of(ch)
        scripts.add(script)
        assert regex.match(rf"\p{{Script={script.replace(' ', '_')}}}", ch), (ch, hex(ord(ch)), script)
    assert {"Latin", "Han", "Devanagari", "Hangul", "Hiragana", "Katakana", "Arabic", "Cyrillic",
            "Canadian Aboriginal", "Inherited"} <= scripts
    for ch in chars - set(letters):
        assert script_of(ch) == COMMON


@pytest.mark.parametrize("name, script", [("en_brown.txt", "Latin"), ("hi_devdas.txt", "Devanagari"),
                                          ("zh_reviews.txt", "Han")])
def test_the_dominant_script_of_a_corpus(name, script):
    lines = corpus(name).read_text(encoding="utf-8").splitlines()[:2000]
    assert dominant_script(lines) == script


def test_a_count_table_counts_each_letter_count_times_and_ties_go_alphabetically():
    assert letter_scripts({"ab 1": 3, "東": 5}) == {"Latin": 6, "Han": 5}
    assert letter_scripts(["ab", "東京"]) == {"Latin": 2, "Han": 2}
    assert most_letters(letter_scripts(["ab", "東京"])) == "Han"
    assert dominant_script(["1, 2; 3"]) == COMMON
    assert letter_scripts(["ab ーー \U0001d466"]) == {"Latin": 2}     # letters of no one script


def test_a_token_has_the_scripts_of_its_letters_and_a_piece_of_a_character_says_so():
    assert scripts_of_token(b" the") == {"Latin"}
    assert scripts_of_token(" नमस्ते".encode()) == {"Devanagari"}      # vowel sign and virama: Devanagari marks
    assert scripts_of_token("，。 12".encode()) == set()
    assert scripts_of_token("a東".encode()) == {"Latin", "Han"}
    assert scripts_of_token("東".encode()[1:]) == {PIECE}
    assert scripts_of_token("é".encode() + "東".encode()[:1]) == {"Latin", PIECE}
