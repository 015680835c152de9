"""The trainer a tokenizer records: its ``training_info`` rebuilt into a trainer of the same kind
with the same settings, to train on new text (``GreedTokTokenizerFast.train_new_from_iterator``,
HF's way to retrain a tokenizer on a user's corpus).

A superword tokenizer (its pre-tokenizer's split spans words) gets :class:`GreedTokSuperwordTrainer`
with its curriculum (word tokens, word split, frequency floor, digits in chunks, other scripts,
the chunk budget);
a word-level one the GreedTok (or GreedWMC) trainer with its longest token, frequency floor, pinned
tokens and BPE candidates. Only a ``--candidates`` file is not recorded (the new run is
unrestricted).

Example:
    >>> from hf_greedtok import Tokenizer
    >>> tok = Tokenizer.load("sw-tokenizer")                       # doctest: +SKIP
    >>> trainer = recorded_trainer(tok, 8000, show_progress=False)  # k = 8000 learned tokens  # doctest: +SKIP
    >>> type(trainer).__name__                                      # doctest: +SKIP
    'GreedTokSuperwordTrainer'
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..core import Tokenizer
from ..defaults import (DEFAULT_CHUNK_BUDGET_MB, DEFAULT_MAX_TOKEN_LENGTH, DEFAULT_SUPERWORD_MIN_FREQUENCY,
                        DEFAULT_WORD_BUDGET_MB)
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, SUPERWORDS_DIGITS, find_split
from .greedtok import GreedTokTrainer, GreedWMCTrainer, learned_tokens
from .superwords import GreedTokSuperwordTrainer, default_word_tokens


def recorded_trainer(tok: Tokenizer, k: Optional[int] = None, *, vocab_size: Optional[int] = None,
                     special_tokens: Sequence[str] = (), **options: Any) -> GreedTokTrainer:
    """A trainer of ``tok``'s kind, with the settings its ``training_info`` records, for ``k``
    learned tokens or a whole vocabulary of ``vocab_size`` ids.

    Args:
        tok: a trained tokenizer (settings missing from an older file take the trainers' defaults).
        k: the learned tokens of the new run (singletons and special tokens on top); or
        vocab_size: the whole vocabulary of the new run, as the trainers take it.
        special_tokens: the new tokenizer's special tokens.
        **options: trainer arguments that replace the recorded ones (``min_frequency``,
            ``max_token_length``, ``show_progress``, ``num_threads``; for superwords also
            ``word_tokens``, ``keep_other_scripts``, ...).

    A superword tokenizer's t keeps its share of k: the default share when it was the default,
    else ``round(t x k / k_recorded)`` of the recorded t and k.

    Raises:
        ValueError, TypeError: what the trainer's constructor raises for the settings (neither
            or both sizes among them).
    """
    info = tok.training_info
    ranked = tok.model.ranked_tokens
    split = find_split(getattr(tok.pre_tokenizer, "pattern", ""))
    settings: dict = {"max_token_length": info.get("max_token_length", DEFAULT_MAX_TOKEN_LENGTH),
                      "candidates_on_demand": info.get("candidates_on_demand", True)}
    if split is not None and split.spans_words:
        curriculum = info.get("curriculum") or {}
        word_split = find_split(curriculum.get("word_pattern", DEFAULT_SPLIT))
        settings.update(
            min_frequency=info.get("min_frequency", DEFAULT_SUPERWORD_MIN_FREQUENCY) if curriculum
            else DEFAULT_SUPERWORD_MIN_FREQUENCY,
            # superwords are byte level: k of a vocab_size is known before the words
            word_tokens=_word_tokens(curriculum, info, k if k is not None else learned_tokens(
                vocab_size, 0, len(special_tokens))),
            word_pattern=DEFAULT_SPLIT if word_split is None else word_split.name,
            keep_other_scripts=curriculum.get("keep_other_scripts", True),
            chunk_budget_mb=(curriculum.get("chunk_sample") or {}).get("budget_mb", DEFAULT_CHUNK_BUDGET_MB),
            word_budget_mb=(curriculum.get("word_sample") or {}).get("budget_mb", DEFAULT_WORD_BUDGET_MB),
            pinned_tokens=list(ranked[:curriculum.get("user_pinned_tokens", 0)]))
        settings.update(options)
        return GreedTokSuperwordTrainer(k=k, vocab_size=vocab_size, digits_in_chunks=split.name == SUPERWORDS_DIGITS.name,
                                        special_tokens=special_tokens, normalizer=tok.normalizer, **settings)
    bpe = info.get("bpe_candidates_run") or {}
    settings.update(min_frequency=info.get("min_frequency", 1), bpe_candidates=bpe.get("factor"),
                    pinned_tokens=list(ranked[:info.get("pinned_tokens", 0)]))
    settings.update(options)
    cls = GreedWMCTrainer if info.get("algorithm") == GreedWMCTrainer.algorithm else GreedTokTrainer
    return cls(k=k, vocab_size=vocab_size, pre_tokenizer=tok.pre_tokenizer, special_tokens=special_tokens,
               normalizer=tok.normalizer, **settings)


def _word_tokens(curriculum: dict, info: dict, new_k: int):
    """t for a new k: None (the default share) where the recorded t was the default (a file
    older than ``word_tokens_default``: where it equals the default of its k), else the
    recorded share of the new k."""
    if not curriculum:
        return None
    t, k = curriculum.get("word_tokens_requested"), info.get("k_requested")
    default = curriculum.get("word_tokens_default")
    if default is None:
        default = t is None or not k or t == default_word_tokens(k)
    if default:
        return None
    return min(new_k, round(t * new_k / k))
