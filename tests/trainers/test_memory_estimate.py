"""What a long training tells its user before the heavy part (issue 41, item 5): the estimated
peak memory, a limit that refuses up front, and a setup bar fed by the native build."""
from __future__ import annotations

import math

import numpy as np
import pytest
from corpora import EXAMPLE_TEXT
from hypothesis import given
from hypothesis import strategies as st

from hf_greedtok import GreedTokTrainer
from hf_greedtok._progress import setup_progress
from hf_greedtok._trainer import BUILD_STEPS, GreedTokCore
from hf_greedtok.models import pack_units
from hf_greedtok.trainers.memory_estimate import (BYTES_PER_SINGLETON, BYTES_PER_WINDOW, GB,
                                                  SINGLETON_FIXED_BYTES, WINDOW_FIXED_BYTES, MemoryEstimate,
                                                  MemoryLimitError, chunk_budget_check, reached_bytes, resident_bytes,
                                                  training_bytes, windows)
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer

LOWER = {" lower": 5, " lowest": 2, " newer": 6, " wider": 3}     # the paper's Example 1 words


@given(st.lists(st.integers(0, 60), max_size=30), st.integers(2, 30))
def test_windows_are_the_substrings_of_two_to_the_longest_token_singletons(lengths, longest):
    by_hand = sum(1 for n in lengths for start in range(n) for end in range(start + 2, min(n, start + longest) + 1))
    assert windows(np.array(lengths, dtype=np.int64), longest) == by_hand


def test_without_a_floor_the_windows_set_the_need_and_with_one_the_smaller_of_both():
    lengths = np.full(10**6, 30, dtype=np.int64)      # long chunks: many windows per singleton
    by_windows = WINDOW_FIXED_BYTES + BYTES_PER_WINDOW * windows(lengths, 24)
    by_singletons = SINGLETON_FIXED_BYTES + BYTES_PER_SINGLETON * 30 * 10**6
    assert training_bytes(lengths, max_token_length=24, min_frequency=1) == by_windows
    assert training_bytes(lengths, max_token_length=24, min_frequency=32) == min(by_windows, by_singletons)
    assert by_singletons < by_windows


def test_an_estimate_above_the_limit_is_refused_and_one_at_it_passes():
    est = MemoryEstimate(current=GB // 2, training=GB, what="stage 2 on 9.5 MB of distinct chunks")
    assert est.peak == 3 * GB // 2
    est.check(None)
    est.check(1.5)
    with pytest.raises(MemoryLimitError, match=r"about 1\.50 GB \(stage 2 on 9\.5 MB of distinct chunks\), above "
                                               r"the memory limit of 1\.4 GB .*: lower it"):
        est.check(1.4, "lower it")
    assert isinstance(MemoryLimitError("x"), ValueError)       # the CLI's exit 2


def test_the_process_memory_is_read_from_the_system_and_a_higher_earlier_peak_is_said():
    assert 10 * 2**20 < resident_bytes() <= reached_bytes() < 64 * GB
    est = MemoryEstimate(current=GB // 2, training=GB, what="stage 2", reached=2 * GB)
    assert est.describe().endswith("; the process reached 2.00 GB before (counting)")
    assert "reached" not in MemoryEstimate(current=GB // 2, training=GB, what="stage 2", reached=GB).describe()


def test_a_word_level_trainer_refuses_before_building_its_index():
    trainer = GreedTokTrainer(k=50, show_progress=False, max_memory_gb=0.05)
    estimate = trainer.memory_estimate(LOWER)
    assert estimate.training == training_bytes(np.array([6, 7, 6, 6]), max_token_length=24, min_frequency=1)
    with pytest.raises(MemoryLimitError, match="above the memory limit of 0.05 GB"):
        trainer.train_from_counts(LOWER)
    assert trainer.core is None


def test_a_superword_trainer_refuses_before_stage_1(capsys):
    trainer = GreedTokSuperwordTrainer(k=300, max_memory_gb=0.01)
    with pytest.raises(MemoryLimitError, match=r"stage 2 on 0\.[0-9] MB of distinct chunks.*--chunk-budget-mb"):
        trainer.train([str(EXAMPLE_TEXT)])
    assert trainer._stage1 is None and trainer.core is None
    assert "estimated peak memory" in capsys.readouterr().out


def test_a_superword_estimate_names_the_larger_stage_and_frees_stage_1_before_stage_2():
    trainer = GreedTokSuperwordTrainer(k=300, show_progress=False)
    tok = trainer.train([str(EXAMPLE_TEXT)])
    assert "stage 2 on" in trainer.memory_estimate(trainer._counts).what
    assert trainer._stage1.core is None and trainer.core is not None
    assert tok.training_info["k_learned"] == 300


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, True, "1"])
def test_bad_limits_are_refused_when_the_trainer_is_made(bad):
    for cls in (GreedTokTrainer, GreedTokSuperwordTrainer):
        with pytest.raises(ValueError, match="max_memory_gb must be a positive number of GB"):
            cls(k=100, max_memory_gb=bad)


def test_a_chunk_budget_past_the_limit_is_refused_before_counting_with_the_budget_that_fits():
    with pytest.raises(MemoryLimitError, match=r"a chunk budget of [0-9.]+ MB or less fits"):
        chunk_budget_check(20, 10**9, (resident_bytes() + SINGLETON_FIXED_BYTES) / GB + 1.0)
    chunk_budget_check(20, 10**9, None)
    chunk_budget_check(20, 10**3, (resident_bytes() + SINGLETON_FIXED_BYTES) / GB + 0.01)   # small text


def _core(words: dict[str, int], progress=None) -> GreedTokCore:
    units, offsets = pack_units([w.encode() for w in words])
    empty_u, empty_o = np.zeros(0, np.uint32), np.zeros(1, np.int64)
    return GreedTokCore(units, offsets, np.array(list(words.values()), np.int64), 24, 1, empty_u, empty_o,
                        empty_u, empty_o, False, num_threads=2, progress=progress)


def test_the_build_reports_every_phase_into_the_cell_and_trains_the_same():
    words = {f" w{i % 97}x{i % 13}y": 1 + i % 7 for i in range(3000)}
    cell = np.zeros(1, dtype=np.int64)
    reported, plain = _core(words, cell), _core(words)
    assert cell[0] == BUILD_STEPS
    reported.step(200)
    plain.step(200)
    assert list(reported.gains_array()) == list(plain.gains_array()) and reported.objective == plain.objective


def test_a_hidden_setup_bar_hands_no_cell_and_a_shown_one_completes(capsys):
    with setup_progress("setup", show=False) as cell:
        assert cell is None
    with setup_progress("stage 2: superwords setup") as cell:
        _core({" lower": 5, " lowest": 2}, cell)
    assert "stage 2: superwords setup: 100%" in capsys.readouterr().err
