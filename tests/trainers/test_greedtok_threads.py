"""The trainer's parallel setup: candidate ids, occurrence counts, initial scores, the ranking,
the per-step gains and the objective are the same for every thread count (determinism,
DESIGN.md invariant 4), and an error inside a setup thread reaches the caller."""
from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest
from corpora import corpus, head_counts
from helpers import make_core
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import GreedTokTrainer
from hf_greedtok import _trainer
from hf_greedtok._trainer import GreedTokCore

THREADS = (1, 2, 3, 5)


@pytest.fixture(params=["large-steps-parallel", "every-step-parallel"])
def parallel_steps(request):
    """By default only steps whose token has at least 1024 occurrences are covered and
    rescored on several threads; the second run sends every step through that path."""
    if request.param == "large-steps-parallel":
        yield
        return
    old = _trainer._set_parallel_min_occurrences(1)
    try:
        yield
    finally:
        _trainer._set_parallel_min_occurrences(old)


def state(core: GreedTokCore, k: int) -> tuple:
    """Everything observable of a core: sizes, scores in candidate-id order (``scores()``
    walks the ids), then after k steps the ranking, gains, objective, live scores and how
    many scores rose (the same sequence of heap pushes)."""
    before = (core.n_candidates, core.n_occurrences, core.initial_objective, list(core.scores().items()))
    core.step(k)
    units, offsets = core.ranked_units()
    return before + (units.tolist(), offsets.tolist(), core.gains_array().tolist(), core.objective,
                     core.exhausted, core.score_mismatches, core.score_rises, list(core.scores().items()))


@pytest.mark.parametrize("table, n, options", [
    ("en_wiki2012_wordcounts.tsv", 20_000, {"max_len": 16}),
    ("en_wiki2012_wordcounts.tsv", 20_000, {"max_len": 8, "relaxed": True}),
    ("hi_news_wordcounts.tsv", 8_000, {"max_len": 6, "min_frequency": 40}),
    ("zh_jieba_wordcounts.tsv", 8_000, {"max_len": 4, "pinned": ["中国人民", "zzqq", "的的的的的的的"]}),
], ids=["english", "english-wmc", "hindi-min-frequency", "chinese-pinned"])
def test_every_thread_count_gives_the_same_training_on_a_real_corpus(table, n, options, parallel_steps):
    words = dict(head_counts(table, n))
    expected = state(make_core(words, **options), 400)
    assert expected[5] and expected[6]       # it learned something
    for threads in THREADS[1:]:
        assert state(make_core(words, num_threads=threads, **options), 400) == expected, threads


def test_every_thread_count_gives_the_same_training_with_a_candidate_list(parallel_steps):
    words = dict(head_counts("en_wiki2012_wordcounts.tsv", 10_000))
    candidates = sorted({w[:3] for w in words if len(w) >= 3}) + sorted(w for w in words if len(w) > 12)[:40]
    expected = state(make_core(words, max_len=5, candidates=candidates), 300)
    for threads in THREADS[1:]:
        assert state(make_core(words, max_len=5, candidates=candidates, num_threads=threads), 300) == expected


def test_trainer_threads_give_identical_tokenizers():
    words = dict(head_counts("en_wiki2012_wordcounts.tsv", 5_000))
    one, two = (GreedTokTrainer(k=500, show_progress=False, num_threads=t).train_from_counts(words) for t in (1, 2))
    assert one.model.ranked_tokens == two.model.ranked_tokens and one.model.gains == two.model.gains
    assert one.training_info == two.training_info


@settings(max_examples=150, deadline=None)
@given(words=st.dictionaries(st.text("abcde\u0915\u093e", min_size=1, max_size=14), st.integers(1, 1000),
                             min_size=1, max_size=40),
       max_len=st.integers(2, 7), relaxed=st.booleans(), min_frequency=st.integers(1, 3),
       pinned=st.lists(st.text("abcq", min_size=2, max_size=9), max_size=3, unique=True),
       candidates=st.none() | st.lists(st.text("abcde", min_size=2, max_size=5), max_size=12))
def test_every_thread_count_gives_the_same_training_on_random_tables(words, max_len, relaxed, min_frequency,
                                                                    pinned, candidates):
    old = _trainer._set_parallel_min_occurrences(1)       # every step on several threads too
    try:
        check_random_table(words, max_len, relaxed, min_frequency, pinned, candidates)
    finally:
        _trainer._set_parallel_min_occurrences(old)


def check_random_table(words, max_len, relaxed, min_frequency, pinned, candidates):
    options = dict(max_len=max_len, relaxed=relaxed, min_frequency=min_frequency, pinned=pinned,
                   candidates=candidates)
    expected = state(make_core(words, **options), 30)
    for threads in (2, 3):
        assert state(make_core(words, num_threads=threads, **options), 30) == expected


@pytest.mark.parametrize("threads", THREADS)
def test_a_corpus_without_candidates_builds_on_any_thread_count(threads):
    # one-singleton words: no substring of 2 or more, an empty heap, nothing to learn
    core = make_core({"b": 3, "c": 1}, num_threads=threads)
    assert (core.n_candidates, core.n_occurrences) == (0, 0)
    assert core.step(5) == 0 and core.exhausted and core.objective == 4


def test_num_threads_must_be_positive():
    with pytest.raises(ValueError, match="num_threads"):
        make_core({"abc": 1}, num_threads=0)
    with pytest.raises(ValueError, match="num_threads"):
        GreedTokTrainer(k=10, num_threads=0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_memory_error_in_a_setup_thread_reaches_the_caller():
    """Substrings starting with "z" (one short trie, most steps) go to the partition of the
    calling thread and those of 3,000 other characters (a trie of ~1M nodes) to the second
    thread, whose allocations run out under the address-space cap: MemoryError is raised in
    Python, the process goes on, and with more room the same build succeeds."""
    code = textwrap.dedent("""
        import random, resource, sys
        import numpy as np
        from hf_greedtok._trainer import GreedTokCore
        from hf_greedtok.models import pack_units
        rng = random.Random(0)
        alphabet = [chr(0x4E00 + i) for i in range(3000)]
        words = ["z" * n for n in range(2, 1200)]
        words += ["".join(rng.choice(alphabet) for _ in range(12)) for _ in range(60_000)]
        units, offsets = pack_units(words)
        counts = np.ones(len(words), dtype=np.int64)
        none, start = np.zeros(0, dtype=np.uint32), np.zeros(1, dtype=np.int64)
        vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + int(sys.argv[1]) * 2**20, resource.RLIM_INFINITY))
        try:
            core = GreedTokCore(units, offsets, counts, 16, 1, none, start, none, start, False, False, 2)
        except MemoryError:
            print("MemoryError")
        else:
            print("built", core.n_candidates)
    """)
    outcomes = under_memory_caps(code, (110, 2000))
    assert {cap: out.split()[0] for cap, out in outcomes.items()} == {110: "MemoryError", 2000: "built"}


def test_cli_train_writes_the_same_folder_for_every_thread_count(tmp_path):
    from hf_greedtok.cli import main
    folders = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}"
        assert main(["train", str(corpus("en_wiki2012_wordcounts.tsv")), "--counts", "--no-prefix-space", "-k", "300",
                     "--max-token-length", "8", "--num-threads", threads, "-o", str(out), "--quiet"]) == 0
        folders.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert folders[0] == folders[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_memory_error_in_a_step_thread_reaches_the_caller():
    """A step's parallel pick runs on the step's team of threads. Every word holds "xy"; the
    first half are short, the second half long and distinct, so picking "xy" leaves the second
    thread (the second half of the occurrences) with ~100x the score changes to buffer. Under an
    address-space cap set after the build, that buffer runs out: MemoryError is raised in
    Python, the team is stopped, and with more room the same step succeeds."""
    code = textwrap.dedent("""
        import random, resource, sys
        import numpy as np
        from hf_greedtok import _trainer
        from hf_greedtok._trainer import GreedTokCore
        from hf_greedtok.models import pack_units
        rng = random.Random(0)
        alphabet = [chr(0x4E00 + i) for i in range(3000)]
        words = ["xy" + "ab"[i % 2] for i in range(100_000)]
        words += ["xy" + "".join(rng.choice(alphabet) for _ in range(14)) for _ in range(100_000)]
        units, offsets = pack_units(words)
        counts = np.ones(len(words), dtype=np.int64)
        none, start = np.zeros(0, dtype=np.uint32), np.zeros(1, dtype=np.int64)
        core = GreedTokCore(units, offsets, counts, 16, 1, none, start, none, start, False, False, 2, 0)
        _trainer._set_parallel_min_occurrences(1)
        vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + int(sys.argv[1]) * 2**20, resource.RLIM_INFINITY))
        try:
            core.step(1)
        except MemoryError:
            print("MemoryError", core.n_selected)
        else:
            print("stepped", core.n_selected)
    """)
    assert under_memory_caps(code, (48, 4000)) == {48: "MemoryError 0", 4000: "stepped 1"}


def under_memory_caps(code: str, caps_mb: tuple[int, ...]) -> dict[int, str]:
    """{cap: stdout} of ``python -c code CAP`` for each cap (MB above the script's own address
    space, which the script sets with RLIMIT_AS); each run must exit normally."""
    outcomes = {}
    for extra_mb in caps_mb:
        # cwd: the checkout's uncompiled hf_greedtok/ must not shadow the installed package
        result = subprocess.run([sys.executable, "-c", code, str(extra_mb)], capture_output=True, text=True,
                                timeout=300, cwd=tempfile.gettempdir())
        assert result.returncode == 0, result.stderr[-2000:]
        outcomes[extra_mb] = result.stdout.strip()
    return outcomes


def _encode_in_threads_and_exit() -> None:
    import os

    from hf_greedtok._threads import MIN_WORDS_PER_THREAD, encode_in_threads
    words = ["ab"] * (4 * MIN_WORDS_PER_THREAD)
    ids, offsets = encode_in_threads(lambda w, mode: (np.zeros(len(w), np.int32), np.arange(len(w) + 1)), words,
                                     "cover", 2)
    os._exit(0 if len(ids) == len(words) and offsets[-1] == len(words) else 1)


def test_a_forked_child_encodes_on_threads_of_its_own():
    """The encoders' process-wide thread pool: a forked child inherits the pool object but none
    of its threads, and waited forever (seen as `train` hanging in a forked child)."""
    import multiprocessing

    import threading

    from hf_greedtok._threads import thread_pool
    both = threading.Barrier(2)     # both of the parent's pool threads started (and then idle)
    assert list(thread_pool(2).map(lambda _: both.wait(timeout=30) >= 0, range(2))) == [True, True]
    child = multiprocessing.get_context("fork").Process(target=_encode_in_threads_and_exit)
    child.start()
    child.join(60)
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0
