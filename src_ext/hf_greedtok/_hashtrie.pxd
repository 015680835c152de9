# cython: language_level=3
"""A trie over unit sequences (bytes, code points or unit codes) in one open-addressing hash
table keyed by (parent node, unit). Nodes are dense int32 ids, the root is 0. A hash table
instead of per-node child arrays keeps memory proportional to the number of nodes whatever the
alphabet (256 bytes or 100k+ code points). Shared by the trainer and the encoders: the lookups
they run in their hot loops are inline here."""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.vector cimport vector
cimport cython

cdef extern from *:
    """
    #define HF_GREEDTOK_TRIE_EMPTY_KEY 0xFFFFFFFFFFFFFFFFULL
    """
    # No (parent, unit) pair packs to this: parents are below 2**31.
    const uint64_t _EMPTY_KEY "HF_GREEDTOK_TRIE_EMPTY_KEY"


@cython.final
cdef class HashTrie:
    cdef vector[uint64_t] keys
    cdef vector[int32_t] vals
    cdef uint64_t mask
    cdef int shift
    cdef int64_t used
    cdef public int32_t n_nodes

    cdef inline uint64_t _slot(self, uint64_t key) noexcept nogil:
        # Fibonacci hashing: the high bits of key * 2^64/phi are well mixed.
        return (key * <uint64_t>0x9E3779B97F4A7C15ULL) >> self.shift

    cdef inline int32_t child(self, int32_t parent, uint32_t unit) noexcept nogil:
        """Child of `parent` along `unit`, or -1."""
        cdef uint64_t key = (<uint64_t>parent << 32) | unit
        cdef uint64_t i = self._slot(key)
        cdef uint64_t k
        while True:
            k = self.keys[i]
            if k == key:
                return self.vals[i]
            if k == _EMPTY_KEY:
                return -1
            i = (i + 1) & self.mask

    cdef int32_t child_or_add(self, int32_t parent, uint32_t unit) except -1 nogil
    cdef int put(self, int32_t parent, uint32_t unit, int32_t value) except -1 nogil
    cdef int _grow(self) except -1 nogil
    cdef void release(self) noexcept nogil
