"""Pre-tokenizers: split text into words and words into singletons (the paper's set B).

Two kinds, as in HF ``tokenizers``:

* :class:`ByteLevel` (default): a Unicode-aware regex split (GPT-4 style pattern, run with the
  ``regex`` package); words keep their leading space; the singletons are the 256 byte values,
  shown with GPT-2's byte-to-unicode mapping so tokens are readable strings ("Ġthe").
* :class:`Metaspace` (SentencePiece style): spaces become "▁", a "▁" is prepended, words start
  at each "▁"; the singletons are characters (code points), with byte fallback for unseen ones,
  or script-aware units (:mod:`hf_greedtok.units`: a base character with its combining marks);
  an optional morphology lookup (:mod:`hf_greedtok.lookup`) splits known words into segments.

A pre-tokenizer is recorded in the saved file and used identically for training and encoding.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Optional, Union

import regex

from .normalizers import replace_surrogates
from .units import UNIT_KINDS, UnitSplitter

if TYPE_CHECKING:
    from .lookup import MorphLookup

# tiktoken's cl100k_base pattern (GPT-4). Possessive quantifiers need the `regex` package.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
# GPT-2's pattern (r50k_base).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# The GreedTok paper's words (Section 5.2): space-delimited, each keeping the one space before it.
WHITESPACE_PATTERN = r""" ?\S+|\s+(?!\S)|\s+"""
PATTERNS = {"gpt4": GPT4_PATTERN, "cl100k": GPT4_PATTERN, "gpt2": GPT2_PATTERN, "r50k": GPT2_PATTERN,
            "whitespace": WHITESPACE_PATTERN}

Token = Union[bytes, str]


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
        pattern: the split regex; "gpt4" (default, cl100k_base's), "gpt2", "whitespace" (the
            GreedTok paper's space-delimited words), or a pattern string.
    """

    pattern: str = GPT4_PATTERN
    unit_kind: ClassVar[str] = "bytes"

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", PATTERNS.get(self.pattern, self.pattern))

    @functools.cached_property
    def _regex(self) -> "regex.Pattern[str]":
        return regex.compile(self.pattern)

    def pre_tokenize(self, text: str) -> list[str]:
        """Words of ``text``; their concatenation is ``text`` (every character is matched)."""
        return self._regex.findall(text)

    def count_table_word(self, word: str, prefix_space: bool) -> list[str]:
        """Words of one ``word<TAB>count`` entry, read as if it followed a space in running text."""
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
        return {"type": "ByteLevel", "pattern": self.pattern}


@dataclass(frozen=True)
class Metaspace:
    """SentencePiece-style split on "▁" with character (or unit) singletons.

    A "▁" is always prepended, so decoding drops exactly one leading space. Text that itself
    contains U+2581 decodes it as a space (as in SentencePiece and HF ``Metaspace``); every
    other string round-trips exactly.

    Args:
        replacement: the one character standing for a space.
        units: the singletons: "chars" (code points), or "marks"/"vowels", the script-aware
            units of :mod:`hf_greedtok.units` (CBPE's initial units; tokens then start and end
            on unit boundaries).
        lookup: optional :class:`hf_greedtok.lookup.MorphLookup`; words found in it are split
            into their morphological segments (MorphTok Section 3.1.1), boundaries inside a
            unit being dropped.

    Raises:
        ValueError: a replacement that is not one character, or unknown units.
    """

    replacement: str = "\u2581"
    units: str = "chars"
    lookup: Optional["MorphLookup"] = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if len(self.replacement) != 1:
            raise ValueError(f"replacement must be one character, got {self.replacement!r}")
        if self.units not in UNIT_KINDS:
            raise ValueError(f"units must be one of {', '.join(UNIT_KINDS)}, got {self.units!r}")

    @property
    def unit_kind(self) -> str:
        return self.units

    @functools.cached_property
    def _regex(self) -> "regex.Pattern[str]":
        r = regex.escape(self.replacement)
        return regex.compile(f"{r}[^{r}]*|[^{r}]+")

    @functools.cached_property
    def splitter(self) -> UnitSplitter:
        return UnitSplitter(self.units)

    def pre_tokenize(self, text: str) -> list[str]:
        """Words of ``text``, each starting with the replacement; none for "" (as HF, whose
        ``Prepend`` normalizer leaves an empty string empty)."""
        if not text:
            return []
        words = self._regex.findall(self.replacement + text.replace(" ", self.replacement))
        if self.lookup is None:
            return words
        split = self.lookup.split_word
        return [piece for w in words for piece in split(w, self.units, self.replacement)]

    def count_table_word(self, word: str, prefix_space: bool) -> list[str]:
        return self.pre_tokenize(word)

    def word_units(self, word: str) -> Union[str, tuple[str, ...]]:
        """The singletons of a word: the word itself (characters) or a tuple of unit strings."""
        word = replace_surrogates(word)
        return word if self.units == "chars" else tuple(self.splitter.split(word))

    @staticmethod
    def token_to_str(token: str) -> str:
        return token

    @staticmethod
    def str_to_token(text: str) -> str:
        return text

    def to_dict(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"type": "Metaspace", "replacement": self.replacement}
        if self.units != "chars":
            spec["units"] = self.units
        if self.lookup is not None:
            spec["lookup"] = self.lookup.to_dict()
        return spec


PreTokenizer = Union[ByteLevel, Metaspace]


def pre_tokenizer_from_dict(spec: dict[str, Any]) -> PreTokenizer:
    """Rebuild a pre-tokenizer from :meth:`to_dict`; raises ValueError on an unknown type."""
    kind = spec.get("type")
    if kind == "ByteLevel":
        return ByteLevel(pattern=spec["pattern"])
    if kind == "Metaspace":
        lookup = None
        if spec.get("lookup") is not None:
            from .lookup import MorphLookup
            lookup = MorphLookup.from_dict(spec["lookup"])
        return Metaspace(replacement=spec.get("replacement", "\u2581"), units=spec.get("units", "chars"),
                         lookup=lookup)
    if kind == "HF":
        from .foreign import HFPreTokenizer
        return HFPreTokenizer(spec["tokenizer_json"])  # type: ignore[return-value]
    raise ValueError(f"unknown pre-tokenizer type {kind!r}")


def type_name(value: object) -> str:
    """``module.Class`` of ``value``'s type, as errors name it (builtins without the module)."""
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def check_pre_tokenizer(value: object, owner: str) -> PreTokenizer:
    """``value`` if it is a pre-tokenizer of this package (:class:`ByteLevel`, :class:`Metaspace`,
    or a foreign vocabulary's); ``owner`` names the class checking it.

    Raises:
        TypeError: anything else, e.g. a ``tokenizers.pre_tokenizers.ByteLevel()``, naming the
            class to use instead.
    """
    from .foreign import HFPreTokenizer      # here: foreign imports this module
    if isinstance(value, (ByteLevel, Metaspace, HFPreTokenizer)):
        return value  # type: ignore[return-value]
    name = type(value).__name__
    use = f"hf_greedtok.{name}()" if name in ("ByteLevel", "Metaspace") else \
        "hf_greedtok.ByteLevel() (byte-level units) or hf_greedtok.Metaspace() (character units)"
    rust = " (a tokenizers pre-tokenizer runs in Rust and cannot drive GreedTok's encoders)" \
        if type(value).__module__.startswith("tokenizers") else ""
    raise TypeError(f"{owner}: pre_tokenizer must be hf_greedtok.ByteLevel or hf_greedtok.Metaspace, got "
                    f"{type_name(value)}{rust}; use {use}")


def pre_tokenizer_from_name(name: str) -> PreTokenizer:
    """"byte-level" (or "bytes") or "metaspace" (or "chars")."""
    key = name.lower().replace("_", "-")
    if key in ("byte-level", "bytelevel", "bytes"):
        return ByteLevel()
    if key in ("metaspace", "chars"):
        return Metaspace()
    raise ValueError(f"pre-tokenizer must be 'byte-level' or 'metaspace', got {name!r}")
