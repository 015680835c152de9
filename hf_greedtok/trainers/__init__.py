"""Trainers, one module each: GreedTok and GreedWMC on the native core (:mod:`.greedtok`), BPE and
Constrained BPE on HF's BpeTrainer, returning a ``tokenizers`` backend (:mod:`.cbpe`), the BPE
merges both BPE users share (:mod:`.bpe_merges`: CBPE, and GreedTok's ``bpe_candidates``), and
hierarchical GreedTok's two levels (:mod:`.hierarchical`, Section 5.4), and superword GreedTok,
whose tokens may span words (:mod:`.superwords`).

The names below are :mod:`.greedtok`'s, importable from ``hf_greedtok.trainers`` as when it was
one module: every saved folder's remote code imports ``GreedTokTrainer`` and
``singleton_alphabet`` from here. CBPE is imported from :mod:`.cbpe` (or as
``hf_greedtok.CBPETrainer``), so importing this package loads neither ``tokenizers`` nor the HF
integration.
"""
from .greedtok import (INT64_MAX, U32_IDS, GreedTokTrainer, GreedWMCTrainer, bpe_vocab_size, learned_tokens,
                       most_frequent, singleton_alphabet)
from .superwords import GreedTokSuperwordTrainer

__all__ = ["GreedTokTrainer", "GreedWMCTrainer", "GreedTokSuperwordTrainer", "INT64_MAX", "U32_IDS", "bpe_vocab_size",
           "learned_tokens", "most_frequent", "singleton_alphabet"]
