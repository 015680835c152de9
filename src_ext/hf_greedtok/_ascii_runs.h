/* Runs of ASCII letters, eight bytes at a time (SWAR: SIMD within a 64-bit register), or
 * four code points at a time (SSE2) in a text of 32-bit code points.
 *
 * hfg_ascii_letters_end(t, i, n): the end (exclusive) of the run of ASCII letters [A-Za-z] in
 * t[i:n], i.e. the first j >= i with j == n or t[j] not an ASCII letter. The pre-tokenizer's
 * letter runs (\p{L}+ and its kin) call it before their per-code-point loop, which then only sees
 * what is not an ASCII letter (Latin-1 letters, digits of a chunk, the run's end).
 *
 * Why: an English word is a run of ~5 ASCII letters. A byte-by-byte loop ends each run with a
 * mispredicted branch whose position varies word to word; here the run's end within eight bytes
 * is a count of trailing zeros, and the loop branch is taken only for runs of eight or more.
 *
 * The test per byte: y = (b | 0x20) & 0x7F folds upper case onto lower case (and keeps every
 * byte below 0x80, so the additions below never carry into the next byte); y + 0x1F has its
 * high bit set iff y >= 0x61 ('a'), y + 0x05 iff y >= 0x7B (past 'z'); a letter is the first
 * without the second, and its own high bit (b >= 0x80, not ASCII) clear. Only whole 8-byte
 * groups inside [i, n) are loaded, so nothing past the text is read; the tail goes byte by byte.
 * Big-endian machines (where the first byte is the highest) take the byte loop throughout.
 *
 * hfg_ascii_letters_end32(t, i, n): the same over code points (uint32), four to an SSE2
 * register where the compiler targets SSE2 (every x86-64), one at a time elsewhere. A code
 * point is an ASCII letter iff (cp | 0x20) lies in 'a'..'z' as a whole 32-bit value.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define HFG_HAVE_SSE2 1
#endif

static inline int hfg_is_ascii_letter(uint8_t b) {
    return (uint8_t)((b | 0x20) - 'a') < 26;
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

static inline int64_t hfg_ascii_letters_end(const uint8_t* t, int64_t i, int64_t n) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t high = 0x8080808080808080ULL;
    while (i + 8 <= n) {
        uint64_t x;
        memcpy(&x, t + i, 8);
        uint64_t y = (x | 0x2020202020202020ULL) & 0x7F7F7F7F7F7F7F7FULL;
        uint64_t letter = (y + 0x1F1F1F1F1F1F1F1FULL) & ~(y + 0x0505050505050505ULL) & ~x & high;
        uint64_t stop = ~letter & high;
        if (stop)
            return i + (hfg_ctz64(stop) >> 3);
        i += 8;
    }
#endif
    while (i < n && hfg_is_ascii_letter(t[i]))
        ++i;
    return i;
}

static inline int64_t hfg_ascii_letters_end32(const uint32_t* t, int64_t i, int64_t n) {
#ifdef HFG_HAVE_SSE2
    const __m128i fold = _mm_set1_epi32(0x20);
    const __m128i before_a = _mm_set1_epi32('a' - 1);
    const __m128i after_z = _mm_set1_epi32('z' + 1);
    while (i + 4 <= n) {
        __m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i*)(t + i)), fold);
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi32(y, before_a), _mm_cmplt_epi32(y, after_z));
        int stop = ~_mm_movemask_ps(_mm_castsi128_ps(letter)) & 0xF;
        if (stop)
            return i + hfg_ctz64((uint64_t)stop);
        i += 4;
    }
#endif
    while (i < n && t[i] < 0x80 && hfg_is_ascii_letter((uint8_t)t[i]))
        ++i;
    return i;
}
