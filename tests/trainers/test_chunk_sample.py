"""The chunk budget of superword GreedTok (issue 41): past ``chunk_budget_mb`` of distinct chunk
text, stage 2 trains on a threshold sample of the chunk counts at the smallest rate m that fits:
a chunk seen c >= m times as it is, a rarer one with probability c / m (by XXH64 of its bytes),
counted m times (floor(m) or floor(m) + 1, m on average). Stage 1 still counts every chunk's words."""
from __future__ import annotations

import random
from collections import Counter

import pytest
import xxhash
from corpora import EXAMPLE_TEXT, corpus
from helpers import LATIN_WORDS, MIXED_WORDS, literal_superwords, superword_chunks
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok.errors import CorpusError
from hf_greedtok.trainers.chunk_sample import sample_chunks
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer, chunk_words
from hf_greedtok.word_counts import count_words_in_files

_tables = st.dictionaries(superword_chunks(LATIN_WORDS), st.integers(1, 40), min_size=1, max_size=12)


def _mb(table) -> float:
    return sum(len(c.encode()) for c in table) / 1e6


def literal_sample(table: dict[str, int], m: float) -> dict[str, int]:
    """Threshold sampling written out, with the 64 bits of XXH64(chunk) as two uniform draws: c >= m
    kept; c < m kept when high 32 bits x m < c x 2**32, counted floor(m), plus one when the low
    32 bits < frac(m) x 2**32."""
    out = {}
    for chunk, c in table.items():
        if c >= m:
            out[chunk] = c
            continue
        h = xxhash.xxh64_intdigest(chunk.encode("utf-8", "surrogatepass"))
        if (h >> 32) * m < c * 2.0**32:
            out[chunk] = int(m) + ((h & 0xFFFFFFFF) < (m - int(m)) * 2.0**32)
    return out


def expected_bytes(table: dict[str, int], m: float) -> float:
    return sum(len(w.encode()) * min(1, c / m) for w, c in table.items())


@settings(max_examples=60, deadline=None)
@given(table=_tables, share=st.floats(0.05, 1.5))
def test_the_sample_is_threshold_sampling_at_the_smallest_rate_that_fits(table, share):
    sample = sample_chunks(table, _mb(table) * share)
    assert sample.distinct_bytes == sum(len(c.encode()) for c in table)
    if share >= 1:
        assert sample.rate == 1 and sample.table.to_dict() == table
        return
    budget = _mb(table) * share * 1e6
    # the smallest rate that fits, to the bisection's 1 part in 10**9
    assert expected_bytes(table, sample.rate) <= budget * (1 + 1e-12) < expected_bytes(table, sample.rate * (1 - 1e-8))
    assert sample.table.to_dict() == literal_sample(table, sample.rate)
    assert sample.kept_bytes == sum(len(c.encode()) for c in sample.table.to_dict())


@settings(max_examples=300, deadline=None)
@given(chunk=st.text(), count=st.integers(1, 9), rate=st.one_of(st.integers(1, 10**6), st.floats(1, 10**6)))
def test_any_str_is_sampled_by_the_xxhash_of_its_utf8(chunk, count, rate):
    """Lone surrogates included (kept as their 3-byte form): the hash is the `xxhash` package's."""
    from hf_greedtok._chunk_table import ChunkTable
    table = ChunkTable()
    table.add(chunk, count)
    assert table.to_dict() == {chunk: count}
    assert table.sampled(rate).to_dict() == literal_sample({chunk: count}, float(rate))


def test_the_sample_does_not_depend_on_the_order_of_the_table():
    table = {f" word{i} and more": 1 + i % 7 for i in range(3000)}
    items = list(table.items())
    random.Random(0).shuffle(items)
    assert sample_chunks(table, 0.01).table.to_dict() == sample_chunks(dict(items), 0.01).table.to_dict()


def test_sums_of_counts_are_unbiased():
    # 20,000 distinct chunks per count below m: the sample's total is within 3% of the table's
    for c in (1, 3, 7):
        table = {f" the phrase {i}": c for i in range(20_000)}
        sample = sample_chunks(table, _mb(table) / 10.3)       # m = 10.3 c, not an integer
        assert sample.rate > c and sample.rate != int(sample.rate)
        assert abs(sum(sample.table.counts()) - c * len(table)) < 0.03 * c * len(table)


def test_bad_budgets_are_refused():
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match="budget_mb must be a positive"):
            sample_chunks({" a": 1}, bad)
    for bad in (0, -2, float("inf"), float("nan"), "20"):
        with pytest.raises(ValueError, match="chunk_budget_mb must be a positive number"):
            GreedTokSuperwordTrainer(k=100, chunk_budget_mb=bad)


@settings(max_examples=40, deadline=None)
@given(chunks=st.dictionaries(superword_chunks(MIXED_WORDS), st.integers(1, 30), min_size=1, max_size=8),
       k=st.integers(1, 12), t=st.integers(0, 6), floor=st.integers(1, 4), share=st.floats(0.1, 1.2))
def test_the_bounded_trainer_is_the_literal_curriculum_on_all_words_and_the_sampled_chunks(chunks, k, t, floor,
                                                                                           share):
    """Where nothing is sampled (share >= 1) this is the exact trainer."""
    t = min(t, k)
    budget = _mb(chunks) * share
    trainer = GreedTokSuperwordTrainer(k=k, word_tokens=t, min_frequency=floor, max_token_length=6,
                                       chunk_budget_mb=budget, show_progress=False, num_threads=1)
    sample = sample_chunks(chunks, budget).table.to_dict()
    if not sample:
        with pytest.raises(CorpusError, match="keeps none of the .* raise chunk_budget_mb"):
            trainer.train_from_counts(chunks)
        return
    tok = trainer.train_from_counts(chunks)
    ours = list(tok.model.ranked_tokens)
    assert ours == literal_superwords(sample, k, t, 6, floor, word_chunks=chunks)[:len(ours)]
    assert tok.training_info["curriculum"]["chunk_sample"]["rate"] == (1 if share >= 1 else sample_chunks(
        chunks, budget).rate)


def _lines():
    return EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines(keepends=True)


def test_within_the_budget_the_trainer_is_the_exact_one():
    exact = GreedTokSuperwordTrainer(k=1500, chunk_budget_mb=None, show_progress=False).train_from_iterator(_lines())
    within = GreedTokSuperwordTrainer(k=1500, show_progress=False).train_from_iterator(_lines())
    assert within.model.ranked_tokens == exact.model.ranked_tokens
    assert within.training_info == exact.training_info | {"curriculum": within.training_info["curriculum"]}
    assert within.training_info["curriculum"]["chunk_sample"]["rate"] == 1


def test_past_the_budget_stage_one_counts_every_word_and_stage_two_trains_on_the_sample():
    lines = _lines()
    chunks = Counter(c for line in lines for c in ByteLevel("superwords").pre_tokenize(line))
    trainer = GreedTokSuperwordTrainer(k=1500, chunk_budget_mb=0.1, show_progress=False)
    kept = trainer.reduce_counts(chunks)
    assert kept.words == chunk_words(chunks, ByteLevel("gpt4-marks"))
    assert 3 < kept.sample.rate < 5 and 0.08e6 < kept.sample.kept_bytes < 0.12e6 < 0.35e6 < kept.sample.distinct_bytes
    sample = kept.sample.table.to_dict()
    assert sample == literal_sample(chunks, kept.sample.rate)
    tok = trainer.train_from_iterator(lines)
    info = tok.training_info
    assert info["curriculum"]["chunk_sample"] == {
        "budget_mb": 0.1, "rate": kept.sample.rate, "distinct_chunks_kept": len(sample),
        "distinct_mb": round(kept.sample.distinct_bytes / 1e6, 3), "kept_mb": round(kept.sample.kept_bytes / 1e6, 3)}
    # the per-word figures are the sample's (what the objective is over), estimates of the corpus's
    assert info["chunks"] == sum(sample.values())
    assert info["words"] == sum(chunk_words(sample, ByteLevel("gpt4-marks")).values())
    assert abs(info["words"] / sum(kept.words.values()) - 1) < 0.05
    assert info["tokens_per_word"] == info["objective_tokens"] / info["words"]
    # the same tokenizer from the text, the full table, and what reduce_counts kept of it
    from_table = GreedTokSuperwordTrainer(k=1500, chunk_budget_mb=0.1, show_progress=False).train_from_counts(chunks)
    from_kept = GreedTokSuperwordTrainer(k=1500, chunk_budget_mb=0.1, show_progress=False).train_from_counts(kept)
    assert tok.model.ranked_tokens == from_table.model.ranked_tokens == from_kept.model.ranked_tokens
    # lossless on the text, and every token of stage 1 first
    assert all(tok.decode(ids) == line for line, ids in zip(lines, tok.encode_batch(lines)))


def test_bad_counts_are_named_before_sampling():
    trainer = GreedTokSuperwordTrainer(k=10, chunk_budget_mb=1e-5, show_progress=False)
    for bad in (0, -3, 2**63):
        with pytest.raises(CorpusError, match="' of the' has count"):
            trainer.train_from_counts({" a b": 5, " of the": bad})


def test_continue_training_on_a_sample_equals_training_to_the_new_size_directly():
    lines = _lines()
    trainer = GreedTokSuperwordTrainer(k=800, chunk_budget_mb=0.1, show_progress=False)
    trainer.train_from_iterator(lines)
    resumed = trainer.continue_training(1200)
    direct = GreedTokSuperwordTrainer(k=1200, chunk_budget_mb=0.1, show_progress=False).train_from_iterator(lines)
    assert resumed.model.ranked_tokens == direct.model.ranked_tokens


def test_a_retrained_folder_keeps_its_chunk_budget():
    from hf_greedtok.trainers.recorded import recorded_trainer
    tok = GreedTokSuperwordTrainer(k=600, chunk_budget_mb=0.1, show_progress=False).train_from_iterator(_lines())
    assert recorded_trainer(tok, 900).chunk_budget_mb == 0.1
    assert recorded_trainer(tok, 900, chunk_budget_mb=None).chunk_budget_mb is None


def test_past_the_word_budget_stage_1_trains_on_the_words_threshold_sample():
    """Distinct words grow with the corpus too: past ``word_budget_mb`` stage 1 trains on the
    threshold sample of the chunks' words, drawn as the chunks' is; within it, on every word."""
    chunks = count_words_in_files([corpus("en_shakespeare_milton.txt")], ByteLevel("superwords"), table=True,
                                  show_progress=False, num_proc=1)
    words = chunk_words(chunks.to_dict(), ByteLevel("gpt4-marks"))
    budget = _mb(words) / 4
    trainer = GreedTokSuperwordTrainer(k=300, word_budget_mb=budget, show_progress=False)
    kept = trainer.reduce_counts(chunks)
    expected = sample_chunks(words, budget)
    assert expected.rate > 1 and kept.words == expected.table.to_dict()
    info = expected.info(budget)
    info["distinct_words_kept"] = info.pop("distinct_chunks_kept")
    assert kept.word_sample == info and kept.sample.rate == 1     # the chunks fit their budget
    trained = trainer.train_from_counts(kept).training_info
    assert trained["curriculum"]["word_sample"] == info
    assert trained["distinct_words"] == len(words)          # the per-word figures count every word
    whole = GreedTokSuperwordTrainer(k=300, show_progress=False).reduce_counts(chunks)
    assert whole.words == words and whole.word_sample["rate"] == 1
