/* The order count tables are written in (_chunk_table.pyx, ChunkTable.sorted_parts).
 *
 * hfg_sort_entries(text, ends, counts, n, order): order[0:n] = the entry indices sorted by count,
 * most first, then by their bytes (memcmp, a prefix first). Entry i is text[ends[i-1]:ends[i]]
 * (from 0 for i = 0). On UTF-8 that is code point order, the order Python sorts str in, so a
 * table sorted here equals formats.count_table.sorted_items of the same counts.
 */
#pragma once

#include <stdint.h>
#include <string.h>
#include <algorithm>

static inline void hfg_sort_entries(const char* text, const int64_t* ends, const int64_t* counts, int64_t n,
                                    int64_t* order) {
    for (int64_t i = 0; i < n; ++i)
        order[i] = i;
    std::sort(order, order + n, [&](int64_t a, int64_t b) {
        if (counts[a] != counts[b])
            return counts[a] > counts[b];
        int64_t sa = a ? ends[a - 1] : 0, la = ends[a] - sa;
        int64_t sb = b ? ends[b - 1] : 0, lb = ends[b] - sb;
        int c = memcmp(text + sa, text + sb, (size_t)std::min(la, lb));
        return c != 0 ? c < 0 : la < lb;
    });
}
