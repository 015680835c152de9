# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The trie's table growth and inserts (lookups are inline in _hashtrie.pxd)."""


cdef class HashTrie:
    def __cinit__(self, int64_t expected_nodes=1024):
        cdef int64_t cap = 16
        cdef int bits = 4
        while cap < 2 * expected_nodes:
            cap <<= 1
            bits += 1
        self.keys.clear()       # not assign(n, x): Cython's vector.pxd lacks its except +, so bad_alloc would abort
        self.keys.resize(cap, _EMPTY_KEY)
        self.vals.clear()
        self.vals.resize(cap, -1)
        self.mask = <uint64_t>(cap - 1)
        self.shift = 64 - bits
        self.used = 0
        self.n_nodes = 1

    cdef int32_t child_or_add(self, int32_t parent, uint32_t unit) except -1 nogil:
        """Child of `parent` along `unit`, created with the next node id if absent."""
        cdef uint64_t key = (<uint64_t>parent << 32) | unit
        cdef uint64_t i = self._slot(key)
        cdef uint64_t k
        cdef int32_t node
        while True:
            k = self.keys[i]
            if k == key:
                return self.vals[i]
            if k == _EMPTY_KEY:
                break
            i = (i + 1) & self.mask
        node = self.n_nodes
        self.n_nodes += 1
        self.keys[i] = key
        self.vals[i] = node
        self.used += 1
        if 2 * self.used > <int64_t>self.keys.size():
            self._grow()
        return node

    cdef int put(self, int32_t parent, uint32_t unit, int32_t value) except -1 nogil:
        """Store an arbitrary value under (parent, unit); used as a plain unit -> id map."""
        cdef uint64_t key = (<uint64_t>parent << 32) | unit
        cdef uint64_t i = self._slot(key)
        while self.keys[i] != key and self.keys[i] != _EMPTY_KEY:
            i = (i + 1) & self.mask
        if self.keys[i] == _EMPTY_KEY:
            self.keys[i] = key
            self.used += 1
        self.vals[i] = value
        if 2 * self.used > <int64_t>self.keys.size():
            self._grow()
        return 0

    cdef int _grow(self) except -1 nogil:
        cdef vector[uint64_t] old_keys
        cdef vector[int32_t] old_vals
        old_keys.swap(self.keys)
        old_vals.swap(self.vals)
        cdef uint64_t cap = old_keys.size() * 2
        self.keys.clear()
        self.keys.resize(cap, _EMPTY_KEY)
        self.vals.clear()
        self.vals.resize(cap, -1)
        self.mask = cap - 1
        self.shift -= 1
        cdef uint64_t j, i
        for j in range(old_keys.size()):
            if old_keys[j] != _EMPTY_KEY:
                i = self._slot(old_keys[j])
                while self.keys[i] != _EMPTY_KEY:
                    i = (i + 1) & self.mask
                self.keys[i] = old_keys[j]
                self.vals[i] = old_vals[j]
        return 0

    cdef void release(self) noexcept nogil:
        """Free the table (the trainer needs the trie only while building)."""
        cdef vector[uint64_t] empty_keys
        cdef vector[int32_t] empty_vals
        self.keys.swap(empty_keys)
        self.vals.swap(empty_vals)
        self.used = 0
