"""``encode_batch``'s rows (issue 32, item 4): one int32 view per text of the batch's one ids
buffer, made through numpy's C API (``hf_greedtok._rows.views``): the same arrays as slicing the
buffer in Python, sharing its memory, and a clear error for buffers they cannot view."""
from __future__ import annotations

import numpy as np
import pytest
from corpora import VOCAB, corpus

from hf_greedtok import Tokenizer, _rows


def test_each_row_is_the_slice_of_the_flat_buffer_and_shares_its_memory():
    tok = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    texts = corpus("en_python_docs.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:5000] + ["", "\ud800"]
    ids, offsets = tok.encode_batch_flat(texts)
    rows = tok.encode_batch(texts)
    assert len(rows) == len(texts)
    for t, row in enumerate(rows):
        assert row.dtype == np.int32 and row.ndim == 1
        assert row.tolist() == ids[offsets[t]:offsets[t + 1]].tolist()
    views = _rows.views(ids, offsets)
    assert all(v.base is ids for v in views)
    assert views[10].ctypes.data == ids.ctypes.data + 4 * int(offsets[10])
    first = ids[offsets[0]:offsets[1]].tolist()
    del ids, rows
    assert views[0].tolist() == first and first     # the views keep the buffer alive


@pytest.mark.parametrize("ids, offsets, message", [
    (np.zeros(3, np.int64), np.array([0, 1]), "contiguous 1-D int32 array, got int64"),
    (np.zeros((2, 2), np.int32), np.array([0, 1]), "contiguous 1-D int32 array"),
    (np.zeros(6, np.int32)[::2], np.array([0, 1]), "contiguous 1-D int32 array"),
    (np.zeros(3, np.int32), np.array([0, 4]), "from 0 to at most 3"),
    (np.zeros(3, np.int32), np.array([1, 2]), "from 0 to at most 3"),
    (np.zeros(3, np.int32), np.array([0, 2, 1]), "offsets decrease at row 1"),
])
def test_a_buffer_the_rows_cannot_view_is_refused(ids, offsets, message):
    with pytest.raises(ValueError, match=message):
        _rows.views(ids, offsets)
