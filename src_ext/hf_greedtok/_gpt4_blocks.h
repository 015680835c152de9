/* GPT-4's split, 64 code points at a time: the word starts of a block as one bitmask.
 *
 * hfg_gpt4_block_rules(cls, blocks, starts, fix) sets bit (i % 64) of starts[i / 64] for the
 * positions i where a word of regex.findall(GPT4_PATTERN, text) starts, except those the
 * fix-ups add (below), from the classes of each block of 64 code points of the text, and in fix
 * the positions the fix-ups look at. On ASCII text GPT4_MARKS_PATTERN splits alike (no ASCII
 * code point is a mark). The pattern:
 *
 *     '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+
 *
 * Why: the word scanner (_scanners.pxd) decides each word with branches on its first code
 * points, and those branches mispredict word after word. Here the classes are masks of a block:
 * letters L (\p{L}), digits N (\p{N}), whitespace W (\s), line ends NL (\r \n), spaces SP and
 * apostrophes AP; the rest is "other", P. hfg_ascii_classify makes them for ASCII bytes sixteen
 * at a time (SSE2; a byte at a time elsewhere); _pretokenize.pyx reads other code points'
 * classes from _unicode_props.h. The search of `regex` reduces to rules on neighbours, bit
 * operations on whole blocks (p1: the class of the code point before, n1: of the one after):
 *
 * - ABS, the line ends a run of other characters takes ([\r\n]* after P+): the run of NL right
 *   after a P, found by one addition (its carry runs through the NL run); they start nothing.
 *   WR = W without them.
 * - whitespace: a run of WR starts a word; so does its last code point when a non-space
 *   follows and it is no line end (\s+(?!\S) gives it back; it then starts the next word, alone
 *   or as a prefix); fix-up: the code point after the run's last line end, when the run goes on
 *   after it (\s*[\r\n] ends at the last line end).
 * - letters: a run of L starts a word, or the code point before it does when it can be the
 *   prefix [^\r\n\p{L}\p{N}]: a W that is no line end (always a word's start: see above), or a
 *   P that is a run of one not after a space (a longer run, or one after a space, is taken
 *   whole by ` ?[^\s\p{L}\p{N}]++`, so the letters start anew).
 * - other characters: a run of P starts a word, or the space before it does.
 * - digits: a run of N starts a word; fix-up: so does every third digit after.
 * - apostrophes, fix-up: one that starts a word followed by (?i:[sdmt]|ll|ve|re) is a word of
 *   its own: the code point after it starts the next word.
 *
 * fix gets the runs of digits, the whitespace after line ends and the apostrophes that start a
 * word: few positions, which _pretokenize.pyx then looks at one code point at a time. Bits past
 * the text are zero. tests/pre_tokenizers/test_native_split.py proves the split equal to
 * `regex` on arbitrary Unicode and ASCII, and on every corpus.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#include "_ascii_runs.h"   /* HFG_HAVE_SSE2, hfg_ctz64, hfg_in_ascii_class */

/* A block's classes: bit k for its code point k; valid: the bits inside the text. */
typedef struct {
    uint64_t L, N, W, NL, SP, AP, valid;
} hfg_block_classes;

/* The classes of the m (1..64) bytes at b; nothing past b[m - 1] is read. */
static inline hfg_block_classes hfg_ascii_classify(const uint8_t* b, int64_t m) {
    hfg_block_classes c;
    c.L = c.N = c.W = c.NL = c.SP = c.AP = 0;
    c.valid = m == 64 ? ~0ULL : ((1ULL << m) - 1);
#ifdef HFG_HAVE_SSE2
    for (int k = 0; 16 * k < m; ++k) {
        __m128i x;
        if (16 * k + 16 <= m) {
            x = _mm_loadu_si128((const __m128i*)(b + 16 * k));
        } else {
            uint8_t tail[16] = {0};     /* NUL is "other", and masked off by valid */
            memcpy(tail, b + 16 * k, (size_t)(m - 16 * k));
            x = _mm_loadu_si128((const __m128i*)tail);
        }
        __m128i y = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i l = _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(y, _mm_set1_epi8('z' + 1)));
        __m128i d = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
        __m128i sp = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
        __m128i nl = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\r')));
        __m128i w = _mm_or_si128(sp, _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(8)), _mm_cmplt_epi8(x, _mm_set1_epi8(14))));
        __m128i ap = _mm_cmpeq_epi8(x, _mm_set1_epi8('\''));
        c.L |= (uint64_t)(uint16_t)_mm_movemask_epi8(l) << (16 * k);
        c.N |= (uint64_t)(uint16_t)_mm_movemask_epi8(d) << (16 * k);
        c.W |= (uint64_t)(uint16_t)_mm_movemask_epi8(w) << (16 * k);
        c.NL |= (uint64_t)(uint16_t)_mm_movemask_epi8(nl) << (16 * k);
        c.SP |= (uint64_t)(uint16_t)_mm_movemask_epi8(sp) << (16 * k);
        c.AP |= (uint64_t)(uint16_t)_mm_movemask_epi8(ap) << (16 * k);
    }
#else
    for (int64_t k = 0; k < m; ++k) {
        uint8_t x = b[k];
        uint64_t bit = 1ULL << k;
        if (hfg_in_ascii_class(x, HFG_ASCII_LETTERS)) c.L |= bit;
        if (x >= '0' && x <= '9') c.N |= bit;
        if ((x >= 9 && x <= 13) || x == ' ') c.W |= bit;
        if (x == '\n' || x == '\r') c.NL |= bit;
        if (x == ' ') c.SP |= bit;
        if (x == '\'') c.AP |= bit;
    }
#endif
    c.L &= c.valid; c.N &= c.valid; c.W &= c.valid; c.NL &= c.valid; c.SP &= c.valid; c.AP &= c.valid;
    return c;
}

/* The rules above over blocks cls[0 .. blocks) of one text: starts and fix (as many words). */
static inline void hfg_gpt4_block_rules(const hfg_block_classes* cls, int64_t blocks, uint64_t* starts,
                                        uint64_t* fix) {
    /* bit 0: the class of the block before's last code point */
    uint64_t prev_L = 0, prev_N = 0, prev_P = 0, prev_SP = 0, prev_WR = 0, prev_PFX = 0, prev_WRNL = 0;
    uint64_t carry = 0;     /* of the addition that finds ABS, into the next block */
    const hfg_block_classes none = {0, 0, 0, 0, 0, 0, 0};
    for (int64_t b = 0; b < blocks; ++b) {
        const hfg_block_classes cur = cls[b];
        const hfg_block_classes next = b + 1 < blocks ? cls[b + 1] : none;
        uint64_t P = cur.valid & ~(cur.L | cur.N | cur.W);
        uint64_t next_P = next.valid & ~(next.L | next.N | next.W);
        uint64_t pP = (P << 1) | prev_P, pSP = (cur.SP << 1) | prev_SP;
        uint64_t pL = (cur.L << 1) | prev_L, pN = (cur.N << 1) | prev_N;
        /* ABS: the NL run right after a P; the addition's carry runs through it */
        uint64_t A = cur.NL & pP;
        uint64_t s1 = cur.NL + A;
        uint64_t s2 = s1 + carry;
        carry = (s1 < cur.NL) | (s2 < s1);
        uint64_t ABS = cur.NL & ~s2;
        uint64_t WR = cur.W & ~ABS;
        uint64_t pWR = (WR << 1) | prev_WR;
        uint64_t WRNL = WR & cur.NL;
        /* whitespace: run starts; the last before a non-space unless a line end */
        uint64_t non_space_next = ((cur.valid & ~cur.W) >> 1) | ((next.valid & ~next.W) << 63);
        uint64_t S = (WR & ~pWR) | (WR & ~cur.NL & non_space_next);
        /* letters, with the prefix before them when it can be one */
        uint64_t LS = cur.L & ~pL;
        uint64_t PFX = (cur.W & ~cur.NL) | (P & ~pP & ~pSP);
        uint64_t pPFX = (PFX << 1) | prev_PFX;
        uint64_t nLS = (LS >> 1) | ((next.L & ~(cur.L >> 63) & 1) << 63);
        S |= (LS & ~pPFX) | (PFX & nLS);
        /* other characters: run starts, or the space before them */
        uint64_t PS = P & ~pP;
        uint64_t nPS = (PS >> 1) | ((next_P & ~(P >> 63) & 1) << 63);
        S |= (PS & ~pSP) | (cur.SP & nPS);
        /* digits: run starts */
        uint64_t DS = cur.N & ~pN;
        S = (S | DS) & cur.valid;
        starts[b] = S;
        fix[b] = DS | (WR & ~cur.NL & ((WRNL << 1) | prev_WRNL)) | (cur.AP & S);
        prev_L = cur.L >> 63; prev_N = cur.N >> 63; prev_P = P >> 63; prev_SP = cur.SP >> 63;
        prev_WR = WR >> 63; prev_PFX = PFX >> 63; prev_WRNL = WRNL >> 63;
    }
    if (blocks > 0)
        starts[0] |= 1;
}

/* Bit k set for each of the m (1..64) bytes at b that is 0x80 or above (not ASCII). */
static inline uint64_t hfg_high_bytes(const uint8_t* b, int64_t m) {
    uint64_t high = 0;
#ifdef HFG_HAVE_SSE2
    int64_t k = 0;
    for (; k + 16 <= m; k += 16)
        high |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i*)(b + k))) << k;
    for (; k < m; ++k)
        high |= (uint64_t)(b[k] >> 7) << k;
#else
    for (int64_t k = 0; k < m; ++k)
        high |= (uint64_t)(b[k] >> 7) << k;
#endif
    return high;
}
