"""Pre-tokenizers: split text into words and words into singletons (the paper's set B).

Three kinds, one module each, as in HF ``tokenizers``:

* :class:`ByteLevel` (default, :mod:`.byte_level`): a Unicode-aware regex split (GPT-4 style
  pattern, run with the ``regex`` package); words keep their leading space; the singletons are
  the 256 byte values, shown with GPT-2's byte-to-unicode mapping so tokens are readable
  strings ("Ġthe").
* :class:`Metaspace` (SentencePiece style, :mod:`.metaspace`): spaces become "▁", a "▁" is
  prepended, words start at each "▁"; the singletons are characters (code points), with byte
  fallback for unseen ones, or script-aware units (:mod:`hf_greedtok.indic.units`: a base
  character with its combining marks); an optional morphology lookup
  (:mod:`hf_greedtok.indic.lookup`) splits known words into segments.
* :class:`HFPreTokenizer` (:mod:`.hf`): a foreign vocabulary's own normalizer and pre-tokenizer,
  run by the ``tokenizers`` library (:meth:`hf_greedtok.Tokenizer.from_hf_bpe`).

A pre-tokenizer is recorded in the saved file (``to_dict``) and used identically for training
and encoding.
"""
from __future__ import annotations

from typing import Any, Union

from ..errors import InvalidSpec
from ..normalizers import replace_surrogates
from .byte_level import (GPT2_PATTERN, GPT4_MARKS_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS, WHITESPACE_PATTERN,
                         ByteLevel, bytes_to_unicode, unicode_to_bytes)
from .hf import HFPreTokenizer
from .metaspace import Metaspace

__all__ = ["ByteLevel", "GPT2_PATTERN", "GPT4_MARKS_PATTERN", "GPT4_PATTERN", "HFPreTokenizer", "Metaspace",
           "O200K_PATTERN", "PATTERNS",
           "PreTokenizer", "Token", "WHITESPACE_PATTERN", "bytes_to_unicode", "check_pre_tokenizer",
           "pre_tokenizer_from_dict", "pre_tokenizer_from_name", "replace_surrogates", "type_name", "unicode_to_bytes"]

Token = Union[bytes, str]
PreTokenizer = Union[ByteLevel, Metaspace]

_KINDS = {"ByteLevel": ByteLevel, "Metaspace": Metaspace, "HF": HFPreTokenizer}


def pre_tokenizer_from_dict(spec: dict[str, Any]) -> PreTokenizer:
    """Rebuild a pre-tokenizer from its ``to_dict()``.

    Raises:
        InvalidSpec: an unknown "type" or a split pattern that does not compile.
        KeyError: a required field is missing.
    """
    kind = _KINDS.get(spec.get("type"))  # type: ignore[arg-type]
    if kind is None:
        raise InvalidSpec(f"unknown pre-tokenizer type {spec.get('type')!r}")
    return kind.from_dict(spec)  # type: ignore[return-value]


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
