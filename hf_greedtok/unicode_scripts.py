"""The Unicode script of a character (the Script property, UAX #24), as far as tokenizers need
it: which writing system the letters of a text or a token belong to.

Python's ``unicodedata`` has no Script property; fontTools' ``unicodedata`` reads it from the
Unicode Character Database (``Scripts.txt``) and names scripts by their long names ("Latin",
"Han", "Devanagari", "Canadian Aboriginal"). Only letters and marks take their script here;
digits, punctuation, symbols and whitespace are ``COMMON`` whatever their script, so a token's
scripts are those of its letters.

Example:
    >>> script_of("a"), script_of("क"), script_of("ा"), script_of("東"), script_of("，")
    ('Latin', 'Devanagari', 'Devanagari', 'Han', 'Common')
    >>> sorted(scripts_of_token("東京".encode()[:4]))      # 東 and a piece of 京
    ['Han', 'piece of a character']
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Iterable, Mapping, Union

COMMON = "Common"
INHERITED = "Inherited"
#: What :func:`scripts_of_token` reports for bytes that are part of a multi-byte UTF-8 character
#: cut by the token's edge: the bytes alone do not say which script the character belongs to.
PIECE = "piece of a character"


@lru_cache(maxsize=65536)
def script_of(ch: str) -> str:
    """The script of one character (a str of length 1) if it is a letter or a mark ("Latin",
    "Han", "Devanagari", ..., ``INHERITED`` for combining marks shared by scripts), else
    ``COMMON``."""
    if ch.isascii():
        return "Latin" if ch.isalpha() else COMMON
    if unicodedata.category(ch)[0] not in "LM":
        return COMMON
    from fontTools import unicodedata as ucd      # only for text beyond ASCII
    return ucd.script_name(ucd.script(ch))


def letter_scripts(texts: Union[Mapping[str, int], Iterable[str]]) -> Counter:
    """Letters per script (``Counter`` {script: letters}) of ``texts``: strings, or a count table
    {text: count} whose letters count ``count`` times each. Only letters (``str.isalpha``) of a
    script count: marks, non-letters and letters shared by scripts (``COMMON``, e.g. "ー" or
    mathematical letters) never decide a text's script."""
    table = texts if isinstance(texts, Mapping) else Counter(texts)
    chars: Counter = Counter()
    for text, count in table.items():
        for ch, n in Counter(text).items():
            chars[ch] += n * count
    scripts: Counter = Counter()
    for ch, n in chars.items():
        if ch.isalpha():
            script = script_of(ch)
            if script not in (COMMON, INHERITED):
                scripts[script] += n
    return scripts


def most_letters(scripts: Mapping[str, int]) -> str:
    """The script with the most letters in a :func:`letter_scripts` table (ties: the first name
    in alphabetical order), or ``COMMON`` for an empty one."""
    return min(scripts, key=lambda s: (-scripts[s], s)) if scripts else COMMON


def dominant_script(texts: Union[Mapping[str, int], Iterable[str]]) -> str:
    """The script most letters of ``texts`` (as for :func:`letter_scripts`) belong to, or
    ``COMMON`` for texts without letters."""
    return most_letters(letter_scripts(texts))


def scripts_of_token(token: bytes) -> frozenset:
    """The scripts of a byte-level token's letters and marks (``COMMON`` and ``INHERITED`` left
    out), plus ``PIECE`` if the token cuts a multi-byte UTF-8 character."""
    text = token.decode("utf-8", errors="ignore")
    scripts = {script_of(ch) for ch in text} - {COMMON, INHERITED}
    if len(text.encode("utf-8")) != len(token):
        scripts.add(PIECE)
    return frozenset(scripts)
