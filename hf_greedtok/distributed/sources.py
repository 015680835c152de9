"""Old import path: inputs are resolved and read by :mod:`hf_greedtok.formats.sources`, which
both engines use; these names are re-exported for code that imported them from here."""
from __future__ import annotations

from ..formats.sources import (KINDS, PIECE_BYTES, check_input_file, input_kind, parquet_pieces,  # noqa: F401
                               read_bytes, read_documents, resolve_inputs)
