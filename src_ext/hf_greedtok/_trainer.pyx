# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""GreedTok trainer core.

Algorithm 1 (GREEDTOK: computing S) of Lim, Choo & Lauw, "A partition cover approach to
tokenization" (2025), Appendix A.1, with its subroutines CANCOVER (Algorithm 2) and SCORE
(Algorithm 3), implemented exactly and made fast by incremental score maintenance.

State. Each word W of length n keeps the paper's M(W) as one flag per gap between adjacent
singletons (``cov[off + j]`` is m_{j,j+1}). Only zero/non-zero matters to CANCOVER and SCORE,
so a byte suffices; the partition is read off the uncovered gaps, which is why two adjacent
instances of one token stay two tokens (the uncovered gap between them).

Scores. R(T) = sum over words of COUNT(W) * g(T, W), where g is SCORE's left-to-right scan of
T's occurrences in W (Example 5's overlap rule). Picking tau changes M only in the words tau
covers, so only g(T, W) of candidates T occurring in those words can change: each is
recomputed before and after (from per-word prefix sums of covered gaps) and the difference
is added to R(T). Scores are exact at every step, never estimated.

Selection. A binary heap of (score, candidate) entries, validated when popped. A
score that fell is re-pushed lazily when its stale entry surfaces; a score that rose is
pushed at once. The heap thus always holds an entry at least as large as every live score,
and the first valid entry popped is the true argmax. Ties: larger gain, then fewer
singletons, then the lexicographically smaller singleton sequence (byte values or code
points), compared only when two scores are equal.

GreedWMC (``relaxed=True``). The same machinery runs the greedy (1 - 1/e) algorithm for the
weighted maximum coverage relaxation of Section 4.2.1 [Hoc96, Section 3.9]: the gain of a token
is the count-weighted number of still-uncovered gaps inside the union of its occurrences, and
selecting it covers all of them. Gains then only fall (coverage is submodular), so no score
ever rises. The paper's d_inst (Section 5.3) is the GreedTok objective over this one.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libcpp.vector cimport vector
cimport cython

from hf_greedtok._hashtrie cimport HashTrie
from libcpp.algorithm cimport sort as cpp_sort

import numpy as np

cdef enum:
    FLAG_PINNED = 1
    FLAG_ALLOWED = 2
MAX_WORD_UNITS = 65535   # positions inside a word are stored as uint16


cdef struct HeapEntry:
    int64_t score
    int32_t cand


cdef inline int64_t _group_gain(const uint8_t* cov, const int32_t* pref, int64_t n,
                                const uint16_t* starts, int64_t k, int64_t L) noexcept nogil:
    """SCORE (Algorithm 3) of one token of length L over its k occurrences in one word.

    An occurrence counts if CANCOVER holds (both outer boundary gaps uncovered) and it does
    not overlap the previously counted one (the state copy M' of Example 5); it adds the
    number of its uncovered inner gaps.
    """
    cdef int64_t g = 0
    cdef int64_t last_end = -1
    cdef int64_t r, s, e
    for r in range(k):
        s = starts[r]
        if s < last_end:
            continue
        if s > 0 and cov[s - 1]:
            continue
        e = s + L
        if e < n and cov[e - 1]:
            continue
        g += (L - 1) - (pref[e - 1] - pref[s])
        last_end = e
    return g


cdef inline int64_t _group_gain_wmc(const int32_t* pref, const uint16_t* starts, int64_t k,
                                    int64_t L) noexcept nogil:
    """GreedWMC's marginal gain of one token over its k occurrences in one word (Section 4.2.1).

    The elements are the word's gaps; the token's set is the union of the gaps inside its
    occurrences, overlapping or not, and the gain is how many of them are still uncovered.
    """
    cdef int64_t g = 0
    cdef int64_t done = -1          # last gap already counted for this token
    cdef int64_t r, a, b
    for r in range(k):
        a = max(<int64_t>starts[r], done + 1)
        b = starts[r] + L - 2
        if b >= a:
            g += (b - a + 1) - (pref[b + 1] - pref[a])
            done = b
    return g


cdef inline void _prefix(const uint8_t* cov, int64_t n, int32_t* pref) noexcept nogil:
    """pref[i] = number of covered gaps among gaps 0..i-1 (gap n-1 does not exist)."""
    cdef int64_t i
    pref[0] = 0
    for i in range(n - 1):
        pref[i + 1] = pref[i] + cov[i]
    pref[n] = pref[n - 1] if n > 0 else 0


cdef class GreedTokCore:
    """Native GreedTok trainer state over a fixed corpus of distinct words.

    Args:
        units: uint32[N], the singletons of all words concatenated (byte values or code points).
        word_offsets: int64[n_words + 1]; word w is ``units[word_offsets[w]:word_offsets[w+1]]``.
        counts: int64[n_words], COUNT(W) >= 1.
        max_token_length: longest candidate derived from the corpus, in singletons (inclusive).
        min_frequency: a derived candidate needs this many count-weighted occurrences.
        pinned_units, pinned_offsets: tokens placed first, in this order (>= 2 singletons).
        allowed_units, allowed_offsets: the candidate list used when ``restrict`` is true.
        restrict: if true, T is the allowed list (paper Section 5.4) instead of all substrings.
        relaxed: if true, run GreedWMC instead: the weighted maximum coverage relaxation
            (paper Section 4.2.1) whose elements are the gaps between adjacent singletons,
            weighted by COUNT(W), and whose set for a token is every gap inside any of its
            occurrences. Constraints (5)-(8) are dropped, so occurrences may overlap each other
            and earlier tokens; a step covers all of them. ``objective`` is then the initial
            objective minus the covered weight, which is not a token count.

    Raises:
        ValueError: a word longer than 65535 singletons, a count < 1, bad offsets or limits.
    """

    cdef vector[uint32_t] units          # corpus units, then pinned tokens' units
    cdef vector[int64_t] word_off
    cdef vector[int64_t] counts
    cdef vector[int32_t] word_of_pos
    cdef vector[uint8_t] cov
    cdef int64_t n_words
    cdef readonly int32_t n_candidates
    cdef readonly int64_t n_occurrences
    cdef vector[uint16_t] cand_len
    cdef vector[int64_t] cand_pos        # position of one instance in `units`
    cdef vector[int64_t] score
    cdef vector[uint8_t] selected
    cdef vector[int64_t] cm_off          # candidate -> its occurrences (global positions)
    cdef vector[int32_t] cm_pos
    cdef vector[int64_t] wm_off          # word -> its occurrences grouped by candidate
    cdef vector[int32_t] wm_cand
    cdef vector[uint16_t] wm_start
    cdef vector[int32_t] pinned_cands
    cdef int64_t n_pinned_done
    cdef vector[HeapEntry] heap
    cdef vector[int32_t] ranking
    cdef vector[int64_t] gains
    cdef readonly int64_t objective
    cdef readonly int64_t initial_objective
    cdef readonly bint exhausted
    cdef readonly int64_t score_rises
    cdef readonly int64_t score_mismatches
    cdef readonly bint relaxed
    cdef vector[uint8_t] old_cov
    cdef vector[int32_t] pref_old
    cdef vector[int32_t] pref_new

    def __init__(self, const uint32_t[::1] units, const int64_t[::1] word_offsets,
                 const int64_t[::1] counts, int max_token_length, int64_t min_frequency,
                 const uint32_t[::1] pinned_units, const int64_t[::1] pinned_offsets,
                 const uint32_t[::1] allowed_units, const int64_t[::1] allowed_offsets,
                 bint restrict, bint relaxed=False):
        cdef int64_t n_words = counts.shape[0]
        cdef int64_t w, longest = 0, q
        if word_offsets.shape[0] != n_words + 1 or word_offsets[0] != 0 \
                or word_offsets[n_words] != units.shape[0]:
            raise ValueError("word_offsets must start at 0, have n_words + 1 entries and end at len(units)")
        if max_token_length < 2:
            raise ValueError(f"max_token_length must be >= 2, got {max_token_length}")
        if min_frequency < 1:
            raise ValueError(f"min_frequency must be >= 1, got {min_frequency}")
        for w in range(n_words):
            if word_offsets[w + 1] < word_offsets[w]:
                raise ValueError("word_offsets must be non-decreasing")
            longest = max(longest, word_offsets[w + 1] - word_offsets[w])
            if counts[w] < 1:
                raise ValueError(f"word {w} has count {counts[w]}; counts must be >= 1")
        if longest > MAX_WORD_UNITS:
            raise ValueError(f"a word has {longest} singletons; the trainer supports at most {MAX_WORD_UNITS}")
        for q in range(pinned_offsets.shape[0] - 1):
            if pinned_offsets[q + 1] - pinned_offsets[q] < 2:
                raise ValueError(f"pinned token {q} has fewer than 2 singletons")
            if pinned_offsets[q + 1] - pinned_offsets[q] > MAX_WORD_UNITS:
                raise ValueError(f"pinned token {q} is longer than {MAX_WORD_UNITS} singletons")
        for q in range(allowed_offsets.shape[0] - 1):
            if allowed_offsets[q + 1] - allowed_offsets[q] < 2:
                raise ValueError(f"candidate {q} has fewer than 2 singletons")
            if allowed_offsets[q + 1] - allowed_offsets[q] > MAX_WORD_UNITS:
                raise ValueError(f"candidate {q} is longer than {MAX_WORD_UNITS} singletons")
        self.n_words = n_words
        self.relaxed = relaxed
        self.units.reserve(units.shape[0] + pinned_units.shape[0])
        for q in range(units.shape[0]):
            self.units.push_back(units[q])
        for q in range(pinned_units.shape[0]):
            self.units.push_back(pinned_units[q])
        self.word_off.assign(&word_offsets[0], &word_offsets[0] + n_words + 1)
        self.counts.resize(n_words)
        for w in range(n_words):
            self.counts[w] = counts[w]
        cdef vector[int64_t] pin_off
        for q in range(pinned_offsets.shape[0]):
            pin_off.push_back(pinned_offsets[q] + units.shape[0])
        cdef vector[uint32_t] allow_units
        cdef vector[int64_t] allow_off
        for q in range(allowed_units.shape[0]):
            allow_units.push_back(allowed_units[q])
        for q in range(allowed_offsets.shape[0]):
            allow_off.push_back(allowed_offsets[q])
        cdef HashTrie trie = HashTrie(max(1024, units.shape[0] // 2))
        with nogil:
            self._build(trie, max_token_length, min_frequency, pin_off, allow_units, allow_off, restrict)

    # ------------------------------------------------------------------ building

    cdef int _build(self, HashTrie trie, int max_len, int64_t min_freq,
                    vector[int64_t]& pin_off, vector[uint32_t]& allow_units,
                    vector[int64_t]& allow_off, bint restrict) except -1 nogil:
        cdef vector[uint16_t] node_depth
        cdef vector[uint8_t] node_flags
        cdef vector[int64_t] node_freq
        cdef vector[int32_t] node_occ
        cdef vector[int32_t] pinned_nodes
        node_depth.push_back(0)
        node_flags.push_back(0)
        node_freq.push_back(0)
        node_occ.push_back(0)

        cdef int64_t q, j, w, i, off, n, d, walk, t
        cdef int32_t node, child
        cdef int64_t create_limit = 0 if restrict else max_len
        cdef int64_t max_walk = create_limit
        cdef int64_t n_pinned = <int64_t>pin_off.size() - 1
        cdef int64_t n_allowed = <int64_t>allow_off.size() - 1
        cdef const uint32_t* seq

        # Pinned and allowed tokens are inserted first; beyond create_limit the corpus walk
        # only follows existing nodes, so these are found at any length.
        for q in range(n_pinned + n_allowed):
            if q < n_pinned:
                seq = self.units.data() + pin_off[q]
                n = pin_off[q + 1] - pin_off[q]
            else:
                seq = allow_units.data() + allow_off[q - n_pinned]
                n = allow_off[q - n_pinned + 1] - allow_off[q - n_pinned]
            node = 0
            for j in range(n):
                node = trie.child_or_add(node, seq[j])
                if node == <int32_t>node_depth.size():
                    node_depth.push_back(j + 1)
                    node_flags.push_back(0)
                    node_freq.push_back(0)
                    node_occ.push_back(0)
            if q < n_pinned:
                node_flags[node] |= FLAG_PINNED
                pinned_nodes.push_back(node)
            else:
                node_flags[node] |= FLAG_ALLOWED
            max_walk = max(max_walk, n)

        # Pass 1: substrings of length 2..max_walk with count-weighted frequencies. The node
        # of every step is kept (-1 where a walk stopped) so pass 2 need not walk again.
        cdef vector[int32_t] steps
        cdef int64_t n_steps = 0
        for w in range(self.n_words):     # exact size: a doubling vector would overshoot 2x
            n = self.word_off[w + 1] - self.word_off[w]
            for i in range(n):
                n_steps += max(0, min(n - i, max_walk) - 1)
        steps.reserve(n_steps)
        for w in range(self.n_words):
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            for i in range(n):
                node = 0
                walk = min(n - i, max_walk)
                for d in range(1, walk + 1):
                    if d <= create_limit:
                        child = trie.child_or_add(node, self.units[off + i + d - 1])
                        if child == <int32_t>node_depth.size():
                            node_depth.push_back(d)
                            node_flags.push_back(0)
                            node_freq.push_back(0)
                            node_occ.push_back(0)
                    else:
                        child = trie.child(node, self.units[off + i + d - 1])
                        if child < 0:
                            if walk >= 2:   # pass 2 reads from depth 2 on
                                steps.push_back(-1)
                            break
                    node = child
                    if d >= 2:
                        steps.push_back(node)
                        node_freq[node] += self.counts[w]
                        node_occ[node] += 1

        # The candidate set T.
        cdef int32_t n_nodes = trie.n_nodes
        cdef vector[int32_t] node_cand
        node_cand.assign(n_nodes, -1)
        cdef int32_t c = 0
        cdef uint8_t fl
        cdef bint keep
        for node in range(1, n_nodes):
            fl = node_flags[node]
            if node_depth[node] < 2:
                keep = False
            elif fl & FLAG_PINNED:
                keep = True
            elif node_freq[node] < min_freq:
                keep = False
            else:
                keep = (fl & FLAG_ALLOWED) != 0 or (not restrict and node_depth[node] <= max_len)
            if keep:
                node_cand[node] = c
                c += 1
        self.n_candidates = c
        self.cand_len.resize(c)
        self.cm_off.assign(c + 1, 0)
        for node in range(1, n_nodes):
            if node_cand[node] >= 0:
                self.cand_len[node_cand[node]] = node_depth[node]
                self.cm_off[node_cand[node] + 1] = node_occ[node]
        for c in range(self.n_candidates):
            self.cm_off[c + 1] += self.cm_off[c]
        self.n_occurrences = self.cm_off[self.n_candidates]
        for q in range(n_pinned):
            self.pinned_cands.push_back(node_cand[pinned_nodes[q]])
        node_freq.clear()
        node_freq.shrink_to_fit()
        node_occ.clear()
        node_occ.shrink_to_fit()

        # Pass 2: occurrence lists, word-major (grouped by candidate) and candidate-major.
        cdef int64_t total_units = self.word_off[self.n_words]
        self.word_of_pos.resize(total_units)
        self.cov.assign(total_units, 0)
        self.wm_off.assign(self.n_words + 1, 0)
        self.wm_cand.resize(self.n_occurrences)
        self.wm_start.resize(self.n_occurrences)
        self.cm_pos.resize(self.n_occurrences)
        cdef vector[int64_t] cursor
        cursor.assign(self.cm_off.begin(), self.cm_off.end() - 1)
        cdef vector[uint64_t] local
        cdef int64_t k = 0, step = 0
        cdef int32_t cand
        for w in range(self.n_words):
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            local.clear()
            for i in range(n):
                self.word_of_pos[off + i] = <int32_t>w
                walk = min(n - i, max_walk)
                for d in range(2, walk + 1):
                    node = steps[step]
                    step += 1
                    if node < 0:
                        break
                    if node_cand[node] >= 0:
                        local.push_back((<uint64_t>node_cand[node] << 16) | <uint64_t>i)
            cpp_sort(local.begin(), local.end())
            for t in range(<int64_t>local.size()):
                cand = <int32_t>(local[t] >> 16)
                self.wm_cand[k] = cand
                self.wm_start[k] = <uint16_t>(local[t] & 0xFFFF)
                k += 1
                self.cm_pos[cursor[cand]] = <int32_t>(off + (local[t] & 0xFFFF))
                cursor[cand] += 1
            self.wm_off[w + 1] = k
        trie.release()
        steps.clear()
        steps.shrink_to_fit()
        cursor.clear()
        cursor.shrink_to_fit()

        # Representative positions (pinned tokens' own copy if they never occur), for ties.
        self.cand_pos.resize(self.n_candidates)
        for c in range(self.n_candidates):
            if self.cm_off[c + 1] > self.cm_off[c]:
                self.cand_pos[c] = self.cm_pos[self.cm_off[c]]
        for q in range(n_pinned):
            if self.cm_off[self.pinned_cands[q] + 1] == self.cm_off[self.pinned_cands[q]]:
                self.cand_pos[self.pinned_cands[q]] = pin_off[q]

        # Initial scores, the heap, and the initial objective sum COUNT(W) * |W|.
        self.score.assign(self.n_candidates, 0)
        self.selected.assign(self.n_candidates, 0)
        cdef int64_t longest = 0
        self.initial_objective = 0
        for w in range(self.n_words):
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            longest = max(longest, n)
            self.initial_objective += self.counts[w] * n
        self.objective = self.initial_objective
        self.old_cov.resize(longest + 1)
        self.pref_old.resize(longest + 2)
        self.pref_new.resize(longest + 2)
        for w in range(self.n_words):
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            _prefix(self.cov.data() + off, n, self.pref_new.data())
            self._score_word(w, off, n, self.pref_new.data())
        self.heap.reserve(self.n_candidates)
        cdef HeapEntry entry
        for c in range(self.n_candidates):
            if self.score[c] > 0:
                entry.score = self.score[c]
                entry.cand = c
                self._push(entry)
        return 0

    cdef void _score_word(self, int64_t w, int64_t off, int64_t n, const int32_t* pref) noexcept nogil:
        """Initial pass: add COUNT * g for each candidate of word w (state = self.cov)."""
        cdef int64_t a = self.wm_off[w], b = self.wm_off[w + 1], e
        cdef int32_t cand
        cdef const uint8_t* cv = self.cov.data() + off
        while a < b:
            cand = self.wm_cand[a]
            e = a + 1
            while e < b and self.wm_cand[e] == cand:
                e += 1
            self.score[cand] += self.counts[w] * self._gain(
                cv, pref, n, self.wm_start.data() + a, e - a, self.cand_len[cand])
            a = e

    cdef inline int64_t _gain(self, const uint8_t* cov, const int32_t* pref, int64_t n,
                              const uint16_t* starts, int64_t k, int64_t L) noexcept nogil:
        if self.relaxed:
            return _group_gain_wmc(pref, starts, k, L)
        return _group_gain(cov, pref, n, starts, k, L)

    # ------------------------------------------------------------------ heap

    cdef inline bint _before(self, const HeapEntry& a, const HeapEntry& b) noexcept nogil:
        """Heap order: larger score, then fewer singletons, then smaller units."""
        if a.score != b.score:
            return a.score > b.score
        cdef int64_t la = self.cand_len[a.cand], lb = self.cand_len[b.cand], j
        if la != lb:
            return la < lb
        cdef const uint32_t* pa = self.units.data() + self.cand_pos[a.cand]
        cdef const uint32_t* pb = self.units.data() + self.cand_pos[b.cand]
        for j in range(la):
            if pa[j] != pb[j]:
                return pa[j] < pb[j]
        return False

    cdef int _push(self, HeapEntry entry) except -1 nogil:
        self.heap.push_back(entry)
        cdef int64_t i = <int64_t>self.heap.size() - 1, parent
        while i > 0:
            parent = (i - 1) >> 1
            if not self._before(self.heap[i], self.heap[parent]):
                break
            self.heap[i], self.heap[parent] = self.heap[parent], self.heap[i]
            i = parent
        return 0

    cdef void _pop(self) noexcept nogil:
        cdef int64_t n = <int64_t>self.heap.size() - 1
        self.heap[0] = self.heap[n]
        self.heap.pop_back()
        cdef int64_t i = 0, l, r, best
        while True:
            l = 2 * i + 1
            r = l + 1
            best = i
            if l < n and self._before(self.heap[l], self.heap[best]):
                best = l
            if r < n and self._before(self.heap[r], self.heap[best]):
                best = r
            if best == i:
                break
            self.heap[i], self.heap[best] = self.heap[best], self.heap[i]
            i = best

    cdef int32_t _pop_best(self) except -2 nogil:
        """The live argmax (see module docstring), or -1 when no score is positive."""
        cdef HeapEntry top
        cdef int32_t c
        cdef int64_t s
        while self.heap.size():
            top = self.heap[0]
            c = top.cand
            self._pop()
            if self.selected[c]:
                continue
            s = self.score[c]
            if s == top.score:
                return c
            if s < top.score and s > 0:
                top.score = s
                self._push(top)
        return -1

    # ------------------------------------------------------------------ stepping

    cdef int64_t _apply(self, int32_t tau) except -1 nogil:
        """Cover every CANCOVER occurrence of tau (Algorithm 1, lines 10-13), update scores.

        GreedWMC (``relaxed``) covers every occurrence instead, without the checks.

        Returns the decrease of the objective (tokens saved, count-weighted).
        """
        cdef int64_t L = self.cand_len[tau]
        cdef int64_t p = self.cm_off[tau], end = self.cm_off[tau + 1], r
        cdef int64_t w, off, n, s, e, t, newly, lo, hi, last_end
        cdef int64_t total = 0
        cdef uint8_t* cv
        while p < end:
            w = self.word_of_pos[self.cm_pos[p]]
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            cv = self.cov.data() + off
            memcpy(self.old_cov.data(), cv, n)
            newly = 0
            lo = n
            hi = -1
            last_end = -1
            r = p
            while r < end and self.word_of_pos[self.cm_pos[r]] == w:
                s = self.cm_pos[r] - off
                r += 1
                e = s + L
                if not self.relaxed and (s < last_end or (s > 0 and cv[s - 1]) or (e < n and cv[e - 1])):
                    continue
                for t in range(s, e - 1):
                    if not cv[t]:
                        cv[t] = 1
                        newly += 1
                lo = min(lo, s)
                hi = max(hi, e - 2)
                last_end = e
            p = r
            if newly:
                total += self.counts[w] * newly
                self._rescore_word(w, off, n, lo, hi)
        return total

    cdef int _rescore_word(self, int64_t w, int64_t off, int64_t n, int64_t lo, int64_t hi) except -1 nogil:
        """Add COUNT * (g_new - g_old) to every candidate of w whose windows meet gaps lo..hi."""
        cdef const uint8_t* cv_new = self.cov.data() + off
        cdef const uint8_t* cv_old = self.old_cov.data()
        _prefix(cv_old, n, self.pref_old.data())
        _prefix(cv_new, n, self.pref_new.data())
        cdef int64_t a = self.wm_off[w], b = self.wm_off[w + 1], e, L, delta
        cdef int32_t cand
        cdef const uint16_t* starts
        cdef HeapEntry entry
        while a < b:
            cand = self.wm_cand[a]
            e = a + 1
            while e < b and self.wm_cand[e] == cand:
                e += 1
            L = self.cand_len[cand]
            starts = self.wm_start.data() + a
            # An occurrence reads gaps s-1 .. s+L-1 only; skip groups that cannot see lo..hi.
            if not self.selected[cand] and starts[e - a - 1] + L - 1 >= lo and <int64_t>starts[0] - 1 <= hi:
                delta = self.counts[w] * (
                    self._gain(cv_new, self.pref_new.data(), n, starts, e - a, L)
                    - self._gain(cv_old, self.pref_old.data(), n, starts, e - a, L))
                if delta:
                    self.score[cand] += delta
                    if delta > 0:
                        self.score_rises += 1
                        entry.score = self.score[cand]
                        entry.cand = cand
                        self._push(entry)
            a = e
        return 0

    def step(self, int64_t max_steps):
        """Select up to ``max_steps`` more tokens; returns how many were selected.

        Pinned tokens come first, in their order. Selection stops early (``exhausted``) when
        no candidate has a positive gain.
        """
        cdef int64_t done = 0, gain, expected
        cdef int32_t tau
        with nogil:
            while done < max_steps:
                if self.n_pinned_done < <int64_t>self.pinned_cands.size():
                    tau = self.pinned_cands[self.n_pinned_done]
                    self.n_pinned_done += 1
                else:
                    tau = self._pop_best()
                    if tau < 0:
                        self.exhausted = True
                        break
                    if self.score[tau] <= 0:
                        self.exhausted = True
                        break
                expected = self.score[tau]
                self.selected[tau] = 1
                gain = self._apply(tau)
                if gain != expected:
                    self.score_mismatches += 1
                self.score[tau] = 0
                self.ranking.push_back(tau)
                self.gains.push_back(gain)
                self.objective -= gain
                done += 1
        return done

    # ------------------------------------------------------------------ results

    @property
    def n_selected(self):
        return <int64_t>self.ranking.size()

    @property
    def n_pinned(self):
        return <int64_t>self.pinned_cands.size()

    def ranked_units(self):
        """The selected tokens in rank order as (units uint32[M], offsets int64[k + 1])."""
        cdef int64_t k = self.ranking.size(), q, total = 0
        offsets = np.zeros(k + 1, dtype=np.int64)
        cdef int64_t[::1] o = offsets
        for q in range(k):
            total += self.cand_len[self.ranking[q]]
            o[q + 1] = total
        out = np.empty(total, dtype=np.uint32)
        cdef uint32_t[::1] u = out
        cdef int64_t pos, j
        for q in range(k):
            pos = self.cand_pos[self.ranking[q]]
            for j in range(self.cand_len[self.ranking[q]]):
                u[o[q] + j] = self.units[pos + j]
        return out, offsets

    def gains_array(self):
        """int64[k]: the objective decrease (count-weighted tokens saved) of each step."""
        return np.asarray(<int64_t[:self.gains.size()]>self.gains.data()).copy() if self.gains.size() \
            else np.zeros(0, dtype=np.int64)

    def word_token_lengths(self, int64_t w):
        """Current partition of word w as token lengths in singletons (runs of covered gaps)."""
        if w < 0 or w >= self.n_words:
            raise IndexError(w)
        cdef int64_t off = self.word_off[w], n = self.word_off[w + 1] - off, i = 0, j
        out = []
        while i < n:
            j = i
            while j < n - 1 and self.cov[off + j]:
                j += 1
            out.append(j - i + 1)
            i = j + 1
        return out

    def scores(self):
        """Live scores R(T) of all unselected candidates as {tuple(units): score} (for tests)."""
        cdef int32_t c
        cdef int64_t pos
        out = {}
        for c in range(self.n_candidates):
            if not self.selected[c]:
                pos = self.cand_pos[c]
                out[tuple(self.units[pos + j] for j in range(self.cand_len[c]))] = self.score[c]
        return out

    def memory_bytes(self):
        """Bytes held by the native state now (the trie used while building is freed)."""
        return self._memory_bytes()

    cdef int64_t _memory_bytes(self) noexcept nogil:
        return <int64_t>(
            self.units.capacity() * 4 + self.word_off.capacity() * 8 + self.counts.capacity() * 8
            + self.word_of_pos.capacity() * 4 + self.cov.capacity()
            + self.cand_len.capacity() * 2 + self.cand_pos.capacity() * 8
            + self.score.capacity() * 8 + self.selected.capacity() + self.cm_off.capacity() * 8
            + self.cm_pos.capacity() * 4 + self.wm_off.capacity() * 8 + self.wm_cand.capacity() * 4
            + self.wm_start.capacity() * 2 + self.heap.capacity() * sizeof(HeapEntry)
        )
