"""Byte-level pre-tokenization: a regex split into words whose singletons are the 256 byte
values, shown with GPT-2's byte-to-unicode map so tokens are readable strings ("Ġthe")."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Optional, Sequence

import regex

from .._pretokenize import split as native_split
from ..errors import InvalidSpec
from ..normalizers import replace_surrogates
from .base import PreTokenizer
from .patterns import GPT4_PATTERN, find_split, native_id, resolve_pattern, split_label, split_name


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
class ByteLevel(PreTokenizer):
    """Regex split + byte singletons (GPT-2 / GPT-4 / the GreedTok paper's setting).

    Args:
        pattern: the split regex: the name of a split we ship (:mod:`.patterns`: "gpt4", the
            default, cl100k_base's; "gpt2", r50k_base's; "o200k", o200k_base's; "whitespace",
            the GreedTok paper's space-delimited words; "gpt4-marks", gpt4 with combining marks
            kept in letter runs; "superwords", chunks of words and single punctuation within a
            line, for tokens that span words; "superwords-digits", the same with digits inside
            chunks; or an alias such as "cl100k"), or a pattern string.
            The splits we ship run natively (:attr:`native_pattern`); any other pattern runs in
            ``regex``.
    """

    pattern: str = GPT4_PATTERN
    kind: ClassVar[str] = "ByteLevel"
    unit_kind: ClassVar[str] = "bytes"
    tokens_spell_text: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", resolve_pattern(self.pattern))

    @functools.cached_property
    def _regex(self) -> "regex.Pattern[str]":
        return regex.compile(self.pattern)

    @functools.cached_property
    def native_pattern(self) -> int:
        """The id of this pattern's scanner in the native (compiled) pre-tokenizer,
        or -1 for a pattern it does not have built in (then ``regex`` splits)."""
        return native_id(self.pattern)

    @property
    def label(self) -> str:
        """"byte level, split GPT-4 regex" (the split's label, or the pattern itself)."""
        return f"byte level, split {split_label(self.pattern)}"

    @property
    def table_split(self) -> str:
        """The split's name ("gpt4-marks", "superwords"), or the pattern itself for one we do not ship."""
        return split_name(self.pattern) or self.pattern

    def pre_tokenize(self, text: str) -> list[str]:
        """Words of ``text``; their concatenation is ``text`` (every character is matched).

        The patterns we ship split natively (a compiled scanner, proven equal to
        ``regex``; 2-4x faster), so counting for training and encoding split alike; any other
        pattern runs in ``regex``.
        """
        if self.native_pattern >= 0:
            return native_split(self.native_pattern, text)
        return self._regex.findall(text)

    @functools.cached_property
    def _keeps_letters_whole(self) -> bool:
        split = find_split(self.pattern)
        return split is not None and split.letter_runs_whole

    def count_table_word(self, word: str, prefix_space: bool, split=None) -> list[str]:
        """Words of one ``word<TAB>count`` entry, read as if it followed a space in running text
        when ``prefix_space`` (``split``: see :meth:`PreTokenizer.count_table_word`)."""
        if split is None and self._keeps_letters_whole and word.isascii() and word.isalpha():
            return [" " + word if prefix_space else word]      # what the split gives, without it
        return (split or self.pre_tokenize)(" " + word if prefix_space else word)

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

    def hf_pre_tokenizer(self, alphabet: Optional[Iterable[str]] = None):
        """``Split(pattern, "isolated")`` + ``ByteLevel(use_regex=False)``: the same words, shown
        as bytes; ``alphabet`` is ignored (bytes cover every character)."""
        from tokenizers import Regex, pre_tokenizers
        return pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(self.pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])

    def hf_decoder(self, special_tokens: Sequence[str] = ()):
        """HF's ``decoders.ByteLevel`` (special tokens decode as their bytes like any token)."""
        from tokenizers import decoders
        return decoders.ByteLevel()

    def to_dict(self) -> dict[str, Any]:
        """The saved form: ``{"type": "ByteLevel", "pattern": ...}`` (the pattern itself, not its name)."""
        return {"type": self.kind, "pattern": self.pattern}

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
