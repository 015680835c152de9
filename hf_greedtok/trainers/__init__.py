"""Trainers, one module each: GreedTok and GreedWMC on the native core (:mod:`.greedtok`), BPE and
Constrained BPE on HF's BpeTrainer, returning a ``tokenizers`` backend (:mod:`.cbpe`), the BPE
merges both BPE users share (:mod:`.bpe_merges`: CBPE, and GreedTok's ``bpe_candidates``), and
hierarchical GreedTok's two levels (:mod:`.hierarchical`, Section 5.4).

The names below are :mod:`.greedtok`'s, importable from ``hf_greedtok.trainers`` as when it was
one module: every saved folder's remote code imports ``GreedTokTrainer`` and
``singleton_alphabet`` from here. CBPE is imported from :mod:`.cbpe` (or as
``hf_greedtok.CBPETrainer``), so importing this package loads neither ``tokenizers`` nor the HF
integration.
"""
from .greedtok import (INT64_MAX, U32_IDS, GreedTokTrainer, GreedWMCTrainer, bpe_vocab_size, most_frequent,
                       singleton_alphabet)

__all__ = ["GreedTokTrainer", "GreedWMCTrainer", "INT64_MAX", "U32_IDS", "bpe_vocab_size", "most_frequent",
           "singleton_alphabet"]
