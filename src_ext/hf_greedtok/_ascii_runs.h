/* Runs of ASCII letters, eight bytes at a time (SWAR: SIMD within a 64-bit register), or
 * four code points at a time (SSE2) in a text of 32-bit code points.
 *
 * hfg_ascii_run_end(t, i, n, cls): the end (exclusive) of the run in t[i:n] of ASCII code points
 * of class cls: HFG_ASCII_LETTERS [A-Za-z], HFG_ASCII_UPPER [A-Z] or HFG_ASCII_LOWER [a-z]; the
 * first j >= i with j == n or t[j] outside the class. The pre-tokenizer's runs whose class holds
 * these (\p{L}+; o200k's upper and lower case classes) call it before their per-code-point loop,
 * which then only sees what follows the ASCII part (a Latin-1 letter, a digit of a chunk, the
 * run's end).
 *
 * Why: an English word is a run of ~5 ASCII letters. A byte-by-byte loop ends each run with a
 * mispredicted branch whose position varies word to word; here the run's end within eight bytes
 * is a count of trailing zeros, and the loop branch is taken only for runs of eight or more.
 *
 * The test per byte b, for a class of the bytes lo..hi after OR-ing `fold` (0x20 folds upper
 * case onto lower case for the letters, 0 otherwise): y = (b | fold) & 0x7F keeps every byte
 * below 0x80, so the additions below never carry into the next byte; y + (0x80 - lo) has its
 * high bit set iff y >= lo, y + (0x7F - hi) iff y > hi; a byte of the class has the first and
 * not the second, and its own high bit (b >= 0x80, not ASCII) clear. Only whole 8-byte groups
 * inside [i, n) are loaded, so nothing past the text is read; the tail goes byte by byte.
 * Big-endian machines (where the first byte is the highest) take the byte loop throughout.
 *
 * hfg_ascii_run_end32(t, i, n, cls): the same over code points (uint32), four to an SSE2
 * register where the compiler targets SSE2 (every x86-64), one at a time elsewhere; a code point
 * is of the class iff (cp | fold) lies in lo..hi as a whole 32-bit value.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define HFG_HAVE_SSE2 1
#endif

enum { HFG_ASCII_LETTERS = 0, HFG_ASCII_UPPER = 1, HFG_ASCII_LOWER = 2 };

/* (fold, lo, hi) of each class */
static inline uint8_t hfg_ascii_fold(int cls) { return cls == HFG_ASCII_LETTERS ? 0x20 : 0; }
static inline uint8_t hfg_ascii_lo(int cls) { return cls == HFG_ASCII_UPPER ? 'A' : 'a'; }
static inline uint8_t hfg_ascii_hi(int cls) { return cls == HFG_ASCII_UPPER ? 'Z' : 'z'; }

static inline int hfg_in_ascii_class(uint32_t cp, int cls) {
    return cp < 0x80 && (uint8_t)((cp | hfg_ascii_fold(cls)) - hfg_ascii_lo(cls))
                            <= (uint8_t)(hfg_ascii_hi(cls) - hfg_ascii_lo(cls));
}

static inline int hfg_ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int k = 0;
    while (!(x & 1)) {
        x >>= 1;
        ++k;
    }
    return k;
#endif
}

static inline int64_t hfg_ascii_run_end(const uint8_t* t, int64_t i, int64_t n, int cls) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    const uint64_t fold = ones * hfg_ascii_fold(cls);
    const uint64_t from_lo = ones * (uint8_t)(0x80 - hfg_ascii_lo(cls));
    const uint64_t past_hi = ones * (uint8_t)(0x7F - hfg_ascii_hi(cls));
    while (i + 8 <= n) {
        uint64_t x;
        memcpy(&x, t + i, 8);
        uint64_t y = (x | fold) & 0x7F7F7F7F7F7F7F7FULL;
        uint64_t in = (y + from_lo) & ~(y + past_hi) & ~x & high;
        uint64_t stop = ~in & high;
        if (stop)
            return i + (hfg_ctz64(stop) >> 3);
        i += 8;
    }
#endif
    while (i < n && hfg_in_ascii_class(t[i], cls))
        ++i;
    return i;
}

static inline int64_t hfg_ascii_run_end32(const uint32_t* t, int64_t i, int64_t n, int cls) {
#ifdef HFG_HAVE_SSE2
    const __m128i fold = _mm_set1_epi32(hfg_ascii_fold(cls));
    const __m128i before_lo = _mm_set1_epi32(hfg_ascii_lo(cls) - 1);
    const __m128i after_hi = _mm_set1_epi32(hfg_ascii_hi(cls) + 1);
    while (i + 4 <= n) {
        __m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i*)(t + i)), fold);
        __m128i in = _mm_and_si128(_mm_cmpgt_epi32(y, before_lo), _mm_cmplt_epi32(y, after_hi));
        int stop = ~_mm_movemask_ps(_mm_castsi128_ps(in)) & 0xF;
        if (stop)
            return i + hfg_ctz64((uint64_t)stop);
        i += 4;
    }
#endif
    while (i < n && hfg_in_ascii_class(t[i], cls))
        ++i;
    return i;
}
