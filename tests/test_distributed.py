"""Distributed word counting on Ray (issue 16 items 1, 2a and the `count` CLI): every result equals
single-process counting word for word, on real English and Hindi corpora, with special tokens
and a normalizer, for text, JSON Lines, parquet and Ray Dataset inputs; training on the merged
table ranks the same tokens as training on single-process counts.

One local cluster for the module (``ray.init(num_cpus=2)``, about 5 s to start); skipped with a
reason without the ``ray`` extra. Most merges use the sort shuffle, which starts faster on small
jobs; one test runs Ray's default hash shuffle.
"""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest
from corpora import corpus

ray = pytest.importorskip("ray", reason="distributed counting needs the ray extra: pip install 'hf-greedtok[ray]'")
pa = pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")
import pyarrow.parquet as pq  # noqa: E402

from hf_greedtok import ByteLevel, CorpusError, GreedTokTrainer, Metaspace, UnicodeNormalizer  # noqa: E402
from hf_greedtok.cli import main  # noqa: E402
from hf_greedtok.distributed import count_words_distributed  # noqa: E402
from hf_greedtok.formats.count_table import write_count_table  # noqa: E402
from hf_greedtok.special_tokens import counting_pipeline  # noqa: E402
from hf_greedtok.word_counts import count_words, count_words_in_files, read_count_tables  # noqa: E402

FAST = "sort_shuffle_pull_based"
SPECIALS = ("<|endoftext|>", "the")     # "the": a special token inside words, cut out everywhere


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # Ray puts the driver's working directory first on its workers' sys.path: started from the
    # checkout (as CI runs pytest), workers would import its hf_greedtok/, which has no compiled
    # modules after a plain `pip install .`, instead of the installed package
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray_driver"))
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        os.chdir(here)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    """en_brown and hi_devdas, and a small file of the cases line handling can get wrong."""
    tricky = tmp_path_factory.mktemp("tricky") / "tricky.txt"
    tricky.write_bytes("\ufeffBOM first<|endoftext|>next\r\nCRLF line \r\n\n\n  spaced   out  \n"
                       "tabs\there\t\n\rlone CR\rthe end, no newline".encode("utf-8"))
    return [str(corpus("en_brown.txt")), str(corpus("hi_devdas.txt")), str(tricky)]


def single(paths, pre, normalizer=None, specials=()):
    return count_words_in_files(paths, *counting_pipeline(pre, normalizer, specials), num_proc=1,
                                show_progress=False)


def test_text_files_equal_single_process_with_the_default_hash_shuffle(cluster, texts):
    got = count_words_distributed(texts, ByteLevel(), show_progress=False)
    assert got == single(texts, ByteLevel())
    assert list(got.values()) == sorted(got.values(), reverse=True)     # the documented order


@pytest.mark.parametrize("pre", [ByteLevel(), Metaspace()], ids=["bytes", "metaspace"])
def test_special_tokens_and_a_normalizer(cluster, texts, pre):
    norm = UnicodeNormalizer("NFKC")
    got = count_words_distributed(texts, pre, normalizer=norm, special_tokens=SPECIALS, shuffle_strategy=FAST,
                                  show_progress=False)
    expected = single(texts, pre, norm, SPECIALS)
    assert got == expected
    assert not any("<|endoftext|>" in w for w in got)


def test_encoding_errors_as_single_process(cluster, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad\.txt, line 2: invalid UTF-8 \(byte 0xff\)"):
        count_words_distributed([bad], shuffle_strategy=FAST, show_progress=False)
    got = count_words_distributed([bad], encoding_errors="replace", shuffle_strategy=FAST, show_progress=False)
    assert got == count_words_in_files([bad], ByteLevel(), encoding_errors="replace", num_proc=1,
                                       show_progress=False)
    assert any("\ufffd" in w for w in got)


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """hi_devdas and the head of en_brown as multi-line documents (paragraphs), in JSONL and parquet."""
    paragraphs = []
    for name, limit in (("hi_devdas.txt", None), ("en_brown.txt", 300_000)):
        text = corpus(name).read_text(encoding="utf-8")[:limit]
        paragraphs += [p + "\n" for p in text.split("\n\n") if p]
    folder = tmp_path_factory.mktemp("docs")
    jsonl = folder / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"id": k, "text": p}, ensure_ascii=False) + "\n"
                             for k, p in enumerate(paragraphs)), encoding="utf-8")
    parquet = folder / "docs.parquet"
    pq.write_table(pa.table({"id": list(range(len(paragraphs))), "text": paragraphs}), parquet, row_group_size=500)
    return paragraphs, jsonl, parquet


def test_jsonl_parquet_and_a_ray_dataset(cluster, documents):
    paragraphs, jsonl, parquet = documents
    pre, norm = ByteLevel(), UnicodeNormalizer("NFC")
    one = count_words(paragraphs, *counting_pipeline(pre, norm, SPECIALS), num_proc=1, show_progress=False)
    got = count_words_distributed([jsonl, parquet], pre, normalizer=norm, special_tokens=SPECIALS,
                                  shuffle_strategy=FAST, show_progress=False)
    assert got == Counter({w: 2 * c for w, c in one.items()})
    ds = ray.data.from_items([{"text": p} for p in paragraphs])
    assert count_words_distributed(ds, pre, normalizer=norm, special_tokens=SPECIALS, shuffle_strategy=FAST,
                                   show_progress=False) == one
    with pytest.raises(CorpusError, match="no column 'body'"):
        count_words_distributed(ds, text_column="body", shuffle_strategy=FAST, show_progress=False)


def test_a_missing_input_fails_before_ray_starts(tmp_path, texts):
    # no cluster fixture: the check needs none, and none is started
    with pytest.raises(CorpusError, match="no such file"):
        count_words_distributed([texts[2], tmp_path / "missing.txt"], address="ray://nowhere:1")
    with pytest.raises(CorpusError, match="no file matches"):
        count_words_distributed(str(tmp_path / "*.jsonl"), address="ray://nowhere:1")


def test_cli_count_ray_equals_local_and_reads_back(cluster, texts, tmp_path, capsys):
    args = [*texts, "--special-token", "<|endoftext|>", "--normalizer", "NFKC", "--quiet"]
    assert main(["count", *args, "-o", str(tmp_path / "local.tsv")]) == 0
    assert main(["count", *args, "-o", str(tmp_path / "ray.tsv"), "--engine", "ray"]) == 0  # joins the fixture's cluster
    assert main(["count", *args, "-o", str(tmp_path / "local.parquet")]) == 0
    assert (tmp_path / "local.tsv").read_bytes() == (tmp_path / "ray.tsv").read_bytes()
    out = capsys.readouterr().out
    assert "counted by the ray engine" in out and "left out" in out   # "\n" words do not fit a TSV line
    pre, norm = counting_pipeline(ByteLevel(), UnicodeNormalizer("NFKC"), ["<|endoftext|>"])
    expected = count_words_in_files(texts, pre, norm, num_proc=1, show_progress=False)
    table = pq.read_table(tmp_path / "local.parquet")
    assert dict(zip(table.column("word").to_pylist(), table.column("count").to_pylist())) == expected
    # what train --counts --no-prefix-space reads from the TSV: every word that fits, exactly
    fits = {w: c for w, c in expected.items() if not any(ch in w for ch in "\t\r\n\0")}
    assert read_count_tables([tmp_path / "ray.tsv"], pre, None, prefix_space=False) == fits


def test_cli_count_refuses_missing_inputs_and_existing_outputs(tmp_path, capsys, texts):
    code = main(["count", texts[2], str(tmp_path / "nope.txt"), "-o", str(tmp_path / "c.tsv"), "--engine", "ray"])
    err = capsys.readouterr().err
    assert code == 2 and "nope.txt: no such file" in err and "Traceback" not in err
    (tmp_path / "c.tsv").write_text("x\t1\n")
    assert main(["count", texts[2], "-o", str(tmp_path / "c.tsv")]) == 2
    assert "exists" in capsys.readouterr().err


def test_metaspace_tsv_round_trip(tmp_path):
    pre = Metaspace()
    counts = count_words(["the cat sat on the mat  twice", "नमस्ते दुनिया"], pre, num_proc=1, show_progress=False)
    summary = write_count_table(counts, tmp_path / "m.tsv", pre)
    # the lone "▁" (the second of two spaces) cannot be written: reading prepends "▁" to every entry
    assert (summary.words, summary.omitted_words, summary.omitted_occurrences) == (len(counts) - 1, 1, 1)
    del counts["▁"]
    assert read_count_tables([tmp_path / "m.tsv"], pre, prefix_space=False) == counts


def test_training_on_distributed_counts_ranks_the_same_tokens(cluster, texts):
    """Issue 16 item 2a: count on Ray, train the exact trainer on the merged table."""
    pre = ByteLevel()
    dist = count_words_distributed(texts, pre, special_tokens=SPECIALS, shuffle_strategy=FAST, show_progress=False)
    local = single(texts, pre, None, SPECIALS)
    # the merged table comes in another order than the local one (count, then word): the
    # trainer's tie order must not depend on it
    assert list(dist) != list(local)
    def ranked(counts):
        trainer = GreedTokTrainer(400, special_tokens=list(SPECIALS), show_progress=False)
        tok = trainer.train_from_counts(counts)
        return tok.model.ranked_tokens, tok.training_info["k_learned"]
    assert ranked(dist) == ranked(local)
