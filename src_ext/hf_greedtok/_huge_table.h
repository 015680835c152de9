/* Zeroed memory for a hash table that is read at random (the encoders' word caches).
 *
 * hfg_table_alloc(bytes): zeroed memory of `bytes` bytes, or NULL when it cannot be had. From
 * 2 MiB up it is aligned to 2 MiB and, on Linux, advised as huge pages (madvise MADV_HUGEPAGE):
 * a probe into a table of several MB then misses the TLB on one of a few huge pages instead of
 * one of a thousand 4 KiB pages (the kernel decides; with transparent huge pages off, nothing
 * changes but the alignment). Smaller tables are aligned to a cache line.
 * hfg_table_free(p): frees what hfg_table_alloc returned (NULL is fine).
 */
#pragma once

#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <malloc.h>    /* _aligned_malloc, _aligned_free */
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HFG_HUGE_PAGE ((size_t)2 << 20)

static inline void* hfg_table_alloc(size_t bytes) {
    size_t align = bytes >= HFG_HUGE_PAGE ? HFG_HUGE_PAGE : 64;
    size_t rounded = (bytes + align - 1) / align * align;
    void* p;
    if (bytes == 0)
        rounded = align;
#if defined(_WIN32)
    p = _aligned_malloc(rounded, align);
#else
    if (posix_memalign(&p, align, rounded) != 0)
        p = NULL;
#endif
    if (p == NULL)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == HFG_HUGE_PAGE)
        madvise(p, rounded, MADV_HUGEPAGE);   /* a hint: its failure changes nothing */
#endif
    memset(p, 0, rounded);
    return p;
}

static inline void hfg_table_free(void* p) {
#if defined(_WIN32)
    _aligned_free(p);
#else
    free(p);
#endif
}
