"""Old import path: folders are encoded by :mod:`hf_greedtok.hf.folder_encoder`, which both
engines use; these names are re-exported for code that imported them from here."""
from __future__ import annotations

from ..hf.folder_encoder import (ID_TYPE, MASK_TYPE, FolderEncoder, load_folder_tokenizer,  # noqa: F401
                                 native_parts, wrap_rows)
