/* The chunk tables' hash and the sampling rule's arithmetic (_chunk_table.pyx).
 *
 * hfg_xxh64(data, n): XXH64 of n bytes, seed 0, from xxHash (third_party/xxhash, inlined): the
 * value the `xxhash` package's xxh64_intdigest gives, on every platform.
 * hfg_mul_hi(a, b): the high 64 bits of the 128-bit product a x b; (h x m) >> 64 maps a uniform
 * 64-bit h to a uniform value in 0..m-1 without the bias of h % m.
 */
#pragma once

#include <stdint.h>
#include <stddef.h>

#define XXH_INLINE_ALL
#include "third_party/xxhash/xxhash.h"

static inline uint64_t hfg_xxh64(const void* data, size_t n) {
    return (uint64_t)XXH64(data, n, 0);
}

static inline uint64_t hfg_mul_hi(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
    uint64_t mid = (p0 >> 32) + (uint32_t)p1 + (uint32_t)p2;
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
#endif
}
