"""Old import path (hf-greedtok 0.1): now :mod:`hf_greedtok.hf.folder`.

Kept because every tokenizer folder saved by 0.1 carries a ``tokenization_greedtok.py`` that
imports these names from here (tests/structure/test_layout.py loads such a folder).
"""
from .hf.folder import (CONFIG_FILE, LOOKUP_FILE, REMOTE_CODE_FILE, TOKENIZER_FILE, check_same_vocab,
                        is_greedtok_config, load_greedtok_backend, save_greedtok_folder)

__all__ = ["CONFIG_FILE", "LOOKUP_FILE", "REMOTE_CODE_FILE", "TOKENIZER_FILE", "check_same_vocab",
           "is_greedtok_config", "load_greedtok_backend", "save_greedtok_folder"]
