"""Pre-tokenizers: split text into words and words into singletons (the paper's set B).

Every kind follows one protocol (:class:`PreTokenizer`, :mod:`.base`): it says what its
singletons are, which native scanner splits it, how it exports itself to HF ``tokenizers`` and
how it is saved, so the rest of the package asks it instead of testing its class. The kinds, one
module each, as in HF ``tokenizers``, registered in :mod:`.kinds`:

* :class:`ByteLevel` (default, :mod:`.byte_level`): a Unicode-aware regex split (GPT-4 style
  pattern, run with the ``regex`` package or a native scanner); words keep their leading space;
  the singletons are the 256 byte values, shown with GPT-2's byte-to-unicode mapping so tokens
  are readable strings ("Ġthe"). The split patterns we ship live in :mod:`.patterns`.
* :class:`Metaspace` (SentencePiece style, :mod:`.metaspace`): spaces become "▁", a "▁" is
  prepended, words start at each "▁"; the singletons are characters (code points), with byte
  fallback for unseen ones, or script-aware units (:mod:`hf_greedtok.indic.units`: a base
  character with its combining marks); an optional morphology lookup
  (:mod:`hf_greedtok.indic.lookup`) splits known words into segments.
* :class:`HFPreTokenizer` (:mod:`.hf`): a foreign vocabulary's own normalizer and pre-tokenizer,
  run by the ``tokenizers`` library (:meth:`hf_greedtok.Tokenizer.from_hf_bpe`).

A pre-tokenizer is recorded in the saved file (``to_dict``) and used identically for training
and encoding. Names are imported on first use (PEP 562), so reading the split registry
(:mod:`.patterns`, e.g. for ``hf-greedtok --help``) loads none of the pre-tokenizers.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:      # the names as type checkers see them; at run time __getattr__ imports them
    from ..normalizers import replace_surrogates
    from .base import PreTokenizer, Token
    from .byte_level import ByteLevel, bytes_to_unicode, unicode_to_bytes
    from .hf import HFPreTokenizer
    from .kinds import KINDS, check_pre_tokenizer, pre_tokenizer_from_dict, pre_tokenizer_from_name, type_name
    from .metaspace import Metaspace
    from .patterns import (GPT2_PATTERN, GPT4_MARKS_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS, SPLITS,
                           SUPERWORDS_PATTERN, WHITESPACE_PATTERN, SplitPattern)

# public name -> the module defining it
_EXPORTS = {
    **dict.fromkeys(("PreTokenizer", "Token"), ".base"),
    **dict.fromkeys(("ByteLevel", "bytes_to_unicode", "unicode_to_bytes"), ".byte_level"),
    "HFPreTokenizer": ".hf", "Metaspace": ".metaspace",
    **dict.fromkeys(("KINDS", "check_pre_tokenizer", "pre_tokenizer_from_dict", "pre_tokenizer_from_name",
                     "type_name"), ".kinds"),
    **dict.fromkeys(("GPT2_PATTERN", "GPT4_MARKS_PATTERN", "GPT4_PATTERN", "O200K_PATTERN", "PATTERNS", "SPLITS",
                     "SplitPattern", "SUPERWORDS_PATTERN", "WHITESPACE_PATTERN"), ".patterns"),
    "replace_surrogates": "..normalizers",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The public names of the package, imported on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
