# distutils: language = c++
# distutils: define_macros=NPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Rows of a flat ids buffer as numpy views, made through numpy's C API.

``encode_batch`` returns one int32 array per text, each a view of the batch's one ids buffer
(``encode_batch_flat``'s). Slicing in Python (``ids[a:b]``) costs about twice as much per row as
making the view here: for a batch of short lines, that was a third of the whole call.
"""
cimport numpy as cnp
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int32_t, int64_t

cnp.import_array()


def views(cnp.ndarray ids not None, const int64_t[::1] offsets not None) -> list:
    """``[ids[offsets[t]:offsets[t + 1]] for t in range(len(offsets) - 1)]``: each a 1-D int32
    array viewing ``ids`` (its ``base``; nothing is copied).

    Args:
        ids: int32[T], C-contiguous.
        offsets: int64[rows + 1], non-decreasing from 0 to at most T.

    Raises:
        ValueError: ids is not a contiguous 1-D int32 array, or offsets leave it.
    """
    if ids.ndim != 1 or ids.dtype.num != cnp.NPY_INT32 or not ids.flags.c_contiguous:
        raise ValueError(f"ids must be a contiguous 1-D int32 array, got {ids.dtype} of shape {(<object>ids).shape}")
    cdef Py_ssize_t n = offsets.shape[0] - 1, t
    cdef int64_t size = ids.shape[0]
    if n < 0 or offsets[0] != 0 or offsets[n] > size:
        raise ValueError(f"offsets must run from 0 to at most {size}")
    for t in range(n):
        if offsets[t + 1] < offsets[t]:
            raise ValueError(f"offsets decrease at row {t}")
    cdef list out = [None] * n
    cdef cnp.npy_intp length
    cdef int32_t* base = <int32_t*>cnp.PyArray_DATA(ids)
    cdef cnp.ndarray row
    for t in range(n):
        length = offsets[t + 1] - offsets[t]
        row = cnp.PyArray_SimpleNewFromData(1, &length, cnp.NPY_INT32, base + offsets[t])
        Py_INCREF(ids)                       # the reference the view's base takes over
        cnp.PyArray_SetBaseObject(row, ids)
        out[t] = row
    return out
