"""The native batch path of GreedTokTokenizerFast: ``tok(texts)`` without the backend.

The common calls (one text or a batch, text pairs, pre-split words, special tokens,
truncation with or without overflowing rows and stride, padding, attention mask, byte-level
offsets, ``return_tensors``) are encoded by
:meth:`hf_greedtok.Tokenizer.encode_batch_flat` (split and encoded without the GIL, on every
core) and assembled here in numpy: the post-processor's special tokens around each text or
pair, truncation to ``max_length``, padding. The result equals the backend's
``BatchEncoding`` key for key and value for value (tested over a matrix of options and input
shapes on English, Hindi, Chinese and code), and its ``encodings`` (``word_ids()``,
``tokens()``, ``char_to_token()``, ...) are computed by the backend when first asked for.

:func:`fast_plan` says which calls qualify; the others (offsets of Metaspace or normalized
text, a post-processor that does more than add special tokens, overflow under a post-processor
other than a template, a tokenizer whose added tokens the native matcher cannot reproduce)
take the backend path unchanged.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
from tokenizers import Encoding
from transformers.tokenization_utils_base import BatchEncoding, PaddingStrategy, TruncationStrategy

from .._threads import available_cores
from ..normalizers import replace_surrogates
from .pipeline import Template, template

_TRUNCATIONS = (TruncationStrategy.DO_NOT_TRUNCATE, TruncationStrategy.LONGEST_FIRST,
                TruncationStrategy.ONLY_FIRST, TruncationStrategy.ONLY_SECOND)
_PAD_STRATEGIES = (PaddingStrategy.DO_NOT_PAD, PaddingStrategy.LONGEST, PaddingStrategy.MAX_LENGTH)


@dataclass(frozen=True)
class FastPlan:
    """One call's settings on the native path (the arguments ``_encode_plus`` received).

    ``pieces`` are the strings to encode, each on its own (a text, or a word of pre-split
    input); sequence k of the batch is ``pieces[starts[k]:starts[k + 1]]`` (``starts`` None:
    one piece per sequence); with pairs, sequences 2i and 2i + 1 are row i's two texts.
    """

    pieces: list[str]
    starts: Optional[np.ndarray]
    pairs: bool
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
    stride: int = 0
    overflow: bool = False        # return_overflowing_tokens: each row's overflowing parts become rows


def _strings(items) -> bool:
    return set(map(type, items)) <= {str}


def _pieces(text, text_pair, words: bool) -> Optional[tuple[list[str], Optional[np.ndarray], bool, bool]]:
    """(pieces, starts, batched, pairs) of an input as transformers batches it, or None for
    inputs the backend should see (and raise on): the batch rule is transformers', a row is a
    str (or a list of str words when ``words``), or a pair of them."""
    if words:
        batched = isinstance(text, (list, tuple)) and bool(text) and isinstance(text[0], (list, tuple))
    else:
        batched = isinstance(text, (list, tuple))
    if batched:
        if text_pair is not None and (isinstance(text_pair, str) or len(text) != len(text_pair)):
            return None
        firsts, seconds = list(text), (list(text_pair) if text_pair is not None else None)
    else:
        firsts, seconds = [text], ([text_pair] if text_pair else None)     # "" is no pair, as in transformers
    if not firsts:
        return None
    sequences = firsts if seconds is None else [s for row in zip(firsts, seconds) for s in row]
    pairs = seconds is not None
    if not words:
        return (sequences, None, batched, pairs) if set(map(type, sequences)) == {str} else None
    if not all(isinstance(s, (list, tuple)) and _strings(s) for s in sequences):
        return None
    starts = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sequences], out=starts[1:])
    return [w for s in sequences for w in s], starts, batched, pairs


def fast_plan(tokenizer, text, text_pair, add_special_tokens: bool, padding_strategy: PaddingStrategy,
              truncation_strategy: TruncationStrategy, max_length: Optional[int], stride: int,
              is_split_into_words: bool, pad_to_multiple_of: Optional[int], padding_side: Optional[str],
              return_tensors, return_token_type_ids: Optional[bool], return_attention_mask: Optional[bool],
              return_overflowing_tokens: bool, return_special_tokens_mask: bool,
              return_offsets_mapping: bool, return_length: bool, verbose: bool,
              split_special_tokens: Optional[bool], kwargs: dict) -> Optional[FastPlan]:
    """The plan of a ``GreedTokTokenizerFast._encode_plus`` call on the native path, or None when
    the call needs the backend (unknown keyword arguments, inputs that are not str or lists of
    str words; offsets unless ``tokenizer.native_offsets()``; overflow and stride unless
    ``tokenizer.native_overflow()``)."""
    if kwargs or ((return_overflowing_tokens or stride) and not tokenizer.native_overflow()):
        return None
    if return_offsets_mapping and not tokenizer.native_offsets():
        return None
    if padding_strategy not in _PAD_STRATEGIES or truncation_strategy not in _TRUNCATIONS:
        return None
    if (truncation_strategy != TruncationStrategy.DO_NOT_TRUNCATE
            or padding_strategy == PaddingStrategy.MAX_LENGTH) and max_length is None:
        return None
    split = _pieces(text, text_pair, is_split_into_words)
    if split is None:
        return None
    pieces, starts, batched, pairs = split
    names = tokenizer.model_input_names
    return FastPlan(
        pieces=pieces, starts=starts, pairs=pairs, batched=batched, add_special_tokens=add_special_tokens,
        padding=padding_strategy, truncation=truncation_strategy, max_length=max_length,
        pad_to_multiple_of=pad_to_multiple_of,
        padding_side=padding_side if padding_side is not None else tokenizer.padding_side,
        truncation_side=tokenizer.truncation_side, return_tensors=return_tensors,
        return_token_type_ids=("token_type_ids" in names) if return_token_type_ids is None else return_token_type_ids,
        return_attention_mask=("attention_mask" in names) if return_attention_mask is None else return_attention_mask,
        return_special_tokens_mask=return_special_tokens_mask, return_offsets_mapping=return_offsets_mapping,
        return_length=return_length, stride=stride, overflow=return_overflowing_tokens,
        allow_special=not (tokenizer.split_special_tokens if split_special_tokens is None else split_special_tokens))


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


class TruncationRefused(Exception):
    """tokenizers refuses this truncation (a sequence too short to remove enough from)."""


def kept_lengths(lengths: np.ndarray, strategy: TruncationStrategy, limit: int) -> np.ndarray:
    """Tokens each sequence keeps (int64[rows, sequences]) of ``lengths`` (same shape) when the
    rows must fit ``limit`` tokens: tokenizers' ``truncate_encodings``, row by row. Longest
    first, on a pair: the shorter sequence keeps what it has if the longer can give up the
    rest, otherwise both are cut to half of ``limit`` (the second gets the odd token).

    Raises:
        TruncationRefused: "only_first"/"only_second" where that sequence alone is too short;
            "only_second" for single sequences that need truncating.
    """
    if strategy == TruncationStrategy.DO_NOT_TRUNCATE:
        return lengths
    if limit == 0:
        return np.zeros_like(lengths)
    if lengths.shape[1] == 1:
        if strategy == TruncationStrategy.ONLY_SECOND and (lengths > limit).any():
            raise TruncationRefused
        return np.minimum(lengths, limit)
    n1, n2 = lengths[:, 0], lengths[:, 1]
    total = n1 + n2
    over = total > limit
    if strategy == TruncationStrategy.LONGEST_FIRST:
        short = np.minimum(n1, n2)
        long = np.where(short > limit, short, np.maximum(short, limit - short))
        halves = short + long > limit
        short = np.where(halves, limit // 2, short)
        long = np.where(halves, limit // 2 + limit % 2, long)
        swap = n1 > n2
        kept = np.stack([np.minimum(n1, np.where(swap, long, short)), np.minimum(n2, np.where(swap, short, long))], 1)
    else:
        j = 0 if strategy == TruncationStrategy.ONLY_FIRST else 1
        to_remove = total - limit
        if (over & (lengths[:, j] <= to_remove)).any():
            raise TruncationRefused
        kept = lengths.copy()
        kept[:, j] = np.maximum(lengths[:, j] - to_remove, 0)
    return np.where(over[:, None], kept, lengths)


def assemble(plan: FastPlan, ids: np.ndarray, offsets: np.ndarray, template: Template,
             pad_id: Optional[int], pad_type_id: int,
             spans: Optional[np.ndarray] = None) -> dict[str, Union[list, np.ndarray]]:
    """The BatchEncoding data of ``plan`` from the content ids of its pieces (``ids`` int32[T],
    ``offsets`` int64[P + 1]): template, truncation, padding; lists of lists of int, or int64
    arrays [B, L] when numpy tensors were asked for and every row has the same length.

    Truncation and padding follow tokenizers: the sequences are cut (:func:`kept_lengths`) to
    ``max_length`` minus the template's tokens (not at all when that is negative), from the
    ``truncation_side``, then rows are
    padded to the longest (or to ``max_length``), rounded up to ``pad_to_multiple_of``; rows
    already longer stay as they are. ``spans`` (:func:`char_spans`) gives the offsets when the
    plan asks for them; special and pad tokens get (0, 0).

    With ``overflow``, each row is followed by its overflowing parts (:func:`_overflow_rows`).

    Raises:
        TruncationRefused: as :func:`kept_lengths`; a stride not below a truncated length.
    """
    bounds = offsets[plan.starts] if plan.starts is not None else offsets
    slots = template.n_sequences
    first = bounds[:-1].reshape(-1, slots)
    lengths = np.diff(bounds).reshape(-1, slots)
    kept = lengths
    # tokenizers leaves rows whole when max_length cannot even hold the template's tokens
    if plan.truncation != TruncationStrategy.DO_NOT_TRUNCATE and plan.max_length >= template.n_special:
        kept = kept_lengths(lengths, plan.truncation, plan.max_length - template.n_special)
    if plan.stride and ((kept < lengths) & (kept > 0) & (kept <= plan.stride)).any():
        raise TruncationRefused     # tokenizers asserts stride < the length it truncates to
    # padding width from the kept rows (tokenizers pads overflowing rows to the same width)
    totals = kept.sum(1) + template.n_special
    width = None
    if plan.padding != PaddingStrategy.DO_NOT_PAD:
        width = int(totals.max()) if plan.padding == PaddingStrategy.LONGEST else plan.max_length
        m = plan.pad_to_multiple_of
        if m and width % m:
            width += m - width % m
    if plan.overflow:
        return _assemble_overflow(plan, ids, first, lengths, kept, template, width, pad_id, pad_type_id, spans)
    if plan.truncation_side != "right":
        first = first + lengths - kept
    if width is not None and plan.return_tensors == "np" and int(totals.max()) <= width:
        return _assemble_matrix(plan, ids, first, kept, template, width, pad_id, pad_type_id, spans)
    return _assemble_lists(plan, ids, first, kept, template, width, pad_id, pad_type_id, spans)


def _interleave(runs: Sequence[list], sequences: Sequence[list[list]]) -> list[list]:
    """Each row's sequences with the template's runs around them (one or two sequences)."""
    if len(sequences) == 1:
        head, tail = runs
        return [head + a + tail for a in sequences[0]] if head or tail else sequences[0]
    head, middle, tail = runs
    return [head + a + middle + b + tail for a, b in zip(*sequences)]


def _assemble_lists(plan: FastPlan, ids: np.ndarray, first: np.ndarray, kept: np.ndarray,
                    tpl: Template, width: Optional[int], pad_id: Optional[int],
                    pad_type_id: int, spans: Optional[np.ndarray]) -> dict[str, list]:
    # One comprehension per key over precomputed bounds: a Python call per row would cost
    # more than encoding the row.
    flat = ids.tolist()
    bounds = [list(zip(first[:, k].tolist(), (first[:, k] + kept[:, k]).tolist())) for k in range(tpl.n_sequences)]
    runs = [list(r) for r in tpl.runs]
    sizes = (kept.sum(1) + tpl.n_special).tolist()
    pads = [max(width - n, 0) for n in sizes] if width is not None else [0] * len(sizes)
    left = plan.padding_side == "left"

    def padded(body: list[list], fill) -> list[list]:
        if width is None:
            return body
        if left:
            return [[fill] * p + r if p else r for r, p in zip(body, pads)]
        return [r + [fill] * p if p else r for r, p in zip(body, pads)]

    out: dict[str, list] = {"input_ids": padded(_interleave(runs, [[flat[a:b] for a, b in seq] for seq in bounds]),
                                                pad_id)}
    if plan.return_token_type_ids:
        types = [[[t] * (b - a) for a, b in seq] for t, seq in zip(tpl.content_types, bounds)]
        out["token_type_ids"] = padded(_interleave([list(r) for r in tpl.run_types], types), pad_type_id)
    if plan.return_attention_mask:
        if width is None:
            out["attention_mask"] = [[1] * n for n in sizes]
        elif left:
            out["attention_mask"] = [[0] * p + [1] * n for n, p in zip(sizes, pads)]
        else:
            out["attention_mask"] = [[1] * n + [0] * p for n, p in zip(sizes, pads)]
    if plan.return_special_tokens_mask:
        zeros = [[[0] * (b - a) for a, b in seq] for seq in bounds]
        out["special_tokens_mask"] = padded(_interleave([[1] * len(r) for r in runs], zeros), 1)
    if plan.return_offsets_mapping:
        pairs = list(zip(spans[:, 0].tolist(), spans[:, 1].tolist()))
        within = [[pairs[a:b] for a, b in seq] for seq in bounds]
        out["offset_mapping"] = padded(_interleave([[(0, 0)] * len(r) for r in runs], within), (0, 0))
    if plan.return_length:
        out["length"] = [n + p for n, p in zip(sizes, pads)]
    return out


def _assemble_matrix(plan: FastPlan, ids: np.ndarray, first: np.ndarray, kept: np.ndarray,
                     tpl: Template, width: int, pad_id: Optional[int],
                     pad_type_id: int, spans: Optional[np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`_assemble_lists` as int64 matrices [B, width], built without a Python loop per row."""
    n_rows = len(kept)
    every_row = np.arange(n_rows)
    totals = kept.sum(1) + tpl.n_special
    # column of each row's first token: after the padding when padding on the left
    column = (width - totals) if plan.padding_side == "left" else np.zeros(n_rows, dtype=np.int64)
    real = (np.arange(width) >= column[:, None]) & (np.arange(width) < (column + totals)[:, None])
    input_ids = np.full((n_rows, width), pad_id if pad_id is not None else 0, dtype=np.int64)
    types = np.full((n_rows, width), pad_type_id, dtype=np.int64) if plan.return_token_type_ids else None
    content = np.zeros((n_rows, width), dtype=bool)
    offset_mapping = np.zeros((n_rows, width, 2), dtype=np.int64) if plan.return_offsets_mapping else None
    for k, (run, run_types) in enumerate(zip(tpl.runs, tpl.run_types)):
        for i, ty in zip(run, run_types):
            input_ids[every_row, column] = i
            if types is not None:
                types[every_row, column] = ty
            column = column + 1
        if k == tpl.n_sequences:
            break
        # each kept token of sequence k: its row, its index in `ids`, its column
        n = kept[:, k]
        rows = np.repeat(every_row, n)
        within = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
        source = np.repeat(first[:, k], n) + within
        cols = np.repeat(column, n) + within
        input_ids[rows, cols] = ids[source]
        content[rows, cols] = True
        if types is not None:
            types[rows, cols] = tpl.content_types[k]
        if offset_mapping is not None:
            offset_mapping[rows, cols] = spans[source]
        column = column + n
    out: dict[str, np.ndarray] = {"input_ids": input_ids}
    if types is not None:
        out["token_type_ids"] = types
    if plan.return_attention_mask:
        out["attention_mask"] = real.astype(np.int64)
    if plan.return_special_tokens_mask:
        out["special_tokens_mask"] = (~content).astype(np.int64)
    if offset_mapping is not None:
        out["offset_mapping"] = offset_mapping
    if plan.return_length:
        out["length"] = np.full(n_rows, width, dtype=np.int64)
    return out


def _parts(n: int, m: int, stride: int, left: bool) -> list[tuple[int, int]]:
    """tokenizers' ``Encoding.truncate(m, stride)`` of n tokens: the kept range, then the
    overflowing ranges (each ``stride`` tokens into the previous one)."""
    if m >= n:
        return [(0, n)]
    if m == 0:
        return [(0, 0), (0, n)]
    step = m - stride
    if left:
        parts = []
        for last in range(n - 1, -1, -step):
            parts.append((max(last + 1 - m, 0), last + 1))
            if parts[-1][0] == 0:
                break
        return parts
    parts = [(0, min(m, n))]
    while parts[-1][1] < n:
        start = parts[-1][0] + step
        parts.append((start, min(start + m, n)))
    return parts


def _overflow_rows(pieces: list[tuple[list, list[list]]]) -> list[list]:
    """The rows (lists of segments) of one input row: tokenizers merges the template's pieces
    (each a kept part and its overflowing parts) left to right with ``Encoding.merge_with``,
    so every overflowing part of a sequence gets the other pieces' kept parts around it, and
    parts of two sequences that both overflow are crossed, in that order."""
    main: list = []
    overflowing: list[list] = []
    for kept, over in pieces:
        crossed = []
        for mine in overflowing:
            crossed.append(mine + kept)
            crossed.extend(mine + theirs for theirs in over)
        crossed.extend(main + theirs for theirs in over)
        main, overflowing = main + kept, crossed
    return [main] + overflowing


def _assemble_overflow(plan: FastPlan, ids: np.ndarray, first: np.ndarray, lengths: np.ndarray, kept: np.ndarray,
                       tpl: Template, width: Optional[int], pad_id: Optional[int], pad_type_id: int,
                       spans: Optional[np.ndarray]) -> dict[str, list]:
    """:func:`assemble` with ``return_overflowing_tokens``: each input row gives its kept row
    and its overflowing rows (:func:`_overflow_rows`), and ``overflow_to_sample_mapping``
    says which input each row came from. Every row is padded to ``width`` (from the kept
    rows, as tokenizers pads a batch); a Python loop per row, as overflow rows are few and
    long."""
    flat = ids.tolist()
    pairs = list(zip(spans[:, 0].tolist(), spans[:, 1].tolist())) if spans is not None else None
    left = plan.truncation_side != "right"
    # a segment is ("run", k) or (sequence k, start, stop) within that sequence's tokens
    rows, sample = [], []
    for r in range(len(kept)):
        pieces = []
        for k in range(tpl.n_sequences + 1):
            pieces.append(([("run", k)], []))
            if k < tpl.n_sequences:
                parts = [(k, a, b) for a, b in _parts(int(lengths[r, k]), int(kept[r, k]), plan.stride, left)]
                pieces.append(([parts[0]], [[p] for p in parts[1:]]))
        out = _overflow_rows(pieces)
        rows.extend(out)
        sample.extend([r] * len(out))
    base = first.tolist()

    def build(row: int, segments: list, run_values, content) -> list:
        values = []
        for seg in segments:
            if seg[0] == "run":
                values.extend(run_values[seg[1]])
            else:
                k, a, b = seg
                values.extend(content(k, base[row][k] + a, base[row][k] + b))
        return values

    columns = {"input_ids": (tpl.runs, lambda k, a, b: flat[a:b], pad_id)}
    if plan.return_token_type_ids:
        columns["token_type_ids"] = (tpl.run_types, lambda k, a, b: [tpl.content_types[k]] * (b - a), pad_type_id)
    if plan.return_attention_mask:
        columns["attention_mask"] = ([[1] * len(run) for run in tpl.runs], lambda k, a, b: [1] * (b - a), 0)
    if plan.return_special_tokens_mask:
        columns["special_tokens_mask"] = ([[1] * len(run) for run in tpl.runs], lambda k, a, b: [0] * (b - a), 1)
    if plan.return_offsets_mapping:
        columns["offset_mapping"] = ([[(0, 0)] * len(run) for run in tpl.runs], lambda k, a, b: pairs[a:b], (0, 0))
    out: dict[str, list] = {}
    for key, (run_values, content, fill) in columns.items():
        values = [build(sample[i], segments, run_values, content) for i, segments in enumerate(rows)]
        if width is not None:
            values = [([fill] * (width - len(v)) + v if plan.padding_side == "left" else v + [fill] * (width - len(v)))
                      if len(v) < width else v for v in values]
        out[key] = values
    if plan.return_length:
        out["length"] = [len(v) for v in out["input_ids"]]
    out["overflow_to_sample_mapping"] = sample
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
                 batched: bool = True, n_sequences: int = 1) -> None:
        self._compute = compute
        self._batched = batched        # False: data holds one row per key (one text, no tensors)
        super().__init__(data, encoding=None, tensor_type=tensor_type, n_sequences=n_sequences)

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
