"""Old import path (hf-greedtok 0.1): now :mod:`hf_greedtok.hf.pipeline`.

Kept because every tokenizer folder saved by 0.1 carries a ``tokenization_greedtok.py`` that
imports these names from here (tests/structure/test_layout.py loads such a folder).
"""
from .hf.pipeline import (attach, attachment, backend_from_folder_json, backend_lock, build_backend,
                          export_optimal_tokenizer_json, folder_json, refresh_decoder, standard_json, unigram_vocab)

__all__ = ["attach", "attachment", "backend_from_folder_json", "backend_lock", "build_backend",
           "export_optimal_tokenizer_json", "folder_json", "refresh_decoder", "standard_json", "unigram_vocab"]
