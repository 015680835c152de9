# cython: language_level=3
"""Declarations of the encoders (see _encoder.pyx): the ranked vocabulary's trie, per-thread
scratch buffers with their word caches, and the UTF-8 helper the byte-level paths share."""

from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libcpp.vector cimport vector
cimport cython

from hf_greedtok._hashtrie cimport HashTrie


cdef inline int64_t _utf8_bytes(uint32_t cp, uint8_t* out) noexcept nogil:
    """Write the UTF-8 bytes of cp (lone surrogates and non-characters above U+10FFFF become
    U+FFFD); return their count. A text's non-ASCII blocks go through here a code point at a
    time: three-byte code points are taken before the check for surrogates."""
    if cp < 0x80:
        out[0] = <uint8_t>cp
        return 1
    if cp < 0x800:
        out[0] = <uint8_t>(0xC0 | (cp >> 6))
        out[1] = <uint8_t>(0x80 | (cp & 0x3F))
        return 2
    if not (cp < 0xD800 or 0xDFFF < cp < 0x10000):     # CJK and most scripts go straight on
        if cp <= 0xDFFF or cp > 0x10FFFF:
            cp = 0xFFFD
    if cp < 0x10000:
        out[0] = <uint8_t>(0xE0 | (cp >> 12))
        out[1] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
        out[2] = <uint8_t>(0x80 | (cp & 0x3F))
        return 3
    out[0] = <uint8_t>(0xF0 | (cp >> 18))
    out[1] = <uint8_t>(0x80 | ((cp >> 12) & 0x3F))
    out[2] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
    out[3] = <uint8_t>(0x80 | (cp & 0x3F))
    return 4


cdef inline int64_t _utf8(uint32_t cp, uint32_t* out) noexcept nogil:
    """:func:`_utf8_bytes` as units, one a byte."""
    cdef uint8_t b[4]
    cdef int64_t n = _utf8_bytes(cp, b), i
    for i in range(n):
        out[i] = b[i]
    return n


cdef struct CacheSlot:
    uint64_t word       # a hash of the key (keys over HFG_WORD_MAX bytes: the short ones are in words)
    int32_t val         # the offset in vals of the ids, followed by the key's bytes
    uint16_t key_len    # 0: empty slot (cached keys have HFG_WORD_MAX + 1..CACHE_MAX_UNITS units)
    uint16_t val_len    # 16 bytes in all: four slots to a cache line


cdef extern from "_word_cache.h" nogil:
    enum:
        HFG_WORD_MAX
    ctypedef struct hfg_word_slot:
        uint64_t k0
        uint64_t k1
        int32_t v[3]
        uint32_t val_len
    ctypedef struct hfg_word_table:
        hfg_word_slot* slots
        uint64_t count
        int64_t used
    int hfg_word_table_init(hfg_word_table* t, uint64_t count)
    void hfg_word_table_free(hfg_word_table* t)
    void hfg_word_key(const uint8_t* b, int64_t n, int64_t readable, uint64_t* k0, uint64_t* k1)
    const hfg_word_slot* hfg_word_find(const hfg_word_table* t, uint64_t k0, uint64_t k1)
    int hfg_word_insert(hfg_word_table* t, uint64_t k0, uint64_t k1, const int32_t* ids, int64_t k, int32_t at)
    uint64_t hfg_long_key(const uint8_t* b, int64_t n)
    uint64_t hfg_long_start(uint64_t word, int64_t n)
    void hfg_word_keys(const hfg_word_table* t, const uint8_t* text, int64_t n, int64_t start,
                       const int64_t* ends, int64_t count, uint64_t* k0, uint64_t* k1, uint64_t* at,
                       const uint8_t* long_slots, uint64_t long_mask, size_t long_slot_bytes, int64_t long_max)
    int64_t hfg_word_hits(const hfg_word_table* t, const uint64_t* k0, const uint64_t* k1, const uint64_t* at,
                          int64_t start, int64_t count, int32_t* out, int64_t* written)


cdef extern from *:
    """
    #define HF_GREEDTOK_EMPTY_BYTE_STEP 0xFFFFFFFFU
    """
    # no (node << 8) | byte packs to it: nodes stay below 2**24 - 1
    const uint32_t _EMPTY_BYTE_STEP "HF_GREEDTOK_EMPTY_BYTE_STEP"


cdef struct ByteStep:
    uint32_t key        # (parent node << 8) | byte, or _EMPTY_BYTE_STEP; the child is this slot's index + 1
    int32_t prio        # the rank of the token the child spells, or -1


cdef struct PairStep:
    int32_t node        # the node two bytes below the root along a pair of bytes, or -1
    int32_t prio        # the rank of the token it spells, or -1


@cython.final
cdef class _Worker:
    cdef hfg_word_table words[2]        # keys of 1..HFG_WORD_MAX bytes (_word_cache.h)
    cdef CacheSlot* slots[2]            # longer keys: masks[m] + 1 slots each (_huge_table.h memory)
    cdef uint64_t masks[2]
    cdef int64_t used[2]
    cdef vector[int32_t] vals[2]
    cdef vector[uint64_t] matches
    cdef vector[uint8_t] cov
    cdef vector[int64_t] ring           # optimal: dp values of the next max_len + 1 ends
    cdef vector[int32_t] back_start     # optimal: back pointers and ranks; cover: the ranks applied
    cdef vector[int32_t] bucket_head    # long-word cover: positions waiting on each rank,
    cdef vector[int32_t] bucket_tail    # as linked lists through bucket_next
    cdef vector[int32_t] bucket_next
    cdef vector[uint8_t] bucket_unsorted
    cdef vector[uint32_t] units
    cdef vector[uint8_t] word_bytes     # a word's cache key: its UTF-8 bytes at byte level
    cdef vector[uint32_t] cps           # batch path: one text's code points
    cdef vector[int64_t] ends           # batch path: its words' ends, from the native splitter
    cdef vector[uint64_t] block_starts  # batch path, GPT-4's split: word starts (a bit a code point), the classes
    cdef vector[int32_t] slice_ids      # batch path: the ids of this worker's slice of texts
    cdef int64_t longest                # batch path: code points of the longest text since the last trim

    cdef int _reset(self, int m) except -1 nogil
    cdef void _trim(self) noexcept nogil
    cdef CacheSlot* lookup(self, int m, uint64_t h, const uint8_t* key, int64_t n) noexcept nogil
    cdef int word_insert(self, int m, uint64_t k0, uint64_t k1, const int32_t* ids, int64_t k) except -1 nogil
    cdef int insert(self, int m, uint64_t h, const uint8_t* key, int64_t n,
                    const int32_t* ids, int64_t k) except -1 nogil


@cython.final
cdef class RankedEncoder:
    cdef HashTrie trie                  # the ranked tokens' trie (character level)
    cdef HashTrie singles
    cdef vector[int32_t] node_prio
    cdef vector[ByteStep] byte_steps    # the same trie at byte level, a node per slot (_build_byte_steps)
    cdef uint64_t byte_mask
    cdef int byte_shift
    cdef int32_t root_node[256]         # the root's child along each byte (-1: none): a walk's
    cdef int32_t root_prio[256]         # first step from L1, no hash; and its token's rank
    cdef vector[PairStep] pair_steps    # byte level: the first two steps of a walk, by (byte << 8) | byte
    cdef vector[int32_t] prio_id
    cdef vector[int32_t] prio_len
    cdef int32_t max_len
    cdef int32_t byte_ids[256]
    cdef readonly bint byte_level
    cdef object _args
    cdef list _free_workers
    cdef list _slot_workers

    cdef int _build_byte_steps(self, const uint32_t[::1] token_units, const int64_t[::1] token_offsets) except -1

    cdef inline int32_t _step(self, int32_t node, uint32_t unit, int32_t* prio) noexcept nogil:
        """The trie's child of ``node`` along ``unit`` (-1 if none; the root is 0), and into
        prio[0] the rank of the token it spells (-1 if none) when there is one."""
        cdef uint32_t key
        cdef uint64_t h
        cdef const ByteStep* slots
        if not self.byte_level:
            node = self.trie.child(node, unit)
            if node >= 0:
                prio[0] = self.node_prio[node]
            return node
        if node == 0:
            node = self.root_node[unit]
            if node >= 0:
                prio[0] = self.root_prio[unit]
            return node
        key = (<uint32_t>node << 8) | unit
        h = (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> self.byte_shift
        slots = self.byte_steps.data()
        while True:
            if slots[h].key == key:
                prio[0] = slots[h].prio
                return <int32_t>h + 1
            if slots[h].key == _EMPTY_BYTE_STEP:
                return -1
            h = (h + 1) & self.byte_mask

    cdef int64_t _single_ids(self, uint32_t unit, int32_t* ids) noexcept nogil
    cdef int _emit_single(self, uint32_t unit, vector[int32_t]& out) except -1 nogil
    cdef int32_t _rank_of(self, const uint32_t* u, int64_t n) noexcept nogil
    cdef int _emit_cover(self, const uint32_t* u, int64_t n, const uint8_t* cov, const int32_t* applied,
                         vector[int32_t]& out) except -1 nogil
    cdef int _cover(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int32_t _next_rank(self, const uint32_t* u, int64_t n, int64_t i, int32_t above,
                            const uint8_t* cov) noexcept nogil
    cdef int _cover_long(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _optimal(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _encode_uncached(self, const uint32_t* u, int64_t n, int mode, _Worker wk,
                              vector[int32_t]& out) except -1 nogil
    cdef int _encode_keyed(self, const uint8_t* key, int64_t nkey, const uint32_t* u, int64_t n, int mode,
                           _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _encode_hashed(self, const uint8_t* key, int64_t nkey, uint64_t h, const uint32_t* u, int64_t n,
                            int mode, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _encode_short(self, const uint8_t* key, int64_t nkey, int64_t readable, const uint32_t* u, int64_t n,
                           int mode, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int64_t _encode_miss(self, const uint8_t* key, const uint32_t* u, int64_t n, int mode, _Worker wk,
                              vector[int32_t]& out) except -1 nogil
    cdef int _encode(self, const uint32_t* u, int64_t n, int mode, _Worker wk,
                     vector[int32_t]& out) except -1 nogil
    cdef int _encode_utf8(self, const uint8_t* b, int64_t n, int mode, _Worker wk,
                          vector[int32_t]& out) except -1 nogil
    cdef int _load_units(self, PyObject* obj, _Worker wk) except -1 nogil
    cdef int64_t _encode_range(self, PyObject** objs, int64_t lo, int64_t hi, int mode,
                               _Worker wk, vector[int32_t]& out, int64_t* counts) except -2 nogil
    cdef int _encode_rare(self, const uint8_t* t, int64_t start, int64_t end, int64_t n, int mode,
                          _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _encode_ascii(self, const uint8_t* t, int64_t n, int pattern, int mode, _Worker wk,
                           vector[int32_t]& out) except -1 nogil
    cdef int _encode_blocks(self, int kind, const void* data, int64_t n, bint ascii, int mode, _Worker wk,
                            vector[int32_t]& out) except -1 nogil
    cdef int64_t _encode_span(self, const uint8_t* t, int64_t start, const int64_t* ends, int64_t count,
                              int64_t n, int mode, _Worker wk, vector[int32_t]& out) except -1 nogil
    cdef int _encode_text(self, PyObject* obj, int64_t lo, int64_t hi, int pattern, int mode, _Worker wk,
                          vector[int32_t]& out) except -1 nogil
    cdef _Worker _acquire(self)
    cdef void _release(self, _Worker wk)
    cdef _Worker _acquire_slot(self, int slot)
    cdef void _release_slot(self, int slot, _Worker wk)
