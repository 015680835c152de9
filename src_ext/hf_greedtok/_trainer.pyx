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

The argmax is therefore a function of the exact scores alone, whatever the heap's layout or
the order of its pushes: the setup builds the heap bottom-up (Floyd), not by pushes.

Candidates on demand (``threshold``). Most substrings of a corpus (those of rare words) can
never be picked, so only candidates whose gain bound reaches a threshold are built: their
occurrence lists, scores and heap entries. The bound of T at the time t0 of a build is
    B(T) = sum over T's occurrences o (in word W) of COUNT(W) * u(o),
u(o) = the uncovered gaps inside o, or 0 when a gap at o's ends is covered (GreedWMC: no such
0, it ignores CANCOVER). Covered gaps stay covered, so u(o) never rises after t0, and SCORE
counts pairwise non-overlapping occurrences allowed by CANCOVER, each worth u(o): for every
later state, R(T) <= B(T). (Scores themselves may rise; B only falls.) A candidate not built
therefore scores below the threshold for the rest of the run, and a step whose best built
score reaches the threshold picks Algorithm 1's argmax, ties included. When the best built
score falls below it (or none is left), everything is rebuilt in the current state with a
threshold at most that score and at most a quarter of the old one; threshold 0 builds all of
T and is final. Ranked tokens are kept as (position, length), so a rebuild renumbers
candidates freely. The first threshold comes from the caller (``auto_threshold``: from the
initial objective and the number of steps expected); it affects time and memory only.

The walk that finds the candidates goes one length at a time and extends a substring of
length d only if its node can have a descendant worth building: its occurrences' windows of
the longest length that can still count there hold enough uncovered gaps (sum of COUNT(W) *
uncovered gaps, >= the threshold, bounds B of every descendant, whose occurrences that can
count lie inside those windows) and its frequency reaches min_frequency. A position is walked
only up to that longest length (its reach: the gap before it and the one after the occurrence
uncovered, or the word's ends; 0 if the gap before it is covered): longer occurrences there
can never count, add 0 to every bound, and CANCOVER skips them in SCORE and in covering, so
they may be left out of the lists. Whether a node is extended depends on the node only, so
every node created has all its occurrences within reach counted.

Parallel setup (``num_threads``). Candidates, occurrence lists and initial scores are built
in phases whose tasks run on their own threads without the GIL (``_parallel.h``), each writing
only what it owns, so nothing depends on scheduling:
* pass 1 (the trie walk) is split by the first singleton of a substring: all substrings that
  start with one singleton form one subtree, so each partition builds its own trie over the
  positions whose singleton it owns. Candidate ids are then assigned in the order one trie
  would have created the nodes (by the depth and position where each was first walked), which
  the partitions' creation orders merge into; ids are the same for every thread count;
* word-major lists are written per range of words, candidate-major lists and initial scores
  per range of candidates (integer sums, exact in any grouping).
A task's error (MemoryError included) is raised in the caller once all tasks have stopped.

Sizes: positions are int32 (at most 2**31 - 1 singletons), occurrence offsets uint32 (at most
2**32 - 1 occurrences), start positions inside a word uint16. Per built candidate: length 2,
position 4, score 8, selected 1, occurrence offset 4 and one 12-byte heap entry = 31 bytes; per
built occurrence: 4 (candidate-major position) + 4 + 2 (word-major candidate and start) = 10
bytes; per corpus position: 4 (its word) + 1 (its gap). While building, per trie node: 8-16
(hash slot, half empty) + 2 + 1 + 24 + 4 + 4 (depth, flags, three sums, occurrences, first
walk), and 8 per position still walked.

GreedWMC (``relaxed=True``). The same machinery runs the greedy (1 - 1/e) algorithm for the
weighted maximum coverage relaxation of Section 4.2.1 [Hoc96, Section 3.9]: the gain of a token
is the count-weighted number of still-uncovered gaps inside the union of its occurrences, and
selecting it covers all of them. Gains then only fall (coverage is submodular), so no score
ever rises. The paper's d_inst (Section 5.3) is the GreedTok objective over this one.
"""

from cpython.ref cimport PyObject
from libc.stdint cimport INT32_MAX, UINT32_MAX, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libcpp.algorithm cimport sort as cpp_sort
from libcpp.utility cimport pair
from libcpp.vector cimport vector
cimport cython

from hf_greedtok._hashtrie cimport HashTrie

import numpy as np

cdef extern from "_parallel.h" nogil:
    ctypedef int (*hfg_task_fn)(void* ctx, int t) except -1
    int hfg_run_tasks(int n, hfg_task_fn fn, void* ctx) except -1
    cppclass hfg_team:
        hfg_team()
    int hfg_team_start(hfg_team* team, int n) except -1
    int hfg_team_run(hfg_team* team, hfg_task_fn fn, void* ctx) except -1
    void hfg_team_stop(hfg_team* team)

cdef extern from *:
    """
    #include <type_traits>
    template <class V> static inline void hfg_free_vector(typename std::remove_reference<V>::type& v) {
        typename std::remove_reference<V>::type().swap(v);
    }
    """
    # clear() keeps the capacity; swapping with an empty vector returns the memory
    void _free "hfg_free_vector"[V](V& v) noexcept nogil

cdef extern from *:
    """
    static inline void hfg_progress_store(int64_t* cell, int64_t value) {
        if (cell) __atomic_store_n(cell, value, __ATOMIC_RELAXED);
    }
    """
    # a Python thread reads the cell while the build runs without the GIL
    void _progress_store "hfg_progress_store"(int64_t* cell, int64_t value) noexcept nogil

cdef enum:
    FLAG_PINNED = 1
    FLAG_ALLOWED = 2
    FLAG_PATH = 4          # a proper prefix of a pinned token: always extended by the walk
    FLAG_SELECTED = 8      # a token already ranked (rebuilds): never a candidate again
    FLAG_EXTEND = 16       # the walk extended this node (frequent enough, or on a pinned path)
    FLAG_KEEP = 32         # a candidate of this build
MAX_WORD_UNITS = 65535   # positions inside a word are stored as uint16
MAX_POSITIONS = 2**31 - 1   # positions in the corpus (and pinned tokens) are stored as int32
# A step whose token has fewer occurrences runs on one thread: waking the step's team would
# cost more. Measured on the 43 MB mix (k = 32,512, 2 cores, quiet machine, benchmarks/
# RESULTS.md): with the team, 32, 64 and 128 give the same solve (2.41-2.64 s against 4.20-4.62 s
# on one thread) and 1024 (the threshold when each parallel step started its own thread) 3.0-3.6 s.
cdef int64_t PARALLEL_MIN_OCCURRENCES = 64
# A rebuild lowers the threshold at least this many times (see "Candidates on demand").
cdef int64_t LAZY_RATIO = 4
AUTO_MIN_STEPS = 1000
BUILD_PHASES = ("plan", "walk", "candidates", "word_lists", "candidate_lists", "scores", "heap")
# The first build's progress (the ``progress`` cell of GreedTokCore): parts per BUILD_STEPS done
# when each phase ends, in BUILD_PHASES order. The shares are those measured on English superword
# chunks (20 MB, 2 threads: walk 59%, word lists 15%, scores 21% of the build).
BUILD_STEPS = 1_000_000
cdef int64_t[7] PHASE_END = [10_000, 600_000, 610_000, 760_000, 800_000, 995_000, 1_000_000]


cdef struct ScoreDelta:           # a score change buffered by a task of _apply_parallel
    int64_t delta
    int32_t cand


cdef packed struct HeapEntry:     # 12 bytes: one per candidate with a positive score
    int64_t score
    int32_t cand


cdef extern from *:
    """
    #include <chrono>
    /* Monotonic wall seconds on every platform (POSIX clock_gettime is not on Windows); on
     * Linux, libstdc++'s steady_clock reads clock_gettime(CLOCK_MONOTONIC), as this did before. */
    static inline double hfg_now(void) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    """
    double _now "hfg_now"() noexcept nogil


cdef int _new_node(vector[uint16_t]* depth, vector[uint8_t]* flags, vector[int64_t]* freq,
                   vector[int32_t]* occ, vector[int32_t]* first, int64_t d, int32_t where) except -1 nogil:
    """A trie node of depth d first walked at `where`; freq holds 3 sums per node (see _walk_part)."""
    depth.push_back(<uint16_t>d)
    flags.push_back(0)
    freq.push_back(0)
    freq.push_back(0)
    freq.push_back(0)
    occ.push_back(0)
    first.push_back(where)
    return 0


cdef int _balanced_bounds(const int64_t* off, int64_t n, int parts, vector[int64_t]& bounds) except -1 nogil:
    """bounds[0..parts]: cuts of items 0..n-1 with about equal weight, given the prefix sums
    off[0..n] of their weights (bounds[t] is the first item whose prefix reaches t/parts)."""
    bounds.clear()       # not assign(n, x): Cython's vector.pxd lacks its except +, so bad_alloc would abort
    bounds.resize(parts + 1, n)
    bounds[0] = 0
    cdef int t
    cdef int64_t lo, hi, mid, target
    for t in range(1, parts):
        target = <int64_t>(<double>off[n] * t / parts)
        lo = bounds[t - 1]
        hi = n
        while lo < hi:
            mid = (lo + hi) >> 1
            if off[mid] < target:
                lo = mid + 1
            else:
                hi = mid
        bounds[t] = lo
    return 0


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
        num_threads: threads for building the candidates, their occurrence lists and initial
            scores (>= 1). Candidate ids, scores, the ranking, the gains and the objective are
            the same for every thread count (see "Parallel setup" in the module docstring).
        threshold: candidates on demand (module docstring): the first build's threshold,
            count-weighted singletons saved; 0 builds every candidate at once, a negative
            value (default -1) takes ``auto_threshold(initial_objective, expected_steps)``. The ranking, gains and
            objective do not depend on it; ``n_candidates``, ``n_occurrences`` and ``scores()``
            cover the candidates built (after the last rebuild), ``n_builds``,
            ``n_candidates_built`` and ``n_occurrences_built`` count builds and their sums.
        expected_steps: how many steps the caller means to run (a hint for ``threshold=-1``).

    Raises:
        ValueError: a word longer than 65535 singletons, a count < 1, bad offsets or limits,
            2**31 or more singletons (words and pinned tokens together), or 2**32 or more
            candidate occurrences (use a smaller max_token_length or a larger min_frequency).
        MemoryError: out of memory while building (in any thread).
    """

    cdef vector[uint32_t] units          # corpus units, then pinned tokens' units
    cdef vector[int64_t] word_off
    cdef vector[int64_t] counts
    cdef vector[int32_t] word_of_pos
    cdef vector[uint8_t] cov
    cdef int64_t n_words
    cdef readonly int32_t n_candidates      # of the last build
    cdef readonly int64_t n_occurrences
    cdef vector[uint16_t] cand_len
    cdef vector[int32_t] cand_pos        # position of one instance in `units` (< 2**31)
    cdef vector[int64_t] score
    cdef vector[uint8_t] selected
    cdef vector[uint32_t] cm_off         # candidate -> its occurrences (global positions)
    cdef vector[int32_t] cm_pos
    cdef vector[uint32_t] wm_off         # word -> its occurrences grouped by candidate
    cdef vector[int32_t] wm_cand
    cdef vector[uint16_t] wm_start
    cdef vector[int32_t] pinned_cands
    cdef int64_t n_pinned_done
    cdef vector[HeapEntry] heap
    cdef vector[int32_t] rank_pos        # the ranking: each token as (position in units, length),
    cdef vector[uint16_t] rank_len       # which stays valid when a rebuild renumbers candidates
    cdef readonly int64_t threshold      # materialised: every candidate with bound >= threshold
    cdef readonly int64_t n_builds
    cdef readonly int64_t n_candidates_built   # candidates materialised over all builds
    cdef readonly int64_t n_occurrences_built
    cdef vector[int64_t] gains
    cdef readonly int64_t objective
    cdef readonly int64_t initial_objective
    cdef readonly bint exhausted
    cdef readonly int64_t score_rises
    cdef readonly int64_t score_mismatches
    cdef readonly bint relaxed
    cdef readonly int num_threads
    cdef int n_tasks                     # threads of the setup and of _apply_parallel
    cdef hfg_team* team                  # step()'s threads, kept between picks (NULL outside step)
    cdef int64_t longest                 # singletons of the longest word
    # _apply's buffers, one per task (index 0 also for the one-thread path)
    cdef vector[vector[uint8_t]] a_old_cov
    cdef vector[vector[int32_t]] a_pref_old
    cdef vector[vector[int32_t]] a_pref_new
    cdef vector[vector[ScoreDelta]] a_deltas
    cdef vector[int64_t] a_gain
    cdef vector[int64_t] a_bounds        # task t covers cm_pos[a_bounds[t]:a_bounds[t + 1]]
    cdef int32_t a_tau
    cdef double build_clock[8]
    cdef int64_t n_applies[2]            # picks applied on one thread / over n_tasks threads
    cdef double apply_seconds[2]         # their wall time (selection and rebuilds excluded)
    cdef double rebuild_seconds          # wall time of the rebuilds step() ran
    cdef int64_t* progress               # the first build's progress cell (NULL: none, or after it)

    # Build-only state (freed when _build returns). Pass 1 splits the substrings by the
    # partition of their first singleton; everything else by ranges of words or candidates.
    cdef int64_t b_max_walk, b_create_limit, b_min_freq, b_n_pinned, b_n_special
    cdef bint b_restrict
    cdef int64_t b_max_len
    cdef vector[int64_t] b_pin_off       # pinned tokens, offsets into self.units
    cdef vector[uint32_t] b_allow_units
    cdef vector[int64_t] b_allow_off
    cdef vector[int32_t] b_cpref         # covered gaps before each corpus position (prefix sums)
    cdef vector[uint16_t] b_reach        # longest occurrence that can still count from a position
    cdef int64_t b_n_allowed_end         # specials: pinned, allowed, then ranked tokens (rebuilds)
    cdef vector[vector[int32_t]] b_occ_pos    # per partition: the occurrences of kept nodes,
    cdef vector[vector[int32_t]] b_occ_node   # as (corpus position, node), found by the walk
    cdef vector[uint8_t] b_pos_part      # corpus position -> partition (empty if one partition)
    cdef vector[uint8_t] b_special_part  # pinned, then allowed token -> partition
    cdef vector[int32_t] b_special_node  # pinned, then allowed token -> its node
    cdef vector[PyObject*] b_tries       # one HashTrie per partition (owned by b_trie_objs)
    cdef list b_trie_objs
    cdef HashTrie b_slots                # first singleton -> slot of _plan (only with partitions)
    cdef vector[vector[uint16_t]] b_depth
    cdef vector[vector[uint8_t]] b_flags
    cdef vector[vector[int64_t]] b_freq
    cdef vector[vector[int32_t]] b_occ
    cdef vector[vector[int32_t]] b_first    # where the node was first walked (see _merge_nodes)
    cdef vector[vector[int32_t]] b_node_cand
    cdef vector[int64_t] b_word_bounds   # task t owns words b_word_bounds[t] .. [t + 1] - 1
    cdef vector[int64_t] b_cand_bounds   # task t owns candidates b_cand_bounds[t] .. [t + 1] - 1
    cdef vector[uint32_t] b_cursor

    def __init__(self, const uint32_t[::1] units, const int64_t[::1] word_offsets,
                 const int64_t[::1] counts, int max_token_length, int64_t min_frequency,
                 const uint32_t[::1] pinned_units, const int64_t[::1] pinned_offsets,
                 const uint32_t[::1] allowed_units, const int64_t[::1] allowed_offsets,
                 bint restrict, bint relaxed=False, int num_threads=1,
                 int64_t threshold=-1, int64_t expected_steps=0, int64_t[::1] progress=None):
        cdef int64_t n_words = counts.shape[0]
        cdef int64_t w, longest = 0, q
        if word_offsets.shape[0] != n_words + 1 or word_offsets[0] != 0 \
                or word_offsets[n_words] != units.shape[0]:
            raise ValueError("word_offsets must start at 0, have n_words + 1 entries and end at len(units)")
        if max_token_length < 2:
            raise ValueError(f"max_token_length must be >= 2, got {max_token_length}")
        if min_frequency < 1:
            raise ValueError(f"min_frequency must be >= 1, got {min_frequency}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        if units.shape[0] + pinned_units.shape[0] > MAX_POSITIONS:
            raise ValueError(f"{units.shape[0] + pinned_units.shape[0]} singletons in the words and pinned "
                             f"tokens; the trainer supports at most {MAX_POSITIONS} (32-bit positions)")
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
        self.num_threads = num_threads
        self.units.resize(units.shape[0] + pinned_units.shape[0])
        if units.shape[0]:
            memcpy(self.units.data(), &units[0], units.shape[0] * sizeof(uint32_t))
        if pinned_units.shape[0]:
            memcpy(self.units.data() + units.shape[0], &pinned_units[0], pinned_units.shape[0] * sizeof(uint32_t))
        self.word_off.assign(&word_offsets[0], &word_offsets[0] + n_words + 1)
        self.counts.resize(n_words)
        if n_words:
            memcpy(self.counts.data(), &counts[0], n_words * sizeof(int64_t))
        for q in range(pinned_offsets.shape[0]):
            self.b_pin_off.push_back(pinned_offsets[q] + units.shape[0])
        self.b_allow_units.resize(allowed_units.shape[0])
        if allowed_units.shape[0]:
            memcpy(self.b_allow_units.data(), &allowed_units[0], allowed_units.shape[0] * sizeof(uint32_t))
        for q in range(allowed_offsets.shape[0]):
            self.b_allow_off.push_back(allowed_offsets[q])
        self.b_max_len = max_token_length
        self.b_min_freq = min_frequency
        self.b_restrict = restrict
        # one partition per thread, at most 255 (b_pos_part is a byte)
        self.n_tasks = min(num_threads, 255)
        self.word_of_pos.resize(self.word_off[n_words])
        self.initial_objective = 0
        for w in range(n_words):
            for q in range(self.word_off[w], self.word_off[w + 1]):
                self.word_of_pos[q] = <int32_t>w
            self.initial_objective += self.counts[w] * (self.word_off[w + 1] - self.word_off[w])
        self.objective = self.initial_objective
        self.longest = longest
        self.cov.clear()
        self.cov.resize(self.word_off[n_words], 0)
        if threshold < 0:
            threshold = auto_threshold(self.initial_objective, expected_steps)
        if progress is not None and progress.shape[0]:
            self.progress = &progress[0]
        try:
            self._materialise(threshold)
        finally:
            self.progress = NULL       # the caller's array need not outlive the constructor

    cdef int _materialise(self, int64_t threshold) except -1:
        """(Re)build the candidates whose gain bound reaches `threshold` (0: all of them), their
        occurrence lists and their scores in the current state; see "Candidates on demand"."""
        self.threshold = threshold
        # expected nodes of each partition's trie; it grows as needed
        self.b_trie_objs = [HashTrie(max(1024, self.units.size() // (2 * self.n_tasks))) for _ in range(self.n_tasks)]
        for trie in self.b_trie_objs:
            self.b_tries.push_back(<PyObject*>trie)
        if self.n_tasks > 1:
            self.b_slots = HashTrie(1024)
        try:
            with nogil:
                self._build()
        finally:
            self._free_build_state()
            self.b_trie_objs = None
            self.b_slots = None
        self.n_builds += 1
        self.n_candidates_built += self.n_candidates
        self.n_occurrences_built += self.n_occurrences
        return 0

    # ------------------------------------------------------------------ building
    #
    # The phases, each a task per partition or range (_run_tasks), in this order:
    #   _plan           steps per word; first singletons -> partitions (balanced by steps)
    #   _walk_part      pass 1: trie of one partition, node frequencies, the node of every step
    #   _merge_nodes    candidate ids in the order a single trie would have created them
    #   _count_words    occurrences per word (word ranges)
    #   _fill_words     word-major occurrence lists (word ranges)
    #   _fill_cands     candidate-major occurrence lists (candidate ranges)
    #   _score_cands    initial scores and representative positions (candidate ranges)
    #   _heapify        the heap

    cdef int _run_tasks(self, hfg_task_fn fn) except -1 nogil:
        """fn(self, t) for every task t, on b_parts threads (inline when there is one)."""
        if self.n_tasks == 1:
            return fn(<void*>self, 0)
        return hfg_run_tasks(self.n_tasks, fn, <void*>self)

    cdef int _build(self) except -1 nogil:
        cdef int64_t q, w, c
        cdef int t
        # the previous build's candidates go first: the new ones take their place
        _free(self.cand_len)
        _free(self.cand_pos)
        _free(self.score)
        _free(self.selected)
        _free(self.cm_off)
        _free(self.cm_pos)
        _free(self.wm_off)
        _free(self.wm_cand)
        _free(self.wm_start)
        _free(self.heap)
        self.build_clock[0] = _now()
        self._plan()
        self._phase_done(0)
        self.build_clock[1] = _now()
        self._run_tasks(_task_walk)
        for t in range(self.n_tasks):        # the nodes' arrays and occurrences say all that is needed now
            (<HashTrie>self.b_tries[t]).release()
        self._phase_done(1)
        self.build_clock[2] = _now()
        self._merge_nodes()
        self._phase_done(2)
        self.build_clock[3] = _now()
        self._scatter_words()
        # word ranges of about equal numbers of singletons
        _balanced_bounds(self.word_off.data(), self.n_words, self.n_tasks, self.b_word_bounds)
        self._run_tasks(_task_sort_words)
        self._free_walk_state()
        self._phase_done(3)
        self.build_clock[4] = _now()
        # candidate ranges of about equal numbers of occurrences
        cdef vector[int64_t] cm_off64
        cm_off64.assign(self.cm_off.begin(), self.cm_off.end())
        _balanced_bounds(cm_off64.data(), self.n_candidates, self.n_tasks, self.b_cand_bounds)
        cm_off64.clear()
        cm_off64.shrink_to_fit()
        self.cm_pos.resize(self.n_occurrences)
        self.b_cursor.assign(self.cm_off.begin(), self.cm_off.end() - 1)
        self._run_tasks(_task_fill_cands)
        _free(self.b_cursor)
        self._phase_done(4)
        self.build_clock[5] = _now()

        # Scores in the current state (SCORE on M), representative positions (for ties).
        self.score.clear()
        self.score.resize(self.n_candidates, 0)
        self.selected.clear()
        self.selected.resize(self.n_candidates, 0)
        self.cand_pos.clear()
        self.cand_pos.resize(self.n_candidates, 0)
        self._run_tasks(_task_score_cands)
        if self.n_builds == 0:
            for q in range(self.b_n_pinned):      # a pinned token that never occurs: its own copy
                c = self.pinned_cands[q]
                if self.cm_off[c + 1] == self.cm_off[c]:
                    self.cand_pos[c] = <int32_t>self.b_pin_off[q]
        self._scratch(1)
        self._phase_done(5)
        self.build_clock[6] = _now()
        self._heapify()
        self._phase_done(6)
        self.build_clock[7] = _now()
        return 0

    cdef inline void _phase_done(self, int phase) noexcept nogil:
        _progress_store(self.progress, PHASE_END[phase])

    cdef inline void _phase_share(self, int phase, double share) noexcept nogil:
        """Progress at ``share`` (0..1) of ``phase``; task 0 reports for all (the tasks' shares of
        a phase are balanced)."""
        cdef int64_t start = PHASE_END[phase - 1] if phase else 0
        _progress_store(self.progress, start + <int64_t>(min(1.0, max(0.0, share)) * (PHASE_END[phase] - start)))

    cdef void _free_walk_state(self) noexcept nogil:
        cdef int t
        for t in range(<int>self.b_tries.size()):
            (<HashTrie>self.b_tries[t]).release()
        _free(self.b_pos_part)
        self.b_depth.clear()
        self.b_depth.shrink_to_fit()
        self.b_flags.clear()
        self.b_flags.shrink_to_fit()
        self.b_freq.clear()
        self.b_freq.shrink_to_fit()
        self.b_occ.clear()
        self.b_occ.shrink_to_fit()
        self.b_first.clear()
        self.b_first.shrink_to_fit()
        self.b_node_cand.clear()
        self.b_node_cand.shrink_to_fit()
        self.b_occ_pos.clear()
        self.b_occ_pos.shrink_to_fit()
        self.b_occ_node.clear()
        self.b_occ_node.shrink_to_fit()

    cdef void _free_build_state(self) noexcept nogil:
        self._free_walk_state()
        self.b_tries.clear()
        self.b_tries.shrink_to_fit()
        _free(self.b_cursor)
        _free(self.b_cpref)
        _free(self.b_reach)
        self.b_special_part.clear()
        self.b_special_part.shrink_to_fit()
        self.b_special_node.clear()
        self.b_special_node.shrink_to_fit()

    cdef inline const uint32_t* _special(self, int64_t q, int64_t* n) noexcept nogil:
        """Singletons of pinned token q (q < n_pinned), allowed token q - n_pinned, or (after
        them, rebuilds only) ranked token q - n_allowed_end."""
        if q < self.b_n_pinned:
            n[0] = self.b_pin_off[q + 1] - self.b_pin_off[q]
            return self.units.data() + self.b_pin_off[q]
        if q < self.b_n_allowed_end:
            q -= self.b_n_pinned
            n[0] = self.b_allow_off[q + 1] - self.b_allow_off[q]
            return self.b_allow_units.data() + self.b_allow_off[q]
        q -= self.b_n_allowed_end
        n[0] = self.rank_len[q]
        return self.units.data() + self.rank_pos[q]

    cdef int _plan(self) except -1 nogil:
        """The walk's limits, and the partition of every corpus position, special token and
        ranked token (rebuilds).

        Position i of a word of n singletons starts max(0, min(n - i, max_walk) - 1) substrings
        of length >= 2 (its steps). The substrings starting at one position share their first
        singleton, so partitions by first singleton give disjoint subtrees of the one trie;
        they are balanced by steps (largest first, each to the lightest partition so far).
        """
        self.b_n_pinned = <int64_t>self.b_pin_off.size() - 1
        self.b_n_allowed_end = self.b_n_pinned + <int64_t>self.b_allow_off.size() - 1
        self.b_n_special = self.b_n_allowed_end + <int64_t>self.rank_pos.size()
        self.b_create_limit = 0 if self.b_restrict else self.b_max_len
        self.b_max_walk = self.b_create_limit
        cdef int64_t q, n, w, i, off
        cdef const uint32_t* seq
        for q in range(self.b_n_special):
            self._special(q, &n)
            self.b_max_walk = max(self.b_max_walk, n)
        self.b_cpref.resize(self.word_off[self.n_words] + 1)
        self.b_cpref[0] = 0
        for i in range(self.word_off[self.n_words]):
            self.b_cpref[i + 1] = self.b_cpref[i] + self.cov[i]
        self._reach()
        self.b_special_node.clear()
        self.b_special_node.resize(self.b_n_special, 0)
        self.b_special_part.clear()
        self.b_special_part.resize(self.b_n_special, 0)
        cdef int P = self.n_tasks, p, best
        self.b_depth.resize(P)
        self.b_flags.resize(P)
        self.b_freq.resize(P)
        self.b_occ.resize(P)
        self.b_occ_pos.resize(P)
        self.b_occ_node.resize(P)
        self.b_first.resize(P)
        self.b_node_cand.resize(P)
        if P == 1:
            return 0
        # first singleton -> slot (a HashTrie used as a map under the root), steps per slot
        cdef vector[int64_t] load
        cdef vector[pair[int64_t, uint32_t]] order
        cdef int32_t s
        for w in range(self.n_words):
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            for i in range(n):
                s = self.b_slots.child(0, self.units[off + i])
                if s < 0:
                    s = <int32_t>load.size()
                    self.b_slots.put(0, self.units[off + i], s)
                    load.push_back(0)
                    order.push_back(pair[int64_t, uint32_t](0, self.units[off + i]))
                load[s] += max(0, min(n - i, self.b_max_walk) - 1)
        for q in range(self.b_n_special):
            seq = self._special(q, &n)
            if self.b_slots.child(0, seq[0]) < 0:
                self.b_slots.put(0, seq[0], <int32_t>load.size())
                load.push_back(0)
                order.push_back(pair[int64_t, uint32_t](0, seq[0]))
        for s in range(<int32_t>load.size()):
            order[s].first = -load[s]
        cpp_sort(order.begin(), order.end())      # heaviest first, ties by singleton: deterministic
        cdef vector[int64_t] part_load
        part_load.clear()
        part_load.resize(P, 0)
        cdef vector[uint8_t] slot_part
        slot_part.resize(load.size())
        for s in range(<int32_t>order.size()):
            best = 0
            for p in range(1, P):
                if part_load[p] < part_load[best]:
                    best = p
            part_load[best] -= order[s].first
            slot_part[self.b_slots.child(0, order[s].second)] = <uint8_t>best
        self.b_pos_part.resize(self.word_off[self.n_words])
        for i in range(self.word_off[self.n_words]):
            self.b_pos_part[i] = slot_part[self.b_slots.child(0, self.units[i])]
        for q in range(self.b_n_special):
            seq = self._special(q, &n)
            self.b_special_part[q] = slot_part[self.b_slots.child(0, seq[0])]
        self.b_slots.release()
        return 0

    cdef int _reach(self) except -1 nogil:
        """b_reach[p]: the longest length L <= max_walk (and the word's end) whose occurrence at p
        CANCOVER can still allow (the gaps before p and at p + L - 1 uncovered, or the word's
        ends), 0 if none of length >= 2. Covered gaps stay covered, so no occurrence at p
        longer than b_reach[p] can ever count again. GreedWMC: every length that fits."""
        cdef int64_t w, off, end, p, r
        self.b_reach.resize(self.word_off[self.n_words])
        for w in range(self.n_words):
            off = self.word_off[w]
            end = self.word_off[w + 1]
            for p in range(off, end):
                r = min(self.b_max_walk, end - p)
                if not self.relaxed:
                    if p > off and self.cov[p - 1]:
                        r = 0
                    while r >= 2 and p + r < end and self.cov[p + r - 1]:
                        r -= 1
                    if r < 2:
                        r = 0
                self.b_reach[p] = <uint16_t>r
        return 0

    cdef int _walk_part(self, HashTrie trie, int t) except -1 nogil:
        """Pass 1 over partition t: its pinned and allowed tokens, then, one length at a time,
        the substrings of length 1..max_walk starting at its positions, with count-weighted
        frequencies and occurrence counts, and the occurrences of the nodes kept as candidates
        (see _merge_nodes for which).

        Length d extends only the substrings of length d - 1 whose node reached f_min (or lies
        on a pinned token's path): the others have no descendant worth materialising (see
        _plan). Whether a node is extended is a property of the node, so every node the walk
        creates is reached at all its occurrences and its frequency is exact."""
        cdef vector[uint16_t]* depth = &self.b_depth[t]
        cdef vector[uint8_t]* flags = &self.b_flags[t]
        cdef vector[int64_t]* freq = &self.b_freq[t]
        cdef vector[int32_t]* occ = &self.b_occ[t]
        cdef vector[int32_t]* first = &self.b_first[t]
        _new_node(depth, flags, freq, occ, first, 0, 0)       # the root
        flags[0][0] = FLAG_EXTEND
        cdef int64_t q, j, n, w, d, p, m, end
        cdef int32_t node, child
        cdef const uint32_t* seq
        cdef bint one_part = self.n_tasks == 1
        # Pinned and allowed tokens are inserted first; beyond create_limit the corpus walk
        # only follows existing nodes, so these are found at any length.
        for q in range(self.b_n_special):
            if not one_part and self.b_special_part[q] != t:
                continue
            seq = self._special(q, &n)
            node = 0
            for j in range(n):
                if q < self.b_n_pinned:
                    flags[0][node] |= FLAG_PATH
                node = trie.child_or_add(node, seq[j])
                if node == <int32_t>depth.size():
                    _new_node(depth, flags, freq, occ, first, j + 1, <int32_t>(q - self.b_n_special))
            if q < self.b_n_pinned:
                flags[0][node] |= FLAG_PINNED
            elif q < self.b_n_allowed_end:
                flags[0][node] |= FLAG_ALLOWED
            else:
                flags[0][node] |= FLAG_SELECTED
            self.b_special_node[q] = node
        cdef const uint32_t* units = self.units.data()
        cdef const int64_t* word_off = self.word_off.data()
        cdef const int32_t* word_of = self.word_of_pos.data()
        cdef const uint8_t* cov = self.cov.data()
        cdef const int32_t* cpref = self.b_cpref.data()
        cdef int64_t create_limit = self.b_create_limit, max_walk = self.b_max_walk, cnt
        cdef int64_t* nw
        cdef uint8_t fl
        cdef vector[int32_t]* occ_pos = &self.b_occ_pos[t]
        cdef vector[int32_t]* occ_node = &self.b_occ_node[t]
        cdef vector[int32_t] live_pos, live_node     # the substrings still being extended
        # A position is walked only to its reach (_reach): longer occurrences there can never
        # count, so they add nothing to any bound. With min_frequency > 1 every occurrence is
        # walked, as freq needs them all (those beyond the reach add to freq only).
        cdef bint walk_dead = self.b_min_freq > 1
        cdef const uint16_t* reach = self.b_reach.data()
        cdef int64_t r
        for p in range(self.word_off[self.n_words]):
            if (one_part or self.b_pos_part[p] == t) and (walk_dead or reach[p] > 0):
                live_pos.push_back(<int32_t>p)
        live_node.clear()
        live_node.resize(live_pos.size(), 0)
        # progress (task 0, first build): entries walked over an estimate of all passes' entries,
        # the passes still to come taken to shrink as the last one did
        cdef bint report = t == 0 and self.progress != NULL
        cdef double walked = 0, ratio = 1, tail
        cdef int64_t previous = 0
        for d in range(1, self.b_max_walk + 1):
            m = 0
            if d > 1:
                ratio = min(0.95, <double>live_pos.size() / max(1, previous))
            previous = <int64_t>live_pos.size()
            # the passes after this one: at most max_walk - d, shrinking by `ratio` each
            tail = <double>previous * (min(<double>(self.b_max_walk - d), ratio / (1 - ratio)) if d > 1 else 8.0)
            for j in range(previous):
                if report and (j & 0xFFFF) == 0:
                    self._phase_share(1, (walked + j) / (walked + previous + tail))
                p = live_pos[j]
                node = live_node[j]
                w = word_of[p]
                end = word_off[w + 1]
                r = reach[p]
                if p + d > end or not (flags[0][node] & FLAG_EXTEND) or (r < d and not walk_dead):
                    continue
                if d <= create_limit:
                    child = trie.child_or_add(node, units[p + d - 1])
                    if child == <int32_t>depth.size():
                        _new_node(depth, flags, freq, occ, first, d, <int32_t>p)
                else:
                    child = trie.child(node, units[p + d - 1])
                    if child < 0:
                        continue
                cnt = self.counts[w]
                nw = freq.data() + 3 * child
                nw[0] += cnt
                if d >= 2 and r >= d and (self.relaxed or p + d == end or not cov[p + d - 1]):
                    nw[1] += cnt * ((d - 1) - (cpref[p + d - 1] - cpref[p]))
                if r > d:      # a longer occurrence here can count: its gaps lie in the first r - 1
                    nw[2] += cnt * ((r - 1) - (cpref[p + r - 1] - cpref[p]))
                occ[0][child] += 1
                live_pos[m] = <int32_t>p
                live_node[m] = child
                m += 1
            walked += <double>live_pos.size()
            live_pos.resize(m)
            live_node.resize(m)
            # The nodes of length d are complete: which are extended to length d + 1, which
            # are candidates (their occurrences recorded).
            for j in range(m):
                node = live_node[j]
                nw = freq.data() + 3 * node
                fl = flags[0][node]
                if (nw[0] >= self.b_min_freq and nw[2] >= self.threshold) or fl & FLAG_PATH:
                    fl |= FLAG_EXTEND
                if d < 2 or fl & FLAG_SELECTED:
                    pass
                elif fl & FLAG_PINNED or (nw[0] >= self.b_min_freq and nw[1] >= self.threshold and (
                        fl & FLAG_ALLOWED or (not self.b_restrict and d <= self.b_max_len))):
                    fl |= FLAG_KEEP
                    occ_pos.push_back(live_pos[j])
                    occ_node.push_back(node)
                flags[0][node] = fl
        return 0

    cdef int _merge_nodes(self) except -1 nogil:
        """The candidate set T and candidate ids.

        Ids follow the order in which one trie over all partitions would have created the
        nodes: pinned and allowed tokens in their order, then the corpus walk by depth and
        position. Node (t, x) was first walked at b_first[t][x] (the special token's index minus
        their number, or the corpus position) and depth b_depth[t][x]; no two nodes share both,
        and each partition created its nodes in increasing order of them, so merging the
        partitions by that key gives the single-trie order whatever the partitioning.

        Kept (flagged by the walk): the nodes of length >= 2 not ranked yet whose bound B (module
        docstring) reaches the threshold and whose frequency reaches min_frequency, derived
        (length <= max_token_length) or allowed; pinned tokens always, even never walked.
        """
        cdef int P = self.n_tasks, t, best
        cdef int64_t x, m
        cdef uint8_t fl
        cdef vector[vector[int32_t]] kept       # per partition, its candidate nodes in order
        kept.resize(P)
        for t in range(P):
            self.b_node_cand[t].clear()
            self.b_node_cand[t].resize(self.b_depth[t].size(), -1)
            for x in range(1, <int64_t>self.b_depth[t].size()):
                fl = self.b_flags[t][x]
                if fl & FLAG_KEEP or (fl & FLAG_PINNED and not fl & FLAG_SELECTED):
                    kept[t].push_back(<int32_t>x)
            _free(self.b_freq[t])
        cdef int64_t total = 0
        for t in range(P):
            total += kept[t].size()
        if total > INT32_MAX:
            with gil:
                raise ValueError(f"{total} candidate tokens; the trainer supports at most {INT32_MAX}")
        self.n_candidates = <int32_t>total
        self.cand_len.resize(total)
        self.cm_off.clear()
        self.cm_off.resize(total + 1, 0)
        cdef vector[int64_t] head
        head.clear()
        head.resize(P, 0)
        cdef int32_t c, node
        cdef int64_t occurrences = 0
        for c in range(self.n_candidates):
            best = -1
            for t in range(P):
                if head[t] < <int64_t>kept[t].size() and (best < 0 or self._node_key_less(
                        t, kept[t][head[t]], best, kept[best][head[best]])):
                    best = t
            node = kept[best][head[best]]
            head[best] += 1
            self.b_node_cand[best][node] = c
            self.cand_len[c] = self.b_depth[best][node]
            occurrences += self.b_occ[best][node]
            if occurrences > UINT32_MAX:
                with gil:
                    raise ValueError(f"more than {UINT32_MAX} candidate occurrences; use a smaller "
                                     "max_token_length or a larger min_frequency")
            self.cm_off[c + 1] = <uint32_t>occurrences
        self.n_occurrences = occurrences
        if self.n_builds == 0:
            for q in range(self.b_n_pinned):
                t = self.b_special_part[q] if P > 1 else 0
                self.pinned_cands.push_back(self.b_node_cand[t][self.b_special_node[q]])
        for t in range(P):       # pass 2 needs only node -> candidate and the FLAG_EXTEND bits
            _free(self.b_occ[t])
            _free(self.b_first[t])
            _free(self.b_depth[t])
        return 0

    cdef inline bint _node_key_less(self, int t, int32_t x, int u, int32_t y) noexcept nogil:
        cdef int32_t fx = self.b_first[t][x], fy = self.b_first[u][y]
        if (fx < 0) != (fy < 0):
            return fx < 0                    # special tokens first
        if fx < 0 and fx != fy:
            return fx < fy                   # special tokens by index, then depth
        if fx >= 0 and self.b_depth[t][x] != self.b_depth[u][y]:
            return self.b_depth[t][x] < self.b_depth[u][y]   # corpus: by depth, then position
        if fx != fy:
            return fx < fy
        return self.b_depth[t][x] < self.b_depth[u][y]

    cdef int _scatter_words(self) except -1 nogil:
        """Word-major lists from the occurrences the walk recorded: wm_off, then each
        occurrence into its word's slice (sorted by _sort_words)."""
        cdef int t
        cdef int64_t j, w, k, p
        self.wm_off.clear()
        self.wm_off.resize(self.n_words + 1, 0)
        for t in range(self.n_tasks):
            for j in range(<int64_t>self.b_occ_pos[t].size()):
                self.wm_off[self.word_of_pos[self.b_occ_pos[t][j]] + 1] += 1
        for w in range(self.n_words):
            self.wm_off[w + 1] += self.wm_off[w]
        self.wm_cand.resize(self.n_occurrences)
        self.wm_start.resize(self.n_occurrences)
        self.b_cursor.assign(self.wm_off.begin(), self.wm_off.end() - 1)
        for t in range(self.n_tasks):
            for j in range(<int64_t>self.b_occ_pos[t].size()):
                p = self.b_occ_pos[t][j]
                w = self.word_of_pos[p]
                k = self.b_cursor[w]
                self.b_cursor[w] += 1
                self.wm_cand[k] = self.b_node_cand[t][self.b_occ_node[t][j]]
                self.wm_start[k] = <uint16_t>(p - self.word_off[w])
            _free(self.b_occ_pos[t])
            _free(self.b_occ_node[t])
        _free(self.b_cursor)
        return 0

    cdef int _sort_words(self, int t) except -1 nogil:
        """Sort each of task t's words' occurrences by (candidate, start)."""
        cdef vector[uint64_t] local
        cdef int64_t w, a, b, r
        cdef int64_t lo = self.b_word_bounds[t], hi = self.b_word_bounds[t + 1]
        cdef bint report = t == 0 and self.progress != NULL
        for w in range(lo, hi):
            if report and ((w - lo) & 0xFFFF) == 0:
                self._phase_share(3, <double>(w - lo) / (hi - lo))
            a = self.wm_off[w]
            b = self.wm_off[w + 1]
            local.clear()
            for r in range(a, b):
                local.push_back((<uint64_t>self.wm_cand[r] << 16) | <uint64_t>self.wm_start[r])
            cpp_sort(local.begin(), local.end())
            for r in range(a, b):
                self.wm_cand[r] = <int32_t>(local[r - a] >> 16)
                self.wm_start[r] = <uint16_t>(local[r - a] & 0xFFFF)
        return 0

    cdef int _fill_cands(self, int t) except -1 nogil:
        """Candidate-major occurrences (global positions, increasing) of task t's candidates,
        read off the word-major lists, which every task scans in word order."""
        cdef int64_t lo = self.b_cand_bounds[t], hi = self.b_cand_bounds[t + 1], w, k, end, off
        cdef int32_t cand
        if lo == hi:
            return 0
        for w in range(self.n_words):
            off = self.word_off[w]
            end = self.wm_off[w + 1]
            for k in range(self.wm_off[w], end):
                cand = self.wm_cand[k]
                if lo <= cand < hi:
                    self.cm_pos[self.b_cursor[cand]] = <int32_t>(off + self.wm_start[k])
                    self.b_cursor[cand] += 1
        return 0

    cdef int _score_cands(self, int t) except -1 nogil:
        """R(T) of task t's candidates in the current state M (all gaps uncovered on the first
        build), from their occurrence lists: SCORE (Algorithm 3) counts, left to right, the
        occurrences that CANCOVER allows and that do not overlap the one counted before, each
        worth its uncovered inner gaps; GreedWMC counts the uncovered gaps of their union.
        The same rules as _group_gain / _group_gain_wmc, reading the gaps directly."""
        cdef int64_t c, p, end, w, s, L, g, last, total, off, n, j, a, b
        cdef const uint8_t* cov = self.cov.data()
        cdef int64_t lo = self.b_cand_bounds[t], hi = self.b_cand_bounds[t + 1]
        cdef bint report = t == 0 and self.progress != NULL
        cdef double occurrences = max(1, <int64_t>self.cm_off[hi] - <int64_t>self.cm_off[lo])
        for c in range(lo, hi):
            if report and ((c - lo) & 0x3FF) == 0:     # by occurrences: a candidate's cost
                self._phase_share(5, (<int64_t>self.cm_off[c] - <int64_t>self.cm_off[lo]) / occurrences)
            L = self.cand_len[c]
            p = self.cm_off[c]
            end = self.cm_off[c + 1]
            if p < end:
                self.cand_pos[c] = self.cm_pos[p]
            total = 0
            while p < end:
                w = self.word_of_pos[self.cm_pos[p]]
                off = self.word_off[w]
                n = self.word_off[w + 1] - off
                g = 0
                last = -1       # GreedTok: end of the last counted occurrence; WMC: last gap counted
                while p < end and self.word_of_pos[self.cm_pos[p]] == w:
                    s = self.cm_pos[p] - off
                    p += 1
                    if self.relaxed:
                        a = max(s, last + 1)
                        b = s + L - 2
                        for j in range(a, b + 1):
                            g += 1 - cov[off + j]
                        last = max(last, b)
                    elif s >= last and not (s > 0 and cov[off + s - 1]) \
                            and not (s + L < n and cov[off + s + L - 1]):
                        g += L - 1
                        for j in range(s, s + L - 1):
                            g -= cov[off + j]
                        last = s + L
                total += self.counts[w] * g
            self.score[c] = total
        return 0

    cdef int _heapify(self) except -1 nogil:
        """The heap of every candidate with a positive score (Floyd's bottom-up build; the
        selection never depends on the heap's layout, see the module docstring)."""
        cdef HeapEntry entry
        cdef int32_t c
        self.heap.reserve(self.n_candidates)
        for c in range(self.n_candidates):
            if self.score[c] > 0:
                entry.score = self.score[c]
                entry.cand = c
                self.heap.push_back(entry)
        cdef int64_t i
        for i in range(<int64_t>self.heap.size() // 2 - 1, -1, -1):
            self._sift_down(i)
        return 0

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

    cdef void _sift_down(self, int64_t i) noexcept nogil:
        cdef int64_t n = <int64_t>self.heap.size(), l, r, best
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

    cdef void _pop(self) noexcept nogil:
        self.heap[0] = self.heap[self.heap.size() - 1]
        self.heap.pop_back()
        self._sift_down(0)

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
        cdef int64_t p = self.cm_off[tau], end = self.cm_off[tau + 1], gain
        cdef double started = _now()
        cdef int parallel = self.n_tasks > 1 and end - p >= PARALLEL_MIN_OCCURRENCES
        if parallel:
            gain = self._apply_parallel(tau, p, end)
        else:
            gain = self._cover_range(tau, p, end, 0, False)
        self.n_applies[parallel] += 1
        self.apply_seconds[parallel] += _now() - started
        return gain

    cdef int64_t _apply_parallel(self, int32_t tau, int64_t p, int64_t end) except -1 nogil:
        """_apply over n_tasks threads, each covering and rescoring a range of whole words.

        The words are independent (each reads and writes only its own cov); the score changes
        are buffered per task and applied afterwards in task order, which is word order: the
        very sequence of additions and heap pushes of the one-thread _apply.
        """
        cdef int T = self.n_tasks, t
        cdef int64_t q, k, total = 0
        cdef ScoreDelta* dl
        cdef HeapEntry entry
        self._scratch(T)
        self.a_tau = tau
        self.a_bounds.resize(T + 1)
        self.a_bounds[0] = p
        for t in range(1, T):
            q = max(p + (end - p) * t // T, self.a_bounds[t - 1])
            while q < end and q > p and self.word_of_pos[self.cm_pos[q]] == self.word_of_pos[self.cm_pos[q - 1]]:
                q += 1
            self.a_bounds[t] = q
        self.a_bounds[T] = end
        if self.team != NULL:
            hfg_team_run(self.team, _task_apply, <void*>self)
        else:
            hfg_run_tasks(T, _task_apply, <void*>self)
        for t in range(T):
            total += self.a_gain[t]
            dl = self.a_deltas[t].data()
            for k in range(<int64_t>self.a_deltas[t].size()):
                self.score[dl[k].cand] += dl[k].delta
                if dl[k].delta > 0:
                    self.score_rises += 1
                    entry.score = self.score[dl[k].cand]
                    entry.cand = dl[k].cand
                    self._push(entry)
            self.a_deltas[t].clear()
        return total

    cdef int _apply_task(self, int t) except -1 nogil:
        self.a_gain[t] = self._cover_range(self.a_tau, self.a_bounds[t], self.a_bounds[t + 1], t, True)
        return 0

    cdef int _scratch(self, int slots) except -1 nogil:
        """Per-task buffers of _cover_range for tasks 0..slots-1 (words of up to `longest`)."""
        cdef int t
        if <int>self.a_old_cov.size() >= slots:
            return 0
        self.a_old_cov.resize(slots)
        self.a_pref_old.resize(slots)
        self.a_pref_new.resize(slots)
        self.a_deltas.resize(slots)
        self.a_gain.resize(slots)
        for t in range(slots):
            self.a_old_cov[t].resize(self.longest + 1)
            self.a_pref_old[t].resize(self.longest + 2)
            self.a_pref_new[t].resize(self.longest + 2)
        return 0

    cdef int64_t _cover_range(self, int32_t tau, int64_t p, int64_t end, int slot, bint buffered) except -1 nogil:
        """_apply for tau's occurrences cm_pos[p:end) (whole words), with task `slot`'s buffers;
        score changes go to a_deltas[slot] if `buffered`, else straight to the scores and heap."""
        cdef int64_t L = self.cand_len[tau], r
        cdef int64_t w, off, n, s, e, t, newly, lo, hi, last_end
        cdef int64_t total = 0
        cdef uint8_t* cv
        while p < end:
            w = self.word_of_pos[self.cm_pos[p]]
            off = self.word_off[w]
            n = self.word_off[w + 1] - off
            cv = self.cov.data() + off
            memcpy(self.a_old_cov[slot].data(), cv, n)
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
                self._rescore_word(w, off, n, lo, hi, slot, buffered)
        return total

    cdef int _rescore_word(self, int64_t w, int64_t off, int64_t n, int64_t lo, int64_t hi,
                           int slot, bint buffered) except -1 nogil:
        """Add COUNT * (g_new - g_old) to every candidate of w whose windows meet gaps lo..hi
        (see _cover_range for `slot` and `buffered`)."""
        cdef const uint8_t* cv_new = self.cov.data() + off
        cdef const uint8_t* cv_old = self.a_old_cov[slot].data()
        cdef int32_t* pref_old = self.a_pref_old[slot].data()
        cdef int32_t* pref_new = self.a_pref_new[slot].data()
        _prefix(cv_old, n, pref_old)
        _prefix(cv_new, n, pref_new)
        cdef int64_t a = self.wm_off[w], b = self.wm_off[w + 1], e, k, L, delta
        cdef int32_t cand
        cdef const uint16_t* starts
        cdef HeapEntry entry
        cdef ScoreDelta change
        while a < b:
            cand = self.wm_cand[a]
            e = a + 1
            while e < b and self.wm_cand[e] == cand:
                e += 1
            starts = self.wm_start.data() + a
            k = e - a
            a = e
            # An occurrence reads gaps s-1 .. s+L-1 only; skip groups that cannot see lo..hi
            # (the test without L first: it reads no per-candidate array)
            if <int64_t>starts[0] - 1 > hi:
                continue
            L = self.cand_len[cand]
            if starts[k - 1] + L - 1 >= lo and not self.selected[cand]:
                delta = self.counts[w] * (
                    self._gain(cv_new, pref_new, n, starts, k, L)
                    - self._gain(cv_old, pref_old, n, starts, k, L))
                if delta and buffered:
                    change.delta = delta
                    change.cand = cand
                    self.a_deltas[slot].push_back(change)
                elif delta:
                    self.score[cand] += delta
                    if delta > 0:
                        self.score_rises += 1
                        entry.score = self.score[cand]
                        entry.cand = cand
                        self._push(entry)
        return 0

    def step(self, int64_t max_steps):
        """Select up to ``max_steps`` more tokens; returns how many were selected.

        Pinned tokens come first, in their order. Selection stops early (``exhausted``) when
        no candidate has a positive gain.
        """
        cdef int64_t done = 0, gain, expected, best
        cdef int32_t tau
        cdef double started
        cdef bint rebuild = True
        cdef hfg_team team
        while rebuild and not self.exhausted:
            rebuild = False
            with nogil:
                # the picks of this run share one team of threads (see _apply_parallel)
                if self.n_tasks > 1:
                    hfg_team_start(&team, self.n_tasks)
                    self.team = &team
                try:
                    while done < max_steps:
                        if self.n_pinned_done < <int64_t>self.pinned_cands.size():
                            tau = self.pinned_cands[self.n_pinned_done]
                            self.n_pinned_done += 1
                        else:
                            tau = self._pop_best()
                            best = self.score[tau] if tau >= 0 else 0
                            # Unmaterialised candidates score below the threshold: the live
                            # argmax is Algorithm 1's argmax only if it reaches the threshold.
                            if best < self.threshold:
                                rebuild = True
                                best = self.threshold // LAZY_RATIO if tau < 0 else min(best, self.threshold // LAZY_RATIO)
                                break
                            if best <= 0:
                                self.exhausted = True
                                break
                        expected = self.score[tau]
                        self.selected[tau] = 1
                        gain = self._apply(tau)
                        if gain != expected:
                            self.score_mismatches += 1
                        self.score[tau] = 0
                        self.rank_pos.push_back(self.cand_pos[tau])
                        self.rank_len.push_back(self.cand_len[tau])
                        self.gains.push_back(gain)
                        self.objective -= gain
                        done += 1
                finally:
                    if self.team != NULL:
                        hfg_team_stop(self.team)
                        self.team = NULL
            if rebuild:
                started = _now()
                self._materialise(best if best > 1 else 0)
                self.rebuild_seconds += _now() - started
        return done

    # ------------------------------------------------------------------ results

    @property
    def n_selected(self):
        return <int64_t>self.rank_pos.size()

    @property
    def n_pinned(self):
        return <int64_t>self.pinned_cands.size()

    def ranked_units(self):
        """The selected tokens in rank order as (units uint32[M], offsets int64[k + 1])."""
        cdef int64_t k = self.rank_pos.size(), q, total = 0
        offsets = np.zeros(k + 1, dtype=np.int64)
        cdef int64_t[::1] o = offsets
        for q in range(k):
            total += self.rank_len[q]
            o[q + 1] = total
        out = np.empty(total, dtype=np.uint32)
        cdef uint32_t[::1] u = out
        cdef int64_t pos, j
        for q in range(k):
            pos = self.rank_pos[q]
            for j in range(self.rank_len[q]):
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
        """Live scores R(T) of the unselected candidates of the last build as {tuple(units): score}
        (for tests; all of T only with ``threshold=0``)."""
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
            + self.cand_len.capacity() * 2 + self.cand_pos.capacity() * 4
            + self.score.capacity() * 8 + self.selected.capacity() + self.cm_off.capacity() * 4
            + self.cm_pos.capacity() * 4 + self.wm_off.capacity() * 4 + self.wm_cand.capacity() * 4
            + self.wm_start.capacity() * 2 + self.heap.capacity() * sizeof(HeapEntry)
        )

    @property
    def apply_profile(self):
        """Where the solve's time went: {"serial_applies", "serial_apply_seconds",
        "parallel_applies", "parallel_apply_seconds", "rebuild_seconds"}: wall seconds of
        applying picks on one thread and over the threads (Algorithm 1, lines 10-13, with the
        rescoring), and of the rebuilds after the first build; the rest of step() is selection
        (heap pops)."""
        return {"serial_applies": self.n_applies[0], "serial_apply_seconds": self.apply_seconds[0],
                "parallel_applies": self.n_applies[1], "parallel_apply_seconds": self.apply_seconds[1],
                "rebuild_seconds": self.rebuild_seconds}

    @property
    def build_seconds(self):
        """Wall seconds of each phase of the build, {phase: seconds} in BUILD_PHASES order."""
        return {name: self.build_clock[i + 1] - self.build_clock[i] for i, name in enumerate(BUILD_PHASES)}


def auto_threshold(int64_t initial_objective, int64_t expected_steps):
    """The first build's threshold when none is given: initial_objective / max(expected_steps,
    AUTO_MIN_STEPS), 0 (every candidate) below 2. Were the gains of the expected steps all
    equal, they would be at most that; real gains fall far below it, and the rebuilds that
    follow happen in states where most positions can no longer start an occurrence, so they
    are small. Measured on the 43 MB mix and on zh_reviews alone at k = 32,512 (benchmarks/
    RESULTS.md): a first threshold 16x lower built 2-25x more candidates and was slower."""
    cdef int64_t t = initial_objective // max(expected_steps, <int64_t>AUTO_MIN_STEPS)
    return t if t >= 2 else 0


def _set_parallel_min_occurrences(int64_t n):
    """Set the smallest occurrence count of a step run on several threads; returns the old
    value (for tests: 1 runs every step of a multi-thread core through _apply_parallel)."""
    global PARALLEL_MIN_OCCURRENCES
    old = PARALLEL_MIN_OCCURRENCES
    PARALLEL_MIN_OCCURRENCES = max(1, n)
    return old


# Tasks of the parallel phases (hfg_run_tasks calls them with the core as ctx, without the GIL).

cdef int _task_walk(void* ctx, int t) except -1 nogil:
    return (<GreedTokCore>ctx)._walk_part(<HashTrie>(<GreedTokCore>ctx).b_tries[t], t)


cdef int _task_sort_words(void* ctx, int t) except -1 nogil:
    return (<GreedTokCore>ctx)._sort_words(t)


cdef int _task_fill_cands(void* ctx, int t) except -1 nogil:
    return (<GreedTokCore>ctx)._fill_cands(t)


cdef int _task_score_cands(void* ctx, int t) except -1 nogil:
    return (<GreedTokCore>ctx)._score_cands(t)


cdef int _task_apply(void* ctx, int t) except -1 nogil:
    return (<GreedTokCore>ctx)._apply_task(t)
