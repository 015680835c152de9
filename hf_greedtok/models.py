"""The model component: a ranked vocabulary and its two encoders.

Ids follow HF trainers' layout: special tokens first, then the singletons, then the ranked
tokens in rank order, so a vocabulary grown by resumed training only appends ids:

* byte level: ``[specials][256 bytes in byte order][ranked tokens]``;
* character level: ``[specials][alphabet in code point order][<0x00>..<0xFF>][ranked tokens]``,
  the 256 byte tokens being the byte fallback for characters outside the alphabet;
* script-aware units ("marks", "vowels"; :mod:`hf_greedtok.indic.units`): the same layout with the
  unit alphabet (sorted unit strings, some of several characters, and every character of those
  units alone: :func:`hf_greedtok.trainers.singleton_alphabet`) in place of characters. A unit
  not seen in training is split into the longest seen units it begins with, then single
  characters; only characters outside the alphabet fall back to bytes
  (:func:`hf_greedtok.indic.units.pack_codes`).

Foreign vocabularies (tiktoken files, HF BPE files) keep their own ids; see
:mod:`hf_greedtok.formats.foreign`.
"""
from __future__ import annotations

from typing import Iterable, Literal, Optional, Sequence, Union

import numpy as np

from ._encoder import RankedEncoder
from ._threads import encode_in_threads
from .errors import InvalidSpec
from .indic.units import UNIT_KINDS, UnitSplitter, pack_codes, unit_codes
from .normalizers import replace_surrogates
from .pre_tokenizers import ByteLevel, Token
from .special_tokens import check_special_tokens

Mode = Literal["cover", "optimal"]
MODES = ("cover", "optimal")
UnitKind = Literal["bytes", "chars", "marks", "vowels"]


def byte_fallback_token(b: int) -> str:
    """SentencePiece's name for byte b as a token, e.g. "<0x0A>"."""
    return f"<0x{b:02X}>"


def pack_units(tokens: Sequence[Token]) -> tuple[np.ndarray, np.ndarray]:
    """Tokens (bytes or str) as (units uint32[M], offsets int64[len + 1])."""
    offsets = np.zeros(len(tokens) + 1, dtype=np.int64)
    if not tokens:
        return np.zeros(0, dtype=np.uint32), offsets
    np.cumsum([len(t) for t in tokens], out=offsets[1:])
    if isinstance(tokens[0], bytes):
        units = np.frombuffer(b"".join(tokens), dtype=np.uint8).astype(np.uint32)
    else:
        units = np.frombuffer("".join(tokens).encode("utf-32-le"), dtype=np.uint32).copy()
    return units, offsets


class GreedTokModel:
    """Ranked tokens plus singletons and special tokens, with ids and both encoders.

    Args:
        ranked_tokens: tokens of >= 2 singletons in priority (rank) order; bytes at byte
            level, str otherwise.
        unit_kind: "bytes", "chars", or script-aware "marks"/"vowels" units.
        alphabet: character (or unit) singletons, not for byte level; any order; stored sorted.
        special_tokens: strings with their own ids, never produced by the encoders.
        ids: optional explicit ids (foreign vocabularies): a dict with keys "ranked" (one id
            per ranked token), "singletons" ({unit: id}), "bytes" (256 ids) and "specials".
        gains: optional per-rank objective decrease recorded by the trainer.

    Raises:
        ValueError: a ranked token shorter than 2 singletons, a repeated token, a token of
            the wrong type for ``unit_kind``, or an empty, whitespace-only or repeated special
            token (:func:`hf_greedtok.special_tokens.check_special_tokens`).
    """

    def __init__(self, ranked_tokens: Sequence[Token], *, unit_kind: UnitKind,
                 alphabet: Iterable[str] = (), special_tokens: Sequence[str] = (),
                 ids: Optional[dict] = None, gains: Optional[Sequence[int]] = None) -> None:
        if unit_kind != "bytes" and unit_kind not in UNIT_KINDS:
            raise ValueError(f"unit_kind must be 'bytes' or one of {UNIT_KINDS}, got {unit_kind!r}")
        kind = bytes if unit_kind == "bytes" else str
        self.splitter = None if unit_kind in ("bytes", "chars") else UnitSplitter(unit_kind)
        for r, tok in enumerate(ranked_tokens):
            if not isinstance(tok, kind):
                raise ValueError(f"ranked token {r} is {type(tok).__name__}, expected {kind.__name__}")
            if len(tok) < 2 or (self.splitter is not None and len(self.splitter.split(tok)) < 2):
                raise ValueError(f"ranked token {r} ({tok!r}) has fewer than 2 singletons")
        self.unit_kind = unit_kind
        self.ranked_tokens: list[Token] = list(ranked_tokens)
        self.alphabet: list[str] = sorted(set(alphabet)) if unit_kind != "bytes" else []
        if unit_kind == "chars" and any(len(c) != 1 for c in self.alphabet):
            raise ValueError("alphabet entries must be single characters")
        if self.splitter is not None and any(self.splitter.split(u) != [u] for u in self.alphabet):
            bad = next(u for u in self.alphabet if self.splitter.split(u) != [u])
            raise ValueError(f"alphabet entry {bad!r} is not one {unit_kind} unit")
        self._codes = unit_codes(self.alphabet) if unit_kind != "bytes" else {}
        self.special_tokens: list[str] = check_special_tokens(special_tokens, "special_tokens")
        self.gains = None if gains is None else [int(g) for g in gains]
        if ids is None:
            ids = self._default_ids()
        self._ids = ids
        self._build_tables()
        self.encoder = self._make_encoder()

    # ------------------------------------------------------------------ ids

    def _default_ids(self) -> dict:
        n = len(self.special_tokens)
        specials = {s: i for i, s in enumerate(self.special_tokens)}
        if self.unit_kind == "bytes":
            singletons = {b: n + b for b in range(256)}
            byte_ids = list(range(n, n + 256))
            first = n + 256
        else:
            singletons = {self._codes[c]: n + i for i, c in enumerate(self.alphabet)}
            base = n + len(self.alphabet)
            byte_ids = list(range(base, base + 256))
            first = base + 256
        ranked = list(range(first, first + len(self.ranked_tokens)))
        return {"specials": specials, "singletons": singletons, "bytes": byte_ids, "ranked": ranked}

    def _build_tables(self) -> None:
        """id -> (display string, bytes it decodes to, is_special)."""
        ids = self._ids
        size = 1 + max([*ids["specials"].values(), *ids["singletons"].values(), *ids["bytes"],
                        *ids["ranked"]], default=-1)
        self._id_to_str: list[Optional[str]] = [None] * size
        self._id_to_bytes: list[bytes] = [b""] * size
        self._special_ids: set[int] = set(ids["specials"].values())
        show = ByteLevel.token_to_str if self.unit_kind == "bytes" else (lambda t: t)
        for s, i in ids["specials"].items():
            self._set(i, s, s.encode("utf-8"))
        if self.unit_kind != "bytes":
            for b, i in enumerate(ids["bytes"]):
                self._set(i, byte_fallback_token(b), bytes([b]))
        unit_of = {c: u for u, c in self._codes.items()}
        for u, i in ids["singletons"].items():
            tok = bytes([u]) if self.unit_kind == "bytes" else unit_of.get(u) or chr(u)
            self._set(i, show(tok), tok if self.unit_kind == "bytes" else tok.encode("utf-8"))
        if len(ids["ranked"]) != len(self.ranked_tokens):
            raise ValueError("ids['ranked'] must have one id per ranked token")
        for tok, i in zip(self.ranked_tokens, ids["ranked"]):
            self._set(i, show(tok), tok if isinstance(tok, bytes) else tok.encode("utf-8"))
        self._str_to_id = {s: i for i, s in enumerate(self._id_to_str) if s is not None}

    def _set(self, i: int, text: str, raw: bytes) -> None:
        if self._id_to_str[i] is not None and self._id_to_str[i] != text:
            raise ValueError(f"id {i} is used by both {self._id_to_str[i]!r} and {text!r}")
        self._id_to_str[i] = text
        self._id_to_bytes[i] = raw

    def _make_encoder(self) -> RankedEncoder:
        if self.splitter is None:
            units, offsets = pack_units(self.ranked_tokens)
        else:
            units, offsets = pack_codes([self.splitter.split(t) for t in self.ranked_tokens], self._codes)
        sing = self._ids["singletons"]
        return RankedEncoder(
            units, offsets, np.asarray(self._ids["ranked"], dtype=np.int32),
            np.fromiter(sing.keys(), dtype=np.uint32, count=len(sing)),
            np.fromiter(sing.values(), dtype=np.int32, count=len(sing)),
            np.asarray(self._ids["bytes"], dtype=np.int32), self.unit_kind == "bytes")

    # ------------------------------------------------------------------ queries

    @property
    def vocab_size(self) -> int:
        """Number of ids in use (specials + singletons + byte fallback + ranked tokens)."""
        return len(self._str_to_id)

    def get_vocab(self) -> dict[str, int]:
        """{token string: id}, tokens shown as in HF (byte level: "Ġthe")."""
        return dict(self._str_to_id)

    def id_to_token(self, i: int) -> Optional[str]:
        return self._id_to_str[i] if 0 <= i < len(self._id_to_str) else None

    def token_to_id(self, token: str) -> Optional[int]:
        return self._str_to_id.get(token)

    @property
    def special_token_ids(self) -> dict[str, int]:
        return dict(self._ids["specials"])

    @property
    def byte_fallback_ids(self) -> list[int]:
        """The ids of the 256 byte singletons (byte level) or byte fallback tokens, in byte order."""
        return list(self._ids["bytes"])

    def token_byte_lengths(self) -> np.ndarray:
        """int64[vocab_size]: how many bytes of text each id spells (a token's UTF-8 bytes, or
        its bytes at byte level; a byte-fallback token 1; unused ids 0)."""
        return np.fromiter(map(len, self._id_to_bytes), dtype=np.int64, count=len(self._id_to_bytes))

    # ------------------------------------------------------------------ saved form

    def to_dict(self) -> dict:
        """The "model" section of ``greedtok.json`` (:mod:`hf_greedtok.formats.greedtok_json`):
        byte-level tokens in GPT-2's byte-to-unicode form, and "ids" only when they differ from
        the layout above (foreign vocabularies)."""
        ids = self._ids
        explicit = None if ids == self._default_ids() else {
            "specials": ids["specials"], "singletons": {str(k): v for k, v in ids["singletons"].items()},
            "bytes": list(ids["bytes"]), "ranked": list(ids["ranked"])}
        as_str = ByteLevel.token_to_str if self.unit_kind == "bytes" else str
        return {"type": "GreedTok", "units": self.unit_kind, "special_tokens": self.special_tokens,
                "alphabet": self.alphabet, "ranked_tokens": [as_str(t) for t in self.ranked_tokens],
                "gains": self.gains, "ids": explicit}

    @classmethod
    def from_dict(cls, spec: dict) -> "GreedTokModel":
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidSpec: another model type, or a byte-level token with a character outside
                the byte-to-unicode alphabet.
            KeyError: a required field is missing.
            ValueError: as the constructor.
        """
        if spec.get("type") != "GreedTok":
            raise InvalidSpec(f"unknown model type {spec.get('type')!r}")
        ranked = list(spec["ranked_tokens"])
        if spec["units"] == "bytes":
            for r, s in enumerate(ranked):
                try:
                    ranked[r] = ByteLevel.str_to_token(s)
                except KeyError as e:
                    raise InvalidSpec(f"ranked token {r} ({s!r}) has character {e.args[0]!r} "
                                      "outside the byte-level alphabet") from None
        ids = spec.get("ids")
        if ids:
            ids = {"specials": dict(ids["specials"]), "bytes": list(ids["bytes"]), "ranked": list(ids["ranked"]),
                   "singletons": {int(k): v for k, v in ids["singletons"].items()}}
        return cls(ranked, unit_kind=spec["units"], alphabet=spec.get("alphabet", ()),
                   special_tokens=spec.get("special_tokens", ()), ids=ids or None, gains=spec.get("gains"))

    def encode_texts(self, texts: Sequence[str], pattern: int, mode: Mode = "cover",
                     num_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Split whole texts with a native split pattern and encode their words, without the
        GIL from the first character to the last id: (ids int32[T], offsets int64[len(texts) + 1]).

        ``pattern`` is the pre-tokenizer's native scanner (:attr:`ByteLevel.native_pattern`). The
        ids equal :meth:`encode_words` over the ``regex`` split of each text; native threads
        (:meth:`RankedEncoder.encode_texts`) take slices of about equal characters, and the ids
        do not depend on their number.

        Raises:
            ValueError: unknown mode or pattern, or script-aware units (their split runs in
                Python). TypeError: a text is not str.
        """
        if self.splitter is not None:
            raise ValueError(f"{self.unit_kind} units are split in Python; use encode_words")
        return self.encoder.encode_texts(texts, pattern, mode, num_threads)

    def encode_words(self, words: Sequence[Union[str, bytes]], mode: Mode = "cover",
                     num_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Encode pre-tokenized words: (ids int32[T], offsets int64[len(words) + 1]).

        Script-aware units are encoded on one thread (the unit split runs in Python).

        Raises:
            ValueError: unknown mode. TypeError: a word is not str (or bytes at byte level).
        """
        if self.splitter is None:
            return encode_in_threads(self.encoder.encode_words, words, mode, num_threads)
        split = self.splitter.split
        units = []
        for k, w in enumerate(words):
            if not isinstance(w, str):
                raise TypeError(f"word {k} is {type(w).__name__}; expected str")
            units.append(split(replace_surrogates(w)))
        return self.encoder.encode_codes(*pack_codes(units, self._codes), mode)

    def _checked_ids(self, ids: Iterable[int], skip_special_tokens: bool) -> Iterable[int]:
        for i in ids:
            i = int(i)
            if not 0 <= i < len(self._id_to_str) or self._id_to_str[i] is None:
                raise ValueError(f"id {i} is not in the vocabulary (size {self.vocab_size})")
            if not (skip_special_tokens and i in self._special_ids):
                yield i

    def decode_bytes(self, ids: Iterable[int], skip_special_tokens: bool = False) -> bytes:
        """The bytes the ids stand for; raises ValueError on an id outside the vocabulary."""
        table = self._id_to_bytes
        return b"".join(table[i] for i in self._checked_ids(ids, skip_special_tokens))

    def decode_tokens(self, ids: Iterable[int], skip_special_tokens: bool = False) -> list[str]:
        """The token strings of ``ids`` (as :meth:`id_to_token`); raises ValueError on an id
        outside the vocabulary."""
        table = self._id_to_str
        return [table[i] for i in self._checked_ids(ids, skip_special_tokens)]  # type: ignore[misc]

    def __reduce__(self):
        return (_rebuild_model, (self.ranked_tokens, self.unit_kind, self.alphabet,
                                 self.special_tokens, self._ids, self.gains))


def _rebuild_model(ranked, unit_kind, alphabet, specials, ids, gains) -> GreedTokModel:
    return GreedTokModel(ranked, unit_kind=unit_kind, alphabet=alphabet, special_tokens=specials,
                         ids=ids, gains=gains)
