"""A foreign vocabulary's own normalizer and byte-level pre-tokenizer, run by HF ``tokenizers``."""
from __future__ import annotations

from typing import Any, ClassVar, Iterable, Optional, Sequence

from ..normalizers import replace_surrogates
from .base import PreTokenizer
from .byte_level import ByteLevel, unicode_to_bytes


class HFPreTokenizer(PreTokenizer):
    """An HF ``tokenizers`` normalizer + byte-level pre-tokenizer, run by the library itself.

    Words come back as the UTF-8 bytes they stand for, so the native byte-level encoder can
    use them directly. Built by :meth:`hf_greedtok.Tokenizer.from_hf_bpe`, so that words are
    split exactly as HF does for that vocabulary.

    Args:
        tokenizer_json: the text of an HF ``tokenizer.json``; only its normalizer and
            pre-tokenizer are used.

    Raises:
        Exception: whatever ``tokenizers.Tokenizer.from_str`` raises on a malformed file.
    """

    kind: ClassVar[str] = "HF"
    unit_kind: ClassVar[str] = "bytes"
    exports_to_hf: ClassVar[bool] = False

    def __init__(self, tokenizer_json: str) -> None:
        from tokenizers import Tokenizer as HFTokenizer
        self._json = tokenizer_json
        self._tok = HFTokenizer.from_str(tokenizer_json)
        self._table = unicode_to_bytes()

    def pre_tokenize(self, text: str) -> list[bytes]:  # type: ignore[override]
        text = replace_surrogates(text)     # tokenizers cannot take them; U+FFFD as everywhere
        if self._tok.normalizer is not None:
            text = self._tok.normalizer.normalize_str(text)
        pieces = self._tok.pre_tokenizer.pre_tokenize_str(text) if self._tok.pre_tokenizer else [(text, None)]
        return [bytes(self._table[c] for c in piece) for piece, _ in pieces]

    word_units = staticmethod(lambda word: word)
    token_to_str = staticmethod(ByteLevel.token_to_str)
    str_to_token = staticmethod(ByteLevel.str_to_token)

    def hf_pre_tokenizer(self, alphabet: Optional[Iterable[str]] = None):
        """Raises ValueError: a foreign vocabulary's pre-tokenizer only encodes (no HF export)."""
        raise ValueError(_NO_EXPORT)

    def hf_decoder(self, special_tokens: Sequence[str] = ()):
        """Raises ValueError: a foreign vocabulary's pre-tokenizer only encodes (no HF export)."""
        raise ValueError(_NO_EXPORT)

    def to_dict(self) -> dict[str, Any]:
        """The saved form: ``{"type": "HF", "tokenizer_json": ...}``."""
        return {"type": self.kind, "tokenizer_json": self._json}

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "HFPreTokenizer":
        """Inverse of :meth:`to_dict`."""
        return cls(spec["tokenizer_json"])

    def __reduce__(self):
        return (HFPreTokenizer, (self._json,))


_NO_EXPORT = "the HFPreTokenizer pre-tokenizer has no HF export; only tokenizers trained by hf-greedtok do"
