"""The tokenizers ``hf-greedtok compare`` measures on held-out text, behind one interface.

A :class:`Peer` encodes lines of text and says, per line, how many tokens it used and whether
decoding gives the line back. Peers wrap

* GreedTok / GreedWMC (:class:`hf_greedtok.core.Tokenizer`, cover or optimal encoder),
* ``tokenizers`` backends (HF BPE, HF Unigram),
* SentencePiece models (the ``sentencepiece`` package, the ``sentencepiece`` extra, imported
  only when a SentencePiece peer is trained), either on raw lines with SentencePiece's own
  whitespace handling, or on the words of a byte-level split (the "equal pre-tokenization"
  setting, where only the trainer differs from GreedTok's and BPE's).

All sizes are total vocabularies: every id, singletons, byte fallback and special pieces included.
"""
from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

from ..core import Tokenizer
from ..pre_tokenizers import ByteLevel

__all__ = ["Peer", "GreedTokPeer", "HFPeer", "SentencePiecePeer", "sentencepiece_module",
           "train_hf_unigram", "train_sentencepiece",
           "SP_LOSSLESS", "SP_EQUAL_SPLIT"]

_BATCH = 4096

# SentencePiece made lossless: no normalization, spaces kept as they are; byte fallback covers
# every character outside the vocabulary (its 256 byte pieces count in the vocabulary).
SP_LOSSLESS = {"normalization_rule_name": "identity", "remove_extra_whitespaces": False}
# SentencePiece over byte-level words (each training "sentence" is one word of the split, in
# GPT-2's byte alphabet, with its count): SentencePiece's own splitting and normalization off, so
# it only chooses the vocabulary; the 256 byte symbols are its characters (no byte fallback).
SP_EQUAL_SPLIT = {"normalization_rule_name": "identity", "remove_extra_whitespaces": False,
                  "add_dummy_prefix": False, "split_by_whitespace": False, "split_by_unicode_script": False,
                  "split_by_number": False, "character_coverage": 1.0, "byte_fallback": False,
                  "bos_id": -1, "eos_id": -1}


@dataclass
class Peer:
    """A trained tokenizer as the held-out report describes and measures it.

    Attributes:
        name: the row label, e.g. "HF BPE".
        trainer: the library and algorithm that built it.
        pre_tokenization: how text is split before the model sees it.
        normalization: what is changed in the text before encoding ("none" if nothing).
        vocab_size: total ids.
    """

    name: str
    trainer: str
    pre_tokenization: str
    normalization: str
    vocab_size: int

    def measure(self, lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(int64[n] tokens of each line, bool[n] decode(encode(line)) == line), no special tokens."""
        counts, ok = [], []
        for start in range(0, len(lines), _BATCH):
            c, o = self._measure_batch(list(lines[start:start + _BATCH]))
            counts.append(np.asarray(c, dtype=np.int64))
            ok.append(np.asarray(o, dtype=bool))
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        return np.concatenate(counts), np.concatenate(ok)

    def _measure_batch(self, lines: list[str]) -> tuple[Sequence[int], Sequence[bool]]:
        """:meth:`measure` of one batch (subclasses: their library's batch encoder and decoder)."""
        raise NotImplementedError

    def describe(self) -> dict:
        """The report's description of this peer (JSON-ready)."""
        return {"name": self.name, "trainer": self.trainer, "pre_tokenization": self.pre_tokenization,
                "normalization": self.normalization, "vocab_size": self.vocab_size}


class GreedTokPeer(Peer):
    """A GreedTok-format :class:`Tokenizer` with a fixed encoder ("cover" or "optimal")."""

    def __init__(self, name: str, trainer: str, tok: Tokenizer, mode: str, num_threads: int = 1) -> None:
        super().__init__(name, trainer, tok.pre_tokenizer.label, "none", tok.vocab_size)
        self.tok, self.mode, self.num_threads = tok, mode, num_threads

    def _measure_batch(self, lines):
        ids, offsets = self.tok.encode_batch_flat(lines, mode=self.mode, allow_special=False,
                                                  num_threads=self.num_threads)
        bounds = offsets.tolist()
        ok = [self.tok.decode(ids[a:b]) == line for line, a, b in zip(lines, bounds, bounds[1:])]
        return np.diff(offsets), ok


class HFPeer(Peer):
    """A ``tokenizers.Tokenizer`` (its own pre-tokenizer, normalizer and decoder)."""

    def __init__(self, name: str, trainer: str, backend, pre_tokenization: str, normalization: str = "none") -> None:
        super().__init__(name, trainer, pre_tokenization, normalization,
                         backend.get_vocab_size(with_added_tokens=True))
        self.backend = backend

    def _measure_batch(self, lines):
        ids = [e.ids for e in self.backend.encode_batch(lines, add_special_tokens=False)]
        decoded = self.backend.decode_batch(ids, skip_special_tokens=False)
        return [len(i) for i in ids], [d == line for d, line in zip(decoded, lines)]


class SentencePiecePeer(Peer):
    """A SentencePiece model; with ``split`` it encodes the words of that byte-level split one by one
    (the model was trained on such words, :func:`train_sentencepiece` with ``split``)."""

    def __init__(self, name: str, trainer: str, processor, pre_tokenization: str, normalization: str,
                 split: Optional[ByteLevel] = None) -> None:
        super().__init__(name, trainer, pre_tokenization, normalization, processor.get_piece_size())
        self.sp, self.split = processor, split

    def _measure_batch(self, lines):
        if self.split is None:
            ids = self.sp.encode(lines)
            return [len(i) for i in ids], [d == line for d, line in zip(self.sp.decode(ids), lines)]
        words = [self.split.pre_tokenize(line) for line in lines]
        ids = self.sp.encode([_to_symbols(w) for ws in words for w in ws])     # one call for the batch
        decoded = self.sp.decode(ids)
        unk = self.sp.unk_id()
        counts, ok, at = [], [], 0
        for line, ws in zip(lines, words):
            mine = ids[at:at + len(ws)]
            counts.append(sum(map(len, mine)))
            # an <unk> (a symbol never seen) loses the text; so can bytes cut apart at a word's edge
            ok.append(all(unk not in i for i in mine) and _from_symbols("".join(decoded[at:at + len(ws)])) == line)
            at += len(ws)
        return counts, ok


def _symbol_tables() -> tuple[dict, dict]:
    from ..pre_tokenizers.byte_level import bytes_to_unicode
    table = bytes_to_unicode()
    return {b: table[b] for b in range(256)}, {ord(table[b]): b for b in range(256)}


_TO_SYMBOL, _FROM_SYMBOL = _symbol_tables()


def _to_symbols(word: str) -> str:
    """``ByteLevel.token_to_str(ByteLevel.word_units(word))`` in one str.translate."""
    return ByteLevel.word_units(word).decode("latin-1").translate(_TO_SYMBOL)


def _from_symbols(symbols: str) -> Optional[str]:
    """The text of byte-level symbols, or None if they are not symbols or not whole UTF-8."""
    try:
        return symbols.translate(_FROM_SYMBOL).encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def train_hf_unigram(lines: Iterable[str], vocab_size: int, like, *, show_progress: bool = False):
    """HF ``tokenizers`` Unigram of ``vocab_size`` total ids over the byte-level alphabet, with the
    pre-tokenizer and decoder of the ``tokenizers`` backend ``like`` (HF BPE's: the same split).

    Unigram's trainer treats vocab_size as a target: the result may be a little smaller.
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers
    uni = HFTokenizer(models.Unigram())
    uni.pre_tokenizer = like.pre_tokenizer
    uni.decoder = like.decoder
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=show_progress, special_tokens=[])
    uni.train_from_iterator(lines, trainer)
    return uni


def sentencepiece_module():
    """``sentencepiece``, imported now (it is optional).

    Raises:
        ImportError: not installed (with the pip command that installs it).
    """
    try:
        import sentencepiece
    except ImportError as e:
        raise ImportError("SentencePiece peers need sentencepiece: pip install 'hf-greedtok[sentencepiece]' "
                          "(or pass --no-sentencepiece)") from e
    return sentencepiece


def train_sentencepiece(lines: Sequence[str], vocab_size: int, model_type: str, options: Mapping, *,
                        split: Optional[ByteLevel] = None, word_counts: Optional[Mapping[str, int]] = None,
                        num_threads: int = 1):
    """A ``sentencepiece.SentencePieceProcessor`` of ``vocab_size`` total pieces.

    Args:
        lines: training lines (blank ones are skipped), used without ``split``.
        model_type: "bpe" or "unigram".
        options: SentencePiece trainer options on top of ``byte_fallback=True`` (e.g. :data:`SP_LOSSLESS`;
            empty for SentencePiece's defaults).
        split, word_counts: the equal-pre-tokenization setting: train on the words of ``word_counts``
            (pre-tokenized by ``split``) written in GPT-2's byte alphabet, each with its count, plus
            each of the 256 byte symbols once so that all are in the vocabulary (options
            :data:`SP_EQUAL_SPLIT`).

    Raises:
        ImportError: sentencepiece is missing. ValueError: SentencePiece refuses the settings
        (e.g. a vocabulary too large for the text), with its message.
    """
    spm = sentencepiece_module()
    model = io.BytesIO()
    spec = {"vocab_size": vocab_size, "model_type": model_type, "byte_fallback": True, "minloglevel": 2,
            "num_threads": num_threads, **options}
    try:
        _train(spm, model, spec, lines, split, word_counts)
    except RuntimeError as e:        # SentencePiece's own checks, e.g. "Vocabulary size too high (N)"
        raise ValueError(f"SentencePiece {model_type} cannot train {vocab_size:,} pieces on this text: "
                         f"{str(e).split('] ')[-1]} (use smaller --vocab-sizes or --no-sentencepiece)") from None
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def _train(spm, model: io.BytesIO, spec: dict, lines, split, word_counts) -> None:
    if split is None:
        spm.SentencePieceTrainer.train(sentence_iterator=(line for line in lines if line), model_writer=model,
                                       **spec)
    else:
        with tempfile.TemporaryDirectory(prefix="hf-greedtok-sp-") as folder:
            path = os.path.join(folder, "words.tsv")
            with open(path, "w", encoding="utf-8") as f:
                for word, c in word_counts.items():
                    f.write(f"{_to_symbols(word)}\t{c}\n")
                for b in range(256):
                    f.write(f"{ByteLevel.token_to_str(bytes([b]))}\t1\n")
            spm.SentencePieceTrainer.train(input=path, input_format="tsv", model_writer=model, **spec)
