"""BOS/EOS as a folder records them, and ``add_bos_token``/``add_eos_token`` as a loaded
tokenizer reports them.

transformers 5 keeps a folder's BOS/EOS in one place, tokenizer.json's post-processor: when the
folder has a tokenizer.json, ``from_pretrained`` drops ``add_bos_token``/``add_eos_token`` from
tokenizer_config.json and ``save_pretrained`` does not write them
(``PreTrainedTokenizerBase._from_pretrained``, ``save_pretrained``). Every hf-greedtok reader
(``FolderEncoder``, ``hf-greedtok encode``, ``evaluate``, ``tokenize``) reads the same
post-processor, so the ids agree. But a loaded tokenizer then reports both flags False, even
though its template adds BOS and EOS; setting one (``tok.add_eos_token = False``, or
``from_pretrained(folder, add_eos_token=False)``) rebuilds the template from the flags and drops
the other, and ``train_new_from_iterator`` builds a tokenizer without them.
:func:`flags_of_template` reads the flags back from the template, which ``GreedTokTokenizerFast``
takes for every flag the caller did not give: the flags say what the tokenizer does, and setting
one leaves the other, as on a tokenizer built with both.
"""
from __future__ import annotations

from itertools import product
from typing import Mapping, Optional

from tokenizers import Tokenizer as HFTokenizer

from .pipeline import template_post_processor


def token_content(value) -> Optional[str]:
    """A config's special token: a string, transformers' AddedToken dict ({"content": ...}) or
    an AddedToken."""
    if isinstance(value, Mapping):
        value = value.get("content")
    value = getattr(value, "content", value)
    return value if isinstance(value, str) else None


def flags_of_template(backend: HFTokenizer, bos: Optional[str], eos: Optional[str]) -> Optional[dict[str, bool]]:
    """The flags whose ``[BOS] $A [EOS]`` template is ``backend``'s post-processor exactly
    (``bos``/``eos`` being the config's tokens), or None for any other post-processor (a
    custom template, RoBERTa's, ...) or when neither is added."""
    pp = backend.post_processor
    if pp is None:
        return None
    state = pp.__getstate__()
    for add_bos, add_eos in product((True, False), repeat=2):
        if not (add_bos or add_eos):
            continue
        ends = [(token, backend.token_to_id(token)) if wanted and token is not None else None
                for wanted, token in ((add_bos, bos), (add_eos, eos))]
        if any(wanted and (end is None or end[1] is None) for wanted, end in zip((add_bos, add_eos), ends)):
            continue
        if template_post_processor(*ends).__getstate__() == state:
            return {"add_bos_token": add_bos, "add_eos_token": add_eos}
    return None
