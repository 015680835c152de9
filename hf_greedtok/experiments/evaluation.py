"""Evaluation of a tokenizer on a corpus.

* :func:`evaluate_word_counts`: GreedTok's compression metrics on pre-tokenized words with
  counts (for byte level they include their leading space), counted as in training; the
  headline figures are the tokenizer's own encoder's (its mode), both encoders' beside them. For a
  superword tokenizer (its split's matches span words: chunks) the figures stay per word, the
  words of its word split (:func:`chunk_word_split`), with the chunk figures beside them, so
  that tokens per word compares with a word-level tokenizer's.
* :func:`evaluate_texts`: metrics of any HF backend (GreedTok, BPE, CBPE, with or without a
  morphology lookup) on running text or word tables: fertility, continued words, mark-initial
  tokens, Rényi efficiency (:mod:`hf_greedtok.experiments.metrics`), and boundary precision/recall/F1
  against a gold segmentation table.
"""
from __future__ import annotations

import operator
import os
from typing import Iterator, Mapping, Optional, Sequence, Union

import numpy as np
from tokenizers import Tokenizer as HFTokenizer

from ..core import Tokenizer
from ..errors import CorpusError
from ..formats.count_table import iter_count_tables
from ..formats.sources import iter_documents
from ..indic.lookup import MorphLookup
from ..models import MODES, GreedTokModel
from ..pre_tokenizers import ByteLevel
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, find_split
from ..trainers.superwords import chunk_words
from .metrics import BoundaryScores, TokenizationStats, token_boundaries

_BATCH = 2048
_INT64_MAX = 2**63 - 1
# TokenizationStats keys renamed so they cannot be confused with evaluate_word_counts' own.
_RENAMED = {"words": "whitespace_words", "tokens": "text_tokens", "characters": "text_characters",
            "chars_per_token": "text_chars_per_token"}


def total_tokens(tok: Union[Tokenizer, GreedTokModel], words: Sequence[Union[str, bytes]],
                 counts: Union[np.ndarray, Sequence[int]], mode: str = "cover", num_threads: int = 1) -> int:
    """Count-weighted number of tokens of pre-tokenized ``words``, exactly.

    Args:
        counts: one count per word: an int64 array, or Python ints of any size.

    Returns:
        The exact total as a Python int: int64 arithmetic is used only where the total
        provably fits, never where it could wrap.
    """
    _, offsets = tok.encode_words(words, mode=mode, num_threads=num_threads)
    return weighted_sum(np.diff(offsets), counts)


def weighted_sum(values: np.ndarray, counts: Union[np.ndarray, Sequence[int]]) -> int:
    """sum(values[i] * counts[i]) as an exact Python int, for int64[n] ``values`` >= 0 and
    non-negative ``counts`` (an int64 array or Python ints of any size)."""
    if isinstance(counts, np.ndarray) and counts.dtype == np.int64 and len(values):
        # Bound the dot product by max(count) * sum(values), in Python ints: int64 is exact below it.
        if int(counts.max(initial=0)) * int(values.sum()) <= _INT64_MAX:
            return int(np.dot(values, counts))
    return sum(map(operator.mul, values.tolist(), (counts.tolist() if isinstance(counts, np.ndarray) else counts)))


def chunk_word_split(word_pattern: Optional[str] = None) -> ByteLevel:
    """The word split that cuts superword chunks into the words per-word figures count.

    Args:
        word_pattern: a split name or regex, as recorded by a superword trainer
            (``training_info["curriculum"]["word_pattern"]``, the split of its word-level stage);
            None (no curriculum recorded) gives the default split, :data:`DEFAULT_SPLIT`, the
            words a word-level ``hf-greedtok train`` counts.

    Raises:
        ValueError: ``word_pattern`` is itself a chunk split (its matches span words).
    """
    pattern = DEFAULT_SPLIT if word_pattern is None else word_pattern
    split = find_split(pattern)
    if split is not None and split.spans_words:
        raise ValueError(f"the word split of a superword tokenizer cannot be the chunk split {split.name!r}")
    return ByteLevel(pattern)


def superword_word_split(tok: Tokenizer) -> Optional[ByteLevel]:
    """For a superword tokenizer (its pre-tokenizer's split spans words: ``superwords``,
    ``superwords-digits``), the word split of its chunks (:func:`chunk_word_split` of the
    curriculum's ``word_pattern``, or the default without one); None for any other tokenizer,
    whose pre-tokens are its words.

    Raises:
        ValueError: the recorded word split is a chunk split.
    """
    split = find_split(getattr(tok.pre_tokenizer, "pattern", None) or "")
    if split is None or not split.spans_words:
        return None
    curriculum = tok.training_info.get("curriculum") or {}
    return chunk_word_split(curriculum.get("word_pattern"))


def evaluate_word_counts(tok: Tokenizer, word_counts: Mapping[str, int], *, mode: Optional[str] = None,
                         num_threads: int = 1) -> dict:
    """Tokens per word, characters per token, and the token-saving ratio of ``optimal``.

    The headline figures are those of the encoder ``mode`` (default ``tok.mode``: for a saved
    folder, the encoder its files name, which ``encode``, ``AutoTokenizer`` and ``FolderEncoder``
    use); both encoders' figures are given under explicit keys beside them.

    Args:
        tok: the tokenizer; ``word_counts`` are its pre-tokens (a superword tokenizer's: chunks).
        word_counts: pre-token -> count (any non-negative int).
        mode: "cover" or "optimal", the encoder of the headline figures; None: ``tok.mode``.
        num_threads: encoding threads.

    Returns:
        A dict: ``mode`` (the headline's encoder), ``words`` (total, count-weighted),
        ``distinct_words``, ``characters`` (of the words, in Unicode characters),
        ``tokens_cover`` and ``tokens_optimal`` (totals), ``tokens_per_word`` and
        ``chars_per_token`` (``mode``'s), ``tokens_per_word_cover``, ``tokens_per_word_optimal``,
        ``chars_per_token_cover``, ``chars_per_token_optimal``, ``token_saving_ratio`` =
        1 - tokens_optimal / tokens_cover (the optimal-segmentation paper's TSR) and
        ``vocab_size``. Cover is the trainer's objective per word. Totals are exact Python ints
        whatever the counts (nothing wraps at 2**63); the ratios are their correctly rounded
        quotients.

    For a superword tokenizer (:func:`superword_word_split` is not None) ``word_counts`` holds
    chunks, and ``words``, ``distinct_words`` and the tokens per word count the words of its
    word split in them (:func:`chunk_words`), as a word-level tokenizer's would; ``chunks``,
    ``distinct_chunks``, ``tokens_per_chunk`` (``mode``'s), ``tokens_per_chunk_cover`` and
    ``tokens_per_chunk_optimal`` follow their word counterparts, and ``word_split`` names the
    split (its regex if it has no name). A word-level tokenizer's dict has none of these keys.

    Raises:
        ValueError: empty corpus, an unknown ``mode``, or a superword tokenizer whose recorded
            word split is a chunk split.
    """
    mode = mode or tok.mode
    if mode not in MODES:
        raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
    if not word_counts:
        raise ValueError("cannot evaluate on an empty corpus")
    word_split = superword_word_split(tok)
    words = list(word_counts)
    counts = [int(c) for c in word_counts.values()]    # Python ints: totals are exact at any size
    tokens = {m: total_tokens(tok, words, counts, m, num_threads) for m in MODES}
    n_words = sum(counts)
    chars = weighted_sum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)), counts)
    if word_split is None:
        result = {"mode": mode, "words": n_words, "distinct_words": len(words)}
    else:
        in_words = chunk_words(word_counts, word_split)
        n_chunks, n_words = n_words, sum(in_words.values())
        split = find_split(word_split.pattern)
        result = {"mode": mode, "words": n_words, "distinct_words": len(in_words), "chunks": n_chunks,
                  "distinct_chunks": len(words), "word_split": word_split.pattern if split is None else split.name}
    result.update(characters=chars, tokens_cover=tokens["cover"], tokens_optimal=tokens["optimal"])
    result.update(_per_mode("tokens_per_word", {m: t / n_words for m, t in tokens.items()}, mode))
    if word_split is not None:
        result.update(_per_mode("tokens_per_chunk", {m: t / n_chunks for m, t in tokens.items()}, mode))
    result.update(_per_mode("chars_per_token", {m: chars / t for m, t in tokens.items()}, mode))
    result.update(token_saving_ratio=1.0 - tokens["optimal"] / tokens["cover"], vocab_size=tok.vocab_size)
    return result


def _per_mode(name: str, figures: Mapping[str, float], mode: str) -> dict:
    """``name`` (the headline: ``mode``'s figure), then ``name_cover`` and ``name_optimal``."""
    return {name: figures[mode], **{f"{name}_{m}": figures[m] for m in MODES}}


def _batches(inputs: Sequence[Union[str, os.PathLike]], counts: bool, encoding_errors: str,
             text_column: str = "text") -> Iterator[tuple[list[str], list[int]]]:
    texts: list[str] = []
    weights: list[int] = []
    if counts:
        rows = ((word, c) for _, _, word, c in iter_count_tables(inputs))
    else:
        rows = ((doc, 1) for doc in iter_documents(inputs, text_column, encoding_errors) if doc.strip())
    for text, weight in rows:
        texts.append(text)
        weights.append(weight)
        if len(texts) == _BATCH:
            yield texts, weights
            texts, weights = [], []
    if texts:
        yield texts, weights


def evaluate_texts(backend: HFTokenizer, inputs: Sequence[Union[str, os.PathLike]], *, counts: bool = False,
                   gold: Optional[MorphLookup] = None, encoding_errors: str = "strict",
                   text_column: str = "text") -> dict:
    """Fertility, continued words, mark-initial tokens, Rényi efficiency and boundary F1.

    Every non-blank line of the text files (without its line end) and document of the JSON
    Lines and parquet files (their ``text_column``, without a closing line end; inputs as every
    command reads them,
    :func:`~hf_greedtok.formats.sources.resolve_inputs`), or every word of the
    ``word<TAB>count`` tables weighted by its count, is encoded by ``backend`` without special
    tokens; token offsets (characters) give the metrics of :class:`TokenizationStats`, with
    ``vocab_size`` = the backend's size including added tokens. Keys: ``fertility`` (tokens per
    whitespace word), ``proportion_continued_words``, ``mark_initial_tokens``,
    ``mark_initial_share``, ``dependent_vowel_tokens``, ``dependent_vowel_share``,
    ``renyi_efficiency`` (alpha 2.5), ``whitespace_words``, ``text_tokens``, ... With ``gold``,
    every gold word is encoded alone and ``boundary_precision``/``recall``/``f1`` (micro-averaged
    over boundaries, character offsets inside the word) are added.

    Raises:
        CorpusError: unreadable input (file and line given) or no words.
    """
    stats = TokenizationStats()
    for texts, weights in _batches(inputs, counts, encoding_errors, text_column):
        for text, enc, w in zip(texts, backend.encode_batch(texts, add_special_tokens=False), weights):
            stats.add(text, enc.offsets, enc.ids, w)
    try:
        raw = stats.result(backend.get_vocab_size(with_added_tokens=True))
    except ValueError as e:
        raise CorpusError(", ".join(map(str, inputs)), None, f"nothing to evaluate ({e})") from None
    result = {_RENAMED.get(k, k): v for k, v in raw.items()}
    if gold is not None:
        result.update(boundary_scores(backend, gold))
    return result


def boundary_scores(backend: HFTokenizer, gold: MorphLookup) -> dict:
    """Boundary precision/recall/F1 of ``backend``'s tokens on every word of ``gold``, each
    encoded alone; a gold word with one segment contributes only its predicted boundaries."""
    scores = BoundaryScores()
    words = list(gold.entries)
    for k in range(0, len(words), _BATCH):
        batch = words[k:k + _BATCH]
        for word, enc in zip(batch, backend.encode_batch(batch, add_special_tokens=False)):
            scores.add(token_boundaries(enc.offsets, len(word)), gold.boundaries(word))
    return scores.result()
