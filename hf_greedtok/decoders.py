"""Decoders: token strings -> text, natively and as the equivalent HF ``tokenizers`` decoder.

Byte-level tokenizers decode with HF's ``decoders.ByteLevel`` (bytes shown as characters).
Metaspace tokenizers need more care, because encoding prepends one "▁" to every run of text,
and special tokens cut the text into several runs: ``"<pad>x"`` is encoded as ``<pad>``, ``▁x``.
Decoding must therefore drop one space at the start of the text *and* one after each special
token. :class:`MetaspaceDecoder` does this natively and builds the standard decoder that does
exactly the same (so a pure ``tokenizer.json`` decodes like the native tokenizer):

1. ``Replace("▁", " ")`` on every token;
2. for each special token, ``Replace(Regex("\\A<special>\\z"), "<special>▁")``: a token that
   is the whole special string gets a "▁" after it. After step 1 no other token holds a "▁",
   so the mark is unambiguous, and a special string that was encoded as ordinary text (several
   tokens) is never marked;
3. ``ByteFallback``, ``Fuse`` and ``Strip(" ", 1, 0)`` (Llama's decoder);
4. ``Replace(Regex("▁ ?"), "")``: remove each mark and the one space after it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import regex

# HF ByteFallback's test: 6 bytes, "<0x", two characters u8::from_str_radix(.., 16) accepts, ">".
_BYTE_DIGITS = regex.compile(r"\+?[0-9A-Fa-f]{1,2}")


def _byte_value(token: str) -> "int | None":
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">") and token.isascii() \
            and _BYTE_DIGITS.fullmatch(token[3:5]):
        return int(token[3:5], 16)
    return None


def _bytes_text(data: bytearray) -> str:
    """What ByteFallback makes of a run of byte tokens: the UTF-8 text, or one U+FFFD per byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd" * len(data)


def onig_literal(text: str) -> str:
    """``text`` as an Oniguruma pattern matching it literally (every character as ``\\x{..}``)."""
    return "".join(f"\\x{{{ord(c):X}}}" for c in text)


@dataclass(frozen=True)
class MetaspaceDecoder:
    """Inverse of the Metaspace pre-tokenizer, including special tokens (see module docstring).

    Args:
        replacement: the character that stands for a space ("▁").
        special_tokens: strings whose token is followed by a text run with its own leading "▁".

    Example:
        >>> MetaspaceDecoder(special_tokens=("<pad>",)).decode(["<pad>", "▁x", "▁y"])
        '<pad>x y'
    """

    replacement: str = "\u2581"
    special_tokens: tuple[str, ...] = ()

    def _shown_specials(self) -> list[str]:
        # A special token passes through step 1 like any token.
        return list(dict.fromkeys(s.replace(self.replacement, " ") for s in self.special_tokens))

    def decode(self, tokens: Sequence[str]) -> str:
        """The text of ``tokens`` (token strings, byte fallback as ``<0xNN>``), exactly as
        :meth:`to_hf` decodes them."""
        r = self.replacement
        specials = set(self._shown_specials())
        pieces: list[str] = []
        pending = bytearray()
        for token in tokens:
            token = token.replace(r, " ")
            if token in specials:
                token += r
            b = _byte_value(token)
            if b is not None:
                pending.append(b)
                continue
            if pending:
                pieces.append(_bytes_text(pending))
                pending.clear()
            pieces.append(token)
        if pending:
            pieces.append(_bytes_text(pending))
        text = "".join(pieces)
        if text.startswith(" "):
            text = text[1:]
        if specials:
            text = text.replace(r + " ", "").replace(r, "")
        return text

    def to_hf(self):
        """The ``tokenizers.decoders.Decoder`` that decodes exactly like :meth:`decode`."""
        from tokenizers import Regex, decoders
        r = self.replacement
        steps = [decoders.Replace(r, " ")]
        steps += [decoders.Replace(Regex(f"\\A{onig_literal(s)}\\z"), s + r) for s in self._shown_specials()]
        steps += [decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        if self.special_tokens:
            steps.append(decoders.Replace(Regex(onig_literal(r) + " ?"), ""))
        return decoders.Sequence(steps)
