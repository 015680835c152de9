"""Batch encoding of documents as a saved tokenizer folder encodes them, into Arrow columns.

:class:`FolderEncoder` is what each worker of ``hf-greedtok tokenize`` holds (one per Ray worker
process of :func:`hf_greedtok.distributed.tokenize_dataset`, or one in the local engine,
:func:`hf_greedtok.hf.tokenize_local.tokenize_local`): it loads a folder once and turns a batch
of texts into ``input_ids`` (and optionally ``attention_mask``) list columns, equal to
``AutoTokenizer.from_pretrained(folder)(texts)`` row for row. No Ray here.

GreedTok folders are read without transformers (:class:`~hf_greedtok.hf.folder.TokenizerFolder`,
:func:`native_parts`) and encoded by :meth:`hf_greedtok.Tokenizer.encode_batch_flat` (native,
the GIL released, one flat buffer) with the special tokens the folder's post-processor adds put
around each row in numpy: the ids :class:`GreedTokTokenizerFast` gives, without building Python
lists. Other folders (BPE, CBPE,
lookup), or a GreedTok folder whose added tokens or post-processor only the backend applies, are
encoded by the transformers tokenizer's own batch call.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional, Sequence, Union

import numpy as np

from ..core import Tokenizer
from ..errors import CorpusError, GreedTokFileError
from ..formats.arrow_rows import list_array
from ..formats.folder_files import CONFIG_FILE, class_fix
from .folder import TokenizerFolder
from .pipeline import native_added_tokens, template

if TYPE_CHECKING:
    import pyarrow as pa

#: Arrow types of the written columns: ids as HF models take them, the mask in one byte per token.
ID_TYPE = "int32"
MASK_TYPE = "int8"


def load_folder_tokenizer(folder: Union[str, os.PathLike, TokenizerFolder], mode: Optional[str] = None):
    """The transformers tokenizer of any folder ``hf-greedtok train`` or ``Tokenizer.save``
    writes, checked first (manifest, files present) unless it is an opened
    :class:`~hf_greedtok.hf.folder.TokenizerFolder`.

    Args:
        mode: "cover" or "optimal" for a GreedTok folder (default: the folder's).

    Raises:
        GreedTokFileError: a missing, incomplete or damaged folder (the file named), or one
            whose class neither transformers nor hf-greedtok knows (its ``auto_map`` would run
            the folder's code): nothing asks whether to run it.
        ValueError: ``mode`` given for a folder that is not GreedTok's, or unknown.
    """
    return _transformers_tokenizer(TokenizerFolder.of(folder), mode)


def _transformers_tokenizer(folder: TokenizerFolder, mode: Optional[str]):
    """:func:`load_folder_tokenizer` of an opened folder."""
    from .tokenization_greedtok import GreedTokTokenizerFast
    if folder.config is None:                      # a Tokenizer.save folder: greedtok.json alone
        return GreedTokTokenizerFast(greedtok=folder.greedtok(), mode=mode)
    if not folder.is_greedtok:
        if mode is not None:
            raise ValueError(f"mode: {folder.path} is a {folder.tokenizer_class} folder with one encoder; "
                             "mode applies to GreedTok folders")
        from transformers import AutoTokenizer     # importing it registers our classes (hf_greedtok.__init__)
        if (folder.config or {}).get("auto_map") and not _transformers_knows(folder.tokenizer_class):
            # transformers would ask (or, told not to, refuse in three lines) to run the folder's code
            unknown = f"\"tokenizer_class\" {folder.config.get('tokenizer_class')!r} is not a class of transformers or "
            fix = class_fix(folder.path, "set back")        # a class edited in a folder of ours
            raise GreedTokFileError(folder.path / CONFIG_FILE, unknown + (
                f"hf-greedtok; {fix}" if fix else "hf-greedtok but the folder's own code (its \"auto_map\"), which "
                "hf-greedtok does not run; load it with AutoTokenizer.from_pretrained(folder, trust_remote_code=True)"))
        # opened and recognised above: transformers must never ask whether to run the folder's code
        return AutoTokenizer.from_pretrained(str(folder.path), trust_remote_code=False)
    # transformers' own loading (added tokens, special tokens from the config) is what the ids
    # must equal; it reads the folder's files again
    return GreedTokTokenizerFast.from_pretrained(str(folder.path), **({"mode": mode} if mode else {}))


def _transformers_knows(name: str) -> bool:
    """Whether AutoTokenizer resolves tokenizer class ``name`` (without "Fast") to a class of
    its own or a registered one (ours), as it decides whether a folder has "local code": then
    an ``auto_map`` beside it is not run, and nothing asks."""
    from transformers.models.auto.tokenization_auto import tokenizer_class_from_name
    return any(tokenizer_class_from_name(candidate) is not None for candidate in (name, name + "Fast"))


def wrap_rows(ids: np.ndarray, offsets: np.ndarray, prefix: Sequence[int], suffix: Sequence[int]
              ) -> tuple[np.ndarray, np.ndarray]:
    """Put ``prefix`` before and ``suffix`` after every row of a flat batch.

    Args:
        ids: int32[T], row t being ``ids[offsets[t]:offsets[t+1]]``.
        offsets: int64[n + 1].

    Returns:
        (int32[T + n * (len(prefix) + len(suffix))], int64[n + 1]) in the same layout.
    """
    p, s = len(prefix), len(suffix)
    if p + s == 0:
        return ids, offsets
    n = len(offsets) - 1
    new_offsets = offsets + np.arange(n + 1, dtype=np.int64) * (p + s)
    out = np.empty(int(new_offsets[-1]), dtype=np.int32)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    out[np.arange(len(ids), dtype=np.int64) + row * (p + s) + p] = ids
    for j, token in enumerate(prefix):
        out[new_offsets[:-1] + j] = token
    for j, token in enumerate(suffix):
        out[new_offsets[1:] - s + j] = token
    return out, new_offsets


def native_parts(folder: TokenizerFolder, mode: Optional[str] = None
                 ) -> Optional[tuple[Tokenizer, str, dict[str, int], tuple[int, ...], tuple[int, ...]]]:
    """(native tokenizer, mode, added tokens, ids before, ids after each text) of an opened
    GreedTok folder, read without importing transformers (1.5-2.5 s and about 250 MB per
    worker); None for other folders, or when their added tokens or post-processor need the
    transformers backend.

    Raises:
        GreedTokFileError: a damaged greedtok.json. ValueError: unknown mode.
    """
    if not folder.is_greedtok:
        return None
    return _parts(*folder.greedtok_backend(mode))


def _parts(tok: Tokenizer, mode: str, backend):
    """:func:`native_parts` of a native tokenizer and its ``tokenizers`` backend: None when
    the backend's added tokens, post-processor or ``split_special_tokens`` need the backend
    itself."""
    added, tpl = native_added_tokens(backend), template(backend.post_processor, pair=False, add_special_tokens=True)
    if added is None or tpl is None or backend.encode_special_tokens:     # split_special_tokens: the backend's
        return None
    return tok, mode, added, tpl.runs[0], tpl.runs[1]


class FolderEncoder:
    """Encode batches of documents as a tokenizer folder does, into Arrow list columns.

    Args:
        folder: any folder ``hf-greedtok train`` writes (GreedTok cover or optimal, BPE, CBPE,
            lookup) or a ``Tokenizer.save`` folder; a path is opened (checked) here, an opened
            :class:`~hf_greedtok.hf.folder.TokenizerFolder` is used as it is.
        mode: "cover" or "optimal" for GreedTok folders (default: the folder's).
        add_special_tokens: the post-processor's BOS/EOS, as ``tok(text)`` adds them.
        attention_mask: also return an ``attention_mask`` column (all ones: no padding).
        num_threads: native encoder threads (GreedTok; ids do not depend on it).

    Raises:
        GreedTokFileError, ValueError: as :func:`load_folder_tokenizer`.
    """

    def __init__(self, folder: Union[str, os.PathLike, TokenizerFolder], *, mode: Optional[str] = None,
                 add_special_tokens: bool = True, attention_mask: bool = False, num_threads: int = 1) -> None:
        self.add_special_tokens = add_special_tokens
        self.attention_mask = attention_mask
        self.num_threads = num_threads
        folder = TokenizerFolder.of(folder)
        self._native = native_parts(folder, mode)
        self.tokenizer = _transformers_tokenizer(folder, mode) if self._native is None else None

    @classmethod
    def from_tokenizer(cls, tokenizer, *, add_special_tokens: bool = True, attention_mask: bool = False,
                       num_threads: int = 1) -> "FolderEncoder":
        """The encoder of a loaded transformers tokenizer: a :class:`GreedTokTokenizerFast`
        goes through the native flat encoder (unless its added tokens or post-processor need
        the backend), any other tokenizer through its own batch call; arguments as for the
        class."""
        from .tokenization_greedtok import GreedTokTokenizerFast

        self = cls.__new__(cls)
        self.add_special_tokens = add_special_tokens
        self.attention_mask = attention_mask
        self.num_threads = num_threads
        self._native = (_parts(tokenizer.greedtok, tokenizer.mode, tokenizer.backend_tokenizer)
                        if isinstance(tokenizer, GreedTokTokenizerFast) else None)
        self.tokenizer = tokenizer if self._native is None else None
        return self

    def map_batch(self, batch: Union["pa.Table", Mapping[str, Sequence]], indices: Optional[Sequence[int]] = None,
                  *, column: str = "text") -> "pa.Table":
        """``Dataset.map`` on batches: the ids of ``batch[column]`` as :meth:`encode_table`
        gives them. An Arrow batch (``with_format("arrow")``) is read with no Python object per
        token; a dict of lists (``Dataset.map``'s default format) gives the same rows.

        Example (the rows equal ``ds.map(lambda b: tok(b["text"]), batched=True)``'s)::

            encoder = FolderEncoder("my-tokenizer", attention_mask=True)
            ids = ds.with_format("arrow").map(encoder.map_batch, batched=True, with_indices=True,
                                              remove_columns=ds.column_names).with_format(None)

        Args:
            batch: the batch: a pyarrow Table (``with_format("arrow")``), or a mapping of
                column name to the batch's values (``Dataset.map(..., batched=True)``'s
                ``LazyBatch``, a dict of lists).
            indices: the dataset rows of the batch's rows, which ``Dataset.map`` passes with
                ``with_indices=True``; an error then names the dataset's row, not the batch's.
            column: the text column.

        Raises:
            KeyError: no such column. TypeError: a column of another type than strings, or a
                null, named by its row; a single example (``Dataset.map`` without
                ``batched=True``) or a batch of another kind.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        def row(k: int) -> str:
            return (f"dataset row {indices[k]}" if indices is not None
                    else f"row {k} of this batch (Dataset.map(..., with_indices=True) names the dataset's row)")

        if isinstance(batch, Mapping):
            if column not in batch:
                raise KeyError(f"no column {column!r} in the batch (columns: {', '.join(map(repr, batch))})")
            texts = batch[column]
            if isinstance(texts, str):
                raise TypeError(f"column {column!r} holds one text, not a batch: map_batch takes batches, "
                                "Dataset.map(..., batched=True)")
            texts = list(texts)
            bad = next((k for k, t in enumerate(texts) if not isinstance(t, str)), None)
            if bad is not None:
                got = "null (None)" if texts[bad] is None else type(texts[bad]).__name__
                raise TypeError(f"column {column!r}, {row(bad)}: {got}, expected str")
            return self.encode_table(texts)
        if not isinstance(batch, (pa.Table, pa.RecordBatch)):
            raise TypeError(f"batch is {type(batch).__name__}: map_batch takes a pyarrow Table "
                            "(Dataset.with_format(\"arrow\")) or a dict of lists")
        values = batch.column(column)
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            raise TypeError(f"column {column!r} is {values.type}, expected strings")
        if values.null_count:
            k = int(pc.index(values.is_null(), True).as_py())
            raise TypeError(f"column {column!r}, {row(k)}: null (None), expected str")
        return self.encode_table(values.to_pylist())

    @property
    def native(self) -> bool:
        """Whether batches go through the native flat encoder (else the transformers call)."""
        return self._native is not None

    def encode_flat(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(ids int32[T], offsets int64[len(texts) + 1]): text t's ids, special tokens included,
        are ``ids[offsets[t]:offsets[t+1]]``, equal to ``tokenizer(texts)["input_ids"][t]``.

        Raises:
            TypeError: a text is not str (naming its index in the batch).
        """
        if self._native is not None:
            tok, mode, added, prefix, suffix = self._native
            ids, offsets = tok.encode_batch_flat(texts, mode=mode, added_tokens=added, num_threads=self.num_threads)
            return wrap_rows(ids, offsets, prefix, suffix) if self.add_special_tokens else (ids, offsets)
        texts = list(texts)
        for k, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"text {k} is {type(t).__name__}, expected str")
        rows = self.tokenizer(texts, add_special_tokens=self.add_special_tokens, return_attention_mask=False,
                              verbose=False)["input_ids"] if texts else []
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=offsets[1:])
        ids = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int32, count=int(offsets[-1]))
        return ids, offsets

    def encode_table(self, texts: Sequence[str]) -> "pa.Table":
        """A pyarrow Table with one row per text: ``input_ids`` (list<int32>) and, if asked,
        ``attention_mask`` (list<int8>, ones)."""
        import pyarrow as pa
        ids, offsets = self.encode_flat(texts)
        columns = {"input_ids": list_array(ids.astype(ID_TYPE, copy=False), offsets)}
        if self.attention_mask:
            columns["attention_mask"] = list_array(np.ones(len(ids), np.int8), offsets)
        return pa.table(columns)

    def encode_documents(self, docs: Sequence, source: str, first: Optional[int] = None) -> "pa.Table":
        """:meth:`encode_table` of a batch of documents read from ``source``.

        Args:
            first: the number of the batch's first document in ``source``, if known.

        Raises:
            CorpusError: a document that is not str (a null, a number), named by its number
                in ``source`` when ``first`` is known.
        """
        bad = next((k for k, d in enumerate(docs) if not isinstance(d, str)), None)
        if bad is not None:
            which = f"document {first + bad}" if first is not None else "a document"
            raise CorpusError(source, None, f"{which} is {type(docs[bad]).__name__}, not text")
        return self.encode_table(docs)
