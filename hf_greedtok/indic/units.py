"""Script-aware units: the initial symbols of CBPE and of script-aware GreedTok.

For abugida scripts (Devanagari, Bengali, Tamil, ...) a character-level tokenizer cuts dependent
vowel signs, viramas and anusvaras off their consonants. MorphTok (Brahma et al. 2025, Section
3.2, Algorithm 2, Figure 3) fixes this by making each consonant plus its dependent vowel one
initial unit. Two unit definitions are offered, both applied to text after the tokenizer's
normalizer (NFC by default for these units):

* ``"marks"`` (combining-mark closure): every character that is not a combining mark starts a
  unit, and every following combining mark (general category Mn, Mc, Me) or ZWJ/ZWNJ
  (U+200D/U+200C, category Cf, which control conjuncts) joins it: कार्यालय -> का र् या ल य.
  Works for every script; no unit starts with a mark except a word-initial run of marks.
* ``"vowels"`` (paper-faithful): only dependent vowel signs (Unicode property
  Indic_Syllabic_Category=Vowel_Dependent, read from the ``regex`` module's Unicode tables, not a
  hard-coded range) join the preceding character, whatever it is; anusvara, virama and nukta
  stay separate units (so ``़ा`` is a unit in पढ़ाई, as MorphTok's rule implies).

``"chars"`` (one code point per unit) is the unconstrained baseline. Units are strings; the
native core sees them as uint32 codes: a one-character unit is its code point, a longer unit gets
``MULTI_UNIT_BASE + i`` (above U+10FFFF, so no text character can collide with it).

Example:
    >>> UnitSplitter("marks").split("▁कार्यालय")
    ['▁', 'का', 'र्', 'या', 'ल', 'य']
    >>> UnitSplitter("vowels").split("हिंदी")
    ['हि', 'ं', 'दी']
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import regex

UNIT_KINDS = ("chars", "marks", "vowels")
MULTI_UNIT_BASE = 0x110000
# Characters that attach to the preceding unit in "marks" mode.
ATTACHING_MARKS = r"\p{Mn}\p{Mc}\p{Me}\u200c\u200d"
DEPENDENT_VOWEL = r"\p{Indic_Syllabic_Category=Vowel_Dependent}"

_PATTERNS = {
    "chars": r"(?s).",
    "marks": rf"(?s)[^{ATTACHING_MARKS}][{ATTACHING_MARKS}]*|[{ATTACHING_MARKS}]+",
    "vowels": rf"(?s).{DEPENDENT_VOWEL}*",
}
_MARK_START = regex.compile(rf"[{ATTACHING_MARKS}]")
_VOWEL_START = regex.compile(DEPENDENT_VOWEL)


def starts_with_mark(text: str) -> bool:
    """True if ``text`` begins with a combining mark (Mn, Mc, Me) or ZWJ/ZWNJ."""
    return _MARK_START.match(text) is not None


def starts_with_dependent_vowel(text: str) -> bool:
    """True if ``text`` begins with a dependent vowel sign (InSC=Vowel_Dependent; MorphTok Table 7's "DV")."""
    return _VOWEL_START.match(text) is not None


@dataclass(frozen=True)
class UnitSplitter:
    """Splits a word into units of kind ``kind`` ("chars", "marks" or "vowels").

    Raises:
        ValueError: unknown kind.
    """

    kind: str

    def __post_init__(self) -> None:
        if self.kind not in UNIT_KINDS:
            raise ValueError(f"units must be one of {', '.join(UNIT_KINDS)}, got {self.kind!r}")

    @functools.cached_property
    def _regex(self) -> "regex.Pattern[str]":
        return regex.compile(_PATTERNS[self.kind])

    def split(self, word: str) -> list[str]:
        """The units of ``word``, in order; their concatenation is ``word``."""
        if self.kind == "chars":
            return list(word)
        return self._regex.findall(word)

    def attaches(self, char: str) -> bool:
        """Whether ``char`` joins the unit before it (a combining mark for "marks", a dependent
        vowel sign for "vowels"; never for "chars"): alone, it is a unit only where nothing
        precedes it, so as a singleton it serves the fallback for unseen units."""
        return self.kind != "chars" and len(self.split("a" + char)) == 1

    def unit_starts(self, word: str) -> set[int]:
        """Character offsets in ``word`` where a unit starts (0 included for a non-empty word)."""
        if self.kind == "chars":
            return set(range(len(word)))
        return {m.start() for m in self._regex.finditer(word)}


def unit_codes(alphabet: Iterable[str]) -> dict[str, int]:
    """{unit: uint32 code}: code point for one-character units, ``MULTI_UNIT_BASE + i`` for the
    i-th longer unit in sorted order (deterministic for a given alphabet)."""
    units = sorted(set(alphabet))
    multi = [u for u in units if len(u) > 1]
    codes = {u: ord(u) for u in units if len(u) == 1}
    codes.update({u: MULTI_UNIT_BASE + i for i, u in enumerate(multi)})
    return codes


def pack_codes(words: Sequence[Sequence[str]], codes: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Unit sequences as (codes uint32[M], offsets int64[len(words) + 1]).

    A unit missing from ``codes`` (not seen in training, e.g. ब्+ZWNJ) is split into the
    longest seen units it begins with (ब्, then ZWNJ), and characters that start no seen unit
    are passed as code points, which the encoders treat as single characters: script-aware
    GreedTok has every character of its units as a singleton, so only characters it never saw
    fall back to bytes. This is the fallback HF BPE's unit merges give CBPE.
    """
    flat: list[int] = []
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    for k, units in enumerate(words):
        for u in units:
            c = codes.get(u)
            if c is not None:
                flat.append(c)
            else:
                flat.extend(_fallback_codes(u, codes))
        offsets[k + 1] = len(flat)
    return np.asarray(flat, dtype=np.uint32), offsets


def _fallback_codes(unit: str, codes: dict[str, int]) -> list[int]:
    out = []
    i = 0
    while i < len(unit):
        for j in range(len(unit), i, -1):
            c = codes.get(unit[i:j])
            if c is not None:
                out.append(c)
                i = j
                break
        else:
            out.append(ord(unit[i]))
            i += 1
    return out
