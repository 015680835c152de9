# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Chunk tables: {chunk: count} for superword training at corpus scale (issue 41).

A corpus of 1 GB has some 17 million distinct superword chunks, nine in ten seen once. A Python
``Counter`` holds each in about 135 bytes besides its text, and frees them into pymalloc arenas
that a long run rarely gives back; a :class:`ChunkTable` holds the UTF-8 back to back with 32
bytes of index per entry, in a few large vectors that go back to the system when it is freed.
What superword training needs of the whole table is computed here, without the GIL:

* :meth:`ChunkTable.words`: stage 1's words, every chunk split by a native word scanner
  (``_pretokenize.split_words``, the split ``ByteLevel.pre_tokenize`` runs), weighted by the
  chunk's count;
* :meth:`ChunkTable.sampled`: stage 2's chunks past the chunk budget, threshold sampling
  (Duffield, Lund & Thorup, "Priority sampling for estimation of arbitrary subset sums", JACM
  2007, Section 2: a count c >= m is kept as it is, a smaller one is kept with probability c / m
  and counted m times, m rounded to a neighbouring integer at random when it is not one),
  decided by XXH64 of the chunk's bytes (``third_party/xxhash``), so the sample depends on the
  table's contents only, never on the order it was counted in;
* :meth:`ChunkTable.sizes` and :meth:`ChunkTable.counts`: arrays for choosing m.

Counting itself is native too: :meth:`ChunkTable.add_split_lines` splits lines with the same
scanners and adds each piece's UTF-8 as it is found, with no str per piece and no ``Counter``
(:meth:`ChunkTable.add_split_text`: the lines of one text, with no str per line either).

Entries are str encoded as UTF-8 with lone surrogates kept (``surrogatepass``), so every str
round-trips exactly. Insertion order is kept: tables merged in input order list their entries
in the same order whatever the number of workers.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.errno cimport errno
from libc.stdio cimport FILE, fclose, fopen, fwrite
from libc.string cimport memcmp, memcpy
from libcpp.vector cimport vector

import os

import numpy as np

from hf_greedtok._pretokenize cimport (PATTERN_GPT4, PATTERN_LAST, split_words, split_words_ascii,
                                      split_words_latin1)
from hf_greedtok._scanners cimport unit_t

cdef extern from "Python.h":
    bint PyUnicode_Check(object)
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject*) nogil
    int PyUnicode_KIND(PyObject*) nogil
    void* PyUnicode_DATA(PyObject*) nogil
    int PyUnicode_IS_ASCII(PyObject*) nogil

cdef extern from "_chunk_hash.h" nogil:
    uint64_t hfg_xxh64(const void* data, size_t n)
    uint64_t hfg_mul_hi(uint64_t a, uint64_t b)

cdef extern from "_chunk_order.h" nogil:
    void hfg_sort_entries(const char* text, const int64_t* ends, const int64_t* counts, int64_t n, int64_t* order)

cdef extern from *:
    bint __builtin_add_overflow(int64_t a, int64_t b, int64_t* out) nogil

cdef int64_t _INT64_MAX = 0x7FFFFFFFFFFFFFFF
cdef uint32_t _MAX_ENTRIES = 0xFFFFFFFE     # slot values are entry + 1 in 32 bits
cdef int64_t _WRITE_BUFFER = 1 << 22


cdef inline int64_t _decode(const uint8_t* s, int64_t n, vector[uint32_t]& cps, vector[int64_t]& starts) noexcept nogil:
    """The code points of s[0:n] (UTF-8 as this table writes it: well formed, lone surrogates as
    their 3-byte form) into ``cps``, and the byte offset of each into ``starts`` (one more at
    the end: n); returns the number of code points."""
    cdef int64_t i = 0, k = 0
    cdef uint8_t b
    cps.resize(n)
    starts.resize(n + 1)
    while i < n:
        starts[k] = i
        b = s[i]
        if b < 0x80:
            cps[k] = b
            i += 1
        elif b < 0xE0:
            cps[k] = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
            i += 2
        elif b < 0xF0:
            cps[k] = ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
            i += 3
        else:
            cps[k] = ((b & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
            i += 4
        k += 1
    starts[k] = n
    return k


cdef struct _Line:
    const void* data        # a str's own data from the line's start: 1, 2 or 4 bytes a code point (kind)
    int64_t length          # in code points
    int kind
    bint ascii              # known to be ASCII (else found out, for 1-byte data)
    int64_t item            # the str it is in: an index of the caller's strs
    int64_t offset          # where it starts in that str, in code points


cdef int _add_pieces(ChunkTable table, const unit_t* s, bint ascii, const vector[int64_t]& ends,
                     int64_t long_chars, const _Line& line, vector[int64_t]& longs, vector[char]& utf8) except -1 nogil:
    """Adds to ``table`` (count 1) the UTF-8 of each piece of s[0:ends[-1]] (``line``'s code
    points) that ends at ``ends`` (code point offsets), lone surrogates in their 3-byte form (as
    ``encode("utf-8", "surrogatepass")`` writes them); a piece longer than ``long_chars`` code
    points is not added but appended to ``longs`` as (item, start, end) in the line's str.
    ``ascii``: 1-byte units known to be ASCII, which are their own UTF-8. ``utf8`` is scratch."""
    cdef int64_t a = 0, b, k, j, m
    cdef uint32_t c
    cdef char* o
    for k in range(<int64_t>ends.size()):
        b = ends[k]
        if b - a > long_chars:
            longs.push_back(line.item)
            longs.push_back(line.offset + a)
            longs.push_back(line.offset + b)
        elif unit_t is uint8_t and ascii:
            table._add(<const char*>(s + a), b - a, hfg_xxh64(s + a, b - a), 1)
        else:
            if utf8.size() < <size_t>(4 * (b - a)):
                utf8.resize(4 * (b - a))
            o = utf8.data()
            m = 0
            for j in range(a, b):
                c = s[j]
                if c < 0x80:
                    o[m] = <char>c
                    m += 1
                elif c < 0x800:
                    o[m] = <char>(0xC0 | (c >> 6))
                    o[m + 1] = <char>(0x80 | (c & 0x3F))
                    m += 2
                elif c < 0x10000:
                    o[m] = <char>(0xE0 | (c >> 12))
                    o[m + 1] = <char>(0x80 | ((c >> 6) & 0x3F))
                    o[m + 2] = <char>(0x80 | (c & 0x3F))
                    m += 3
                else:
                    o[m] = <char>(0xF0 | (c >> 18))
                    o[m + 1] = <char>(0x80 | ((c >> 12) & 0x3F))
                    o[m + 2] = <char>(0x80 | ((c >> 6) & 0x3F))
                    o[m + 3] = <char>(0x80 | (c & 0x3F))
                    m += 4
            table._add(o, m, hfg_xxh64(o, m), 1)
        a = b
    return 0


ctypedef fused str_unit:        # a str's data of any kind: 1, 2 or 4 bytes a code point
    uint8_t
    uint16_t
    uint32_t


cdef inline uint32_t _bits(const str_unit* t, int64_t n) noexcept nogil:
    """The OR of the code points of t[0:n]: below 0x80 when all are ASCII, below 0x100 when all
    are Latin-1 (an OR, unlike a max, vectorizes)."""
    cdef uint32_t acc = 0
    cdef int64_t j
    for j in range(n):
        acc |= t[j]
    return acc


cdef inline uint32_t _narrow(const str_unit* t, int64_t n, uint8_t* out) noexcept nogil:
    """Copies the low byte of each code point of t[0:n] to ``out`` and returns their OR (the
    copy is the code points when the OR is below 0x100), in one pass."""
    cdef uint32_t acc = 0
    cdef int64_t j
    for j in range(n):
        acc |= t[j]
        out[j] = <uint8_t>t[j]
    return acc


cdef int _add_lines(ChunkTable table, int pattern, const vector[_Line]& lines, int64_t long_chars,
                    vector[int64_t]& longs) except -1 nogil:
    """:meth:`ChunkTable.add_split_lines` of ``lines`` (``pattern`` checked by the caller). A
    line is split as the str of its code points would be: 2- and 4-byte data of code points
    below 256 is narrowed to one byte each (and taken as ASCII when all are below 128), as
    Python stores such a str, so the scanners' fast paths and the UTF-8 copy-free path apply."""
    cdef vector[int64_t] ends
    cdef vector[uint32_t] wide
    cdef vector[uint8_t] narrow
    cdef vector[char] utf8
    cdef const uint8_t* s8
    cdef const uint16_t* s16
    cdef const uint32_t* s32
    cdef uint8_t* out8
    cdef uint32_t* out32
    cdef int64_t k, j, n
    cdef uint32_t top
    cdef bint ascii
    for k in range(<int64_t>lines.size()):
        n = lines[k].length
        ends.clear()
        s8 = NULL
        s32 = NULL
        ascii = lines[k].ascii
        # the loops over code points are functions of their own (_bits, _narrow): inlined here,
        # their byte stores could alias lines[k], reloaded then at every code point
        if lines[k].kind == 1:
            s8 = <const uint8_t*>lines[k].data
            if not ascii:
                ascii = _bits(s8, n) < 0x80
        else:
            narrow.resize(n)
            out8 = narrow.data()
            if lines[k].kind == 2:
                top = _narrow(<const uint16_t*>lines[k].data, n, out8)
            else:
                top = _narrow(<const uint32_t*>lines[k].data, n, out8)
            if top < 0x100:
                s8 = out8
                ascii = top < 0x80
            elif lines[k].kind == 4:
                s32 = <const uint32_t*>lines[k].data
            else:
                s16 = <const uint16_t*>lines[k].data
                wide.resize(n)
                out32 = wide.data()
                for j in range(n):
                    out32[j] = s16[j]
                s32 = out32
        if s32 == NULL:
            if ascii:
                split_words_ascii(pattern, s8, n, ends)
            else:
                split_words_latin1(pattern, s8, n, ends)
            _add_pieces(table, s8, ascii, ends, long_chars, lines[k], longs, utf8)
        else:
            split_words(pattern, s32, n, ends)
            _add_pieces(table, s32, False, ends, long_chars, lines[k], longs, utf8)
    return 0


cdef int _cut_lines(const str_unit* t, const _Line& whole, vector[_Line]& lines) except -1 nogil:
    """Appends to ``lines`` the lines of ``whole`` (whose code points are t[0:whole.length]):
    each up to and with a "\\n", the last one whatever follows the last "\\n", if anything."""
    cdef _Line line = whole
    cdef int64_t k, start = 0, n = whole.length
    for k in range(n):
        if t[k] == 0x0A or k + 1 == n:
            line.data = <const char*>whole.data + start * whole.kind
            line.length = k + 1 - start
            line.offset = start
            lines.push_back(line)
            start = k + 1
    return 0


cdef _check_split(int pattern, int64_t long_chars):
    if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
        raise ValueError(f"no native pre-tokenizer for pattern id {pattern}")
    if long_chars < 0:
        raise ValueError(f"long_chars must be >= 0, got {long_chars}")


cdef _Line _whole(str text, int64_t item):
    """The line of all of ``text`` (item ``item`` of the caller's strs), read from its own data."""
    cdef PyObject* obj = <PyObject*>text
    cdef _Line line
    line.data = PyUnicode_DATA(obj)
    line.length = PyUnicode_GET_LENGTH(obj)
    line.kind = PyUnicode_KIND(obj)
    line.ascii = PyUnicode_IS_ASCII(obj)
    line.item = item
    line.offset = 0
    return line


cdef list _long_pieces(tuple strs, const vector[int64_t]& longs):
    """The pieces ``longs`` records as (item, start, end) triples, sliced from ``strs``."""
    return [strs[longs[j]][longs[j + 1]:longs[j + 2]] for j in range(0, <int64_t>longs.size(), 3)]


cdef class ChunkTable:
    """{chunk: count}: distinct str keys (stored as UTF-8, surrogates kept) with int64 counts.

    Example:
        >>> t = ChunkTable()
        >>> t.add_counts({" of the": 3, " in a": 1})
        >>> t.add_counts({" of the": 2})
        >>> t.to_dict(), len(t), t.distinct_bytes
        ({' of the': 5, ' in a': 1}, 2, 12)

    Memory: the UTF-8 bytes plus 32 bytes per entry (end offset, count, hash, two 4-byte slots),
    with the vectors' growth on top while they grow.
    """

    def __init__(self):
        self._slots.resize(16)

    def __len__(self) -> int:
        return self._counts.size()

    @property
    def distinct_bytes(self) -> int:
        """The UTF-8 bytes of all entries together."""
        return self._text.size()

    cdef int _grow(self) except -1 nogil:
        cdef size_t size = self._slots.size() * 2, mask = size - 1, i, e
        self._slots.assign(size, 0)
        for e in range(self._counts.size()):
            i = self._hashes[e] & mask
            while self._slots[i]:
                i = (i + 1) & mask
            self._slots[i] = <uint32_t>(e + 1)
        return 0

    cdef int64_t _add(self, const char* data, int64_t n, uint64_t h, int64_t count) except -1 nogil:
        """Adds ``count`` to the entry data[0:n] (hash h), made if new; returns its index.
        Raises OverflowError (the GIL taken) when the count would pass 2**63-1, or the table
        would pass 2**32-2 entries."""
        cdef size_t mask = self._slots.size() - 1, i = h & mask
        cdef uint32_t slot
        cdef int64_t e, start, total
        while True:
            slot = self._slots[i]
            if slot == 0:
                break
            e = slot - 1
            if self._hashes[e] == h:
                start = self._ends[e - 1] if e else 0
                if self._ends[e] - start == n and memcmp(self._text.data() + start, data, n) == 0:
                    if __builtin_add_overflow(self._counts[e], count, &total):
                        with gil:
                            raise OverflowError(f"the count of {self._key(e)!r} passes 2**63-1")
                    self._counts[e] = total
                    return e
            i = (i + 1) & mask
        e = self._counts.size()
        if <uint64_t>e >= _MAX_ENTRIES:
            with gil:
                raise OverflowError(f"a chunk table holds at most {_MAX_ENTRIES:,} entries")
        self._text.insert(self._text.end(), data, data + n)
        self._ends.push_back(self._text.size())
        self._counts.push_back(count)
        self._hashes.push_back(h)
        self._slots[i] = <uint32_t>(e + 1)
        if 2 * self._counts.size() > self._slots.size():      # load at most 1/2
            self._grow()
        return e

    cdef str _key(self, int64_t e):
        cdef int64_t start = self._ends[e - 1] if e else 0
        return self._text.data()[start:self._ends[e]].decode("utf-8", "surrogatepass")

    def add(self, str chunk not None, int64_t count) -> None:
        """Add ``count`` (1..2**63-1) to ``chunk``.

        Raises:
            ValueError: count below 1. OverflowError: the total would pass 2**63-1.
        """
        if count < 1:
            raise ValueError(f"count of {chunk!r} must be >= 1, got {count}")
        cdef bytes b = chunk.encode("utf-8", "surrogatepass")
        cdef const char* p = PyBytes_AS_STRING(b)
        cdef int64_t n = PyBytes_GET_SIZE(b)
        with nogil:
            self._add(p, n, hfg_xxh64(p, n), count)

    def setdefault(self, str chunk not None, int64_t value) -> int:
        """The count of ``chunk``, stored as ``value`` (>= 1) first if it is new: ``dict.setdefault``
        in a table's memory (the count tables' check that no word is listed twice keeps each
        word's first row this way).

        Raises:
            ValueError: value below 1.
        """
        if value < 1:
            raise ValueError(f"value of {chunk!r} must be >= 1, got {value}")
        cdef bytes b = chunk.encode("utf-8", "surrogatepass")
        cdef const char* p = PyBytes_AS_STRING(b)
        cdef int64_t n = PyBytes_GET_SIZE(b), e
        cdef size_t before = self._counts.size()
        with nogil:
            e = self._add(p, n, hfg_xxh64(p, n), 0)      # adds nothing to an entry already there
            if self._counts.size() != before:
                self._counts[e] = value
        return self._counts[e]

    def add_counts(self, counts) -> None:
        """Add every ``{chunk: count}`` of a mapping (str keys, integer counts 1..2**63-1).

        Raises:
            ValueError: a count below 1. OverflowError: a count, or a total, above 2**63-1.
            TypeError: a key that is not a str.
        """
        cdef bytes b
        cdef int64_t n, c
        for chunk, count in counts.items():
            c = count
            if c < 1:
                raise ValueError(f"count of {chunk!r} must be >= 1, got {count}")
            b = (<str?>chunk).encode("utf-8", "surrogatepass")
            n = PyBytes_GET_SIZE(b)
            self._add(PyBytes_AS_STRING(b), n, hfg_xxh64(PyBytes_AS_STRING(b), n), c)

    def merge(self, ChunkTable other not None) -> None:
        """Add every entry of ``other`` (its order kept for the entries new here).

        Raises:
            OverflowError: a total above 2**63-1. ValueError: ``other`` is this table (its
                vectors would move under the loop reading them).
        """
        if other is self:
            raise ValueError("a chunk table cannot merge itself; merge a copy (pickle.loads(pickle.dumps(t)))")
        cdef int64_t e, start = 0
        with nogil:
            for e in range(<int64_t>other._counts.size()):
                self._add(other._text.data() + start, other._ends[e] - start, other._hashes[e], other._counts[e])
                start = other._ends[e]

    def sizes(self):
        """int64[len]: each entry's UTF-8 bytes, in table order."""
        out = np.empty(self._counts.size(), dtype=np.int64)
        cdef int64_t[::1] v = out
        cdef int64_t e, start = 0
        for e in range(<int64_t>self._counts.size()):
            v[e] = self._ends[e] - start
            start = self._ends[e]
        return out

    def counts(self):
        """int64[len]: each entry's count, in table order (a copy)."""
        out = np.empty(self._counts.size(), dtype=np.int64)
        cdef int64_t[::1] v = out
        cdef int64_t e
        for e in range(<int64_t>self._counts.size()):
            v[e] = self._counts[e]
        return out

    def sampled(self, double rate) -> ChunkTable:
        """Threshold sampling at rate m (the module's docstring): a new table holding this
        table's entries of count c >= m as they are, and those of count c < m kept with
        probability c / m and counted w times, w = floor(m) or floor(m) + 1 with probability
        frac(m) (so w averages m: every count stays unbiased, for any real m), in this table's
        order. Both draws come from the entry's XXH64 h: kept when (h >> 32) x m < c x 2**32,
        one more when (h & 0xFFFFFFFF) < frac(m) x 2**32 (IEEE doubles, as Python computes them).
        ``rate`` 1 copies the table.

        Raises:
            ValueError: rate below 1 or not finite.
        """
        if not 1.0 <= rate < 9.2e18:
            raise ValueError(f"rate must be a finite number >= 1, got {rate}")
        cdef ChunkTable out = ChunkTable()
        cdef int64_t e, c, whole = <int64_t>rate, start = 0
        cdef double part = (rate - <double>whole) * 4294967296.0
        cdef uint64_t h
        with nogil:
            for e in range(<int64_t>self._counts.size()):
                c = self._counts[e]
                if <double>c < rate:
                    h = self._hashes[e]
                    if <double>(h >> 32) * rate >= <double>c * 4294967296.0:
                        start = self._ends[e]
                        continue
                    c = whole + (<double>(h & 0xFFFFFFFFULL) < part)
                out._add(self._text.data() + start, self._ends[e] - start, self._hashes[e], c)
                start = self._ends[e]
        return out

    def words(self, int pattern) -> ChunkTable:
        """The words of every entry under the native split ``pattern`` (a ``PATTERN_*`` id of
        :mod:`hf_greedtok._pretokenize`: what ``ByteLevel(split).pre_tokenize`` gives), each
        counted as often as its entry, as a new table.

        Raises:
            ValueError: ``pattern`` has no native scanner. OverflowError: a word's total above 2**63-1.
        """
        if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
            raise ValueError(f"no native pre-tokenizer for pattern id {pattern}")
        cdef ChunkTable out = ChunkTable()
        cdef vector[uint32_t] cps
        cdef vector[int64_t] starts, ends
        cdef int64_t e, n, k, w, a, b, start = 0
        cdef const char* s
        with nogil:
            for e in range(<int64_t>self._counts.size()):
                s = self._text.data() + start
                n = _decode(<const uint8_t*>s, self._ends[e] - start, cps, starts)
                ends.clear()
                split_words(pattern, cps.data(), n, ends)
                a = 0
                for k in range(<int64_t>ends.size()):
                    w = starts[ends[k]]
                    out._add(s + a, w - a, hfg_xxh64(s + a, w - a), self._counts[e])
                    a = w
                start = self._ends[e]
        return out

    def add_split_lines(self, int pattern, lines, int64_t long_chars) -> list:
        """Count the pieces of every line: each piece of the native split ``pattern`` (a
        ``PATTERN_*`` id of :mod:`hf_greedtok._pretokenize`: the pieces
        ``ByteLevel(split).pre_tokenize(line)`` gives) is added with count 1, as its UTF-8 (lone
        surrogates in their 3-byte form, as :meth:`add` stores them), in the order the pieces
        come, lines one after another, without the GIL and without a str per piece. A piece
        longer than ``long_chars`` code points is not added: it is returned, for the caller to
        cut (the word counters cut with ``word_counts.cut_long_words``, whose threshold is
        ``word_counts.always_short``) and add.

        Equal to adding ``Counter(p for line in lines for p in split(pattern, line))`` with
        :meth:`add_counts`, entry order included, when no piece is long.

        Args:
            pattern: the native split's id (``ByteLevel.native_pattern``).
            lines: a list (any iterable) of str; each is split on its own, read from the str's
                own data (1-byte strs as they are, 2-byte ones widened to 4 bytes a code point
                in a scratch buffer).
            long_chars: the longest piece (in code points, >= 0) counted here.

        Returns:
            list of str: the pieces longer than ``long_chars``, in order (repeats included).

        Raises:
            ValueError: ``pattern`` has no native scanner, or ``long_chars`` is negative.
            TypeError: an item of ``lines`` that is not a str (its index named); nothing is added.
            OverflowError: a count above 2**63-1, or a table past 2**32-2 entries.
            MemoryError: the split's or the UTF-8's scratch. After either, the table holds
                whatever was added before the error.
        """
        _check_split(pattern, long_chars)
        # the strs are kept alive by this tuple (a list could change in another thread while
        # the loop below runs without the GIL)
        cdef tuple held = tuple(lines)
        cdef int64_t count = len(held), k
        cdef vector[_Line] items
        cdef vector[int64_t] longs
        items.resize(count)
        for k in range(count):
            text = held[k]
            if not PyUnicode_Check(text):
                raise TypeError(f"item {k} of lines is {type(text).__name__}, expected str")
            items[k] = _whole(text, k)
        with nogil:
            _add_lines(self, pattern, items, long_chars, longs)
        return _long_pieces(held, longs)

    def add_split_text(self, int pattern, str text not None, int64_t long_chars) -> list:
        """:meth:`add_split_lines` of the lines of ``text``: cut after each "\\n" (which stays
        in its line; the last line is what follows the last "\\n", if anything), as
        :func:`hf_greedtok.formats.sources.text_lines` cuts a chunk of a text file, without a
        str per line.

        Returns:
            list of str: the pieces longer than ``long_chars`` code points, in order.

        Raises:
            ValueError: ``pattern`` has no native scanner, or ``long_chars`` is negative.
            OverflowError, MemoryError: as :meth:`add_split_lines`.
        """
        _check_split(pattern, long_chars)
        cdef _Line whole = _whole(text, 0)
        cdef vector[_Line] lines
        cdef vector[int64_t] longs
        with nogil:
            if whole.kind == 1:
                _cut_lines(<const uint8_t*>whole.data, whole, lines)
            elif whole.kind == 2:
                _cut_lines(<const uint16_t*>whole.data, whole, lines)
            else:
                _cut_lines(<const uint32_t*>whole.data, whole, lines)
            _add_lines(self, pattern, lines, long_chars, longs)
        return _long_pieces((text,), longs)

    def sorted_parts(self):
        """The entries as a count table writes them, by count (most first), then by their text
        (code point order, as Python sorts str): (a bytearray of their UTF-8 back to back,
        int64[len + 1] offsets into it from 0, int64[len] counts). For writing a large table without a str
        per entry (parquet's string column is built from the two buffers).
        """
        cdef int64_t n = self._counts.size(), k, e, start, size, at = 0
        order = np.empty(n, dtype=np.int64)
        offsets = np.empty(n + 1, dtype=np.int64)
        counts = np.empty(n, dtype=np.int64)
        text = bytearray(self._text.size())
        cdef int64_t[::1] ov = order, fv = offsets, cv = counts
        cdef char* out = text
        with nogil:
            if n:
                hfg_sort_entries(self._text.data(), self._ends.data(), self._counts.data(), n, &ov[0])
            fv[0] = 0
            for k in range(n):
                e = ov[k]
                start = self._ends[e - 1] if e else 0
                size = self._ends[e] - start
                memcpy(out + at, self._text.data() + start, size)
                at += size
                fv[k + 1] = at
                cv[k] = self._counts[e]
        return text, offsets, counts

    @property
    def memory_bytes(self) -> int:
        """The bytes the table's vectors hold now (their capacities: text, three int64 and the
        4-byte slots per entry), what a caller bounding memory counts against its limit."""
        return (self._text.capacity() + 8 * (self._ends.capacity() + self._counts.capacity()
                + self._hashes.capacity()) + 4 * self._slots.size())

    def reserve(self, int64_t text_bytes, int64_t entries) -> None:
        """Hold room for ``text_bytes`` bytes of UTF-8 and ``entries`` entries, so that a table
        filled no further never moves its text or its per-entry vectors (address space: their
        pages are touched as they fill). The hash slots still double as entries come (4 to 16
        bytes an entry), so a table reserved large but filled little stays small.

        Raises:
            ValueError: a negative size, or more than 2**32-2 entries.
        """
        if text_bytes < 0 or entries < 0 or entries > _MAX_ENTRIES:
            raise ValueError(f"cannot reserve {text_bytes} bytes and {entries} entries")
        with nogil:
            self._text.reserve(text_bytes)
            self._ends.reserve(entries)
            self._counts.reserve(entries)
            self._hashes.reserve(entries)

    def clear(self) -> None:
        """Drop every entry, keeping the memory reserved and the slots grown (the next fill to
        the same size reallocates nothing)."""
        self._text.clear()
        self._ends.clear()
        self._counts.clear()
        self._hashes.clear()
        self._slots.assign(self._slots.size(), 0)

    cdef int64_t _partition_offsets(self, int bits, int64_t* off) noexcept nogil:
        """off[0..2**bits]: where each partition's records start when written grouped by
        partition (partition p: entries with h >> (64 - bits) = p, all of them for bits 0); the
        records' total bytes is returned."""
        cdef int64_t parts = 1 << bits, e, p, start = 0
        for p in range(parts + 1):
            off[p] = 0
        for e in range(<int64_t>self._counts.size()):
            p = 0 if bits == 0 else <int64_t>(self._hashes[e] >> (64 - bits))
            off[p + 1] += 12 + self._ends[e] - start
            start = self._ends[e]
        for p in range(parts):
            off[p + 1] += off[p]
        return off[parts]

    cdef inline int64_t _put_record(self, int64_t e, char* out) noexcept nogil:
        """Writes entry e's record at ``out`` (length uint32, count int64, UTF-8: x86-64 and
        aarch64 are little-endian, as the format); returns its size."""
        cdef int64_t start = self._ends[e - 1] if e else 0
        cdef uint32_t length = <uint32_t>(self._ends[e] - start)
        memcpy(out, &length, 4)
        memcpy(out + 4, &self._counts[e], 8)
        memcpy(out + 12, self._text.data() + start, length)
        return 12 + length

    def partition_records(self, int bits):
        """The entries as records grouped by hash partition: partition p holds the entries whose
        XXH64 h has ``h >> (64 - bits)`` = p (0 for every entry when ``bits`` is 0), each in
        table order. A record is the entry's byte length (uint32, little-endian), its count
        (int64, little-endian) and its UTF-8; :meth:`add_records` reads them back.

        Returns:
            (bytearray of every record, int64[2**bits + 1] offsets: partition p is
            ``records[offsets[p]:offsets[p + 1]]``).

        Raises:
            ValueError: ``bits`` outside 0..16.
        """
        if not 0 <= bits <= 16:
            raise ValueError(f"bits must be in 0..16, got {bits}")
        offsets = np.empty((1 << bits) + 1, dtype=np.int64)
        cdef int64_t[::1] off = offsets
        cdef int64_t e, p
        cdef vector[int64_t] cursor
        with nogil:
            self._partition_offsets(bits, &off[0])
            cursor.assign(&off[0], &off[0] + (1 << bits))
        records = bytearray(off[1 << bits])
        cdef char* out = NULL
        if off[1 << bits]:
            out = records
        with nogil:
            for e in range(<int64_t>self._counts.size()):
                p = 0 if bits == 0 else <int64_t>(self._hashes[e] >> (64 - bits))
                cursor[p] += self._put_record(e, out + cursor[p])
        return records, offsets

    def write_partition_records(self, path, int bits):
        """Write :meth:`partition_records`' records to the new file ``path`` (its bytes are
        exactly that bytearray's), without holding them in memory: 4 bytes per entry and a
        4 MB buffer besides the table.

        Returns:
            int64[2**bits + 1]: the partitions' offsets in the file.

        Raises:
            ValueError: ``bits`` outside 0..16. OSError: the file exists already, or cannot be
                created or written (errno kept: a full disk is ENOSPC); a partial file is removed.
        """
        if not 0 <= bits <= 16:
            raise ValueError(f"bits must be in 0..16, got {bits}")
        cdef bytes name = os.fsencode(path)
        offsets = np.empty((1 << bits) + 1, dtype=np.int64)
        cdef int64_t[::1] off = offsets
        cdef int64_t n = self._counts.size(), e, p, at = 0, size
        cdef vector[int64_t] cursor
        cdef vector[uint32_t] order
        cdef vector[char] buffer
        cdef FILE* f = fopen(name, "wbx")     # a new file only: what fails is ours to remove
        cdef int failed = 0
        if f == NULL:
            raise OSError(errno, os.strerror(errno), os.fsdecode(name))
        with nogil:
            self._partition_offsets(bits, &off[0])
            # a counting sort of the entries by partition (entry ids; records are written in that order)
            cursor.assign((1 << bits) + 1, 0)
            for e in range(n):
                p = 0 if bits == 0 else <int64_t>(self._hashes[e] >> (64 - bits))
                cursor[p + 1] += 1
            for p in range(1 << bits):
                cursor[p + 1] += cursor[p]
            order.resize(n)
            for e in range(n):
                p = 0 if bits == 0 else <int64_t>(self._hashes[e] >> (64 - bits))
                order[cursor[p]] = <uint32_t>e
                cursor[p] += 1
            buffer.resize(_WRITE_BUFFER)
            for p in range(n):
                e = order[p]
                size = 12 + self._ends[e] - (self._ends[e - 1] if e else 0)
                if at + size > _WRITE_BUFFER:
                    if at and fwrite(buffer.data(), 1, at, f) != <size_t>at:
                        failed = 1
                        break
                    at = 0
                    if size > _WRITE_BUFFER:
                        buffer.resize(size)
                at += self._put_record(e, buffer.data() + at)
            if not failed and at and fwrite(buffer.data(), 1, at, f) != <size_t>at:
                failed = 1
            if fclose(f) != 0:
                failed = 1
        if failed:
            code = errno
            try:
                os.unlink(name)
            except OSError:
                pass
            raise OSError(code, os.strerror(code), os.fsdecode(name))
        return offsets

    def add_records(self, data) -> None:
        """Add every record of ``data`` (a bytes-like buffer of :meth:`partition_records`'
        records, back to back), equal entries summed, new ones in the buffer's order.

        Raises:
            ValueError: a record cut short or a count below 1 (the buffer is not records).
            OverflowError: a total above 2**63-1.
        """
        cdef const unsigned char[::1] dv = np.frombuffer(data, dtype=np.uint8)
        cdef int64_t size = dv.shape[0], at = 0, count
        cdef uint32_t length
        cdef const char* s = <const char*>&dv[0] if size else <const char*>""
        cdef int bad = 0
        with nogil:
            while at < size:
                if size - at < 12:
                    bad = 1
                    break
                memcpy(&length, s + at, 4)
                memcpy(&count, s + at + 4, 8)
                if size - at - 12 < <int64_t>length:
                    bad = 1
                    break
                if count < 1:
                    bad = 2
                    break
                self._add(s + at + 12, length, hfg_xxh64(s + at + 12, length), count)
                at += 12 + length
        if bad == 1:
            raise ValueError(f"chunk records cut short at byte {at} of {size}")
        if bad == 2:
            raise ValueError(f"a chunk record's count must be >= 1, got {count} at byte {at}")

    def __iter__(self):
        """The entries (str), in table order."""
        cdef int64_t e, start = 0
        for e in range(<int64_t>self._counts.size()):
            yield self._text.data()[start:self._ends[e]].decode("utf-8", "surrogatepass")
            start = self._ends[e]

    def to_dict(self) -> dict:
        """{chunk: count} (str keys, Python ints), in table order."""
        cdef dict out = {}
        cdef int64_t e, start = 0
        cdef const char* s = self._text.data()
        for e in range(<int64_t>self._counts.size()):
            out[s[start:self._ends[e]].decode("utf-8", "surrogatepass")] = self._counts[e]
            start = self._ends[e]
        return out

    def __reduce__(self):
        # pickled (to and from worker processes) as the bytes, ends and counts; hashes are
        # computed again on arrival
        cdef int64_t size = self._text.size()
        text = PyBytes_FromStringAndSize(self._text.data(), size)
        ends = np.asarray(<int64_t[:self._ends.size()]>self._ends.data()).copy() if self._ends.size() \
            else np.empty(0, np.int64)
        return _from_parts, (text, ends, self.counts())


def _from_parts(bytes text not None, ends, counts) -> ChunkTable:
    """The table pickled as its UTF-8 ``text``, entry ``ends`` (int64) and ``counts`` (int64)."""
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    if ends.shape[0] and ends[ends.shape[0] - 1] != PyBytes_GET_SIZE(text):
        raise ValueError("a chunk table's parts do not agree")
    return table_from_buffers(text, np.concatenate([np.zeros(1, np.int64), ends]), counts)


def table_from_buffers(data, offsets, counts) -> ChunkTable:
    """A table of entry e = ``data[offsets[e]:offsets[e + 1]]`` (UTF-8) with ``counts[e]``, added
    in order (equal entries summed): Arrow's layout of a string column (a ``large_string``
    array's data buffer and offsets), so a table Ray or parquet holds becomes a chunk table with
    no str per entry.

    Args:
        data: a buffer of bytes (bytes, a pyarrow Buffer, a numpy uint8 array; None: empty).
        offsets: int64[n + 1], non-decreasing, within ``data`` (the first need not be 0).
        counts: int64[n], each 1..2**63-1.

    Raises:
        ValueError: offsets and counts that do not agree, offsets outside ``data`` or
            decreasing, or a count below 1. OverflowError: a total above 2**63-1.
    """
    cdef const unsigned char[::1] dv = np.frombuffer(b"" if data is None else data, dtype=np.uint8)
    cdef const int64_t[::1] ov = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const int64_t[::1] cv = np.ascontiguousarray(counts, dtype=np.int64)
    cdef ChunkTable t = ChunkTable()
    cdef int64_t e, n = cv.shape[0], size = dv.shape[0], a, b
    cdef const char* s = <const char*>&dv[0] if size else <const char*>""
    if ov.shape[0] != n + 1:
        raise ValueError(f"a chunk table's parts do not agree: {ov.shape[0]} offsets for {n} counts")
    if n and (ov[0] < 0 or ov[n] > size):
        raise ValueError(f"a chunk table's offsets run from {ov[0]} to {ov[n]}, outside its {size} bytes")
    for e in range(n):
        if ov[e + 1] < ov[e]:
            raise ValueError(f"a chunk table's offsets decrease at entry {e}")
        if cv[e] < 1:
            raise ValueError(f"a chunk table's count must be >= 1, got {cv[e]} at entry {e}")
    with nogil:
        t._text.reserve(ov[n] - ov[0] if n else 0)
        for e in range(n):
            a = ov[e]
            b = ov[e + 1]
            t._add(s + a, b - a, hfg_xxh64(s + a, b - a), cv[e])
    return t
