"""The native batch path of GreedTokTokenizerFast: ``tok(texts)`` without the backend.

The common calls (one text or a batch, special tokens, truncation of single sequences, padding,
attention mask, byte-level offsets, ``return_tensors``) are encoded by :meth:`hf_greedtok.Tokenizer.encode_batch_flat`
(split and encoded without the GIL, on every core) and assembled here in numpy: the post-
processor's special tokens around each text, truncation to ``max_length``, padding. The result
equals the backend's ``BatchEncoding`` key for key and value for value (tested over a matrix of
options on English, Hindi, Chinese and code), and its ``encodings`` (``word_ids()``,
``tokens()``, ``char_to_token()``, ...) are computed by the backend when first asked for.

:func:`fast_plan` says which calls qualify; the others (text pairs, pre-split words,
overflow, stride, offsets of Metaspace or normalized text, a tokenizer whose added tokens the
native matcher cannot reproduce) take the backend path unchanged.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
from tokenizers import Encoding
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers
from transformers.tokenization_utils_base import BatchEncoding, PaddingStrategy, TruncationStrategy

from .._threads import available_cores
from ..normalizers import replace_surrogates

_SINGLE_TRUNCATIONS = (TruncationStrategy.DO_NOT_TRUNCATE, TruncationStrategy.LONGEST_FIRST,
                       TruncationStrategy.ONLY_FIRST)
_PAD_STRATEGIES = (PaddingStrategy.DO_NOT_PAD, PaddingStrategy.LONGEST, PaddingStrategy.MAX_LENGTH)


@dataclass(frozen=True)
class SingleTemplate:
    """What a post-processor puts around one sequence: ids and type ids before and after it."""

    prefix: tuple[int, ...] = ()
    suffix: tuple[int, ...] = ()
    prefix_types: tuple[int, ...] = ()
    suffix_types: tuple[int, ...] = ()
    content_type: int = 0

    @property
    def n_special(self) -> int:
        return len(self.prefix) + len(self.suffix)


_NO_TEMPLATE = SingleTemplate()
# A two-token sequence to run a post-processor on: its output shows where the content goes.
_PROBE = HFTokenizer(models.WordLevel({"a": 0, "b": 1}, unk_token="a"))
_PROBE.pre_tokenizer = pre_tokenizers.WhitespaceSplit()


def single_template(post_processor) -> Optional[SingleTemplate]:
    """The special tokens ``post_processor`` (any ``tokenizers`` post-processor, or None) adds
    around a single sequence, read from its output on a one-token probe; None when it does more
    than wrap the sequence (then only the backend can apply it)."""
    if post_processor is None:
        return _NO_TEMPLATE
    probe = _PROBE.encode("a b", add_special_tokens=False)
    out: Encoding = post_processor.process(probe, None, True)
    # the content is what the special-tokens mask leaves: it must be the probe, once, whole
    inside = [k for k, m in enumerate(out.special_tokens_mask) if m == 0]
    ids, types = out.ids, out.type_ids
    if len(inside) != 2 or inside[1] != inside[0] + 1 or ids[inside[0]:inside[1] + 1] != [0, 1] \
            or types[inside[0]] != types[inside[1]]:
        return None
    a, b = inside[0], inside[1] + 1
    return SingleTemplate(tuple(ids[:a]), tuple(ids[b:]), tuple(types[:a]), tuple(types[b:]), types[a])


@dataclass(frozen=True)
class FastPlan:
    """One call's settings on the native path (the arguments ``_encode_plus`` received)."""

    texts: list[str]
    batched: bool
    add_special_tokens: bool
    padding: PaddingStrategy
    truncation: TruncationStrategy
    max_length: Optional[int]
    pad_to_multiple_of: Optional[int]
    padding_side: str
    truncation_side: str
    return_tensors: Any
    return_token_type_ids: bool
    return_attention_mask: bool
    return_special_tokens_mask: bool
    return_offsets_mapping: bool
    return_length: bool
    allow_special: bool


def fast_plan(tokenizer, text, text_pair, add_special_tokens: bool, padding_strategy: PaddingStrategy,
              truncation_strategy: TruncationStrategy, max_length: Optional[int], stride: int,
              is_split_into_words: bool, pad_to_multiple_of: Optional[int], padding_side: Optional[str],
              return_tensors, return_token_type_ids: Optional[bool], return_attention_mask: Optional[bool],
              return_overflowing_tokens: bool, return_special_tokens_mask: bool,
              return_offsets_mapping: bool, return_length: bool, verbose: bool,
              split_special_tokens: Optional[bool], kwargs: dict) -> Optional[FastPlan]:
    """The plan of a ``GreedTokTokenizerFast._encode_plus`` call on the native path, or None when
    the call needs the backend (pairs, pre-split words, overflow, stride, other truncation
    strategies, unknown keyword arguments, inputs that are not str; offsets unless
    ``tokenizer.native_offsets()``)."""
    if text_pair is not None or is_split_into_words or return_overflowing_tokens or stride or kwargs:
        return None
    if return_offsets_mapping and not tokenizer.native_offsets():
        return None
    if truncation_strategy not in _SINGLE_TRUNCATIONS or padding_strategy not in _PAD_STRATEGIES:
        return None
    if (truncation_strategy != TruncationStrategy.DO_NOT_TRUNCATE
            or padding_strategy == PaddingStrategy.MAX_LENGTH) and max_length is None:
        return None
    if isinstance(text, str):
        texts, batched = [text], False
    elif isinstance(text, (list, tuple)) and text and set(map(type, text)) == {str}:
        texts, batched = list(text), True
    else:
        return None          # empty batches, non-str items: the backend's own errors
    names = tokenizer.model_input_names
    return FastPlan(
        texts=texts, batched=batched, add_special_tokens=add_special_tokens, padding=padding_strategy,
        truncation=truncation_strategy, max_length=max_length, pad_to_multiple_of=pad_to_multiple_of,
        padding_side=padding_side if padding_side is not None else tokenizer.padding_side,
        truncation_side=tokenizer.truncation_side, return_tensors=return_tensors,
        return_token_type_ids=("token_type_ids" in names) if return_token_type_ids is None else return_token_type_ids,
        return_attention_mask=("attention_mask" in names) if return_attention_mask is None else return_attention_mask,
        return_special_tokens_mask=return_special_tokens_mask, return_offsets_mapping=return_offsets_mapping,
        return_length=return_length, allow_special=not (tokenizer.split_special_tokens if split_special_tokens is None else split_special_tokens))


def native_threads() -> int:
    """Threads for one batch: every core this process may use, or 1 when
    ``TOKENIZERS_PARALLELISM`` is false (as the Rust backend does, e.g. in forked workers)."""
    if os.environ.get("TOKENIZERS_PARALLELISM", "").lower() in ("0", "false", "off", "no"):
        return 1
    return available_cores()


def char_spans(texts: Sequence[str], ids: np.ndarray, offsets: np.ndarray, token_bytes: np.ndarray) -> np.ndarray:
    """int64[T, 2]: each token's (start, end) in characters of its text, as tokenizers reports
    offsets (a byte token inside a multi-byte character spans that character).

    Only for tokens that spell their text byte for byte (byte level, no normalizer): token t of
    text k covers the next ``token_bytes[ids[t]]`` UTF-8 bytes of text k (lone surrogates
    count as the U+FFFD the encoder saw).
    """
    lengths = token_bytes[ids]
    ends = np.cumsum(lengths)                   # byte ends in the joined texts
    data = np.frombuffer(replace_surrogates("".join(texts)).encode("utf-8"), dtype=np.uint8)
    # character index of every byte of the joined texts, and where each text starts
    char_of = np.cumsum((data & 0xC0) != 0x80) - 1
    text_chars = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=text_chars[1:])
    base = np.repeat(text_chars[:-1], np.diff(offsets))
    spans = np.empty((len(ids), 2), dtype=np.int64)
    if len(ids):
        spans[:, 0] = char_of[ends - lengths] - base
        spans[:, 1] = char_of[ends - 1] + 1 - base
    return spans


def assemble(plan: FastPlan, ids: np.ndarray, offsets: np.ndarray, template: SingleTemplate,
             pad_id: Optional[int], pad_type_id: int,
             spans: Optional[np.ndarray] = None) -> dict[str, Union[list, np.ndarray]]:
    """The BatchEncoding data of ``plan`` from the texts' content ids (``ids`` int32[T],
    ``offsets`` int64[B + 1]): template, truncation, padding; lists of lists of int, or int64
    arrays [B, L] when numpy tensors were asked for and every row has the same length.

    Truncation and padding follow tokenizers: the content is cut to ``max_length`` minus the
    template's tokens (from the ``truncation_side``), then rows are padded to the longest (or to
    ``max_length``), rounded up to ``pad_to_multiple_of``; rows already longer stay as they are.
    ``spans`` (:func:`char_spans`) gives the offsets when the plan asks for them; special and
    pad tokens get (0, 0).
    """
    tpl = template if plan.add_special_tokens else _NO_TEMPLATE
    lengths = np.diff(offsets)
    kept = lengths
    if plan.truncation != TruncationStrategy.DO_NOT_TRUNCATE:
        kept = np.minimum(lengths, max(plan.max_length - tpl.n_special, 0))
    totals = kept + tpl.n_special
    width = None
    if plan.padding != PaddingStrategy.DO_NOT_PAD:
        width = int(totals.max()) if plan.padding == PaddingStrategy.LONGEST else plan.max_length
        m = plan.pad_to_multiple_of
        if m and width % m:
            width += m - width % m
    if width is not None and plan.return_tensors == "np" and int(totals.max()) <= width:
        return _assemble_matrix(plan, ids, offsets, kept, tpl, width, pad_id, pad_type_id, spans)
    return _assemble_lists(plan, ids, offsets, kept, tpl, width, pad_id, pad_type_id, spans)


def _assemble_lists(plan: FastPlan, ids: np.ndarray, offsets: np.ndarray, kept: np.ndarray,
                    tpl: SingleTemplate, width: Optional[int], pad_id: Optional[int],
                    pad_type_id: int, spans: Optional[np.ndarray]) -> dict[str, list]:
    # One comprehension per key over precomputed bounds: a Python call per row would cost
    # more than encoding the row.
    flat = ids.tolist()
    first = offsets[:-1] if plan.truncation_side == "right" else offsets[1:] - kept
    bounds = list(zip(first.tolist(), (first + kept).tolist()))
    prefix, suffix = list(tpl.prefix), list(tpl.suffix)
    rows = [prefix + flat[a:b] + suffix for a, b in bounds] if prefix or suffix else [flat[a:b] for a, b in bounds]
    sizes = (kept + tpl.n_special).tolist()
    pads = [max(width - n, 0) for n in sizes] if width is not None else [0] * len(sizes)
    left = plan.padding_side == "left"

    def padded(body: list[list], fill) -> list[list]:
        if width is None:
            return body
        if left:
            return [[fill] * p + r if p else r for r, p in zip(body, pads)]
        return [r + [fill] * p if p else r for r, p in zip(body, pads)]

    out: dict[str, list] = {"input_ids": padded(rows, pad_id)}
    if plan.return_token_type_ids:
        pt, st, ct = list(tpl.prefix_types), list(tpl.suffix_types), tpl.content_type
        out["token_type_ids"] = padded([pt + [ct] * (b - a) + st for a, b in bounds], pad_type_id)
    if plan.return_attention_mask:
        if width is None:
            out["attention_mask"] = [[1] * n for n in sizes]
        elif left:
            out["attention_mask"] = [[0] * p + [1] * n for n, p in zip(sizes, pads)]
        else:
            out["attention_mask"] = [[1] * n + [0] * p for n, p in zip(sizes, pads)]
    if plan.return_special_tokens_mask:
        head, tail = [1] * len(prefix), [1] * len(suffix)
        out["special_tokens_mask"] = padded([head + [0] * (b - a) + tail for a, b in bounds], 1)
    if plan.return_offsets_mapping:
        pairs = list(zip(spans[:, 0].tolist(), spans[:, 1].tolist()))
        head, tail = [(0, 0)] * len(prefix), [(0, 0)] * len(suffix)
        out["offset_mapping"] = padded([head + pairs[a:b] + tail for a, b in bounds], (0, 0))
    if plan.return_length:
        out["length"] = [n + p for n, p in zip(sizes, pads)]
    return out


def _assemble_matrix(plan: FastPlan, ids: np.ndarray, offsets: np.ndarray, kept: np.ndarray,
                     tpl: SingleTemplate, width: int, pad_id: Optional[int],
                     pad_type_id: int, spans: Optional[np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`_assemble_lists` as int64 matrices [B, width], built without a Python loop."""
    n_rows = len(kept)
    totals = kept + tpl.n_special
    # column of each row's first token: after the padding when padding on the left
    start = (width - totals) if plan.padding_side == "left" else np.zeros(n_rows, dtype=np.int64)
    rows = np.repeat(np.arange(n_rows), kept)
    # index in `ids` of each kept token, and its column
    first = offsets[:-1] if plan.truncation_side == "right" else offsets[1:] - kept
    within = np.arange(int(kept.sum()), dtype=np.int64) - np.repeat(np.cumsum(kept) - kept, kept)
    source = np.repeat(first, kept) + within
    cols = np.repeat(start + len(tpl.prefix), kept) + within
    content = np.zeros((n_rows, width), dtype=bool)
    content[rows, cols] = True
    column = np.arange(width)
    real = (column >= start[:, None]) & (column < (start + totals)[:, None])     # not padding
    input_ids = np.full((n_rows, width), pad_id if pad_id is not None else 0, dtype=np.int64)
    input_ids[rows, cols] = ids[source]
    types = np.full((n_rows, width), pad_type_id, dtype=np.int64) if plan.return_token_type_ids else None
    if types is not None:
        types[content] = tpl.content_type
    every_row = np.arange(n_rows)
    for j, (i, ty) in enumerate(zip(tpl.prefix, tpl.prefix_types)):
        input_ids[every_row, start + j] = i
        if types is not None:
            types[every_row, start + j] = ty
    for j, (i, ty) in enumerate(zip(tpl.suffix, tpl.suffix_types)):
        at = start + len(tpl.prefix) + kept + j
        input_ids[every_row, at] = i
        if types is not None:
            types[every_row, at] = ty
    out: dict[str, np.ndarray] = {"input_ids": input_ids}
    if types is not None:
        out["token_type_ids"] = types
    if plan.return_attention_mask:
        out["attention_mask"] = real.astype(np.int64)
    if plan.return_special_tokens_mask:
        out["special_tokens_mask"] = (~content).astype(np.int64)
    if plan.return_offsets_mapping:
        out["offset_mapping"] = np.zeros((n_rows, width, 2), dtype=np.int64)
        out["offset_mapping"][rows, cols] = spans[source]
    if plan.return_length:
        out["length"] = np.full(n_rows, width, dtype=np.int64)
    return out


class LazyEncodingsBatch(BatchEncoding):
    """A BatchEncoding whose ``encodings`` (tokenizers ``Encoding`` objects, for ``word_ids()``,
    ``tokens()``, ``char_to_token()``, ...) are made by the backend when first used.

    ``compute`` runs the same call on the backend path; its ids must equal this batch's ids,
    otherwise the tokenizer was changed in between and the encodings would not describe this
    batch.

    Raises (on first use of the encodings):
        RuntimeError: the backend's ids differ from this batch's (the tokenizer changed).
    """

    def __init__(self, data: dict, compute: Callable[[], Sequence[Encoding]], tensor_type=None,
                 batched: bool = True) -> None:
        self._compute = compute
        self._batched = batched        # False: data holds one row per key (one text, no tensors)
        super().__init__(data, encoding=None, tensor_type=tensor_type, n_sequences=1)

    @property
    def _encodings(self):
        if self._compute is not None:
            compute, self._compute = self._compute, None
            encodings = list(compute())
            rows = _as_lists(self.data["input_ids"])
            if [e.ids for e in encodings] != (rows if self._batched else [rows]):
                raise RuntimeError("the tokenizer changed after this batch was encoded: its encodings "
                                   "(word_ids, tokens, offsets) are no longer available; encode it again")
            self.__dict__["_lazy_encodings"] = encodings
        return self.__dict__.get("_lazy_encodings")

    @_encodings.setter
    def _encodings(self, value) -> None:
        self.__dict__["_lazy_encodings"] = value
        if value is not None:
            self._compute = None

    @property
    def is_fast(self) -> bool:
        return True

    def __getstate__(self):
        # super() reads self._encodings, which makes them: a pickled batch keeps its encodings, as HF's does
        return super().__getstate__()

    def __setstate__(self, state) -> None:
        self._compute = None
        super().__setstate__(state)


def _as_lists(value):
    """Python lists from lists, tensors, or object arrays of rows (ragged ``np`` batches)."""
    value = value.tolist() if hasattr(value, "tolist") else value
    return [v.tolist() if hasattr(v, "tolist") else v for v in value] if isinstance(value, list) else value
