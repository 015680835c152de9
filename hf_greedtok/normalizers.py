"""Normalizers: the optional Unicode normalization applied before pre-tokenization.

The native pipeline and the HF ``tokenizers`` backend must normalize identically, and Python's
``unicodedata`` (Unicode 14.0 in Python 3.11) and the Rust crate behind ``tokenizers`` disagree
on marks added since (U+0899, U+089F, U+08D3, ...: canonical combining classes Python does not
know yet). So both paths use the one Rust implementation of ``tokenizers.normalizers``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import regex

FORMS = ("NFC", "NFKC", "NFD", "NFKD")

_SURROGATES = regex.compile(r"[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Lone surrogates (not encodable as UTF-8) become U+FFFD, the documented policy everywhere."""
    return _SURROGATES.sub("\ufffd", text)


@functools.lru_cache(maxsize=None)
def _rust_normalizer(form: str):
    from tokenizers import normalizers
    return getattr(normalizers, form)()


@dataclass(frozen=True)
class UnicodeNormalizer:
    """Unicode normalization form ``form`` (one of NFC, NFKC, NFD, NFKD), exactly as HF
    ``tokenizers.normalizers.NFC`` etc. (the same Rust code runs), so native and HF encodings
    agree on every character.

    Lone surrogates, which have no normal form, become U+FFFD first.

    Example:
        >>> UnicodeNormalizer("NFC")("e\\u0301")
        'é'

    Raises:
        ValueError: unknown form.
    """

    form: str

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"normalizer must be one of {', '.join(FORMS)}, got {self.form!r}")

    def __call__(self, text: str) -> str:
        if text.isascii():          # every form leaves ASCII unchanged; skip the call into Rust
            return text
        rust = _rust_normalizer(self.form)
        try:
            return rust.normalize_str(text)
        except UnicodeEncodeError:  # lone surrogates cannot cross into Rust
            return rust.normalize_str(replace_surrogates(text))


def check_normalizer(value: object, owner: str, *, names: bool = False) -> Optional[UnicodeNormalizer]:
    """``value`` as a normalizer: None, a :class:`UnicodeNormalizer`, or (with ``names``) its
    form name such as "NFC" or "none"; ``owner`` names the class checking it.

    Raises:
        TypeError: anything else, e.g. a ``tokenizers.normalizers.NFC()``, naming the class to
            use instead. ValueError: an unknown form name.
    """
    if value is None or isinstance(value, UnicodeNormalizer):
        return value
    if names and isinstance(value, str):
        return normalizer_from_name(value)
    cls = type(value)
    form = next((f for f in (cls.__name__, str(value).upper()) if f in FORMS), "NFC")
    got = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    accepted = "hf_greedtok.UnicodeNormalizer, its form name or None" if names else "hf_greedtok.UnicodeNormalizer or None"
    raise TypeError(f"{owner}: normalizer must be {accepted}, got {got}; use "
                    f"hf_greedtok.UnicodeNormalizer({form!r})")


def normalizer_from_name(name: Optional[str]) -> Optional[UnicodeNormalizer]:
    """``None``/"none" gives no normalizer (lossless round trips); otherwise a UnicodeNormalizer."""
    if name is None or name.lower() == "none":
        return None
    return UnicodeNormalizer(name.upper())
