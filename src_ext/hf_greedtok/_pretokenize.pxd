# cython: language_level=3
"""Declarations of the native pre-tokenizer (see _pretokenize.pyx): the split patterns we ship,
run over code points without the GIL, giving exactly the words ``regex.findall`` gives.

The ids are ``cpdef``, so Python sees them too (``hf_greedtok._pretokenize.PATTERN_GPT4``): the
split registry (hf_greedtok/pre_tokenizers/patterns.py) records each split's id, and
tests/pre_tokenizers/test_native_split.py checks the two against each other."""

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libcpp.vector cimport vector

from hf_greedtok._scanners cimport (
    HFG_L, HFG_M, HFG_N, HFG_S, _APOSTROPHE, _CR, _LF, _SPACE, unit_t, _contraction2, _contraction3, _gpt2_word,
    _gpt4_word, _o200k_word, _props, _superwords_word, _whitespace_word)

cpdef enum:
    PATTERN_NONE = -1        # not built in: split with the `regex` package
    PATTERN_GPT4 = 0         # cl100k_base (GPT-4)
    PATTERN_GPT2 = 1         # r50k_base (GPT-2)
    PATTERN_O200K = 2        # o200k_base (GPT-4o)
    PATTERN_WHITESPACE = 3   # the GreedTok paper's space-delimited words
    PATTERN_GPT4_MARKS = 4   # cl100k_base with combining marks in its letter runs
    PATTERN_SUPERWORDS = 5   # chunks of words and single punctuation within a line (tokens that span words)
    PATTERN_SUPERWORDS_DIGITS = 6   # the same with digits inside chunks
    PATTERN_LAST = 6         # the highest id: ids PATTERN_GPT4..PATTERN_LAST all have scanners


cdef int64_t split_words(int pattern, const uint32_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil
cdef int64_t split_words_latin1(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil

cdef int64_t split_words_ascii(int pattern, const uint8_t* text, int64_t n, vector[int64_t]& ends) except -1 nogil
cdef bint use_blocks(int pattern, int64_t n, bint ascii) noexcept nogil
cdef int64_t block_starts_str(int kind, const void* data, int64_t n, bint ascii,
                              vector[uint64_t]& scratch) except -1 nogil

cdef extern from "_ascii_runs.h" nogil:
    int hfg_ctz64(uint64_t x)


cdef inline int64_t word_end(int pattern, const unit_t* text, int64_t i, int64_t n) noexcept nogil:
    """The end (exclusive) of the word that starts at i (0 <= i < n) of text[0:n] under
    ``pattern``, a PATTERN_* id with a scanner (PATTERN_GPT4..PATTERN_LAST: the caller checks;
    any other id ends the word at n). Offsets in code points."""
    if pattern == PATTERN_GPT4:
        return _gpt4_word(text, i, n, HFG_L)
    if pattern == PATTERN_GPT4_MARKS:
        return _gpt4_word(text, i, n, HFG_L | HFG_M)
    if pattern == PATTERN_O200K:
        return _o200k_word(text, i, n)
    if pattern == PATTERN_GPT2:
        return _gpt2_word(text, i, n)
    if pattern == PATTERN_WHITESPACE:
        return _whitespace_word(text, i, n)
    if pattern == PATTERN_SUPERWORDS:
        return _superwords_word(text, i, n, HFG_L, HFG_L | HFG_M)
    if pattern == PATTERN_SUPERWORDS_DIGITS:
        return _superwords_word(text, i, n, HFG_L | HFG_N, HFG_L | HFG_M | HFG_N)
    return n
