"""Registration with transformers' Auto classes, done when this module is imported: the
package imports it right after transformers is imported (see ``hf_greedtok.__init__``)."""
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
    ``trust_remote_code``. Idempotent."""
    AutoTokenizer.register(GreedTokConfig, tokenizer_class=GreedTokTokenizerFast, exist_ok=True)
    AutoTokenizer.register(MorphLookupConfig, tokenizer_class=MorphLookupTokenizerFast, exist_ok=True)


register_auto_classes()
