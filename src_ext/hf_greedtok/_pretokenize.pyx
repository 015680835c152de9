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


cdef int64_t _split(int pattern, const unit_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    cdef int64_t i = 0
    cdef int64_t count = 0
    if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
        with gil:
            raise ValueError(f"no native pre-tokenizer for pattern id {pattern}")
    while i < n:
        i = word_end(pattern, text, i, n)
        ends.push_back(i)
        count += 1
    return count


cdef int64_t split_words(int pattern, const uint32_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """Appends to ``ends`` the end offset (exclusive, in code points from ``text``) of each word of
    text[0:n] under ``pattern`` (a PATTERN_* id); returns the number of words appended.

    Raises (as -1 with the Python exception set):
        ValueError: ``pattern`` is not a PATTERN_* id with a native scanner (takes the GIL).
        MemoryError: ``ends`` could not grow (std::bad_alloc).
    """
    return _split(pattern, text, n, ends)


cdef int64_t split_words_latin1(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """:func:`split_words` of a text whose code points are all below 256, given as one byte
    each (a str's own data when its kind is 1: nothing to widen)."""
    return _split(pattern, text, n, ends)


# ASCII texts of at least this many bytes are split 64 bytes at a time under GPT-4's split;
# shorter ones cost less to scan word by word than to classify (tests set 0 and a huge value to
# run every text through each path).
cdef int64_t _blocks_min_bytes = 32


def _set_blocks_min_bytes(int64_t n):
    """Test hook: ASCII texts of at least ``n`` bytes (under GPT-4's split) take the 64-byte block
    split; returns the old bound."""
    global _blocks_min_bytes
    old = _blocks_min_bytes
    _blocks_min_bytes = max(0, n)
    return old


cdef bint use_blocks(int pattern, int64_t n) noexcept nogil:
    """Whether an ASCII text of n bytes under ``pattern`` is split 64 bytes at a time
    (_gpt4_blocks.h): under GPT-4's split and GPT4_MARKS (which splits ASCII alike), when it is
    long enough to pay for the classification."""
    return (pattern == PATTERN_GPT4 or pattern == PATTERN_GPT4_MARKS) and n >= max(_blocks_min_bytes, 1)


cdef int64_t split_words_ascii(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    """:func:`split_words` of an ASCII text given as its bytes: from the word starts of 64-byte
    blocks (_gpt4_blocks.h) when :func:`use_blocks`, else by the scanner."""
    if not use_blocks(pattern, n):
        return _split(pattern, text, n, ends)
    cdef int64_t blocks = (n + 63) >> 6, b, before = ends.size()
    cdef vector[uint64_t] starts, fix
    starts.resize(blocks)
    fix.resize(blocks)
    hfg_gpt4_ascii_starts(text, n, starts.data(), fix.data())
    cdef uint64_t bits
    for b in range(blocks):
        bits = starts[b] & ~(<uint64_t>(b == 0))     # a word starts at 0: no end there
        while bits:
            ends.push_back((b << 6) + hfg_ctz64(bits))
            bits &= bits - 1
    ends.push_back(n)
    return <int64_t>ends.size() - before


cdef int _scan_str(int pattern, str text, vector[int64_t]& ends) except -1:
    """Appends to ``ends`` the word ends of ``text`` under ``pattern``, read from the str's own
    data (1-byte kind as is, 4-byte as is, 2-byte widened), the scanner without the GIL.

    Raises:
        ValueError: ``pattern`` is not the id of a native scanner (e.g. PATTERN_NONE).
        MemoryError: the word offsets (8 bytes a word) could not be allocated.
    """
    if not PATTERN_GPT4 <= pattern <= PATTERN_LAST:
        raise ValueError(f"no native pre-tokenizer for pattern id {pattern}; split with regex.findall "
                         "(the native ones: hf_greedtok.pre_tokenizers.patterns.SPLITS)")
    cdef PyObject* obj = <PyObject*>text
    cdef int64_t n = PyUnicode_GET_LENGTH(obj), k
    cdef int kind = PyUnicode_KIND(obj)
    cdef bint ascii = PyUnicode_IS_ASCII(obj)
    cdef void* data = PyUnicode_DATA(obj)
    cdef vector[uint32_t] wide
    with nogil:
        if kind == 1 and ascii:
            split_words_ascii(pattern, <const uint8_t*>data, n, ends)
        elif kind == 1:
            split_words_latin1(pattern, <const uint8_t*>data, n, ends)
        elif kind == 4:
            split_words(pattern, <const uint32_t*>data, n, ends)
        else:
            wide.resize(n)
            for k in range(n):
                wide[k] = (<const unsigned short*>data)[k]
            split_words(pattern, wide.data(), n, ends)
    return 0


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
    _scan_str(pattern, text, ends)
    cdef list words = []
    cdef int64_t start = 0, end
    for end in ends:
        words.append(text[start:end])
        start = end
    return words


def count_words(int pattern, str text not None) -> int:
    """The number of words ``split(pattern, text)`` gives, computed by the scanner alone (no
    Python object per word): what benchmarks time as the pre-tokenizer alone.

    Raises:
        ValueError, MemoryError: as :func:`split`.
    """
    cdef vector[int64_t] ends
    _scan_str(pattern, text, ends)
    return <int64_t>ends.size()
