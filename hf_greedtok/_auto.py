"""Registration with transformers' Auto classes (run once when hf_greedtok is imported)."""
from __future__ import annotations

from transformers import AutoTokenizer, PreTrainedConfig

from .tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast


class GreedTokConfig(PreTrainedConfig):
    """Placeholder model config: AutoTokenizer's registry is keyed by a config class."""

    model_type = "greedtok"


class MorphLookupConfig(PreTrainedConfig):
    """Placeholder model config keying :class:`MorphLookupTokenizerFast` in AutoTokenizer's registry."""

    model_type = "morph-lookup"


def register_auto_classes() -> None:
    """Make ``AutoTokenizer.from_pretrained`` resolve ``"tokenizer_class": "GreedTokTokenizerFast"``
    (and ``MorphLookupTokenizerFast``) to the installed classes, so saved folders load without
    ``trust_remote_code``."""
    AutoTokenizer.register(GreedTokConfig, tokenizer_class=GreedTokTokenizerFast, exist_ok=True)
    AutoTokenizer.register(MorphLookupConfig, tokenizer_class=MorphLookupTokenizerFast, exist_ok=True)
