/* The encoders' cache of short words: the ids of each word of 1..15 bytes seen so far, in an
 * open-addressing table of 32-byte slots (two to a cache line).
 *
 * A slot holds the word's bytes and length as two 64-bit words (k0: bytes 0..7, k1: bytes 8..14
 * with the length in its top byte, so a filled slot's k1 is never 0) and its ids: up to three
 * inline, else their offset in the caller's arena (the encoder's vals) in v[0]. A probe starts at
 * an even slot, the pair sharing a cache line: a word is found, or known absent, from that one
 * line unless the pair is full of other words (linear probing then walks on). The table doubles
 * at 3/4 load.
 *
 * Why this layout (issue 54): a text's words are looked up one after another, and on long-tailed
 * text the table is MBs. The former cache split words by length into two tables (keys of up to
 * 8 bytes, 9..16 bytes) and probed one slot at a time: each word took an unpredictable branch on
 * its length, another on its probe count, and a stall on a line no earlier word had asked for.
 * Here one table takes every short word (single bytes too), hfg_word_keys packs a batch of words
 * and starts loading their lines before hfg_word_hits looks any up (the loads overlap, as in
 * gigatoken's pretoken cache), and a hit resolves its pair and copies its three id slots without
 * a branch on which slot matched or how many ids it has.
 *
 * hfg_word_table_init and hfg_word_insert may fail to allocate: they return -1 and leave
 * the table as it was.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#include "_huge_table.h"

#define HFG_WORD_MAX 15          /* longest key the table holds, in bytes */

#if defined(_MSC_VER)
#include <xmmintrin.h>
#define HFG_PREFETCH(p) _mm_prefetch((const char*)(p), _MM_HINT_T0)
#else
#define HFG_PREFETCH(p) __builtin_prefetch(p)
#endif

typedef struct {
    uint64_t k0;        /* key bytes 0..7, zero-padded */
    uint64_t k1;        /* key bytes 8..14, zero-padded; the key's length in bits 56..63; 0: empty */
    int32_t v[3];       /* the ids when val_len <= 3, else v[0] is their offset in the arena */
    uint32_t val_len;
} hfg_word_slot;

typedef struct {
    hfg_word_slot* slots;
    uint64_t count;     /* slots: a power of two, at least 2 */
    int shift;          /* 64 - log2(count): a hash's top bits pick the slot */
    int64_t used;
} hfg_word_table;

static inline int hfg_word_table_init(hfg_word_table* t, uint64_t count) {
    hfg_word_slot* slots = (hfg_word_slot*)hfg_table_alloc(count * sizeof(hfg_word_slot));
    int bits = 0;
    if (slots == NULL)
        return -1;
    while (((uint64_t)1 << bits) < count)
        ++bits;
    hfg_table_free(t->slots);
    t->slots = slots;
    t->count = count;
    t->shift = 64 - bits;
    t->used = 0;
    return 0;
}

static inline void hfg_word_table_free(hfg_word_table* t) {
    hfg_table_free(t->slots);
    t->slots = NULL;
}

/* The bytes of a key of n (0..15) bytes in its two words: [n][0] for bytes 0..7, [n][1] for 8..14. */
#define HFG_M(k) (((uint64_t)1 << (8 * (k))) - 1)
static const uint64_t hfg_word_masks[16][2] = {
    {0, 0}, {HFG_M(1), 0}, {HFG_M(2), 0}, {HFG_M(3), 0}, {HFG_M(4), 0}, {HFG_M(5), 0}, {HFG_M(6), 0},
    {HFG_M(7), 0}, {~(uint64_t)0, 0}, {~(uint64_t)0, HFG_M(1)}, {~(uint64_t)0, HFG_M(2)},
    {~(uint64_t)0, HFG_M(3)}, {~(uint64_t)0, HFG_M(4)}, {~(uint64_t)0, HFG_M(5)}, {~(uint64_t)0, HFG_M(6)},
    {~(uint64_t)0, HFG_M(7)}};
#undef HFG_M

/* The key of b[0:n], 1 <= n <= 15, where `readable` >= n bytes from b may be read: two loads
 * masked to the key when 16 bytes are readable, else through a zeroed copy. */
static inline void hfg_word_key(const uint8_t* b, int64_t n, int64_t readable, uint64_t* k0, uint64_t* k1) {
    uint64_t lo, hi;
    if (readable >= 16) {
        memcpy(&lo, b, 8);
        memcpy(&hi, b + 8, 8);
    } else {
        uint8_t copy[16] = {0};
        memcpy(copy, b, (size_t)n);
        memcpy(&lo, copy, 8);
        memcpy(&hi, copy + 8, 8);
    }
    /* masks from a table, not a comparison: the lengths of a text's words follow no pattern a
       branch predictor could learn */
    lo &= hfg_word_masks[n][0];
    hi &= hfg_word_masks[n][1];
    *k0 = lo;
    *k1 = hi | ((uint64_t)n << 56);
}

/* The first slot of the pair where the probe for (k0, k1) starts. */
static inline uint64_t hfg_word_start(const hfg_word_table* t, uint64_t k0, uint64_t k1) {
    uint64_t h = (k0 ^ (k1 * 0xBF58476D1CE4E5B9ULL)) * 0x9E3779B97F4A7C15ULL;
    return (h >> t->shift) & ~(uint64_t)1;
}

/* The slot holding (k0, k1), whose probe starts at slot i (hfg_word_start), or NULL. */
static inline const hfg_word_slot* hfg_word_find_at(const hfg_word_table* t, uint64_t i, uint64_t k0, uint64_t k1) {
    uint64_t mask = t->count - 1;
    const hfg_word_slot* s = t->slots + i;
    int m0 = (s[0].k0 == k0) & (s[0].k1 == k1);
    int m1 = (s[1].k0 == k0) & (s[1].k1 == k1);
    if (m0 | m1)
        return s + m1;
    /* a walk only moves forward from an even start, so the second slot fills after the first:
       an empty second slot ends every walk that could have reached the key */
    if (s[1].k1 == 0)
        return NULL;
    for (i = (i + 2) & mask;; i = (i + 1) & mask) {
        s = t->slots + i;
        if (s->k0 == k0 && s->k1 == k1)
            return s;
        if (s->k1 == 0)
            return NULL;
    }
}

/* The slot holding (k0, k1), or NULL. */
static inline const hfg_word_slot* hfg_word_find(const hfg_word_table* t, uint64_t k0, uint64_t k1) {
    return hfg_word_find_at(t, hfg_word_start(t, k0, k1), k0, k1);
}

static inline hfg_word_slot* hfg_word_place(hfg_word_slot* slots, uint64_t mask, uint64_t i) {
    while (slots[i].k1)
        i = (i + 1) & mask;
    return slots + i;
}

/* Cache (k0, k1) -> ids[0:k] (k <= 3), or -> arena offset `at` with k ids there (k > 3): the
 * key must be absent. Returns 0, or -1 when the doubled table could not be allocated. */
static inline int hfg_word_insert(hfg_word_table* t, uint64_t k0, uint64_t k1, const int32_t* ids, int64_t k,
                                  int32_t at) {
    hfg_word_slot* s;
    if (4 * (t->used + 1) > 3 * (int64_t)t->count) {
        hfg_word_table grown = {NULL, 0, 0, 0};
        uint64_t j;
        if (hfg_word_table_init(&grown, 2 * t->count) != 0)
            return -1;
        for (j = 0; j < t->count; ++j) {
            if (t->slots[j].k1)
                *hfg_word_place(grown.slots, grown.count - 1,
                                hfg_word_start(&grown, t->slots[j].k0, t->slots[j].k1)) = t->slots[j];
        }
        grown.used = t->used;
        hfg_table_free(t->slots);
        *t = grown;
    }
    s = hfg_word_place(t->slots, t->count - 1, hfg_word_start(t, k0, k1));
    s->k0 = k0;
    s->k1 = k1;
    s->v[0] = s->v[1] = s->v[2] = 0;
    if (k <= 3)
        memcpy(s->v, ids, (size_t)k * sizeof(int32_t));
    else
        s->v[0] = at;
    s->val_len = (uint32_t)k;
    t->used += 1;
    return 0;
}

/* The hash a longer key (9+ bytes) b[0:n] is cached under in the encoder's table of long words
 * (its slots compare the whole key too): a multiplicative hash, eight bytes a step, the last
 * load ending at n (it may overlap the one before). */
static inline uint64_t hfg_long_key(const uint8_t* b, int64_t n) {
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL, v;
    int64_t i = 0;
    for (;;) {
        memcpy(&v, b + (i < n - 8 ? i : n - 8), 8);
        h = (h ^ v) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
        i += 8;
        if (i >= n)
            return h;
    }
}

/* Where the probe for a long key of n bytes whose hfg_long_key is `word` starts (before masking). */
static inline uint64_t hfg_long_start(uint64_t word, int64_t n) {
    word = (word ^ (uint64_t)n) * 0x9E3779B97F4A7C15ULL;
    return word ^ (word >> 29);
}

/* Pass one over `count` consecutive words t[start:ends[0]], t[ends[0]:ends[1]], ... of a text
 * of which t[0:n] may be read. A word of 1..HFG_WORD_MAX bytes: its key into k0[i], k1[i] and
 * its probe's first slot into at[i]. A word of HFG_WORD_MAX + 1..long_max bytes: k1[i] = 0 (pass
 * two stops there), its hfg_long_key in k0[i], its probe's first slot in the long words' table
 * (long_mask + 1 slots of long_slot_bytes each from long_slots) in at[i]. Longer ones (and
 * empty ones): k1[i] = 0. Each probe's cache line is requested: the loads of a batch overlap. */
static inline void hfg_word_keys(const hfg_word_table* t, const uint8_t* text, int64_t n, int64_t start,
                                 const int64_t* ends, int64_t count, uint64_t* k0, uint64_t* k1, uint64_t* at,
                                 const uint8_t* long_slots, uint64_t long_mask, size_t long_slot_bytes,
                                 int64_t long_max) {
    int64_t s = start, k, len;
    for (k = 0; k < count; ++k) {
        len = ends[k] - s;
        if (len >= 1 && len <= HFG_WORD_MAX) {
            hfg_word_key(text + s, len, n - s, &k0[k], &k1[k]);
            at[k] = hfg_word_start(t, k0[k], k1[k]);
            HFG_PREFETCH(t->slots + at[k]);
        } else {
            k1[k] = 0;
            if (len > HFG_WORD_MAX && len <= long_max) {
                k0[k] = hfg_long_key(text + s, len);
                at[k] = hfg_long_start(k0[k], len) & long_mask;
                HFG_PREFETCH(long_slots + at[k] * long_slot_bytes);
            }
        }
        s = ends[k];
    }
}

/* Pass two: the ids of words from..count-1 (keys and first slots from hfg_word_keys, on this
 * table as it is now) written to out, three slots' room a word, until the first word the table
 * does not hold inline (no key, absent, or more than 3 ids); returns its index (count when all
 * were held) and in *written the ids out got. The three id slots are copied whole: the next
 * word's ids overwrite what is past val_len. */
static inline int64_t hfg_word_hits(const hfg_word_table* t, const uint64_t* k0, const uint64_t* k1,
                                    const uint64_t* at, int64_t from, int64_t count, int32_t* out,
                                    int64_t* written) {
    int64_t k, w = 0;
    const hfg_word_slot* s;
    for (k = from; k < count; ++k) {
        if (k1[k] == 0)
            break;
        s = hfg_word_find_at(t, at[k], k0[k], k1[k]);
        if (s == NULL || s->val_len > 3)
            break;
        memcpy(out + w, s->v, 3 * sizeof(int32_t));
        w += s->val_len;
    }
    *written = w;
    return k;
}
