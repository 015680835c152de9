# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The native pre-tokenizer: the split patterns we ship, as hand-written scanners over code points.

``split_words`` (see _pretokenize.pxd) gives exactly the words ``regex.findall(PATTERN, s)``
gives, for the patterns of the split registry, hf_greedtok/pre_tokenizers/patterns.py (its
``native_id`` of each split is the ``PATTERN_*`` id here; this module holds no pattern string, and
tests/pre_tokenizers/test_native_split.py checks that the ids agree and that each scanner splits as ``regex``):

* ``PATTERN_GPT4``: ``GPT4``, tiktoken's cl100k_base split as this package ships it
  (``\\p{L}+``, ``\\p{N}{1,3}``, ``\\s*[\\r\\n]|\\s+(?!\\S)|\\s+``).
* ``PATTERN_GPT2``: ``GPT2``, GPT-2's (r50k_base) split.
* ``PATTERN_O200K``: ``O200K``, tiktoken's o200k_base split (GPT-4o).
* ``PATTERN_WHITESPACE``: ``WHITESPACE``, the GreedTok paper's space-delimited words.
* ``PATTERN_GPT4_MARKS``: ``GPT4_MARKS``, GPT-4's split whose letter runs are
  ``[\\p{L}\\p{M}]+``, so combining marks (Devanagari vowel signs, viramas) stay in their words,
  as in o200k's letter classes.
* ``PATTERN_SUPERWORDS``: ``SUPERWORDS``, the chunk splitter for tokens that span words: a chunk
  is a run, within one line, of GPT4_MARKS letter words and of single punctuation characters
  (one space may precede one) not next to another punctuation character, with the line ends
  after it; digits, runs of 2+ punctuation (with their line ends, as GPT-4's) and other
  whitespace stay apart as in GPT-4's split.
* ``PATTERN_SUPERWORDS_DIGITS``: ``SUPERWORDS_DIGITS``, the same chunks with digits as letters:
  a chunk's runs are of letters, marks and digits.

Each scanner replays the backtracking search of ``regex`` for one word: the leftmost alternative
that matches wins, possessive quantifiers (``?+``, ``++``) never give back, greedy ones give back
one code point at a time (``\\s+(?!\\S)`` leaves the last space before a non-space to the next word;
``\\s*[\\r\\n]`` ends at the last CR/LF of a whitespace run; o200k's optional prefix and its two
overlapping letter classes fall back to shorter matches). Character classes come from
``_unicode_props.h``, generated from the installed ``regex`` by gen_unicode_props.py, so
``\\p{L}``, ``\\s``, the case-insensitive contraction letters (``(?i:s)`` also matches U+017F
LATIN SMALL LETTER LONG S) and lone surrogates (no class at all) are exactly those of ``regex``.

The scanners live in _scanners.pxd (inline, so the encoder's text loop compiles them in too).
GPT-4's split of a text of 32+ code points (and GPT4_MARKS's of an ASCII one) goes another way:
blocks of 64 code points classified into bitmasks, the word starts found by bit operations
(_gpt4_blocks.h), the rare cases it leaves (digit runs, contractions, whitespace after a line
end) fixed up here one code point at a time. Both paths are tested against ``regex``.

Every offset is in code points. Every pattern matches each code point, so the words tile the text.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libcpp.vector cimport vector
from cpython.ref cimport PyObject

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject*) nogil
    int PyUnicode_KIND(PyObject*) nogil
    void* PyUnicode_DATA(PyObject*) nogil
    int PyUnicode_IS_ASCII(PyObject*) nogil


cdef extern from "_gpt4_blocks.h" nogil:
    ctypedef struct hfg_block_classes:
        uint64_t L, N, W, NL, SP, AP, valid
    hfg_block_classes hfg_ascii_classify(const uint8_t* b, int64_t m)
    void hfg_gpt4_block_rules(const hfg_block_classes* cls, int64_t blocks, uint64_t* starts, uint64_t* fix)
    uint64_t hfg_high_bytes(const uint8_t* b, int64_t m)

cdef extern from *:
    int __builtin_popcountll(unsigned long long x) nogil

cdef enum:
    _CLASS_WORDS = sizeof(hfg_block_classes) // sizeof(uint64_t)

cdef uint64_t _ALL = 0xFFFFFFFFFFFFFFFFULL
cdef uint64_t _EVERY_THIRD = 0x9249249249249248ULL     # bits 3, 6, .., 63


# Texts of at least this many code points are split 64 at a time under GPT-4's split (and ASCII
# ones under GPT4_MARKS); shorter ones cost less to scan word by word than to classify (tests
# set 0 and a huge value to run every text through each path).
cdef int64_t _blocks_min_units = 32


def _set_blocks_min_units(int64_t n):
    """Test hook: texts of at least ``n`` code points take the 64-code-point block split where
    :func:`use_blocks` allows it; returns the old bound."""
    global _blocks_min_units
    old = _blocks_min_units
    _blocks_min_units = max(0, n)
    return old


cdef bint use_blocks(int pattern, int64_t n, bint ascii) noexcept nogil:
    """Whether a text of n code points (``ascii``: all below 0x80) under ``pattern`` is split 64
    code points at a time (_gpt4_blocks.h): under GPT-4's split; under GPT4_MARKS, whose letter
    runs take marks, when ASCII (no marks: it splits as GPT-4's); when long enough to pay for
    the classification."""
    return (pattern == PATTERN_GPT4 or (pattern == PATTERN_GPT4_MARKS and ascii)) \
        and n >= max(_blocks_min_units, 1)


ctypedef fused block_unit_t:     # a str's own data, any kind: the block split reads it in place
    uint8_t
    uint16_t
    uint32_t


cdef inline uint16_t _block_props(block_unit_t cp) noexcept nogil:
    if block_unit_t is uint8_t:
        return _props(<uint8_t>cp)
    else:
        return _props(<uint32_t>cp)


cdef inline void _classify(const block_unit_t* t, int64_t m, bint ascii, hfg_block_classes* c) noexcept nogil:
    """The classes of the block t[0:m] (1 <= m <= 64): its ASCII code points sixteen at a time
    (a code point past ASCII reads as 0x80 there, "other"), then each other code point's from
    _unicode_props.h (``ascii``: the text is known to be ASCII). CR, LF, space and apostrophe
    are ASCII, so only the letter, digit and whitespace classes need the table."""
    cdef uint8_t packed[64]
    cdef int64_t k
    cdef uint64_t high
    cdef uint16_t p
    if block_unit_t is uint8_t:
        if ascii:
            c[0] = hfg_ascii_classify(t, m)
            return
        high = hfg_high_bytes(t, m)
        c[0] = hfg_ascii_classify(t, m)     # a byte of 0x80+ is no ASCII class: "other"
    else:
        for k in range(m):
            packed[k] = <uint8_t>min(t[k], <block_unit_t>0x80)    # a loop the compiler vectorizes
        high = hfg_high_bytes(packed, m)
        c[0] = hfg_ascii_classify(packed, m)
    # the other code points: a few in most blocks of most texts (a name, a dash, a quote), all
    # of them in Chinese; their masks gather in locals, shifted in without a branch on the
    # class (OR-ing each bit into *c, as this loop first did, made a load-modify-store chain
    # through memory: Chinese text split at 234 MB/s)
    cdef uint64_t L = c.L, N = c.N, W = c.W, bit
    while high:
        k = hfg_ctz64(high)
        bit = high & (~high + 1)
        high ^= bit
        p = _block_props(t[k])
        L |= bit & (<uint64_t>0 - ((p & HFG_L) != 0))
        N |= bit & (<uint64_t>0 - ((p & HFG_N) != 0))
        W |= bit & (<uint64_t>0 - ((p & HFG_S) != 0))
    c.L, c.N, c.W = L, N, W


cdef inline void _set_bit(uint64_t* bits, int64_t i) noexcept nogil:
    bits[i >> 6] |= <uint64_t>1 << (i & 63)


cdef int64_t _block_starts(const block_unit_t* t, int64_t n, bint ascii, vector[uint64_t]& scratch) except -1 nogil:
    """The word starts of GPT-4's split of t[0:n] (n >= 1), bit i % 64 of scratch[i // 64], one
    word of 64 bits per block of 64 code points; returns the number of blocks. scratch also holds
    the blocks' classes (_gpt4_blocks.h makes the starts from them), then the fix-ups: digit
    runs and whitespace after a run's line end from the block's masks when the run ends in its
    block (else one code point at a time), contractions one code point at a time. Each kind has
    its own loop: one loop branching on the kind mispredicted at most fix-ups (English text has
    one or two a block)."""
    cdef int64_t blocks = (n + 63) >> 6, b, i, e, k
    if scratch.size() < <size_t>((2 + _CLASS_WORDS) * blocks):     # only grows: no fill per text
        scratch.resize((2 + _CLASS_WORDS) * blocks)
    cdef uint64_t* starts = scratch.data()
    cdef uint64_t* fix = starts + blocks
    cdef hfg_block_classes* cls = <hfg_block_classes*>(starts + 2 * blocks)
    for b in range(blocks):
        _classify(t + (b << 6), min(<int64_t>64, n - (b << 6)), ascii, &cls[b])
    hfg_gpt4_block_rules(cls, blocks, starts, fix)
    cdef uint64_t bits, run, other
    cdef int64_t j, length
    for b in range(blocks):
        if not fix[b]:
            continue
        # \p{N}{1,3}: a word every three digits of a run that starts here
        bits = fix[b] & cls[b].N
        while bits:
            j = hfg_ctz64(bits)
            bits &= bits - 1
            run = cls[b].N >> j
            length = 64 - j if run == _ALL else hfg_ctz64(~run)
            if j + length < 64:
                # the run ends in this block: its every third digit at once
                starts[b] |= (_EVERY_THIRD << j) & (((<uint64_t>1 << length) - 1) << j)
            else:
                i = (b << 6) + j
                e = i + length
                while e < n and _block_props(t[e]) & HFG_N:
                    e += 1
                k = i + 3
                while k < e:
                    _set_bit(starts, k)
                    k += 3
        # whitespace right after a line end: \s*[\r\n] ended at the run's last line end, so
        # it starts a word unless another line end follows the spaces after it
        bits = fix[b] & cls[b].W
        other = cls[b].W & ~cls[b].NL
        while bits:
            j = hfg_ctz64(bits)
            bits &= bits - 1
            run = other >> j
            length = 64 - j if run == _ALL else hfg_ctz64(~run)
            e = (b << 6) + j + length
            if j + length < 64:
                if not (e < n and (cls[b].NL >> (j + length)) & 1):
                    starts[b] |= <uint64_t>1 << j
            else:
                while e < n and _block_props(t[e]) & HFG_S and t[e] != _CR and t[e] != _LF:
                    e += 1
                if not (e < n and (t[e] == _CR or t[e] == _LF)):
                    _set_bit(starts, (b << 6) + j)
        # '(?i:[sdmt]|ll|ve|re) at a word's start: the next word starts after it
        bits = fix[b] & cls[b].AP
        while bits:
            i = (b << 6) + hfg_ctz64(bits)
            bits &= bits - 1
            if i + 2 < n and _contraction2(_block_props(t[i + 1])):
                _set_bit(starts, i + 2)
            elif i + 3 < n and _contraction3(_block_props(t[i + 1]), _block_props(t[i + 2])):
                _set_bit(starts, i + 3)
    return blocks


cdef int64_t block_starts_str(int kind, const void* data, int64_t n, bint ascii,
                              vector[uint64_t]& scratch) except -1 nogil:
    """:func:`_block_starts` of a str's own data, read in place: ``kind`` 1, 2 or 4 bytes a code
    point (PyUnicode_KIND), n >= 1 code points, ``ascii`` its flag (PyUnicode_IS_ASCII).

    Raises (as -1 with the Python exception set):
        MemoryError: the scratch (72 bytes per 64 code points) could not grow.
    """
    if kind == 1:
        return _block_starts(<const uint8_t*>data, n, ascii, scratch)
    if kind == 2:
        return _block_starts(<const uint16_t*>data, n, False, scratch)
    return _block_starts(<const uint32_t*>data, n, False, scratch)


cdef int64_t _block_ends(const uint64_t* starts, int64_t blocks, int64_t n, vector[int64_t]* ends) except -1 nogil:
    """The number of words whose starts are the bits of starts[0:blocks] (of a text of n code
    points); their ends appended to ``ends`` unless it is NULL."""
    cdef int64_t b, words = 0
    cdef uint64_t bits
    for b in range(blocks):
        words += __builtin_popcountll(starts[b])
        if ends != NULL:
            bits = starts[b] & ~(<uint64_t>(b == 0))     # a word starts at 0: no end there
            while bits:
                ends.push_back((b << 6) + hfg_ctz64(bits))
                bits &= bits - 1
    if ends != NULL:
        ends.push_back(n)
    return words


cdef int64_t _split(int pattern, const unit_t* text, int64_t n, bint ascii, vector[int64_t]* ends) except -1 nogil:
    """The number of words of text[0:n] under ``pattern``; their ends are appended to ``ends``
    unless it is NULL (counting alone: the block path then only counts its start bits)."""
    cdef int64_t i = 0, words = 0, blocks
    cdef vector[uint64_t] scratch
    if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
        with gil:
            raise ValueError(f"no native pre-tokenizer for pattern id {pattern}")
    if use_blocks(pattern, n, ascii):
        blocks = _block_starts(text, n, ascii, scratch)     # grows scratch: its data are read after
        return _block_ends(scratch.data(), blocks, n, ends)
    while i < n:
        i = word_end(pattern, text, i, n)
        words += 1
        if ends != NULL:
            ends.push_back(i)
    return words


cdef int64_t split_words(int pattern, const uint32_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """Appends to ``ends`` the end offset (exclusive, in code points from ``text``) of each word of
    text[0:n] under ``pattern`` (a PATTERN_* id); returns the number of words appended.

    Raises (as -1 with the Python exception set):
        ValueError: ``pattern`` is not a PATTERN_* id with a native scanner (takes the GIL).
        MemoryError: ``ends`` could not grow (std::bad_alloc).
    """
    return _split(pattern, text, n, False, &ends)


cdef int64_t split_words_latin1(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """:func:`split_words` of a text whose code points are all below 256, given as one byte
    each (a str's own data when its kind is 1: nothing to widen)."""
    return _split(pattern, text, n, False, &ends)


cdef int64_t split_words_ascii(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """:func:`split_words_latin1` of a text known to be ASCII (a str's flag)."""
    return _split(pattern, text, n, True, &ends)


cdef int64_t _scan_str(int pattern, str text, vector[int64_t]* ends) except -1:
    """The number of words of ``text`` under ``pattern``, their ends appended to ``ends`` unless
    it is NULL; read from the str's own data (the block split reads every kind in place; the
    word scanners read 1- and 4-byte kinds in place and a 2-byte str widened), without the GIL.

    Raises:
        ValueError: ``pattern`` is not the id of a native scanner (e.g. PATTERN_NONE).
        MemoryError: the word offsets (8 bytes a word), the block scratch (72 bytes per 64 code
            points) or a 2-byte str's widened copy (4 bytes a code point) could not be allocated.
    """
    if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
        raise ValueError(f"no native pre-tokenizer for pattern id {pattern}; split with regex.findall "
                         "(the native ones: hf_greedtok.pre_tokenizers.patterns.SPLITS)")
    cdef PyObject* obj = <PyObject*>text
    cdef int64_t n = PyUnicode_GET_LENGTH(obj), k, words, blocks
    cdef int kind = PyUnicode_KIND(obj)
    cdef bint ascii = PyUnicode_IS_ASCII(obj)
    cdef void* data = PyUnicode_DATA(obj)
    cdef vector[uint32_t] wide
    cdef vector[uint64_t] scratch
    with nogil:
        if use_blocks(pattern, n, ascii):
            # the blocks read a 2-byte str in place too
            blocks = block_starts_str(kind, data, n, ascii, scratch)
            words = _block_ends(scratch.data(), blocks, n, ends)
        elif kind == 1:
            words = _split(pattern, <const uint8_t*>data, n, ascii, ends)
        elif kind == 4:
            words = _split(pattern, <const uint32_t*>data, n, False, ends)
        else:
            wide.resize(n)
            for k in range(n):
                wide[k] = (<const unsigned short*>data)[k]
            words = _split(pattern, <const uint32_t*>wide.data(), n, False, ends)
    return words


def split(int pattern, str text not None) -> list:
    """``regex.findall(PATTERN, text)``, computed by the native scanner ``pattern`` (a ``PATTERN_*``
    id: ``native_id`` of hf_greedtok.pre_tokenizers.patterns): the words of ``text`` in order,
    which concatenate to ``text``. :meth:`hf_greedtok.ByteLevel.pre_tokenize` calls it; the
    encoders call ``split_words`` on code points directly.

    Raises:
        ValueError: ``pattern`` is not the id of a native scanner (e.g. PATTERN_NONE).
        MemoryError: the word offsets (8 bytes a word) could not be allocated.
    """
    cdef vector[int64_t] ends
    _scan_str(pattern, text, &ends)
    return _slices(text, ends)


cdef list _slices(str text, const vector[int64_t]& ends):
    """The pieces of ``text`` that end at ``ends`` (ascending code point offsets, the last one
    the text's length)."""
    cdef list pieces = []
    cdef int64_t start = 0
    cdef size_t k
    for k in range(ends.size()):
        pieces.append(text[start:ends[k]])
        start = ends[k]
    return pieces


def count_words(int pattern, str text not None) -> int:
    """The number of words ``split(pattern, text)`` gives, computed by the pre-tokenizer alone
    without the GIL: no Python object and no offset is kept per word (a 2-byte str the block
    split does not take is widened first, as :func:`split` does). What benchmarks time as the
    pre-tokenizer alone; writing 2.4M word ends would time the allocator (33 MB, faulted in
    afresh on each call) instead.

    Raises:
        ValueError: ``pattern`` is not the id of a native scanner (e.g. PATTERN_NONE).
        MemoryError: the block scratch (72 bytes per 64 code points), or a 2-byte str's widened
            copy (4 bytes a code point), could not be allocated.
    """
    return _scan_str(pattern, text, NULL)


cdef inline int64_t _cp_units(uint32_t cp, bint utf8) noexcept nogil:
    # a lone surrogate counts 3, as the U+FFFD the trainer's singletons put in its place
    if not utf8 or cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    return 3 if cp < 0x10000 else 4


cdef int64_t _pack(int pattern, const unit_t* text, int64_t n, int64_t limit, bint utf8,
                   vector[int64_t]& ends) except -1 nogil:
    cdef int64_t i = 0, e, k, u, word, piece = 0
    cdef bint scanned = PATTERN_GPT4 <= pattern <= PATTERN_LAST
    while i < n:
        e = word_end(pattern, text, i, n) if scanned else n
        word = 0
        for k in range(i, e):
            word += _cp_units(text[k], utf8)
        if piece + word <= limit:
            piece += word
        else:
            if piece:
                ends.push_back(i)
            piece = 0
            if word <= limit:
                piece = word
            else:
                # A word longer than a piece: cut at the last character that fits, so no
                # character's bytes are split between two pieces.
                for k in range(i, e):
                    u = _cp_units(text[k], utf8)
                    if piece + u > limit:
                        ends.push_back(k)
                        piece = 0
                    piece += u
        i = e
    if n:
        ends.push_back(n)
    return <int64_t>ends.size()


def pack_words(int pattern, str text not None, int64_t limit, bint utf8) -> list:
    """``text`` cut into pieces of at most ``limit`` units each (UTF-8 bytes when ``utf8``, else
    code points, a lone surrogate counting as the 3 bytes of U+FFFD): the words of ``pattern``
    (a ``PATTERN_*`` id; ``PATTERN_NONE``: the whole text is one word) packed greedily, as many
    consecutive words to a piece as fit, and a word longer than ``limit`` cut before the first
    code point that would pass it (the rest of it opens the next piece). The pieces concatenate
    to ``text``; none is empty; ``[text]`` when it fits, [] for "". Word ends come from the
    scanner one word at a time (not the block path): it runs only on the rare text too long for
    the trainer, so :func:`split`'s speed is not needed here, and no Python object is made per word.

    Raises:
        ValueError: ``limit`` below 4 with ``utf8`` (a character may need 4) or below 1.
        MemoryError: a 2-byte str's widened copy (4 bytes a code point) could not be allocated.
    """
    if limit < (4 if utf8 else 1):
        raise ValueError(f"limit must be at least {4 if utf8 else 1} units, got {limit}")
    cdef PyObject* obj = <PyObject*>text
    cdef int64_t n = PyUnicode_GET_LENGTH(obj), k
    cdef int kind = PyUnicode_KIND(obj)
    cdef void* data = PyUnicode_DATA(obj)
    cdef vector[uint32_t] wide
    cdef vector[int64_t] ends
    with nogil:
        if kind == 1:
            _pack(pattern, <const uint8_t*>data, n, limit, utf8, ends)
        elif kind == 4:
            _pack(pattern, <const uint32_t*>data, n, limit, utf8, ends)
        else:
            wide.resize(n)
            for k in range(n):
                wide[k] = (<const unsigned short*>data)[k]
            _pack(pattern, <const uint32_t*>wide.data(), n, limit, utf8, ends)
    return _slices(text, ends)
