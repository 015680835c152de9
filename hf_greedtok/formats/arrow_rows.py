"""Token ids as Arrow list columns: a batch's flat buffers (ids, offsets) become one
``pyarrow.ListArray`` without a Python object per token, the column type ``datasets`` writes for
``input_ids`` (``list<int32>``). pyarrow loads only when a function here is called.

    >>> rows = list_array(np.array([5, 6, 7], np.int32), np.array([0, 2, 3]))  # doctest: +SKIP
    >>> rows.to_pylist()                                                        # doctest: +SKIP
    [[5, 6], [7]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

MAX_LIST_VALUES = 2 ** 31 - 1     # a ListArray's offsets are int32


def list_array(values: np.ndarray, offsets: np.ndarray) -> "pa.ListArray":
    """Rows ``values[offsets[t]:offsets[t + 1]]`` as a ``pyarrow.ListArray`` of ``values``'
    type (``list<int32>`` for token ids, ``list<int8>`` for attention masks).

    Args:
        values: a 1-D numpy array (int32 ids: T of them); used as the list's values buffer, not
            copied.
        offsets: int64[rows + 1], from 0 up to T (``Tokenizer.encode_batch_flat``'s offsets);
            copied once to int32, the offsets type of Arrow's list.

    Returns:
        pyarrow.ListArray of ``rows`` rows.

    Raises:
        ValueError: more than 2**31 - 1 values (an Arrow list column's limit: split the batch),
            or offsets that do not end at len(values).
    """
    import pyarrow as pa
    total = int(offsets[-1]) if len(offsets) else 0
    if total > MAX_LIST_VALUES:
        raise ValueError(f"{total:,} values in one batch, more than an Arrow list column holds "
                         f"({MAX_LIST_VALUES:,}): use a smaller batch")
    if total != len(values):
        raise ValueError(f"offsets end at {total:,} but there are {len(values):,} values")
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(values))
