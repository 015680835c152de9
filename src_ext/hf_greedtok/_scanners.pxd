# cython: language_level=3
"""The scanners of the native pre-tokenizer: the end of one word from a position, under each split
we ship, over a text's code points (``unit_t``: a 1-byte str's own data, or code points widened
to uint32). Inline, so the two loops that drive them compile them in: ``_pretokenize._split``
(the word ends of a text) and the encoder's ASCII text loop (each word looked up as soon as it
ends, no ends written), for the splits and texts that do not go 64 code points at a time
(_gpt4_blocks.h). _pretokenize.pyx documents how they replay ``regex``'s search;
tests/pre_tokenizers/test_native_split.py proves them equal to ``regex.findall``.

Every offset is in code points; every scanner takes at least one code point, so the words tile
the text.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t

cdef extern from "_ascii_runs.h" nogil:
    enum:
        HFG_ASCII_LETTERS
        HFG_ASCII_UPPER
        HFG_ASCII_LOWER
    int64_t hfg_ascii_run_end(const uint8_t* t, int64_t i, int64_t n, int cls)
    int64_t hfg_ascii_run_end32(const uint32_t* t, int64_t i, int64_t n, int cls)

cdef extern from "_unicode_props.h" nogil:
    uint16_t hfg_props(uint32_t cp)
    uint16_t hfg_props_latin1(uint8_t cp)
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


cdef inline uint16_t _props(unit_t cp) noexcept nogil:
    """hfg_props(cp); below 256 one load from the table's first blocks (a 1-byte unit always:
    text is mostly ASCII, and one load beats the two dependent loads of the two-stage table)."""
    if unit_t is uint8_t:
        return hfg_props_latin1(cp)
    else:
        if cp < 256:
            return hfg_props_latin1(<uint8_t>cp)
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
