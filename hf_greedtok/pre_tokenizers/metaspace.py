"""SentencePiece-style pre-tokenization: spaces become "▁", words start at each "▁", and the
singletons are characters or script-aware units (:mod:`hf_greedtok.indic.units`), optionally
after a morphology lookup (:mod:`hf_greedtok.indic.lookup`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Optional, Sequence, Union

import regex

from ..decoders import MetaspaceDecoder
from ..indic.lookup import MorphLookup
from ..indic.units import UNIT_KINDS, UnitSplitter
from ..normalizers import replace_surrogates
from .base import PreTokenizer


@dataclass(frozen=True)
class Metaspace(PreTokenizer):
    """SentencePiece-style split on "▁" with character (or unit) singletons.

    A "▁" is always prepended, so decoding drops exactly one leading space. Text that itself
    contains U+2581 decodes it as a space (as in SentencePiece and HF ``Metaspace``); every
    other string round-trips exactly.

    Args:
        replacement: the one character standing for a space.
        units: the singletons: "chars" (code points), or "marks"/"vowels", the script-aware
            units of :mod:`hf_greedtok.indic.units` (CBPE's initial units; tokens then start and end
            on unit boundaries).
        lookup: optional :class:`hf_greedtok.indic.lookup.MorphLookup`; words found in it are split
            into their morphological segments (MorphTok Section 3.1.1), boundaries inside a
            unit being dropped.

    Raises:
        ValueError: a replacement that is not one character, or unknown units.
    """

    replacement: str = "\u2581"
    units: str = "chars"
    lookup: Optional[MorphLookup] = field(default=None, hash=False)
    kind: ClassVar[str] = "Metaspace"
    decoder_follows_special_tokens: ClassVar[bool] = True

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

    def count_table_word(self, word: str, prefix_space: bool, split=None) -> list[str]:
        """Words of one count-table entry: the entry read as text (``prefix_space`` is moot: a
        "▁" opens every word). An entry that already opens with the replacement is a word as
        this pre-tokenizer shows it (the words of a parquet table ``hf-greedtok count`` wrote):
        that "▁" is the space every word gets, so no second one is put before it (which would
        add a lone "▁" word). ``split``: see :meth:`PreTokenizer.count_table_word`."""
        if word.startswith(self.replacement):
            word = word[1:]
            if not word:
                return [self.replacement]       # the word of a run of spaces
        return (split or self.pre_tokenize)(word)

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

    @property
    def table_split(self) -> str:
        """"metaspace", "metaspace-marks" or "metaspace-vowels" (the units), "+lookup" with a lookup."""
        units = "" if self.units == "chars" else f"-{self.units}"
        return f"metaspace{units}{'+lookup' if self.lookup is not None else ''}"

    def token_decoder(self, special_tokens: Sequence[str] = ()) -> MetaspaceDecoder:
        """:class:`~hf_greedtok.decoders.MetaspaceDecoder`: "▁" back to spaces, dropping the one
        prepended to the text and after each of ``special_tokens``."""
        return MetaspaceDecoder(self.replacement, tuple(special_tokens))

    def hf_normalizers(self) -> list:
        """``Prepend("▁")`` and ``Replace(" ", "▁")``. The prepend is a normalizer rather than
        ``Metaspace(prepend_scheme="always")`` because that one skips texts already starting with a
        space, losing it on decode."""
        from tokenizers import normalizers
        return [normalizers.Prepend(self.replacement), normalizers.Replace(" ", self.replacement)]

    def hf_pre_tokenizer(self, alphabet: Optional[Iterable[str]] = None):
        """HF's ``Metaspace(prepend_scheme="never")`` (the normalizers prepend), then, given the
        model's ``alphabet``, a ``Split`` isolating every character outside it and the replacement.

        The Unigram export needs that split to equal the native ``optimal`` encoder: natively a
        character outside the alphabet is a hard boundary (no ranked token contains it) encoded as
        its UTF-8 bytes, but inside one Unigram word its unknown node costs ``min_score - 10``, so
        a special or ``<0xNN>`` piece spelled out in the text (score ``UNSELECTABLE_SCORE`` of
        :mod:`hf_greedtok.hf.pipeline`) would win over it: ``"<0x41>"`` would become the byte "A".
        """
        from tokenizers import Regex, pre_tokenizers
        split = pre_tokenizers.Metaspace(replacement=self.replacement, prepend_scheme="never", split=True)
        if alphabet is None:
            return split
        chars = {c for unit in alphabet for c in unit} | {self.replacement}
        outside = Regex(outside_class(chars))
        return pre_tokenizers.Sequence([split, pre_tokenizers.Split(outside, behavior="isolated")])

    def hf_decoder(self, special_tokens: Sequence[str] = ()):
        """:meth:`hf_greedtok.decoders.MetaspaceDecoder.to_hf`, which also drops the "▁" prepended
        to the text after each of ``special_tokens``."""
        return self.token_decoder(special_tokens).to_hf()

    def to_dict(self) -> dict[str, Any]:
        """The saved form: ``{"type": "Metaspace", "replacement": "▁"}``, plus "units" unless
        characters and "lookup" (:meth:`MorphLookup.to_dict`) if any."""
        spec: dict[str, Any] = {"type": self.kind, "replacement": self.replacement}
        if self.units != "chars":
            spec["units"] = self.units
        if self.lookup is not None:
            spec["lookup"] = self.lookup.to_dict()
        return spec

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "Metaspace":
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: as the constructor and :meth:`MorphLookup.from_dict`.
        """
        lookup = spec.get("lookup")
        return cls(replacement=spec.get("replacement", "\u2581"), units=spec.get("units", "chars"),
                   lookup=None if lookup is None else MorphLookup.from_dict(lookup))


def outside_class(chars: Iterable[str]) -> str:
    """An Oniguruma character class matching one character not in ``chars``."""
    codes = sorted({ord(c) for c in chars})
    ranges = []
    for c in codes:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    body = "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
    return f"[^{body}]" if body else r"[\s\S]"
