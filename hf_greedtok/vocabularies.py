"""Any vocabulary a user has, as two encoders: its own and minimum-token segmentation.

A vocabulary is one of

* a tiktoken file (``.tiktoken``): its own encoder is tiktoken's BPE (the file's merge ranks,
  with the split its vocabulary was made with: OpenAI's files are recognised by checksum,
  others need ``pattern``);
* a byte-level BPE ``tokenizer.json`` (or a folder holding one that is not GreedTok's, e.g.
  ``hf-greedtok train --algorithm bpe``): its own encoder is the ``tokenizers`` library's BPE;
* a GreedTok folder (what ``hf-greedtok train`` writes, or ``Tokenizer.save``): its own encoder
  is GreedTok's cover encoding (Algorithm 4).

The optimal encoder is always ours (the optimal-segmentation paper's minimum-token DP over the
same tokens and the same pre-tokenized words), so ``optimal <= own`` word by word for GreedTok
and BPE's merges alike. ``hf-greedtok encode``, ``evaluate`` and ``tsr`` read vocabulary files
through :func:`load_vocabulary`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import numpy as np

from .core import Tokenizer
from .errors import GreedTokFileError

if TYPE_CHECKING:
    from tokenizers import Tokenizer as HFTokenizer


@dataclass
class Vocabulary:
    """A vocabulary and its two encoders.

    Attributes:
        name: a label for reports (the file or folder name, without a ``.tiktoken`` suffix).
        path: where it was read from.
        kind: "tiktoken", "hf-bpe" or "greedtok".
        native: our :class:`~hf_greedtok.Tokenizer` over the same tokens and split (its optimal
            mode is the optimal encoder; for "greedtok" its cover mode is the own encoder).
        own_encoder: how the vocabulary's own encoder works, for reports.
    """
    name: str
    path: Path
    kind: str
    native: Tokenizer
    own_encoder: str
    _own: Any = field(default=None, repr=False)      # tiktoken.Encoding or tokenizers.Tokenizer

    @property
    def size(self) -> int:
        """Number of ids (tokens, with special tokens)."""
        return self.native.vocab_size

    def own_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens of each text with the vocabulary's own encoder, no special tokens: int64[len(texts)]."""
        if self.kind == "greedtok":
            return self._native_counts(texts, "cover")
        if self.kind == "tiktoken":
            encoded = self._own.encode_ordinary_batch(list(texts), num_threads=1)
            return np.fromiter(map(len, encoded), dtype=np.int64, count=len(texts))
        encoded = self._own.encode_batch(list(texts), add_special_tokens=False)
        return np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(texts))

    def own_encode(self, text: str) -> list[int]:
        """Ids of ``text`` with the vocabulary's own encoder, no special tokens."""
        if self.kind == "greedtok":
            return self.native.encode(text, mode="cover", allow_special=False)
        if self.kind == "tiktoken":
            return self._own.encode_ordinary(text)
        return self._own.encode(text, add_special_tokens=False).ids

    def backend(self) -> "HFTokenizer":
        """A ``tokenizers`` backend for the text metrics of ``evaluate``: a BPE file's own
        tokenizer; otherwise our cover encoding over the vocabulary (for OpenAI's tiktoken files
        with their split, the same ids as tiktoken's BPE)."""
        if self.kind == "hf-bpe":
            return self._own
        from .hf.pipeline import build_backend
        return build_backend(self.native, "cover")

    @property
    def backend_encoder(self) -> str:
        """What :meth:`backend` encodes with, for reports."""
        return self.own_encoder if self.kind == "hf-bpe" else "GreedTok cover over the vocabulary's tokens"

    def optimal_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens of each text with minimum-token segmentation of every word: int64[len(texts)]."""
        return self._native_counts(texts, "optimal")

    def _native_counts(self, texts: Sequence[str], mode: str) -> np.ndarray:
        _, offsets = self.native.encode_batch_flat(list(texts), mode=mode, allow_special=False)
        return np.diff(offsets)


def load_vocabulary(path: Union[str, os.PathLike], pattern: Optional[str] = None) -> Vocabulary:
    """The :class:`Vocabulary` in a tiktoken file, a byte-level BPE tokenizer.json, or a folder.

    Args:
        path: a ``.tiktoken`` file, a ``.json`` file, or a tokenizer folder.
        pattern: the split of a tiktoken file that is not one of OpenAI's (see
            :meth:`hf_greedtok.Tokenizer.from_tiktoken`); ignored for other kinds.

    Raises:
        GreedTokFileError: missing, unreadable or unsupported (e.g. not byte-level) vocabulary,
            or an unknown tiktoken file without ``pattern``.
        ImportError: tiktoken (for tiktoken files) is not installed.
    """
    path = Path(path)
    if path.is_dir():
        return _load_folder(path)
    if not path.is_file():
        raise GreedTokFileError(path, "no such file or folder")
    if path.suffix == ".json":
        return _hf_bpe(path, path.name if path.name != "tokenizer.json" else path.parent.name or path.name)
    native = Tokenizer.from_tiktoken(path, pattern=pattern)
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    name = path.name.removesuffix(".tiktoken")
    own = tiktoken.Encoding(name, pat_str=native.pre_tokenizer.pattern,
                            mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    return Vocabulary(name, path, "tiktoken", native, "tiktoken BPE (the file's merge ranks)", own)


def _hf_bpe(path: Path, name: str) -> Vocabulary:
    from tokenizers import Tokenizer as HFTokenizer
    native = Tokenizer.from_hf_bpe(path)
    return Vocabulary(name, path, "hf-bpe", native, "tokenizers BPE (the file's merges)",
                      HFTokenizer.from_file(str(path)))


def _load_folder(folder: Path) -> Vocabulary:
    from .hf.folder import TOKENIZER_FILE, TokenizerFolder
    opened = TokenizerFolder.open(folder)
    if opened.is_greedtok:
        return Vocabulary(folder.name, folder, "greedtok", opened.greedtok(), "GreedTok cover (Algorithm 4)")
    return _hf_bpe(folder / TOKENIZER_FILE, folder.name)
