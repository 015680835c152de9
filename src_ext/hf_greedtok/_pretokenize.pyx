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

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t
from libcpp.vector cimport vector
from cpython.ref cimport PyObject

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject*) nogil
    int PyUnicode_KIND(PyObject*) nogil
    void* PyUnicode_DATA(PyObject*) nogil

cdef extern from "_ascii_runs.h" nogil:
    enum:
        HFG_ASCII_LETTERS
        HFG_ASCII_UPPER
        HFG_ASCII_LOWER
    int64_t hfg_ascii_run_end(const uint8_t* t, int64_t i, int64_t n, int cls)
    int64_t hfg_ascii_run_end32(const uint32_t* t, int64_t i, int64_t n, int cls)

cdef extern from "_unicode_props.h" nogil:
    uint16_t hfg_props(uint32_t cp)
    enum:
        HFG_L
        HFG_N
        HFG_S
        HFG_UPPER
        HFG_LOWER
        HFG_M
        HFG_CI_S
        HFG_CI_D
        HFG_CI_M
        HFG_CI_T
        HFG_CI_L
        HFG_CI_V
        HFG_CI_R
        HFG_CI_E

cdef enum:
    _LNS = HFG_L | HFG_N | HFG_S   # a code point with none of these is "other": [^\s\p{L}\p{N}]
    _CR = 0x0D
    _LF = 0x0A
    _SPACE = 0x20
    _APOSTROPHE = 0x27
    _SLASH = 0x2F


ctypedef fused unit_t:          # a text's code points: its str data when one byte each, else widened
    uint8_t
    uint32_t


# The classes of code points below 256, read from the same table once at import: text is mostly
# ASCII, and one load from 512 bytes beats the two dependent loads of the two-stage table; a
# 1-byte str (Latin-1) then needs no range check at all.
cdef uint16_t _LATIN1_PROPS[256]
cdef uint32_t _cp
for _cp in range(256):
    _LATIN1_PROPS[_cp] = hfg_props(_cp)


cdef inline uint16_t _props(unit_t cp) noexcept nogil:
    """hfg_props(cp), below 256 from _LATIN1_PROPS (a 1-byte unit always)."""
    if unit_t is uint8_t:
        return _LATIN1_PROPS[cp]
    else:
        if cp < 256:
            return _LATIN1_PROPS[cp]
        return hfg_props(cp)


# ---- runs: the end (exclusive) of the longest run from i of code points of one class ----

cdef inline int64_t _run(const unit_t* t, int64_t i, int64_t n, uint16_t mask) noexcept nogil:
    """End of the run from i of code points having any of the ``mask`` classes. A run that
    starts with an ASCII code point takes its ASCII part in blocks (_ascii_runs.h) when its
    class holds the ASCII letters (``HFG_L``): eight at a time in a 1-byte text, four in a text
    of code points; so does a run of o200k's upper or lower case class in a 1-byte text. What
    follows the ASCII part goes one code point at a time."""
    if i < n and t[i] < 0x80:
        if unit_t is uint8_t:
            if mask & HFG_L:
                i = hfg_ascii_run_end(t, i, n, HFG_ASCII_LETTERS)
            elif mask == HFG_UPPER:
                i = hfg_ascii_run_end(t, i, n, HFG_ASCII_UPPER)
            elif mask == HFG_LOWER:
                i = hfg_ascii_run_end(t, i, n, HFG_ASCII_LOWER)
        elif mask & HFG_L:
            # not o200k's case classes here: their runs stop after one or two code points too
            # often for a 16-byte block test to pay
            i = hfg_ascii_run_end32(t, i, n, HFG_ASCII_LETTERS)
    while i < n and _props(t[i]) & mask:
        i += 1
    return i


cdef inline int64_t _run_other(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    """End of the run from i of ``[^\\s\\p{L}\\p{N}]``."""
    while i < n and not (_props(t[i]) & _LNS):
        i += 1
    return i


cdef inline int64_t _run_non_space(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    """End of the run from i of ``\\S``."""
    while i < n and not (_props(t[i]) & HFG_S):
        i += 1
    return i


cdef inline int64_t _run_newlines(const unit_t* t, int64_t i, int64_t n, bint slash) noexcept nogil:
    """End of ``[\\r\\n]*`` (``[\\r\\n/]*`` with slash) from i."""
    while i < n and (t[i] == _CR or t[i] == _LF or (slash and t[i] == _SLASH)):
        i += 1
    return i


cdef inline int64_t _spaces(const unit_t* t, int64_t i, int64_t j, int64_t n) noexcept nogil:
    """``\\s+(?!\\S)|\\s+`` at i, where [i, j) is the whole whitespace run from i: the run but its
    last code point when a non-space follows (that one begins the next word), else the run."""
    if j < n and j - i > 1:
        return j - 1
    return j


cdef inline int64_t _newline_spaces(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    """``\\s*[\\r\\n]|\\s+(?!\\S)|\\s+`` (and o200k's ``\\s*[\\r\\n]+|...``, the same words) at i, a
    whitespace code point: up to the last CR/LF of the run when it has one (greedy ``\\s*`` gives
    back until ``[\\r\\n]`` fits), else :func:`_spaces`."""
    cdef int64_t j = _run(t, i + 1, n, HFG_S)
    cdef int64_t k = j
    while k > i:
        k -= 1
        if t[k] == _CR or t[k] == _LF:
            return k + 1
    return _spaces(t, i, j, n)


cdef inline bint _contraction2(uint16_t q) noexcept nogil:
    """Whether a code point of properties q matches ``(?i:[sdmt])``."""
    return (q & (HFG_CI_S | HFG_CI_D | HFG_CI_M | HFG_CI_T)) != 0


cdef inline bint _contraction3(uint16_t q, uint16_t r) noexcept nogil:
    """Whether two code points of properties q, r match ``(?i:ll|ve|re)``."""
    return ((q & HFG_CI_L) and (r & HFG_CI_L)) or ((q & (HFG_CI_V | HFG_CI_R)) and (r & HFG_CI_E))


# ---- one word from i (0 <= i < n): its end ----

cdef inline int64_t _digits_other_spaces(const unit_t* t, int64_t i, int64_t n, uint16_t p, unit_t c,
                                         bint slash) noexcept nogil:
    """The alternatives after the letters, alike in gpt4, o200k and superwords (where no chunk
    starts at i), at t[i] = c (properties p):
    digits ``\\p{N}{1,3}``; other characters with one optional space before them and the line
    ends after them (gpt4 ``[\\r\\n]*``; o200k, ``slash``, ``[\\r\\n/]*``); else whitespace."""
    cdef int64_t j
    if p & HFG_N:
        j = i + 1
        while j < n and j < i + 3 and _props(t[j]) & HFG_N:
            j += 1
        return j
    if not (p & _LNS):
        return _run_newlines(t, _run_other(t, i + 1, n), n, slash)
    if c == _SPACE and i + 1 < n and not (_props(t[i + 1]) & _LNS):
        return _run_newlines(t, _run_other(t, i + 2, n), n, slash)
    return _newline_spaces(t, i, n)    # p is \\s here


cdef inline int64_t _gpt4_word(const unit_t* t, int64_t i, int64_t n, uint16_t letters) noexcept nogil:
    """One word of GPT4_PATTERN (``letters`` HFG_L) or GPT4_MARKS_PATTERN (HFG_L | HFG_M: the class
    of the letter run). A mark is never a letter that starts a word: like any other non-letter it
    is the one-code-point prefix, and needs a letter or mark after it."""
    cdef unit_t c = t[i]
    cdef uint16_t p = _props(c)
    cdef uint16_t q
    cdef int64_t j
    # '(?i:[sdmt]|ll|ve|re)
    if c == _APOSTROPHE and i + 1 < n:
        q = _props(t[i + 1])
        if _contraction2(q):
            return i + 2
        if i + 2 < n and _contraction3(q, _props(t[i + 2])):
            return i + 3
    # [^\r\n\p{L}\p{N}]?+\p{L}+ : the possessive prefix, once taken, is never given back
    if p & HFG_L:
        return _run(t, i + 1, n, letters)
    if not (p & HFG_N) and c != _CR and c != _LF:
        if i + 1 < n and _props(t[i + 1]) & letters:
            return _run(t, i + 2, n, letters)
        # else: the prefix stays taken and \p{L}+ fails; the alternative fails
    return _digits_other_spaces(t, i, n, p, c, False)


cdef inline int64_t _gpt2_word(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    cdef unit_t c = t[i]
    cdef uint32_t d, e
    cdef uint16_t p = _props(c)
    cdef int64_t start = i
    # '(?:[sdmt]|ll|ve|re), case-sensitive
    if c == _APOSTROPHE and i + 1 < n:
        d = t[i + 1]
        if d == 0x73 or d == 0x64 or d == 0x6D or d == 0x74:     # s d m t
            return i + 2
        if i + 2 < n:
            e = t[i + 2]
            if (d == 0x6C and e == 0x6C) or ((d == 0x76 or d == 0x72) and e == 0x65):   # ll ve re
                return i + 3
    #  ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+ : a space followed by a non-space joins its word
    if c == _SPACE and i + 1 < n and not (_props(t[i + 1]) & HFG_S):
        start = i + 1
        p = _props(t[start])
    if p & HFG_L:
        return _run(t, start + 1, n, HFG_L)
    if p & HFG_N:
        return _run(t, start + 1, n, HFG_N)
    if not (p & HFG_S):
        return _run_other(t, start + 1, n)
    # \s+(?!\S)|\s+
    return _spaces(t, i, _run(t, i + 1, n, HFG_S), n)


cdef inline int64_t _whitespace_word(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    #  ?\S+
    if t[i] == _SPACE and i + 1 < n and not (_props(t[i + 1]) & HFG_S):
        return _run_non_space(t, i + 2, n)
    if not (_props(t[i]) & HFG_S):
        return _run_non_space(t, i + 1, n)
    # \s+(?!\S)|\s+
    return _spaces(t, i, _run(t, i + 1, n, HFG_S), n)


cdef inline int64_t _o200k_suffix(const unit_t* t, int64_t e, int64_t n) noexcept nogil:
    """End of the optional ``(?i:'s|'t|'re|'ve|'m|'ll|'d)?`` from e."""
    cdef uint16_t q
    if e + 1 < n and t[e] == _APOSTROPHE:
        q = _props(t[e + 1])
        if _contraction2(q):      # 's 't 'm 'd
            return e + 2
        if e + 2 < n and _contraction3(q, _props(t[e + 2])):      # 're 've 'll
            return e + 3
    return e


cdef inline int64_t _o200k_upper_lower(const unit_t* t, int64_t s, int64_t n) noexcept nogil:
    """``[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+`` from s: its end, or -1.

    The greedy first class takes its whole run [s, u); the second needs one code point after it,
    else the first gives back until it ends before one of the classes' common code points (Lm,
    Lo, M), which then is the whole second part (the code point after it is Lu/Lt, or u)."""
    cdef int64_t u = _run(t, s, n, HFG_UPPER)
    if u < n and _props(t[u]) & HFG_LOWER:
        return _run(t, u + 1, n, HFG_LOWER)
    while u > s:
        u -= 1
        if _props(t[u]) & HFG_LOWER:
            return u + 1
    return -1


cdef inline int64_t _o200k_word(const unit_t* t, int64_t i, int64_t n) noexcept nogil:
    cdef unit_t c = t[i]
    cdef uint16_t p = _props(c)
    cdef bint prefix = not (p & (HFG_L | HFG_N)) and c != _CR and c != _LF   # [^\r\n\p{L}\p{N}]
    cdef int64_t e
    # [^\r\n\p{L}\p{N}]?[UPPER]*[LOWER]+(?i:'s|...)? : with the prefix if it fits, then without
    if prefix and i + 1 < n:
        e = _o200k_upper_lower(t, i + 1, n)
        if e >= 0:
            return _o200k_suffix(t, e, n)
    if p & (HFG_UPPER | HFG_LOWER):
        e = _o200k_upper_lower(t, i, n)
        if e >= 0:
            return _o200k_suffix(t, e, n)
    # [^\r\n\p{L}\p{N}]?[UPPER]+[LOWER]*(?i:'s|...)?
    if prefix and i + 1 < n and _props(t[i + 1]) & HFG_UPPER:
        return _o200k_suffix(t, _run(t, _run(t, i + 2, n, HFG_UPPER), n, HFG_LOWER), n)
    if p & HFG_UPPER:
        return _o200k_suffix(t, _run(t, _run(t, i + 1, n, HFG_UPPER), n, HFG_LOWER), n)
    return _digits_other_spaces(t, i, n, p, c, True)


# ---- superword chunks ----

cdef inline int64_t _chunk_end(const unit_t* t, int64_t i, int64_t n, uint16_t start, uint16_t run) noexcept nogil:
    """End of ``(?:[^\\r\\n\\p{L}\\p{N}]?+[\\p{L}\\p{M}]+| ?[^\\s\\p{L}\\p{N}](?![^\\s\\p{L}\\p{N}]))+``
    from i, SUPERWORDS' first alternative; i when it does not match at i. ``start`` is the class
    a run starts with (``HFG_L``; SUPERWORDS_DIGITS: ``HFG_L | HFG_N``), ``run`` the class of the
    run (``HFG_L | HFG_M``; with ``HFG_N``).

    Nothing follows the group in the alternative, so the search never backtracks into it: each
    repetition takes the first piece that fits, whole (the run is greedy), and the loop stops at
    the first position where neither piece fits."""
    cdef unit_t c
    cdef uint16_t p, q
    while i < n:
        c = t[i]
        p = _props(c)
        if p & start:                   # a letter (or digit): no prefix, the run
            i = _run(t, i + 1, n, run)
            continue
        if i + 1 == n:
            # the last code point: no run can follow a prefix; ``(?!...)`` holds at the end
            if not (p & _LNS):
                i += 1
            break
        q = _props(t[i + 1])
        # the possessive prefix (one code point neither letter, digit, CR nor LF: a space or a
        # mark too) needs a run after it; taken, it is not given back, so a mark with no run
        # after it is punctuation
        if not (p & HFG_N) and c != _CR and c != _LF and q & run:
            i = _run(t, i + 2, n, run)
            continue
        # one punctuation character, with the one space before it, not followed by another
        if not (p & _LNS):
            if q & _LNS:
                i += 1
                continue
            break
        if c == _SPACE and not (q & _LNS) and (i + 2 == n or _props(t[i + 2]) & _LNS):
            i += 2
            continue
        break
    return i


cdef inline int64_t _superwords_word(const unit_t* t, int64_t i, int64_t n, uint16_t start,
                                     uint16_t run) noexcept nogil:
    """One word of SUPERWORDS (or SUPERWORDS_DIGITS, by ``start`` and ``run`` as for
    _chunk_end): a chunk with the line ends after it (``[\\r\\n]*``), else as GPT-4's split but
    punctuation runs are 2 or more code points here (the chunk takes a single one)."""
    cdef int64_t e = _chunk_end(t, i, n, start, run)
    cdef unit_t c
    if e > i:
        return _run_newlines(t, e, n, False)
    # No chunk here, so a punctuation character at i (or after a space at i) has another after
    # it: the run GPT-4's alternative takes is the 2+ run of SUPERWORDS, with its line ends.
    # (With digits in chunks a digit always starts a chunk, so none reaches GPT-4's digits.)
    c = t[i]
    return _digits_other_spaces(t, i, n, _props(c), c, False)


cdef int64_t _split(int pattern, const unit_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil:
    cdef int64_t i = 0
    cdef int64_t count = 0
    if pattern == PATTERN_GPT4:
        while i < n:
            i = _gpt4_word(text, i, n, HFG_L)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_GPT2:
        while i < n:
            i = _gpt2_word(text, i, n)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_O200K:
        while i < n:
            i = _o200k_word(text, i, n)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_WHITESPACE:
        while i < n:
            i = _whitespace_word(text, i, n)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_GPT4_MARKS:
        while i < n:
            i = _gpt4_word(text, i, n, HFG_L | HFG_M)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_SUPERWORDS:
        while i < n:
            i = _superwords_word(text, i, n, HFG_L, HFG_L | HFG_M)
            ends.push_back(i)
            count += 1
    elif pattern == PATTERN_SUPERWORDS_DIGITS:
        while i < n:
            i = _superwords_word(text, i, n, HFG_L | HFG_N, HFG_L | HFG_M | HFG_N)
            ends.push_back(i)
            count += 1
    else:
        with gil:
            raise ValueError(f"no native pre-tokenizer for pattern id {pattern}")
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
    cdef void* data = PyUnicode_DATA(obj)
    cdef vector[uint32_t] wide
    with nogil:
        if kind == 1:
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
