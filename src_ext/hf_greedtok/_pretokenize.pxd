# cython: language_level=3
"""Declarations of the native pre-tokenizer (see _pretokenize.pyx): the split patterns we ship,
run over code points without the GIL, giving exactly the words ``regex.findall`` gives.

The ids are ``cpdef``, so Python sees them too (``hf_greedtok._pretokenize.PATTERN_GPT4``): the
split registry (hf_greedtok/pre_tokenizers/patterns.py) records each split's id, and
tests/pre_tokenizers/test_native_split.py checks the two against each other."""

from libc.stdint cimport int64_t, uint8_t, uint32_t
from libcpp.vector cimport vector

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
