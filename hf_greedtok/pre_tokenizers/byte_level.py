"""Byte-level pre-tokenization: a regex split into words whose singletons are the 256 byte
values, shown with GPT-2's byte-to-unicode map so tokens are readable strings ("Ġthe")."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

import regex

from .._pretokenize import native_pattern_id, split as native_split
from ..errors import InvalidSpec
from ..normalizers import replace_surrogates

# tiktoken's cl100k_base pattern (GPT-4). Possessive quantifiers need the `regex` package.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
# GPT-2's pattern (r50k_base).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# tiktoken's o200k_base pattern (GPT-4o), copied from tiktoken_ext/openai_public.py (tiktoken 0.14.0).
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# The GreedTok paper's words (Section 5.2): space-delimited, each keeping the one space before it.
WHITESPACE_PATTERN = r""" ?\S+|\s+(?!\S)|\s+"""
# GPT-4's split with o200k's treatment of combining marks (issue 19 item 2): a letter run is
# [\p{L}\p{M}]+, so Devanagari vowel signs and viramas stay in their words; nothing else changes
# (text without marks splits exactly as with GPT4_PATTERN).
GPT4_MARKS_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+[\p{L}\p{M}]+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
PATTERNS = {"gpt4": GPT4_PATTERN, "cl100k": GPT4_PATTERN, "gpt2": GPT2_PATTERN, "r50k": GPT2_PATTERN,
            "o200k": O200K_PATTERN, "whitespace": WHITESPACE_PATTERN, "gpt4-marks": GPT4_MARKS_PATTERN}


@functools.lru_cache(maxsize=None)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from the 256 byte values to printable characters (HF ByteLevel)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) \
        + list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(printable, chars)}


@functools.lru_cache(maxsize=None)
def unicode_to_bytes() -> dict[str, int]:
    """Inverse of :func:`bytes_to_unicode`."""
    return {c: b for b, c in bytes_to_unicode().items()}


@dataclass(frozen=True)
class ByteLevel:
    """Regex split + byte singletons (GPT-2 / GPT-4 / the GreedTok paper's setting).

    Args:
        pattern: the split regex; "gpt4" (default, cl100k_base's), "gpt2" (r50k_base's),
            "o200k" (o200k_base's), "whitespace" (the GreedTok paper's space-delimited words),
            "gpt4-marks" (gpt4 with combining marks kept in letter runs), or a pattern string.
            The named ones split natively (:attr:`native_pattern`); any other pattern runs in
            ``regex``.
    """

    pattern: str = GPT4_PATTERN
    unit_kind: ClassVar[str] = "bytes"

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", PATTERNS.get(self.pattern, self.pattern))

    @functools.cached_property
    def _regex(self) -> "regex.Pattern[str]":
        return regex.compile(self.pattern)

    @functools.cached_property
    def native_pattern(self) -> int:
        """The id of this pattern in the native pre-tokenizer (:mod:`hf_greedtok._pretokenize`),
        or -1 for a pattern it does not have built in (then ``regex`` splits)."""
        return native_pattern_id(self.pattern)

    def pre_tokenize(self, text: str) -> list[str]:
        """Words of ``text``; their concatenation is ``text`` (every character is matched).

        The patterns we ship split natively (:mod:`hf_greedtok._pretokenize`, proven equal to
        ``regex``; 2-4x faster), so counting for training and encoding split alike; any other
        pattern runs in ``regex``.
        """
        if self.native_pattern >= 0:
            return native_split(self.pattern, text)
        return self._regex.findall(text)

    @functools.cached_property
    def _keeps_letters_whole(self) -> bool:
        # gpt4 and gpt4-marks (letters after one optional non-letter), gpt2 ( ?\p{L}+) and
        # whitespace ( ?\S+) match a run of letters, with one space before it, as one word; o200k
        # splits "wOrd" by case.
        return self.pattern in (GPT4_PATTERN, GPT2_PATTERN, WHITESPACE_PATTERN, GPT4_MARKS_PATTERN)

    def count_table_word(self, word: str, prefix_space: bool) -> list[str]:
        """Words of one ``word<TAB>count`` entry, read as if it followed a space in running text."""
        if self._keeps_letters_whole and word.isascii() and word.isalpha():
            return [" " + word if prefix_space else word]      # what the split gives, without it
        return self.pre_tokenize(" " + word if prefix_space else word)

    @staticmethod
    def word_units(word: str) -> bytes:
        """The singletons of a word: its UTF-8 bytes (lone surrogates as U+FFFD)."""
        try:
            return word.encode("utf-8")
        except UnicodeEncodeError:
            return replace_surrogates(word).encode("utf-8")

    @staticmethod
    def token_to_str(token: bytes) -> str:
        """Readable form of a byte token, e.g. b" the" -> "Ġthe"."""
        table = bytes_to_unicode()
        return "".join(table[b] for b in token)

    @staticmethod
    def str_to_token(text: str) -> bytes:
        """Inverse of :meth:`token_to_str`; raises KeyError on characters outside the alphabet."""
        table = unicode_to_bytes()
        return bytes(table[c] for c in text)

    def to_dict(self) -> dict[str, Any]:
        """The saved form: ``{"type": "ByteLevel", "pattern": ...}`` (the pattern itself, not its name)."""
        return {"type": "ByteLevel", "pattern": self.pattern}

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "ByteLevel":
        """Inverse of :meth:`to_dict`; compiles the pattern now, so a bad one is named where it is
        read, not at the first encode.

        Raises:
            InvalidSpec: the pattern does not compile.
            KeyError: no "pattern".
        """
        pre = cls(pattern=spec["pattern"])
        try:
            pre._regex
        except regex.error as e:
            raise InvalidSpec(f"invalid split pattern {pre.pattern!r} in \"pre_tokenizer\": {e}") from None
        return pre
