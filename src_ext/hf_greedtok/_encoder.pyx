# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Encoders over one ranked vocabulary.

* ``cover``: Algorithm 4 of Lim, Choo & Lauw (2025), Appendix A.2. All occurrences of ranked
  tokens in the word are taken in (rank, position) order and each is applied when CANCOVER
  holds, over one covered-flag per gap, exactly as the trainer applies them. Two adjacent
  instances of one token therefore stay two tokens (the reference encoder merges them). Words
  sort their occurrences; words of 4,096+ units, which can hold n x max_len of them, keep each
  position in a bucket of its next applicable rank instead (O(n + k) memory, same cover).
* ``optimal``: the minimum-token dynamic program of "When Every Token Counts: Optimal
  Segmentation for Low-Resource Language Models" (LoResLM 2025). Ties: among segmentations
  with the fewest tokens, the last token is the longest possible, then the one before it, and
  so on backwards; this is the rule of HF ``tokenizers``' Unigram Viterbi with equal scores,
  so an exported Unigram ``tokenizer.json`` gives the same ids.

Singletons: every unit has an id (byte level), or unknown code points fall back to the ids of
their UTF-8 bytes (character level); nothing is ever unknown. Words are read straight from
``str``/``bytes`` objects without the GIL, so batches run in parallel on threads. A failed
allocation anywhere in the native loops raises MemoryError in the caller.
"""

cimport cython
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.string cimport memcmp, memcpy, memset
from libcpp.algorithm cimport sort as cpp_sort

from hf_greedtok._scanners cimport HFG_S, hfg_props
from hf_greedtok._pretokenize cimport (
    PATTERN_GPT4, PATTERN_LAST, block_starts_str, hfg_ctz64, split_words, split_words_latin1, use_blocks,
    word_end)

cdef extern from "_huge_table.h" nogil:
    void* hfg_table_alloc(size_t nbytes)
    void hfg_table_free(void* p)

cdef extern from "_parallel.h" nogil:
    ctypedef int (*hfg_task_fn)(void* ctx, int t) except -1
    int hfg_run_tasks(int n, hfg_task_fn fn, void* ctx) except -1
    int64_t hfg_take_next(int64_t* counter)

import numpy as np

cdef extern from "Python.h":
    int PyUnicode_Check(PyObject*) nogil
    int PyBytes_Check(PyObject*) nogil
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject*) nogil
    int PyUnicode_KIND(PyObject*) nogil
    void* PyUnicode_DATA(PyObject*) nogil
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    char* PyBytes_AS_STRING(PyObject*) nogil
    PyObject** PySequence_Fast_ITEMS(object)
    Py_ssize_t PyBytes_GET_SIZE(PyObject*) nogil
    int PyUnicode_IS_ASCII(PyObject*) nogil

MODE_COVER = 0
MODE_OPTIMAL = 1
_MODES = {"cover": 0, "optimal": 1}
# Words longer than this are not cached: they are rarely repeated, and key_len is 16 bits (4 bytes a
# unit at character level). Not 128 as before: runs of spaces or dashes in documents and long
# unpunctuated Chinese clauses do repeat, and their cover sorts every occurrence of every token in
# them, call after call.
cdef int64_t CACHE_MAX_UNITS = 1024
cdef int64_t CACHE_MAX_ENTRIES = 1 << 18
cdef size_t CACHE_MAX_VALS = 1 << 24    # int32s in the arena (64 MB): a cache is cleared past either bound
# what benchmarks/bench_superwords_encode.py models the cache by
CACHE_LIMITS = {"max_units": CACHE_MAX_UNITS, "max_entries": CACHE_MAX_ENTRIES, "max_arena_int32s": CACHE_MAX_VALS}
cdef int32_t INF = 0x3FFFFFFF
cdef int64_t INF_TOKENS = 1LL << 62
# Words of at least this many units take the O(n)-memory cover (tests lower it to 2 to run
# every word through both covers); shorter ones sort their at most n x max_len occurrences.
cdef int64_t _cover_long_min_units = 4096


def _set_cover_long_min_units(int64_t n):
    """Test hook: words of at least ``n`` units take the long-word cover; returns the old bound."""
    global _cover_long_min_units
    old = _cover_long_min_units
    _cover_long_min_units = max(2, n)
    return old


cdef inline uint64_t _probe_start(const CacheSlot* slot) noexcept nogil:
    """Where the probe for a filled slot's key starts (before masking)."""
    return hfg_long_start(slot.word, slot.key_len)


cdef int _grow_table(CacheSlot** table, uint64_t* mask) except -1 nogil:
    """Double the open-addressing table table[0] of mask[0] + 1 slots: each filled slot moves to
    its probe start in the new table or the first empty slot after it.

    Raises:
        MemoryError: the doubled table could not be allocated (the old one is kept).
    """
    cdef size_t count = mask[0] + 1, j
    cdef uint64_t grown_mask = 2 * count - 1, i
    cdef CacheSlot* grown = <CacheSlot*>hfg_table_alloc(2 * count * sizeof(CacheSlot))
    cdef const CacheSlot* old = table[0]
    if grown == NULL:
        with gil:
            raise MemoryError(f"a word cache of {2 * count} slots could not be allocated")
    for j in range(count):
        if old[j].key_len:
            i = _probe_start(&old[j]) & grown_mask
            while grown[i].key_len:
                i = (i + 1) & grown_mask
            grown[i] = old[j]
    hfg_table_free(table[0])
    table[0] = grown
    mask[0] = grown_mask
    return 0


cdef int64_t CACHE_MIN_SLOTS = 1 << 12
cdef int64_t CACHE_MIN_WORDS = 1 << 12
cdef int MAX_SLOTS = 8                  # threads with a word cache of their own (encode_texts)
cdef int64_t MIN_CHARS_PER_THREAD = 1 << 15   # a slice below this many characters costs more to start than it saves
THREAD_SLOTS = MAX_SLOTS
cdef size_t SCRATCH_KEEP_UNITS = 1 << 20   # a pooled worker keeps scratch up to this many entries
# ... and a slice's ids up to this many (16 MB): a batch path call then writes into pages it
# touched last time instead of growing a fresh vector (page faults, copies) on every call
cdef size_t SLICE_IDS_KEEP = 1 << 22
cdef enum:
    SPAN_WORDS = 32     # words whose cache lines are prefetched before any is looked up


cdef class _Worker:
    """Per-thread scratch buffers plus one word cache per mode (never shared by two threads).

    The cache is keyed by the word's bytes (UTF-8 at byte level; the uint32 units' bytes
    otherwise). Keys of 1..HFG_WORD_MAX bytes, nearly every word, live in ``words``
    (_word_cache.h: 32-byte slots holding the key and up to 3 ids, probed a cache line at a
    time). Longer keys sit in an open-addressing table of 16-byte slots keyed by a hash, their
    ids and bytes in an arena (vals), which also holds the ids of short keys with more than 3.
    The tables start small, double (``words`` at 3/4 load, the other at half), and are cleared
    when they hold CACHE_MAX_ENTRIES words together or the arena CACHE_MAX_VALS int32s.
    """
    def __cinit__(self):
        cdef int m
        for m in range(2):
            self._reset(m)

    def __dealloc__(self):
        cdef int m
        for m in range(2):
            hfg_table_free(self.slots[m])
            hfg_word_table_free(&self.words[m])

    cdef int _reset(self, int m) except -1 nogil:
        cdef CacheSlot* fresh = <CacheSlot*>hfg_table_alloc(CACHE_MIN_SLOTS * sizeof(CacheSlot))
        if fresh == NULL or hfg_word_table_init(&self.words[m], CACHE_MIN_WORDS) != 0:
            hfg_table_free(fresh)
            with gil:
                raise MemoryError("a word cache could not be allocated")
        hfg_table_free(self.slots[m])
        self.slots[m] = fresh
        self.masks[m] = CACHE_MIN_SLOTS - 1
        self.vals[m].clear()
        self.used[m] = 0
        return 0

    cdef void _trim(self) noexcept nogil:
        """Free scratch buffers a long word grew, so a pooled worker does not keep hundreds of
        MB after one long line (swapping with an empty vector frees without allocating).

        A text's own scratch (its code points, word ends, block classes and UTF-8 bytes, at most
        4 entries a code point) is kept up to what the longest text since the last trim needed:
        a worker that encodes one long text after another reuses the same pages, instead of
        allocating, zero-filling and faulting them in on every call (en_python_docs as one str
        of 11M code points: 122 -> 190 MB/s). The next call of shorter texts frees them."""
        cdef size_t keep = max(SCRATCH_KEEP_UNITS, <size_t>(4 * self.longest))
        self.longest = 0
        if self.units.capacity() > SCRATCH_KEEP_UNITS:
            vector[uint32_t]().swap(self.units)
        if self.cov.capacity() > SCRATCH_KEEP_UNITS:
            vector[uint8_t]().swap(self.cov)
        if self.back_start.capacity() > SCRATCH_KEEP_UNITS:
            vector[int32_t]().swap(self.back_start)
        if self.bucket_next.capacity() > SCRATCH_KEEP_UNITS:
            vector[int32_t]().swap(self.bucket_next)
        if self.matches.capacity() > SCRATCH_KEEP_UNITS:
            vector[uint64_t]().swap(self.matches)
        if self.cps.capacity() > keep:
            vector[uint32_t]().swap(self.cps)
        if self.ends.capacity() > keep:
            vector[int64_t]().swap(self.ends)
        if self.block_starts.capacity() > keep:
            vector[uint64_t]().swap(self.block_starts)
        if self.word_bytes.capacity() > keep:
            vector[uint8_t]().swap(self.word_bytes)
        if self.slice_ids.capacity() > SLICE_IDS_KEEP:
            vector[int32_t]().swap(self.slice_ids)

    cdef CacheSlot* lookup(self, int m, uint64_t h, const uint8_t* key, int64_t n) noexcept nogil:
        """The cache slot of the key key[0:n] (bytes), whose :func:`hfg_long_key` is h; or NULL."""
        cdef uint64_t mask = self.masks[m]
        cdef uint64_t i = hfg_long_start(h, n) & mask
        cdef CacheSlot* slot
        cdef CacheSlot* slots = self.slots[m]
        while True:
            slot = &slots[i]
            if slot.key_len == 0:
                return NULL
            if slot.word == h and slot.key_len == n and \
                    memcmp(self.vals[m].data() + slot.val + slot.val_len, key, n) == 0:
                return slot
            i = (i + 1) & mask

    cdef int word_insert(self, int m, uint64_t k0, uint64_t k1, const int32_t* ids, int64_t k) except -1 nogil:
        """Cache ids[0:k] for the short key (k0, k1) of :func:`hfg_word_key` (absent from words[m]);
        more than 3 ids go to the arena."""
        cdef int32_t at = 0
        if self.used[m] + self.words[m].used >= CACHE_MAX_ENTRIES or self.vals[m].size() >= CACHE_MAX_VALS:
            self._reset(m)
        if k > 3:
            at = <int32_t>self.vals[m].size()
            self.vals[m].insert(self.vals[m].end(), ids, ids + k)
        if hfg_word_insert(&self.words[m], k0, k1, ids, k, at) != 0:
            with gil:
                raise MemoryError(f"a word cache of {2 * self.words[m].count} slots could not be allocated")
        return 0

    cdef int insert(self, int m, uint64_t h, const uint8_t* key, int64_t n,
                    const int32_t* ids, int64_t k) except -1 nogil:
        """Cache ids[0:k] for the key key[0:n] (HFG_WORD_MAX + 1..CACHE_MAX_UNITS bytes: shorter
        ones go to :meth:`word_insert`), whose :func:`hfg_long_key` is h."""
        if self.used[m] + self.words[m].used >= CACHE_MAX_ENTRIES or self.vals[m].size() >= CACHE_MAX_VALS:
            self._reset(m)
        if 2 * (self.used[m] + 1) > <int64_t>self.masks[m] + 1:
            _grow_table(&self.slots[m], &self.masks[m])
        cdef uint64_t mask = self.masks[m]
        cdef uint64_t i = hfg_long_start(h, n) & mask
        cdef size_t at
        while self.slots[m][i].key_len:
            i = (i + 1) & mask
        cdef CacheSlot* slot = &self.slots[m][i]
        slot.word = h
        slot.key_len = <uint16_t>n
        slot.val_len = <uint16_t>k
        at = self.vals[m].size()
        slot.val = <int32_t>at
        # the ids, then the key's bytes in whole int32s (zero-padded)
        self.vals[m].resize(at + k + (n + 3) // 4, 0)
        memcpy(self.vals[m].data() + at, ids, k * sizeof(int32_t))
        memcpy(self.vals[m].data() + at + k, key, n)
        self.used[m] += 1
        return 0


cdef inline void _append(int32_t* head, int32_t* tail, int32_t* nxt, uint8_t* unsorted,
                         int32_t r, int32_t i) noexcept nogil:
    """Append position i to bucket r's list (nothing if r < 0); flag the bucket when i comes
    before its last position."""
    if r < 0:
        return
    nxt[i] = -1
    if tail[r] < 0:
        head[r] = i
    else:
        if tail[r] > i:
            unsorted[r] = 1
        nxt[tail[r]] = i
    tail[r] = i


cdef int32_t _sort_list(int32_t first, int32_t* nxt) noexcept nogil:
    """Sort a non-empty -1-terminated list of positions in place (natural merge sort: each
    pass merges adjacent increasing runs pairwise; O(1) extra memory). Returns the new head."""
    cdef int32_t p, q, a, b, h, out_tail
    cdef int64_t merged
    while True:
        merged = 0
        out_tail = -1
        p = first
        while p >= 0:
            a = p
            q = p
            while nxt[q] > q:               # -1 ends the list and a run alike
                q = nxt[q]
            p = nxt[q]
            nxt[q] = -1
            b = -1
            if p >= 0:
                b = p
                q = p
                while nxt[q] > q:
                    q = nxt[q]
                p = nxt[q]
                nxt[q] = -1
            while a >= 0 or b >= 0:
                if b < 0 or (a >= 0 and a < b):
                    h = a
                    a = nxt[a]
                else:
                    h = b
                    b = nxt[b]
                if out_tail < 0:
                    first = h
                else:
                    nxt[out_tail] = h
                out_tail = h
            merged += 1
        nxt[out_tail] = -1
        if merged == 1:
            return first


ctypedef fused str_unit_t:       # a str's data: 1, 2 or 4 bytes a code point
    uint8_t
    uint16_t
    uint32_t


cdef inline int64_t _utf8_block(const str_unit_t* t, int64_t m, uint8_t* out, uint16_t* at) noexcept nogil:
    """Write the UTF-8 bytes of the m (1..64) code points t[0:m] (lone surrogates as U+FFFD) to
    out (room for 4m bytes); returns the number of bytes. at[k] gets the offset in out of code
    point k (0 <= k < m), unless the block is ASCII: then at[0] is 0xFFFF (its offsets are k)."""
    cdef int64_t k, nb = 0
    cdef uint32_t seen = 0
    for k in range(m):
        seen |= t[k]
    if seen < 0x80:
        for k in range(m):
            out[k] = <uint8_t>t[k]
        at[0] = 0xFFFF
        return m
    for k in range(m):
        at[k] = <uint16_t>nb
        nb += _utf8_bytes(t[k], out + nb)
    return nb


cdef int64_t _utf8_text(const str_unit_t* t, int64_t n, int64_t* ends, int64_t nends, uint8_t* out) noexcept nogil:
    """Write the UTF-8 bytes of the code points t[0:n] (lone surrogates as U+FFFD) to out (room
    for 4n bytes) and turn ``ends``, the nends words' ends in code points (increasing, the last
    n), into their ends in bytes; returns the number of bytes. One pass, a block of 64 code
    points at a time (:func:`_utf8_block`): an end in a block moves to its code point's offset
    there."""
    cdef int64_t i = 0, k, m, w, nb = 0, e = 0
    cdef uint16_t at[64]
    while i < n:
        m = min(<int64_t>64, n - i)
        w = _utf8_block(t + i, m, out + nb, at)
        while e < nends and ends[e] <= i + m:
            k = ends[e] - i                 # 1..m code points of the block before the end
            ends[e] = nb + (k if at[0] == 0xFFFF else (at[k] if k < m else w))
            e += 1
        nb += w
        i += m
    return nb


cdef inline int64_t _gather_ends(uint64_t bits, int64_t base, const uint16_t* at, int64_t* ends) noexcept nogil:
    """The word starts of one block (bit k: code point k; a word starts at 0 has its bit
    cleared) as the ends of the words before them, in bytes from the text's start: base + k,
    or base + at[k] (the block's byte offsets, :func:`_utf8_block`) unless at is NULL; written
    to ends; returns how many."""
    cdef int64_t count = 0
    if at == NULL:
        while bits:
            ends[count] = base + hfg_ctz64(bits)
            count += 1
            bits &= bits - 1
    else:
        while bits:
            ends[count] = base + at[hfg_ctz64(bits)]
            count += 1
            bits &= bits - 1
    return count


cdef inline int _append_ids(vector[int32_t]& out, const int32_t* ids, int64_t k) except -1 nogil:
    """out += ids[0:k], the vector growing to the next power of two as push_back's doubling
    would: its capacities, and so the blocks the allocator hands out and takes back, stay
    those of the ids alone (a range insert grows to twice the size, and a long text after
    another then kept 17 MB more of the process each time)."""
    cdef size_t need = out.size() + <size_t>k, room
    if need > out.capacity():
        room = 1
        while room < need:
            room <<= 1
        out.reserve(room)
    out.insert(out.end(), ids, ids + k)
    return 0


cdef class RankedEncoder:
    """Cover-priority and minimum-token encoding over one ranked vocabulary.

    Args:
        token_units: uint32[M], the ranked multi-singleton tokens concatenated, rank order.
        token_offsets: int64[k + 1]; token r is ``token_units[token_offsets[r]:token_offsets[r+1]]``.
        token_ids: int32[k], the id emitted for token r.
        singleton_units: uint32[s], the units that are tokens by themselves.
        singleton_ids: int32[s], their ids.
        byte_ids: int32[256], ids of the 256 byte tokens used for byte fallback (character
            level) or as the singletons themselves (byte level).
        byte_level: true if units are byte values, false if they are code points.

    Raises:
        ValueError: shapes disagree, a token has fewer than 2 singletons, or a token repeats.
    """

    def __init__(self, const uint32_t[::1] token_units, const int64_t[::1] token_offsets,
                 const int32_t[::1] token_ids, const uint32_t[::1] singleton_units,
                 const int32_t[::1] singleton_ids, const int32_t[::1] byte_ids, bint byte_level):
        cdef int64_t k = token_ids.shape[0], r, j, n
        cdef int32_t node
        if token_offsets.shape[0] != k + 1 or token_offsets[k] != token_units.shape[0]:
            raise ValueError("token_offsets must have len(token_ids) + 1 entries ending at len(token_units)")
        if singleton_units.shape[0] != singleton_ids.shape[0]:
            raise ValueError("singleton_units and singleton_ids differ in length")
        if byte_ids.shape[0] != 256:
            raise ValueError("byte_ids must have 256 entries")
        self._args = (np.asarray(token_units).copy(), np.asarray(token_offsets).copy(),
                      np.asarray(token_ids).copy(), np.asarray(singleton_units).copy(),
                      np.asarray(singleton_ids).copy(), np.asarray(byte_ids).copy(), byte_level)
        self.byte_level = byte_level
        self.trie = HashTrie(max(16, token_units.shape[0]))
        self.node_prio.push_back(-1)
        self.max_len = 1
        for r in range(k):
            n = token_offsets[r + 1] - token_offsets[r]
            if n < 2:
                raise ValueError(f"ranked token {r} has {n} singletons; tokens need at least 2")
            node = 0
            for j in range(token_offsets[r], token_offsets[r + 1]):
                node = self.trie.child_or_add(node, token_units[j])
                while <int32_t>self.node_prio.size() <= node:
                    self.node_prio.push_back(-1)
            if self.node_prio[node] >= 0:
                raise ValueError(f"ranked token {r} repeats token {self.node_prio[node]}")
            self.node_prio[node] = <int32_t>r
            self.prio_id.push_back(token_ids[r])
            self.prio_len.push_back(<int32_t>n)
            self.max_len = max(self.max_len, <int32_t>n)
        for r in range(256):
            self.byte_ids[r] = byte_ids[r]
        if byte_level:
            self._build_byte_steps(token_units, token_offsets)
        self.singles = HashTrie(max(16, singleton_units.shape[0]))
        for r in range(singleton_units.shape[0]):
            self.singles.put(0, singleton_units[r], singleton_ids[r])
        self._free_workers = []
        self._slot_workers = [None] * MAX_SLOTS

    cdef int _build_byte_steps(self, const uint32_t[::1] token_units, const int64_t[::1] token_offsets) except -1:
        """Lay the byte-level trie out for the encoders' walks, which take a dependent step per
        byte from every position of a word the cache does not hold (superword chunks: most of
        them): an open-addressing table of 8-byte slots at most 0.6 full, a node being the slot
        of its (parent, byte) key plus one, with its token's rank beside the key. A step reads
        one slot; the hash trie reads three places (key, child, the child's rank) in tables
        sized for the units, 6.4 MB for a 32,768 superword vocabulary against 2 MB here (80,000
        nodes), about a core's L2 cache. Then the first two steps of every walk go into a table by
        pair of bytes (65,536 PairSteps, 512 KB), and the hash trie is freed."""
        cdef int64_t nodes = self.trie.n_nodes, cap = 16, r, j
        cdef int bits = 4
        while 5 * nodes > 3 * cap:
            cap <<= 1
            bits += 1
        if cap >= (1 << 24) - 1:
            raise ValueError(f"a trie of {nodes:,} nodes is past the byte-level encoders' limit of 2**24 - 2 slots")
        cdef ByteStep empty
        empty.key = _EMPTY_BYTE_STEP
        empty.prio = -1
        self.byte_steps.clear()
        self.byte_steps.resize(cap, empty)
        self.byte_mask = <uint64_t>(cap - 1)
        self.byte_shift = 64 - bits
        cdef uint32_t key
        cdef uint64_t h
        cdef int32_t node
        for r in range(token_offsets.shape[0] - 1):
            node = 0
            for j in range(token_offsets[r], token_offsets[r + 1]):
                if token_units[j] > 0xFF:
                    raise ValueError(f"ranked token {r} has unit {token_units[j]}; byte-level units are bytes")
                key = (<uint32_t>node << 8) | token_units[j]
                h = (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> self.byte_shift
                while self.byte_steps[h].key != key and self.byte_steps[h].key != _EMPTY_BYTE_STEP:
                    h = (h + 1) & self.byte_mask
                self.byte_steps[h].key = key
                node = <int32_t>h + 1
            self.byte_steps[node - 1].prio = <int32_t>r
        for j in range(256):
            key = <uint32_t>j
            h = (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> self.byte_shift
            while self.byte_steps[h].key != key and self.byte_steps[h].key != _EMPTY_BYTE_STEP:
                h = (h + 1) & self.byte_mask
            self.root_node[j] = <int32_t>h + 1 if self.byte_steps[h].key == key else -1
            self.root_prio[j] = self.byte_steps[h].prio if self.byte_steps[h].key == key else -1
        # The walks of the DP and the cover start at every byte of a new word, and most end two or
        # three bytes down: a table of the second step (512 KB, its rows of common bytes hot in
        # L2) spares each walk a hashed probe of the trie and the probe loop's mispredictions.
        cdef PairStep none
        none.node = -1
        none.prio = -1
        self.pair_steps.assign(1 << 16, none)
        cdef int32_t p, a
        for a in range(256):
            if self.root_node[a] < 0:
                continue
            for j in range(256):
                p = -1
                node = self._step(self.root_node[a], <uint32_t>j, &p)
                if node >= 0:
                    self.pair_steps[(a << 8) | j].node = node
                    self.pair_steps[(a << 8) | j].prio = p
        self.trie.release()
        self.node_prio.clear()
        self.node_prio.shrink_to_fit()
        return 0

    def __reduce__(self):
        return (RankedEncoder, self._args)

    def cached_words(self, str mode="cover", int slot=0):
        """How many words the word cache of batch slot ``slot`` (0: single-threaded
        :meth:`encode_texts` calls) holds for ``mode``; 0 while the slot is in use.

        Raises:
            ValueError: unknown mode or slot.
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        if not 0 <= slot < MAX_SLOTS:
            raise ValueError(f"slot must be in 0..{MAX_SLOTS - 1}, got {slot}")
        cdef _Worker wk = self._slot_workers[slot]
        return 0 if wk is None else wk.used[<int>_MODES[mode]] + wk.words[<int>_MODES[mode]].used

    @property
    def n_tokens(self):
        """Number of ranked (multi-singleton) tokens."""
        return <int64_t>self.prio_id.size()

    # ------------------------------------------------------------------ per word

    cdef int64_t _single_ids(self, uint32_t unit, int32_t* ids) noexcept nogil:
        """Write the ids of one unit on its own into ids[0:4]; return how many (1, or its UTF-8
        byte count when a character outside the alphabet falls back to bytes)."""
        cdef uint32_t buf[4]
        cdef int64_t nb, b
        if self.byte_level:
            ids[0] = self.byte_ids[unit & 0xFF]
            return 1
        ids[0] = self.singles.child(0, unit)
        if ids[0] >= 0:
            return 1
        nb = _utf8(unit, buf)
        for b in range(nb):
            ids[b] = self.byte_ids[buf[b]]
        return nb

    cdef int _emit_single(self, uint32_t unit, vector[int32_t]& out) except -1 nogil:
        cdef int32_t ids[4]
        cdef int64_t nb = self._single_ids(unit, ids)
        out.insert(out.end(), ids, ids + nb)
        return 0

    cdef int32_t _rank_of(self, const uint32_t* u, int64_t n) noexcept nogil:
        """Rank of the ranked token spelled u[0:n], or -1."""
        cdef int32_t node = 0, p = -1
        cdef int64_t j
        for j in range(n):
            node = self._step(node, u[j], &p)
            if node < 0:
                return -1
        return p

    cdef int _emit_cover(self, const uint32_t* u, int64_t n, const uint8_t* cov, const int32_t* applied,
                         vector[int32_t]& out) except -1 nogil:
        """Emit a cover: each maximal run of covered gaps is one applied token (the applied
        tokens are laminar, and two adjacent ones leave the gap between them uncovered), the
        one applied last at the run's start (a token applied later at a start must be longer:
        a shorter one's end gap is covered), whose rank ``applied`` holds at that start."""
        cdef int64_t i = 0, j
        while i < n:
            j = i
            while j < n - 1 and cov[j]:
                j += 1
            if j > i:
                out.push_back(self.prio_id[applied[i]])
            else:
                self._emit_single(u[i], out)
            i = j + 1
        return 0

    cdef int _cover(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """Algorithm 4: apply occurrences in (rank, position) order where CANCOVER holds.

        Short words sort their occurrences, at most n x max_len of them; long words take
        :meth:`_cover_long`, which gives the same cover in O(n) memory.
        """
        if n >= _cover_long_min_units:
            return self._cover_long(u, n, wk, out)
        cdef int64_t i, j, e, L
        cdef int32_t node, p
        cdef uint64_t m
        wk.matches.clear()
        cdef const PairStep* pairs = self.pair_steps.data()
        cdef const PairStep* pair
        cdef int64_t j0
        for i in range(n - 1):
            node = 0
            j0 = i
            if self.byte_level:
                # the first two steps from the pair table, as in :meth:`_optimal`
                pair = &pairs[((u[i] & 0xFF) << 8) | (u[i + 1] & 0xFF)]
                node = pair.node
                if node < 0:
                    continue
                if pair.prio >= 0:
                    wk.matches.push_back((<uint64_t>pair.prio << 32) | <uint64_t>i)
                j0 = i + 2
            for j in range(j0, min(n, i + self.max_len)):
                node = self._step(node, u[j], &p)
                if node < 0:
                    break
                if p >= 0:
                    wk.matches.push_back((<uint64_t>p << 32) | <uint64_t>i)
        if wk.matches.size() == 0:
            for i in range(n):
                self._emit_single(u[i], out)
            return 0
        cpp_sort(wk.matches.begin(), wk.matches.end())
        wk.cov.clear()
        wk.cov.resize(n, 0)
        wk.back_start.resize(n)            # the rank applied at each start (:meth:`_emit_cover`)
        cdef uint8_t* cov = wk.cov.data()
        cdef int32_t* applied = wk.back_start.data()
        cdef size_t q
        for q in range(wk.matches.size()):
            m = wk.matches[q]
            p = <int32_t>(m >> 32)
            i = <int64_t>(m & <uint64_t>0xFFFFFFFFU)
            L = self.prio_len[p]
            e = i + L
            if (i == 0 or not cov[i - 1]) and (e == n or not cov[e - 1]):
                memset(cov + i, 1, L - 1)
                applied[i] = p
        return self._emit_cover(u, n, cov, applied, out)

    cdef int32_t _next_rank(self, const uint32_t* u, int64_t n, int64_t i, int32_t above,
                            const uint8_t* cov) noexcept nogil:
        """Smallest rank above `above` of a token at position i that can still be applied:
        its end gap is uncovered now (covers are never undone). -1 if none."""
        cdef int32_t node = 0, p, best = INF
        cdef int64_t j
        for j in range(i, min(n, i + self.max_len)):
            node = self._step(node, u[j], &p)
            if node < 0:
                break
            if above < p < best and (j + 1 == n or not cov[j]):
                best = p
        return -1 if best == INF else best

    cdef int _cover_long(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """Algorithm 4 in O(n + k) memory: every position waits in the bucket of its next
        applicable rank; buckets are taken in rank order and each one's positions in increasing
        order, so occurrences are met in the (rank, position) order of :meth:`_cover`. Skipped
        are only occurrences that order would reject: ones whose end gap is already covered,
        and every later one at a position whose preceding gap is covered."""
        cdef int64_t k = <int64_t>self.prio_id.size(), i, e, L
        cdef int32_t r, r2, pos
        wk.cov.clear()
        wk.cov.resize(n, 0)
        wk.bucket_head.clear()
        wk.bucket_head.resize(k, -1)
        wk.bucket_tail.clear()
        wk.bucket_tail.resize(k, -1)
        wk.bucket_next.resize(n)
        wk.back_start.resize(n)            # the rank applied at each start (:meth:`_emit_cover`)
        wk.bucket_unsorted.clear()
        wk.bucket_unsorted.resize(k, 0)
        cdef uint8_t* cov = wk.cov.data()
        cdef uint8_t* unsorted = wk.bucket_unsorted.data()
        cdef int32_t* head = wk.bucket_head.data()
        cdef int32_t* tail = wk.bucket_tail.data()
        cdef int32_t* nxt = wk.bucket_next.data()
        cdef int32_t* applied = wk.back_start.data()
        for i in range(n - 1):
            _append(head, tail, nxt, unsorted, self._next_rank(u, n, i, -1, cov), <int32_t>i)
        for r in range(k):
            if head[r] < 0:
                continue
            # Appends made while one bucket is processed are in increasing position order,
            # so a bucket is a few increasing runs: merge them in place.
            pos = _sort_list(head[r], nxt) if unsorted[r] else head[r]
            head[r] = -1
            tail[r] = -1
            unsorted[r] = 0
            L = self.prio_len[r]
            while pos >= 0:
                i = pos
                pos = nxt[i]                # before i is appended elsewhere
                if i > 0 and cov[i - 1]:
                    continue                # no token can start inside another
                e = i + L
                if e == n or not cov[e - 1]:
                    memset(cov + i, 1, L - 1)
                    applied[i] = r
                _append(head, tail, nxt, unsorted, self._next_rank(u, n, i, r, cov), <int32_t>i)
        return self._emit_cover(u, n, cov, applied, out)

    cdef int _optimal(self, const uint32_t* u, int64_t n, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """Minimum-token DP; ties keep the smallest start for each end (longest last token).

        dp values live in a ring of max_len + 1 slots (an end is at most max_len units past
        the start that reaches it), so memory is one int32 per unit for the back pointers.
        """
        cdef int64_t i, j, j0, lim, e, cost, d, R = 1
        cdef int32_t node, p
        cdef int32_t ids[4]
        while R <= self.max_len:
            R <<= 1
        cdef int64_t mask = R - 1
        wk.ring.clear()
        wk.ring.resize(R, INF_TOKENS)
        wk.back_start.resize(2 * (n + 1))
        cdef int64_t* dp = wk.ring.data()   # int64: byte fallback can exceed 2**31 ids
        cdef int32_t* back = wk.back_start.data()
        cdef int32_t* back_rank = back + n + 1     # the rank of the token that ends there: no walk back
        dp[0] = 0
        cdef const PairStep* pairs = self.pair_steps.data()
        cdef const PairStep* pair
        for i in range(n):
            d = dp[i & mask]
            dp[i & mask] = INF_TOKENS       # the slot now stands for end i + R
            cost = 1 if self.byte_level else self._single_ids(u[i], ids)
            if d + cost < dp[(i + 1) & mask]:
                dp[(i + 1) & mask] = d + cost
                back[i + 1] = <int32_t>i
            lim = min(n, i + self.max_len)
            node = 0
            j0 = i
            if self.byte_level:
                # the first two steps from the pair table (a token has 2+ units: none ends at 1)
                if i + 1 >= lim:
                    continue
                pair = &pairs[((u[i] & 0xFF) << 8) | (u[i + 1] & 0xFF)]
                node = pair.node
                if node < 0:
                    continue
                p = pair.prio
                if p >= 0 and d + 1 < dp[(i + 2) & mask]:
                    dp[(i + 2) & mask] = d + 1
                    back[i + 2] = <int32_t>i
                    back_rank[i + 2] = p
                j0 = i + 2
            for j in range(j0, lim):
                node = self._step(node, u[j], &p)
                if node < 0:
                    break
                if p >= 0 and d + 1 < dp[(j + 1) & mask]:
                    dp[(j + 1) & mask] = d + 1
                    back[j + 1] = <int32_t>i
                    back_rank[j + 1] = p
        # dp[n] is the number of ids; write them back to front, so the path needs no buffer.
        cdef int64_t put = <int64_t>out.size() + dp[n & mask], s, nb
        out.resize(put)
        cdef int32_t* dst = out.data()
        e = n
        while e > 0:
            s = back[e]
            if e - s > 1:                   # ranked tokens have >= 2 units
                put -= 1
                dst[put] = self.prio_id[back_rank[e]]
            else:
                nb = self._single_ids(u[s], ids)
                put -= nb
                memcpy(dst + put, ids, nb * sizeof(int32_t))
            e = s
        return 0

    cdef int _encode_uncached(self, const uint32_t* u, int64_t n, int mode, _Worker wk,
                              vector[int32_t]& out) except -1 nogil:
        """Cover or optimal ids of the word u[0:n] (n >= 2), appended to out.

        A word that is itself a ranked token is that one token in both modes: its occurrence
        spans the whole word, so CANCOVER (which looks only at the gaps outside it) always
        holds at its rank and then every gap is covered; and one token is the fewest there are.
        """
        cdef int32_t whole
        if mode == 0 and n <= self.max_len:
            # optimal needs no check: its DP finds the whole word, the one segmentation of one
            # token, on its first walk (a check walked the word twice)
            whole = self._rank_of(u, n)
            if whole >= 0:
                out.push_back(self.prio_id[whole])
                return 0
        if n > 0x7FFFFFFF:
            with gil:
                raise ValueError(f"a word of {n} units is longer than the encoders' limit of 2**31 - 1")
        if n > CACHE_MAX_UNITS and out.size() + n > out.capacity():
            # A long word emits at most n ids at byte level (usually far fewer): reserve them
            # once rather than let doubling hold 1.5x the ids at the last reallocation.
            out.reserve(max(out.size() + n, 2 * out.capacity()))
        if mode == 0:
            return self._cover(u, n, wk, out)
        return self._optimal(u, n, wk, out)

    cdef int _encode_keyed(self, const uint8_t* key, int64_t nkey, const uint32_t* u, int64_t n, int mode,
                           _Worker wk, vector[int32_t]& out) except -1 nogil:
        """The ids of a word of 1..CACHE_MAX_UNITS units from the cache, keyed by its bytes
        key[0:nkey], or encoded and cached. At byte level u may be NULL: the units are then the
        key's bytes, widened only on a miss."""
        if nkey <= HFG_WORD_MAX:
            return self._encode_short(key, nkey, nkey, u, n, mode, wk, out)
        return self._encode_hashed(key, nkey, hfg_long_key(key, nkey), u, n, mode, wk, out)

    cdef int _encode_short(self, const uint8_t* key, int64_t nkey, int64_t readable, const uint32_t* u, int64_t n,
                           int mode, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """:meth:`_encode_keyed` of a key of 1..HFG_WORD_MAX bytes (``readable`` >= nkey bytes
        from key may be read), through the short words' table. A one-byte key at byte level
        (u NULL) is its byte's id."""
        cdef uint64_t k0, k1
        cdef int64_t before
        hfg_word_key(key, nkey, readable, &k0, &k1)
        cdef const hfg_word_slot* hit = hfg_word_find(&wk.words[mode], k0, k1)
        cdef const int32_t* ids
        if hit != NULL:
            if hit.val_len <= 3:
                ids = &hit.v[0]
            else:
                ids = wk.vals[mode].data() + hit.v[0]
            out.insert(out.end(), ids, ids + hit.val_len)
            return 0
        if u == NULL and n == 1:
            before = out.size()
            out.push_back(self.byte_ids[key[0]])
        else:
            before = self._encode_miss(key, u, n, mode, wk, out)
        return wk.word_insert(mode, k0, k1, out.data() + before, <int64_t>out.size() - before)

    cdef int64_t _encode_miss(self, const uint8_t* key, const uint32_t* u, int64_t n, int mode, _Worker wk,
                              vector[int32_t]& out) except -1 nogil:
        """A word the cache does not hold, encoded into out from its units u (at byte level,
        when u is NULL, its key's bytes widened); returns where its ids begin in out."""
        cdef int64_t before = out.size(), i
        if u == NULL:
            wk.units.resize(n)
            for i in range(n):
                wk.units[i] = key[i]
            u = wk.units.data()
        self._encode_uncached(u, n, mode, wk, out)
        return before

    cdef int _encode_hashed(self, const uint8_t* key, int64_t nkey, uint64_t h, const uint32_t* u, int64_t n,
                            int mode, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """:meth:`_encode_keyed` given the key's :func:`hfg_long_key` h."""
        cdef CacheSlot* hit = wk.lookup(mode, h, key, nkey)
        cdef const int32_t* ids
        if hit != NULL:
            ids = wk.vals[mode].data() + hit.val
            out.insert(out.end(), ids, ids + hit.val_len)
            return 0
        cdef int64_t before = self._encode_miss(key, u, n, mode, wk, out)
        return wk.insert(mode, h, key, nkey, out.data() + before, <int64_t>out.size() - before)

    cdef int _encode(self, const uint32_t* u, int64_t n, int mode, _Worker wk,
                     vector[int32_t]& out) except -1 nogil:
        """The ids of the word u[0:n] (any length), through the cache when it is short."""
        cdef int64_t i
        if n == 0:
            return 0
        if n == 1:
            return self._emit_single(u[0], out)
        if n > CACHE_MAX_UNITS:
            return self._encode_uncached(u, n, mode, wk, out)
        if not self.byte_level:
            return self._encode_keyed(<const uint8_t*>u, n * <int64_t>sizeof(uint32_t), u, n, mode, wk, out)
        wk.word_bytes.resize(n)
        for i in range(n):
            wk.word_bytes[i] = <uint8_t>u[i]
        return self._encode_keyed(wk.word_bytes.data(), n, u, n, mode, wk, out)

    cdef int _encode_utf8(self, const uint8_t* b, int64_t n, int mode, _Worker wk,
                          vector[int32_t]& out) except -1 nogil:
        """Byte level: the ids of the word whose UTF-8 bytes are b[0:n] (b may be a text's own
        ASCII data: nothing is copied unless the word misses the cache)."""
        cdef int64_t i
        if n == 0:
            return 0
        if n == 1:
            out.push_back(self.byte_ids[b[0]])
            return 0
        if n <= CACHE_MAX_UNITS:
            return self._encode_keyed(b, n, NULL, n, mode, wk, out)
        wk.units.resize(n)
        for i in range(n):
            wk.units[i] = b[i]
        return self._encode_uncached(wk.units.data(), n, mode, wk, out)

    cdef int _load_units(self, PyObject* obj, _Worker wk) except -1 nogil:
        """Read one word into wk.units; returns 0, or 1 if it is neither str nor bytes."""
        cdef Py_ssize_t n, i
        cdef int kind
        cdef void* data
        cdef const unsigned char* b
        cdef uint32_t cp
        wk.units.clear()
        if PyUnicode_Check(obj):
            n = PyUnicode_GET_LENGTH(obj)
            kind = PyUnicode_KIND(obj)
            data = PyUnicode_DATA(obj)
            if self.byte_level:
                wk.units.reserve(4 * n)
                for i in range(n):
                    cp = PyUnicode_READ(kind, data, i)
                    if cp < 0x80:
                        wk.units.push_back(cp)
                    else:
                        wk.units.resize(wk.units.size() + 4)
                        wk.units.resize(wk.units.size() - 4 + _utf8(cp, wk.units.data() + wk.units.size() - 4))
            else:
                wk.units.resize(n)
                for i in range(n):
                    cp = PyUnicode_READ(kind, data, i)
                    wk.units[i] = 0xFFFD if 0xD800 <= cp <= 0xDFFF else cp
            return 0
        if PyBytes_Check(obj) and self.byte_level:
            n = PyBytes_GET_SIZE(obj)
            b = <const unsigned char*>PyBytes_AS_STRING(obj)
            wk.units.resize(n)
            for i in range(n):
                wk.units[i] = b[i]
            return 0
        return 1

    cdef int64_t _encode_range(self, PyObject** objs, int64_t lo, int64_t hi, int mode,
                               _Worker wk, vector[int32_t]& out, int64_t* counts) except -2 nogil:
        """Encode words lo..hi-1; counts[w - lo] = tokens of word w. Returns -1, or the index
        of a word that is neither str nor bytes."""
        cdef int64_t w, before
        for w in range(lo, hi):
            if self._load_units(objs[w], wk) == 1:
                return w
            before = out.size()
            self._encode(wk.units.data(), wk.units.size(), mode, wk, out)
            counts[w - lo] = <int64_t>out.size() - before
        return -1

    cdef int _encode_rare(self, const uint8_t* t, int64_t start, int64_t end, int64_t n, int mode,
                          _Worker wk, vector[int32_t]& out) except -1 nogil:
        """Byte level: the ids of a word t[start:end] (of a text of which t[0:n] may be read) that
        :meth:`_encode_span`'s table pass did not give: through the cache (a miss encodes and
        inserts), or around it past CACHE_MAX_UNITS bytes."""
        cdef int64_t nb = end - start
        if nb <= HFG_WORD_MAX:
            return self._encode_short(t + start, nb, n - start, NULL, nb, mode, wk, out)
        if nb <= CACHE_MAX_UNITS:
            return self._encode_hashed(t + start, nb, hfg_long_key(t + start, nb), NULL, nb, mode, wk, out)
        return self._encode_utf8(t + start, nb, mode, wk, out)

    cdef int _encode_ascii(self, const uint8_t* t, int64_t n, int pattern, int mode, _Worker wk,
                           vector[int32_t]& out) except -1 nogil:
        """Byte level: the ids of an ASCII text t[0:n] (its bytes are its code points): its words'
        ends from the split ``pattern`` (the word scanner, or the blocks of :meth:`_encode_blocks`)
        gathered SPAN_WORDS at a time, no more, and looked up by :meth:`_encode_span`."""
        cdef int64_t start = 0, end = 0, count = 0
        cdef int64_t ends[SPAN_WORDS]
        if use_blocks(pattern, n, True):
            return self._encode_blocks(1, t, n, True, mode, wk, out)
        while end < n:
            end = word_end(pattern, t, end, n)
            ends[count] = end
            count += 1
            if count == SPAN_WORDS or end == n:
                self._encode_span(t, start, ends, count, n, mode, wk, out)
                start = end
                count = 0
        return 0

    cdef int _encode_blocks(self, int kind, const void* data, int64_t n, bint ascii, int mode, _Worker wk,
                            vector[int32_t]& out) except -1 nogil:
        """Byte level, GPT-4's split: the ids of a str of n code points, its own data (``kind``
        bytes a code point; ``ascii``: all below 0x80, its data then its UTF-8). The word starts
        come from its blocks of 64 code points, read in place (_gpt4_blocks.h). An ASCII text's
        starts are its words' ends in bytes; another's blocks are written as UTF-8 one after the
        other, the starts each holds becoming ends in bytes. The words go to
        :meth:`_encode_span` as soon as SPAN_WORDS or more are known: one pass after the split,
        no list of ends kept."""
        cdef int64_t blocks = block_starts_str(kind, data, n, ascii, wk.block_starts)
        cdef int64_t b, m, start = 0, count = 0, nb = 0, w
        cdef int64_t ends[SPAN_WORDS + 65]
        cdef uint16_t at[64]
        cdef const uint64_t* starts = wk.block_starts.data()
        cdef const uint8_t* text = <const uint8_t*>data
        cdef uint8_t* utf8
        if ascii:
            # a code point a byte: the starts are the ends (one loop of its own: the blocks
            # below, with no bytes to write, ran 4% slower on ASCII documents)
            for b in range(blocks):
                count += _gather_ends(starts[b] & ~(<uint64_t>(b == 0)), b << 6, NULL, ends + count)
                if count >= SPAN_WORDS:
                    start = self._encode_span(text, start, ends, count, n, mode, wk, out)
                    count = 0
        else:
            if <int64_t>wk.word_bytes.size() < 4 * n:
                wk.word_bytes.resize(4 * n)
            utf8 = wk.word_bytes.data()
            text = utf8
            for b in range(blocks):
                m = min(<int64_t>64, n - (b << 6))
                if kind == 1:
                    w = _utf8_block(<const uint8_t*>data + (b << 6), m, utf8 + nb, at)
                elif kind == 2:
                    w = _utf8_block(<const uint16_t*>data + (b << 6), m, utf8 + nb, at)
                else:
                    w = _utf8_block(<const uint32_t*>data + (b << 6), m, utf8 + nb, at)
                count += _gather_ends(starts[b] & ~(<uint64_t>(b == 0)), nb,
                                      <const uint16_t*>NULL if at[0] == 0xFFFF else at, ends + count)
                nb += w
                if count >= SPAN_WORDS:
                    start = self._encode_span(text, start, ends, count, nb, mode, wk, out)
                    count = 0
            n = nb
        ends[count] = n
        self._encode_span(text, start, ends, count + 1, n, mode, wk, out)
        return 0

    cdef int64_t _encode_span(self, const uint8_t* t, int64_t start, const int64_t* ends, int64_t count,
                              int64_t n, int mode, _Worker wk, vector[int32_t]& out) except -1 nogil:
        """Byte level: the ids of the consecutive words t[start:ends[0]], t[ends[0]:ends[1]], ...
        (count of them, 1 to SPAN_WORDS + 65) of a text of which t[0:n] may be read; returns the
        end of the last, ends[count - 1] (where the next batch starts).

        Two passes (_word_cache.h): the first packs each word's key and starts loading its cache
        line, the second copies the ids of the words the table holds inline, so the loads of a
        batch overlap instead of each stalling the loop in turn; a word it does not hold (new,
        long, or of 4+ ids) goes through :meth:`_encode_rare`, and the second pass resumes after
        it."""
        cdef uint64_t k0[SPAN_WORDS + 65]
        cdef uint64_t k1[SPAN_WORDS + 65]
        cdef uint64_t at[SPAN_WORDS + 65]
        cdef int32_t got[3 * (SPAN_WORDS + 65)]      # three id slots a word: hfg_word_hits copies them whole
        cdef int64_t k = 0, j, written, s, nb
        cdef hfg_word_slot* keyed = wk.words[mode].slots     # the table the first slots are of
        hfg_word_keys(&wk.words[mode], t, n, start, ends, count, k0, k1, at,
                      <const uint8_t*>wk.slots[mode], wk.masks[mode], sizeof(CacheSlot), CACHE_MAX_UNITS)
        while k < count:
            j = hfg_word_hits(&wk.words[mode], k0, k1, at, k, count, got, &written)
            _append_ids(out, got, written)
            if j == count:
                break
            s = ends[j - 1] if j > 0 else start
            nb = ends[j] - s
            if HFG_WORD_MAX < nb <= CACHE_MAX_UNITS:
                self._encode_hashed(t + s, nb, k0[j], NULL, nb, mode, wk, out)
            else:
                self._encode_rare(t, s, ends[j], n, mode, wk, out)
            k = j + 1
            if wk.words[mode].slots != keyed and k < count:
                # the miss grew or cleared the table: the words left start their probes anew
                keyed = wk.words[mode].slots
                hfg_word_keys(&wk.words[mode], t, n, ends[j], ends + k, count - k, k0 + k, k1 + k, at + k,
                              <const uint8_t*>wk.slots[mode], wk.masks[mode], sizeof(CacheSlot), CACHE_MAX_UNITS)
        return ends[count - 1]

    cdef int _encode_text(self, PyObject* obj, int64_t lo, int64_t hi, int pattern, int mode, _Worker wk,
                          vector[int32_t]& out) except -1 nogil:
        """Split characters lo .. hi - 1 of one str with the native pre-tokenizer and encode their
        words into out (a whole text, or a span of one cut at a safe point: :func:`_safe_cut`).

        A word's units are its UTF-8 bytes (byte level) or code points, lone surrogates as
        U+FFFD, as :meth:`_load_units` reads a word. At byte level the words are looked up in
        the text's UTF-8 bytes: an ASCII str's own data, as the split ends each word
        (:meth:`_encode_ascii`); another str's under GPT-4's split, written a block at a time as
        the blocks' word starts are read (:meth:`_encode_blocks`); under the other splits, the
        bytes written once for the whole text after its split (:func:`_utf8_text`, which also
        turns the words' ends into byte offsets).
        """
        cdef Py_ssize_t n = hi - lo, i
        cdef int kind = PyUnicode_KIND(obj)
        cdef void* data = <char*>PyUnicode_DATA(obj) + lo * kind
        cdef uint32_t cp
        cdef bint ascii = PyUnicode_IS_ASCII(obj)     # a flag the str keeps: no scan
        cdef int64_t start = 0, end, nbytes
        cdef const uint8_t* text
        cdef size_t w, count
        if n == 0:
            return 0
        if n > wk.longest:
            wk.longest = n
        if ascii and self.byte_level:
            # its own data are its UTF-8 bytes: each word is looked up as soon as it is scanned
            return self._encode_ascii(<const uint8_t*>data, n, pattern, mode, wk, out)
        if self.byte_level and use_blocks(pattern, n, False):
            return self._encode_blocks(kind, data, n, False, mode, wk, out)
        wk.ends.clear()
        cdef const uint32_t* cps = NULL
        if kind == 1:
            split_words_latin1(pattern, <const uint8_t*>data, n, wk.ends)
        elif kind == 4:
            cps = <const uint32_t*>data
        else:
            wk.cps.resize(n)
            for i in range(n):
                wk.cps[i] = (<const uint16_t*>data)[i]
            cps = wk.cps.data()
        if kind != 1:
            split_words(pattern, cps, n, wk.ends)
        cdef size_t nwords = wk.ends.size()
        cdef int64_t* ends = wk.ends.data()
        if not self.byte_level:
            for w in range(nwords):
                end = ends[w]
                wk.units.resize(end - start)
                for i in range(start, end):
                    cp = PyUnicode_READ(kind, data, i)
                    wk.units[i - start] = 0xFFFD if 0xD800 <= cp <= 0xDFFF else cp
                self._encode(wk.units.data(), end - start, mode, wk, out)
                start = end
            return 0
        wk.word_bytes.resize(4 * n)
        if kind == 1:
            nbytes = _utf8_text(<const uint8_t*>data, n, ends, nwords, wk.word_bytes.data())
        elif kind == 2:
            nbytes = _utf8_text(<const uint16_t*>data, n, ends, nwords, wk.word_bytes.data())
        else:
            nbytes = _utf8_text(<const uint32_t*>data, n, ends, nwords, wk.word_bytes.data())
        text = wk.word_bytes.data()
        w = 0
        while w < nwords:
            count = min(<size_t>SPAN_WORDS, nwords - w)
            self._encode_span(text, start, ends + w, count, nbytes, mode, wk, out)
            start = ends[w + count - 1]
            w += count
        return 0

    # ------------------------------------------------------------------ Python API

    cdef _Worker _acquire(self):
        # Called with the GIL held, which makes the list pop/append atomic.
        return self._free_workers.pop() if self._free_workers else _Worker()

    cdef _Worker _acquire_slot(self, int slot):
        # A thread that encodes slice `slot` of every batch finds the cache it filled last time
        # (slices of one corpus share their vocabulary's tail far more than random halves do).
        cdef _Worker wk = self._slot_workers[slot]
        if wk is None:
            return self._acquire()
        self._slot_workers[slot] = None
        return wk

    cdef void _release_slot(self, int slot, _Worker wk):
        if self._slot_workers[slot] is None:
            wk._trim()
            self._slot_workers[slot] = wk
        else:
            self._release(wk)

    cdef void _release(self, _Worker wk):
        if len(self._free_workers) < 8:
            wk._trim()
            self._free_workers.append(wk)

    def encode_word(self, word, str mode="cover"):
        """Token ids (list[int]) of one pre-tokenized word (str, or bytes at byte level).

        Raises:
            ValueError: unknown mode. TypeError: word is not str/bytes.
        """
        ids, _ = self.encode_words((word,), mode)
        return ids.tolist()

    def _encode_chunk(self, tuple words, int64_t lo, int64_t hi, int mode):
        cdef vector[int32_t] out
        counts = np.zeros(hi - lo, dtype=np.int64)
        cdef int64_t[::1] cv = counts
        cdef _Worker wk = self._acquire()
        cdef PyObject** objs = PySequence_Fast_ITEMS(words)
        cdef int64_t bad
        cdef int64_t* cptr = &cv[0] if hi > lo else NULL
        try:
            with nogil:
                out.reserve(2 * (hi - lo))
                bad = self._encode_range(objs, lo, hi, mode, wk, out, cptr)
        finally:
            self._release(wk)
        if bad >= 0:
            raise TypeError(f"word {bad} is {type(words[bad]).__name__}; expected str"
                            + (" or bytes" if self.byte_level else ""))
        ids = np.empty(out.size(), dtype=np.int32)
        cdef int32_t[::1] iv = ids
        if out.size():
            memcpy(&iv[0], out.data(), out.size() * sizeof(int32_t))
        return ids, counts

    def encode_codes(self, const uint32_t[::1] codes, const int64_t[::1] offsets, str mode="cover"):
        """Encode words given as unit codes (script-aware units, see hf_greedtok.units).

        Args:
            codes: uint32[M], the words' units concatenated; codes without a singleton id are
                read as code points (byte fallback).
            offsets: int64[n + 1]; word w is ``codes[offsets[w]:offsets[w+1]]``.
            mode: "cover" or "optimal".

        Returns:
            (ids int32[T], offsets int64[n + 1]) as for :meth:`encode_words`.

        Raises:
            ValueError: unknown mode, or offsets not increasing within ``codes``.
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        cdef int64_t n = offsets.shape[0] - 1, w, before
        if n < 0 or offsets[0] != 0 or offsets[n] != codes.shape[0]:
            raise ValueError("offsets must start at 0 and end at len(codes)")
        for w in range(n):
            if offsets[w + 1] < offsets[w]:
                raise ValueError(f"offsets decrease at word {w}")
        cdef int m = _MODES[mode]
        cdef vector[int32_t] out
        counts = np.zeros(n + 1, dtype=np.int64)
        cdef int64_t[::1] cv = counts
        cdef _Worker wk = self._acquire()
        cdef const uint32_t* base = &codes[0] if codes.shape[0] else NULL
        try:
            with nogil:
                for w in range(n):
                    before = out.size()
                    self._encode(base + offsets[w], offsets[w + 1] - offsets[w], m, wk, out)
                    cv[w + 1] = cv[w] + <int64_t>out.size() - before
        finally:
            self._release(wk)
        ids = np.empty(out.size(), dtype=np.int32)
        cdef int32_t[::1] iv = ids
        if out.size():
            memcpy(&iv[0], out.data(), out.size() * sizeof(int32_t))
        return ids, counts

    def encode_texts(self, texts, int pattern, str mode="cover", int num_threads=1):
        """Split and encode whole texts in one call, without the GIL from the first code point
        to the last id, on up to ``num_threads`` threads.

        Thread t takes a contiguous slice of about equal characters (at least
        MIN_CHARS_PER_THREAD each, so small batches stay on one thread) and the word cache of
        slot t, which it finds warm again on the next call; the ids do not depend on the
        thread count. Types, lengths and slices are read in C: nothing per text runs in
        Python.

        Args:
            texts: a sequence of str.
            pattern: the native scanner's ``PATTERN_*`` id (``hf_greedtok.pre_tokenizers.patterns.native_id``).
            mode: "cover" (Algorithm 4) or "optimal" (minimum-token DP).
            num_threads: 1 or more (at most THREAD_SLOTS are used).

        Returns:
            (ids int32[T], offsets int64[len(texts) + 1]): text t's tokens are
            ``ids[offsets[t]:offsets[t+1]]``, the same ids as splitting each text with the
            pattern in ``regex`` and calling :meth:`encode_words` on its words.

        Raises:
            ValueError: unknown mode or pattern, num_threads < 1. TypeError: an item is not str.
            MemoryError: a buffer could not be allocated (in any thread).
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
            raise ValueError(f"no native split pattern {pattern}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        cdef _TextsJob job = _TextsJob()
        # One pass under the GIL takes a reference to each text of a list (another Python thread
        # may change the list while ours run without the GIL; a tuple holds its own), checks its
        # type and writes the running count of characters into offsets, which then gives the
        # slices (the threads overwrite it with their id counts). Each text is touched once here
        # instead of three times (a tuple copy, the types, the slices): for 278,040 short lines
        # that was 2.9 ms of serial work, 1.4 ms now.
        cdef object seq = texts if type(texts) is list or type(texts) is tuple else tuple(texts)
        cdef bint hold = type(seq) is list
        cdef int64_t n = len(seq), i, total = 0
        cdef PyObject** items = PySequence_Fast_ITEMS(seq)
        cdef PyObject* obj
        offsets = np.empty(n + 1, dtype=np.int64)
        cdef int64_t[::1] ov = offsets
        ov[0] = 0
        if hold:
            job.refs.reserve(n)
        for i in range(n):
            obj = items[i]
            if not PyUnicode_Check(obj):
                raise TypeError(f"text {i} is {type(<object>obj).__name__}, expected str")
            if hold:
                Py_INCREF(<object>obj)
                job.refs.push_back(obj)
            total += PyUnicode_GET_LENGTH(obj)
            ov[i + 1] = total
        job.seq = seq
        job.encoder = <PyObject*>self
        job.objs = job.refs.data() if hold else items
        job.pattern = pattern
        job.mode = _MODES[mode]
        job.offsets = &ov[0]
        cdef int threads = <int>max(1, min(<int64_t>min(num_threads, MAX_SLOTS), total // MIN_CHARS_PER_THREAD))
        threads = _plan_slices(job, ov, n, total, threads)
        cdef int t
        cdef int64_t p, pieces
        workers = [self._acquire_slot(t) for t in range(threads)]   # keeps them alive
        for wk in workers:
            job.workers.push_back(<PyObject*>wk)
        cdef int32_t[::1] iv
        try:
            with nogil:
                if threads == 1:
                    job.run(0)
                else:
                    hfg_run_tasks(threads, _task_encode_texts, <void*>job)
            # the output is allocated once every slice's size is known; then each thread copies
            # its own ids and shifts its own offsets, so no serial pass over the ids remains
            pieces = <int64_t>job.bounds.size() - 1
            job.bases.resize(pieces + 1)
            job.bases[0] = 0
            for p in range(pieces):
                job.bases[p + 1] = job.bases[p] + job.piece_end[p] - job.piece_start[p]
            ids = np.empty(job.bases[pieces], dtype=np.int32)
            iv = ids
            if job.bases[pieces]:
                job.ids = &iv[0]
                with nogil:
                    if threads == 1:
                        job.copy_out(0)
                    else:
                        hfg_run_tasks(threads, _task_copy_out, <void*>job)
            if job.cut:
                for i in range(n):
                    ov[i + 1] = job.span_ends[job.span_of_text_end[i]]
        finally:
            # released only now: releasing trims a worker's slice_ids, and another thread may
            # take a released worker
            for t in range(threads):
                self._release_slot(t, workers[t])
        return ids, offsets

    def encode_words(self, words, str mode="cover"):
        """Encode pre-tokenized words in one call, without the GIL (so several threads can
        encode disjoint batches at once: :func:`hf_greedtok._threads.encode_in_threads`).

        Args:
            words: a sequence of str (or bytes at byte level), one pre-tokenized word each.
            mode: "cover" (Algorithm 4) or "optimal" (minimum-token DP).

        Returns:
            (ids int32[T], offsets int64[len(words) + 1]): word w's tokens are
            ``ids[offsets[w]:offsets[w+1]]``.

        Raises:
            ValueError: unknown mode. TypeError: an item is not str/bytes.
            MemoryError: a buffer could not be allocated.
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        cdef tuple items = tuple(words)
        cdef int64_t n = len(items)
        ids, counts = self._encode_chunk(items, 0, n, _MODES[mode])
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return ids, offsets


@cython.final
cdef class _TextsJob:
    """One :meth:`RankedEncoder.encode_texts` call, its work in pieces: piece p is texts (or spans,
    when a text is cut) bounds[p] .. bounds[p + 1] - 1, PIECES_PER_THREAD pieces a thread of about
    equal characters, thread t owning the t-th run of PIECES_PER_THREAD of them. Phase 1 (run):
    each thread takes the next piece of its own run not taken yet, then those of the other runs,
    until none is left, and encodes it into its worker's slice_ids with that worker's word cache,
    writing each text's end (counted from the slice's first id) to offsets[text + 1] and where
    the piece's ids lie in its slice. Phase 2 (copy_out): each thread copies its pieces' ids to
    ids[bases[p]:] and shifts their offsets to match. Taking the others' pieces when its own run
    is done keeps both threads busy when the characters of a batch cost unequal time (60,000
    lines, two thirds of them a dictionary's ASCII: 1.62x one thread's speed on two with one
    slice a thread); owning a run keeps a thread on the same texts call after call when they
    cost alike, so its word cache stays warm for them (the slices of one corpus share their
    vocabulary's tail far more than random pieces do).

    The job holds the texts (objs: a list's texts, each referenced in refs, or the items of the
    tuple seq) until it is freed; the encoder, the workers and the output arrays are borrowed
    from encode_texts, which holds them while the threads run."""
    cdef PyObject* encoder
    cdef PyObject** objs
    cdef vector[PyObject*] refs         # a list's texts, each holding a reference (released with the job)
    cdef object seq                     # the list or tuple the texts came in
    cdef vector[PyObject*] workers
    cdef vector[int64_t] bounds         # piece p: items bounds[p] .. bounds[p + 1] - 1
    cdef vector[int64_t] taken          # pieces taken of thread t's run: taken[t * 8] (a cache line each)
    cdef vector[int] piece_thread       # the thread that encoded piece p,
    cdef vector[int64_t] piece_start    # where its ids start in that thread's slice_ids,
    cdef vector[int64_t] piece_end      # and end
    cdef vector[int64_t] bases          # where piece p's ids go in ids
    cdef int64_t* offsets
    cdef int32_t* ids
    cdef int pattern
    cdef int mode
    # Long texts cut across threads (cut): the work is spans, not texts. Span s is characters
    # span_lo[s] .. span_hi[s] - 1 of span_obj[s] (borrowed from objs), its ids end at span_ends[s + 1].
    cdef bint cut
    cdef vector[PyObject*] span_obj
    cdef vector[int64_t] span_lo
    cdef vector[int64_t] span_hi
    cdef vector[int64_t] span_ends
    cdef vector[int64_t] span_of_text_end     # text i's last span + 1

    def __dealloc__(self):
        cdef PyObject* obj
        for obj in self.refs:
            Py_DECREF(<object>obj)

    cdef int run(self, int t) except -1 nogil:
        cdef int64_t p, k, v, first, last
        cdef int64_t pieces = <int64_t>self.bounds.size() - 1
        cdef int64_t threads = <int64_t>self.taken.size() // 8
        cdef vector[int32_t]* out = &(<_Worker>self.workers[t]).slice_ids
        out.clear()
        for k in range(threads):
            v = (t + k) % threads           # its own run first, then the others'
            first, last = pieces * v // threads, pieces * (v + 1) // threads
            while True:
                p = first + hfg_take_next(&self.taken[8 * v])
                if p >= last:
                    break
                self._encode_piece(t, p, out)
        return 0

    cdef int _encode_piece(self, int t, int64_t p, vector[int32_t]* out) except -1 nogil:
        cdef int64_t i
        self.piece_thread[p] = t
        self.piece_start[p] = <int64_t>out.size()
        for i in range(self.bounds[p], self.bounds[p + 1]):
            if self.cut:
                (<RankedEncoder>self.encoder)._encode_text(self.span_obj[i], self.span_lo[i], self.span_hi[i],
                                                           self.pattern, self.mode, <_Worker>self.workers[t], out[0])
                self.span_ends[i + 1] = <int64_t>out.size()
            else:
                (<RankedEncoder>self.encoder)._encode_text(self.objs[i], 0, PyUnicode_GET_LENGTH(self.objs[i]),
                                                           self.pattern, self.mode, <_Worker>self.workers[t], out[0])
                self.offsets[i + 1] = <int64_t>out.size()
        self.piece_end[p] = <int64_t>out.size()
        return 0

    cdef int copy_out(self, int t) except -1 nogil:
        cdef vector[int32_t]* out = &(<_Worker>self.workers[t]).slice_ids
        cdef int64_t i, p, shift
        for p in range(<int64_t>self.bounds.size() - 1):
            if self.piece_thread[p] != t:
                continue
            if self.piece_end[p] > self.piece_start[p]:
                memcpy(self.ids + self.bases[p], out.data() + self.piece_start[p],
                       (self.piece_end[p] - self.piece_start[p]) * sizeof(int32_t))
            shift = self.bases[p] - self.piece_start[p]
            if shift:
                for i in range(self.bounds[p], self.bounds[p + 1]):
                    if self.cut:
                        self.span_ends[i + 1] += shift
                    else:
                        self.offsets[i + 1] += shift
        return 0


# A text of more than this many characters may be cut into spans encoded on different threads.
cdef int64_t CUT_MIN_CHARS = 1 << 20
cdef int PIECES_PER_THREAD = 8      # pieces of work a thread, taken as threads finish (_TextsJob)


def _thread_minimums(int64_t chars_per_thread, int64_t cut_chars):
    """Set MIN_CHARS_PER_THREAD and CUT_MIN_CHARS (tests cut small documents with them); returns
    the old values, to be set back."""
    global MIN_CHARS_PER_THREAD, CUT_MIN_CHARS
    old = (MIN_CHARS_PER_THREAD, CUT_MIN_CHARS)
    MIN_CHARS_PER_THREAD, CUT_MIN_CHARS = max(1, chars_per_thread), max(1, cut_chars)
    return old


cdef inline bint _is_space(int kind, void* data, int64_t i) noexcept nogil:
    return (hfg_props(PyUnicode_READ(kind, data, i)) & HFG_S) != 0


cdef inline bint _safe_at(int kind, void* data, int64_t p) noexcept nogil:
    return PyUnicode_READ(kind, data, p - 1) == 0x0A and not _is_space(kind, data, p) \
        and not _is_space(kind, data, p - 2)


cdef int64_t _safe_cut(int kind, void* data, int64_t n, int64_t target) noexcept nogil:
    """A position p in 3 .. n - 1, the nearest after ``target`` (else before it), where a text may
    be cut and each side split on its own into the words the whole gives: right after a line feed
    between two characters that are not white space ("x\nA"), or -1. The line feed ends a word
    there under every split we ship (none lets a word run from a line end into the next line, and
    a lone line feed between non-spaces is one word, or the end of one, whether or not the text ends
    after it: GPT-4's ``\s++$``, GPT-2's ``\s+(?!\S)``); tested against the uncut split on
    hypothesis documents and every shared corpus (tests/models/test_document_spans.py)."""
    cdef int64_t p
    for p in range(max(target, 3), n):
        if _safe_at(kind, data, p):
            return p
    for p in range(min(target, n) - 1, 2, -1):
        if _safe_at(kind, data, p):
            return p
    return -1


cdef bint _cut_long_texts(_TextsJob job, int64_t n, int64_t total, int threads) except -1:
    """Cut the texts longer than a thread's share (and than CUT_MIN_CHARS) at safe points into
    about equal spans, writing the job's spans (every text one span or more; span_ends holds their
    running characters until the threads overwrite it with ids); False, and nothing written, when
    no text is cut (none that long, or no safe point in them)."""
    cdef int64_t share = max(CUT_MIN_CHARS, total // threads), i, length, at, cut, parts, k
    cdef PyObject* obj
    for i in range(n):
        if PyUnicode_GET_LENGTH(job.objs[i]) > share:
            break
    else:
        return False
    job.cut = True
    job.span_ends.push_back(0)
    for i in range(n):
        obj = job.objs[i]
        length = PyUnicode_GET_LENGTH(obj)
        parts = min(<int64_t>threads, (length + share - 1) // share) if length > share else 1
        at = 0
        for k in range(1, parts):
            cut = _safe_cut(PyUnicode_KIND(obj), PyUnicode_DATA(obj), length, length * k // parts)
            if cut <= at:
                continue
            job.span_obj.push_back(obj)
            job.span_lo.push_back(at)
            job.span_hi.push_back(cut)
            job.span_ends.push_back(job.span_ends.back() + cut - at)
            at = cut
        job.span_obj.push_back(obj)
        job.span_lo.push_back(at)
        job.span_hi.push_back(length)
        job.span_ends.push_back(job.span_ends.back() + length - at)
        job.span_of_text_end.push_back(<int64_t>job.span_obj.size())
    if <int64_t>job.span_obj.size() == n:      # no safe point in any long text: the texts as they are
        job.cut = False
        job.span_obj.clear()
        job.span_lo.clear()
        job.span_hi.clear()
        job.span_ends.clear()
        job.span_of_text_end.clear()
        return False
    return True


cdef void _piece_bounds(_TextsJob job, const int64_t[::1] chars, int64_t items, int64_t total, int pieces):
    """job.bounds: piece t is items (texts, or spans when job.cut) bounds[t] .. bounds[t + 1] - 1
    (``pieces`` of them), ``chars`` being their running characters. Piece t - 1 ends with the
    first text whose end reaches t / pieces of the characters; with spans, with the last span
    whose middle lies before that point (a cut falls near it, on either side: by the spans' ends,
    a cut just before it would give piece 0 both halves of a document). Pieces may be empty."""
    cdef int t
    cdef int64_t lo, hi, mid
    job.bounds.clear()
    job.bounds.push_back(0)
    for t in range(1, pieces):
        lo, hi = job.bounds.back(), items
        while lo < hi:
            mid = (lo + hi) >> 1
            if job.cut and (chars[mid] + chars[mid + 1]) * pieces >= 2 * total * t:
                hi = mid
            elif not job.cut and chars[mid + 1] * pieces >= total * t:
                hi = mid
            else:
                lo = mid + 1
        job.bounds.push_back(min(lo + <int64_t>(not job.cut), items))
    job.bounds.push_back(items)


cdef int _plan_slices(_TextsJob job, const int64_t[::1] text_chars, int64_t n, int64_t total, int threads) except -1:
    """The pieces of work (job.bounds, and job's spans when a text is cut: a text longer than a
    thread's share is cut into spans, a document on several threads): one on one thread, else
    PIECES_PER_THREAD a thread, no more than the items; ``text_chars`` are the texts' running
    characters. Returns the threads used."""
    cdef int64_t items = n
    cdef object chars = text_chars
    if threads > 1 and _cut_long_texts(job, n, total, threads):
        chars = np.asarray(job.span_ends, dtype=np.int64)
        items = <int64_t>job.span_obj.size()
    else:
        threads = <int>min(<int64_t>threads, n)
    _piece_bounds(job, chars, items, total, <int>min(items, <int64_t>threads * PIECES_PER_THREAD) if threads > 1 else 1)
    cdef size_t pieces = job.bounds.size() - 1
    job.piece_thread.assign(pieces, 0)
    job.piece_start.assign(pieces, 0)
    job.piece_end.assign(pieces, 0)
    job.taken.assign(8 * max(1, threads), 0)
    return threads


def _spans(list texts, int threads):
    """[(text index, first character, end, piece)] of the spans ``encode_texts`` cuts ``texts``
    into on ``threads`` threads, and the piece of work each is in (every text one span when none
    is cut; threads take pieces as they finish); for tests."""
    cdef _TextsJob job = _TextsJob()
    cdef int64_t total = sum(len(t) for t in texts), s, i = 0
    job.objs = PySequence_Fast_ITEMS(texts)
    chars = np.cumsum([0] + [len(x) for x in texts]).astype(np.int64)
    _plan_slices(job, chars, len(texts), total, threads)
    if job.cut:
        spans = []
        for s in range(<int64_t>job.span_obj.size()):
            while s >= job.span_of_text_end[i]:
                i += 1
            spans.append((i, job.span_lo[s], job.span_hi[s]))
    else:
        spans = [(k, 0, len(x)) for k, x in enumerate(texts)]
    bounds = list(job.bounds)
    piece_of = [next(p for p in range(len(bounds) - 1) if bounds[p] <= s < bounds[p + 1]) for s in range(len(spans))]
    return [(*span, piece) for span, piece in zip(spans, piece_of)]


cdef int _task_encode_texts(void* ctx, int t) except -1 nogil:
    return (<_TextsJob>ctx).run(t)


cdef int _task_copy_out(void* ctx, int t) except -1 nogil:
    return (<_TextsJob>ctx).copy_out(t)
