"""Compression metrics of a tokenizer on a corpus of words with counts.

Words are the pre-tokenized words of the corpus (for byte level they include their leading
space), counted as in training; every metric is count-weighted.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from .core import Tokenizer


def evaluate_word_counts(tok: Tokenizer, word_counts: Mapping[str, int], *, num_threads: int = 1) -> dict:
    """Tokens per word, characters per token, and the token-saving ratio of ``optimal``.

    Returns a dict with ``words`` (total, count-weighted), ``distinct_words``, ``characters``
    (of the words, in Unicode characters), ``tokens_cover`` and ``tokens_optimal`` (totals),
    ``tokens_per_word`` (cover, the trainer's objective per word), ``tokens_per_word_optimal``,
    ``chars_per_token`` (cover), ``token_saving_ratio`` = 1 - tokens_optimal / tokens_cover
    (the optimal-segmentation paper's TSR) and ``vocab_size``.

    Raises:
        ValueError: empty corpus.
    """
    if not word_counts:
        raise ValueError("cannot evaluate on an empty corpus")
    words = list(word_counts)
    counts = np.fromiter(word_counts.values(), dtype=np.int64, count=len(words))
    per_mode = {}
    for mode in ("cover", "optimal"):
        _, offsets = tok.encode_words(words, mode=mode, num_threads=num_threads)
        per_mode[mode] = int(np.dot(np.diff(offsets), counts))
    n_words = int(counts.sum())
    chars = int(np.dot(np.fromiter(map(len, words), dtype=np.int64, count=len(words)), counts))
    cover, optimal = per_mode["cover"], per_mode["optimal"]
    return {
        "words": n_words,
        "distinct_words": len(words),
        "characters": chars,
        "tokens_cover": cover,
        "tokens_optimal": optimal,
        "tokens_per_word": cover / n_words,
        "tokens_per_word_optimal": optimal / n_words,
        "chars_per_token": chars / cover,
        "token_saving_ratio": 1.0 - optimal / cover,
        "vocab_size": tok.vocab_size,
    }
