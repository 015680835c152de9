"""Chunk counts past a memory limit (hf_greedtok.chunk_spill): spilled to hash-partitioned run
files, they are the same counts, and superword training on them is the same training."""
import gc
import os
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok._chunk_table import ChunkTable
from hf_greedtok.chunk_spill import (PARTITIONS, ChunkSpiller, SpilledChunks, add_histograms, count_histogram)
from hf_greedtok.pre_tokenizers import ByteLevel
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer
from hf_greedtok.word_counts import count_words_in_files

from tests.corpora import CORPORA

CORPUS = [str(CORPORA / "en_shakespeare_milton.txt")]
CHUNKS = ByteLevel("superwords")


def _table(counts: dict) -> ChunkTable:
    table = ChunkTable()
    table.add_counts(counts)
    return table


def _spill(parts: list, limit: int):
    spiller = ChunkSpiller(limit)
    for part in parts:
        spiller.merge(_table(part))
    return spiller.result()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=12), st.integers(1, 5), max_size=40), max_size=12))
def test_partitions_add_up_to_the_table(parts):
    """Each chunk sits in exactly one partition, with the sum of its counts over every part
    (lone surrogates and any other str included)."""
    expected = Counter()
    for part in parts:
        expected.update(part)
    counts = _spill(parts, 200)
    if not isinstance(counts, SpilledChunks):
        assert counts.to_dict() == dict(expected)
        return
    with counts:
        seen = {}
        for table in counts.partitions():
            for chunk, count in table.to_dict().items():
                assert chunk not in seen
                seen[chunk] = count
        assert seen == dict(expected)
        assert len(counts) == len(expected) and bool(counts) == bool(expected)


def test_a_table_within_the_limit_is_never_spilled():
    counts = _spill([{" of the": 3}, {" in a": 1, " of the": 2}], 1 << 20)
    assert isinstance(counts, ChunkTable) and counts.to_dict() == {" of the": 5, " in a": 1}


def test_records_round_trip_and_the_file_holds_the_same_bytes(tmp_path):
    table = _table({f" chunk {i} é\ud800": 1 + i % 5 for i in range(2000)})
    records, offsets = table.partition_records(10)
    assert offsets[-1] == len(records) and (offsets[1:] >= offsets[:-1]).all()
    assert (table.write_partition_records(tmp_path / "run", 10) == offsets).all()
    assert (tmp_path / "run").read_bytes() == bytes(records)
    back = ChunkTable()
    for p in range(1 << 10):
        back.add_records(bytes(records[offsets[p]:offsets[p + 1]]))
    assert back.to_dict() == table.to_dict()
    with pytest.raises(OSError):        # never over a file that is there
        table.write_partition_records(tmp_path / "run", 10)
    with pytest.raises(ValueError, match="cut short"):
        ChunkTable().add_records(bytes(records[:-1]))


def test_the_histogram_of_the_partitions_is_the_tables():
    table = _table({f" w{i}" + "x" * (i % 9): 1 + i % 13 for i in range(5000)})
    counts = _spill([dict(list(table.to_dict().items())[k:k + 500]) for k in range(0, 5000, 500)], 20_000)
    assert isinstance(counts, SpilledChunks) and len(counts.runs) > 1
    values, sizes = add_histograms(counts.map_partitions(count_histogram))
    whole = count_histogram(table)
    assert values.tolist() == whole[0].tolist() and sizes.tolist() == whole[1].tolist()
    assert counts.partition_count == PARTITIONS


def test_counting_past_the_limit_gives_the_same_counts_on_disk():
    """Three files, each one counting job: the table spills after the first and the second."""
    files = [str(CORPORA / name) for name in ("en_shakespeare_milton.txt", "en_python_docs.txt", "zh_reviews.txt")]
    exact = count_words_in_files(files, CHUNKS, table=True, show_progress=False, num_proc=1)
    spilled = count_words_in_files(files, CHUNKS, table=True, show_progress=False, num_proc=1,
                                   max_table_bytes=len(exact) * 8)
    assert isinstance(spilled, SpilledChunks) and len(spilled.runs) > 1
    merged = ChunkTable()
    for part in spilled.partitions():
        merged.merge(part)
    assert sorted(merged.to_dict().items()) == sorted(exact.to_dict().items())


@pytest.mark.parametrize("budget_mb", [0.05, None])
def test_training_on_spilled_counts_is_training_on_the_table(budget_mb):
    """The words, the sample's rate and chunks, and the tokenizer are those of the table in
    memory, sampled (a small budget) or exact."""
    def trainer():
        return GreedTokSuperwordTrainer(k=600, show_progress=False, chunk_budget_mb=budget_mb)
    exact = count_words_in_files(CORPUS, CHUNKS, table=True, show_progress=False, num_proc=1)
    spilled = count_words_in_files(CORPUS, CHUNKS, table=True, show_progress=False, num_proc=1,
                                   max_table_bytes=len(exact) * 8)
    assert isinstance(spilled, SpilledChunks)
    a, b = trainer(), trainer()
    in_memory, on_disk = a.reduce_counts(exact), b.reduce_counts(spilled)
    assert on_disk.words == in_memory.words
    assert on_disk.sample.rate == in_memory.sample.rate and (budget_mb is None) == (in_memory.sample.rate == 1)
    assert sorted(on_disk.sample.table.to_dict().items()) == sorted(in_memory.sample.table.to_dict().items())
    first, second = a.train_from_counts(in_memory), b.train_from_counts(on_disk)
    assert first.model.ranked_tokens == second.model.ranked_tokens
    assert first.training_info["curriculum"] == second.training_info["curriculum"]


def test_run_files_are_removed_when_the_counts_go(tmp_path):
    spiller = ChunkSpiller(300, directory=tmp_path)
    for k in range(20):
        spiller.merge(_table({f" chunk {k} {i}": 1 for i in range(30)}))
    counts = spiller.result()
    folder = counts.directory
    assert folder.parent == tmp_path and len(os.listdir(folder)) == len(counts.runs) > 1
    del counts
    gc.collect()
    assert not folder.exists() and os.listdir(tmp_path) == []


def test_a_spill_that_cannot_be_written_names_the_place_and_the_fix(tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    spiller = ChunkSpiller(300, directory=not_a_folder)
    with pytest.raises(OSError, match=r"spilling chunk counts past the memory limit to .*file: .*TMPDIR"):
        for k in range(20):
            spiller.merge(_table({f" chunk {k} {i}": 1 for i in range(30)}))
    assert not_a_folder.read_text() == "x"


def test_a_count_table_written_from_spilled_counts_holds_every_count(tmp_path):
    from hf_greedtok.formats.count_table import iter_count_tables, write_count_table
    rng = random.Random(0)
    counts = {f" chunk {i}{'!' * (i % 3)}": rng.randint(1, 50) for i in range(3000)}
    spilled = _spill([dict(list(counts.items())[k:k + 300]) for k in range(0, 3000, 300)], 5000)
    assert isinstance(spilled, SpilledChunks)
    summary = write_count_table(spilled, tmp_path / "t.parquet", CHUNKS)
    rows = [(word, count) for _, _, word, count in iter_count_tables([tmp_path / "t.parquet"])]
    assert dict(rows) == counts and summary.words == len(counts) and summary.occurrences == sum(counts.values())
    in_memory = write_count_table(_table(counts), tmp_path / "m.parquet", CHUNKS)
    assert (in_memory.words, in_memory.occurrences) == (summary.words, summary.occurrences)
