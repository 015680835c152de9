"""Old import path (hf-greedtok 0.1): now :mod:`hf_greedtok.hf.tokenization_greedtok`."""
from .hf.tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast

__all__ = ["GreedTokTokenizerFast", "MorphLookupTokenizerFast"]
