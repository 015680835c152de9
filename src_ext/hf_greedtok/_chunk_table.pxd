# cython: language_level=3
"""Declarations of the chunk table (see _chunk_table.pyx): distinct byte strings with int64
counts, compact (the bytes back to back, 32 bytes of index per entry), for the superword
trainer's counts at corpus scale."""

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libcpp.vector cimport vector


cdef class ChunkTable:
    cdef vector[char] _text          # the UTF-8 of every entry, back to back
    cdef vector[int64_t] _ends       # entry i is _text[_ends[i - 1]:_ends[i]] (from 0 for i = 0)
    cdef vector[int64_t] _counts
    cdef vector[uint64_t] _hashes    # XXH64 of each entry's bytes
    cdef vector[uint32_t] _slots     # open addressing: entry index + 1, 0 when free; a power of 2

    cdef int64_t _add(self, const char* data, int64_t n, uint64_t h, int64_t count) except -1 nogil
    cdef int _grow(self) except -1 nogil
    cdef str _key(self, int64_t e)
    cdef int64_t _partition_offsets(self, int bits, int64_t* off) noexcept nogil
    cdef inline int64_t _put_record(self, int64_t e, char* out) noexcept nogil
