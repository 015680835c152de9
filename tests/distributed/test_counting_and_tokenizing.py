"""Distributed word counting on Ray (issue 16 items 1, 2a and the `count` CLI): every result equals
single-process counting word for word, on real English and Hindi corpora, with special tokens
and a normalizer, for text, JSON Lines, parquet and Ray Dataset inputs; training on the merged
table ranks the same tokens as training on single-process counts.

One local cluster for the module (``ray.init(num_cpus=2)``, about 5 s to start); skipped with a
reason without the ``ray`` extra. Most merges use the sort shuffle, which starts faster on small
jobs; one test runs Ray's default hash shuffle.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
from collections import Counter

import pytest
from corpora import corpus
from hypothesis import given
from hypothesis import strategies as st

ray = pytest.importorskip("ray", reason="distributed counting needs the ray extra: pip install 'hf-greedtok[ray]'")
pa = pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")
import pyarrow.parquet as pq  # noqa: E402

from hf_greedtok import ByteLevel, CorpusError, GreedTokTrainer, Metaspace, Tokenizer, UnicodeNormalizer  # noqa: E402
from hf_greedtok.cli import main  # noqa: E402
from hf_greedtok.pre_tokenizers.patterns import DEFAULT_SPLIT  # noqa: E402
from hf_greedtok.distributed import count_words_distributed  # noqa: E402
from hf_greedtok.formats.count_table import write_count_table  # noqa: E402
from hf_greedtok.special_tokens import counting_pipeline  # noqa: E402
from hf_greedtok.word_counts import count_words, count_words_in_files, read_count_tables  # noqa: E402

SPECIALS = ("<|endoftext|>", "the")     # "the": a special token inside words, cut out everywhere


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


@pytest.mark.parametrize("partitions", [None, 1, 3], ids=["one-per-cpu", "one", "three"])
def test_text_files_equal_single_process_in_any_number_of_partitions(cluster, texts, partitions):
    got = count_words_distributed(texts, ByteLevel(), num_partitions=partitions, show_progress=False)
    assert got == single(texts, ByteLevel())
    # the documented order: count descending, then word
    assert list(got.items()) == sorted(got.items(), key=lambda item: (-item[1], item[0]))


def test_many_files_are_summed_in_a_tree_of_tasks(cluster, tmp_path, monkeypatch):
    """40 shards of en_brown with 3 tables per sum task: each partition's tables are summed on
    three levels (40 = 27 + 9 + 3 + 1), and still every word has its single-process count."""
    from hf_greedtok.distributed import counting
    monkeypatch.setattr(counting, "FAN_IN", 3)
    lines = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:8000]
    files = []
    for k in range(40):
        files.append(tmp_path / f"shard{k:02d}.txt")
        files[-1].write_text("".join(lines[k::40]), encoding="utf-8")
    got = count_words_distributed(files, ByteLevel(), num_partitions=2, show_progress=False)
    assert got == count_words_in_files(files, ByteLevel(), num_proc=1, show_progress=False)
    assert list(got.items()) == sorted(got.items(), key=lambda item: (-item[1], item[0]))


def test_num_partitions_below_one_is_refused_before_ray_starts(tmp_path):
    (tmp_path / "a.txt").write_text("a b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="num_partitions must be >= 1, got 0"):
        count_words_distributed([tmp_path / "a.txt"], num_partitions=0, show_progress=False)


@pytest.mark.parametrize("pre", [ByteLevel(), Metaspace()], ids=["bytes", "metaspace"])
def test_special_tokens_and_a_normalizer(cluster, texts, pre):
    norm = UnicodeNormalizer("NFKC")
    got = count_words_distributed(texts, pre, normalizer=norm, special_tokens=SPECIALS,
                                  show_progress=False)
    expected = single(texts, pre, norm, SPECIALS)
    assert got == expected
    assert not any("<|endoftext|>" in w for w in got)


def test_encoding_errors_as_single_process(cluster, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad\.txt, line 2: invalid UTF-8 \(byte 0xff\)"):
        count_words_distributed([bad], show_progress=False)
    got = count_words_distributed([bad], encoding_errors="replace", show_progress=False)
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


def test_text_files_and_documents_in_one_count(cluster, texts, documents):
    """Text files go to Ray tasks and JSON Lines to Ray Data, both into the same partitions."""
    paragraphs, jsonl, _ = documents
    pre = ByteLevel()
    got = count_words_distributed([*texts, jsonl], pre, num_partitions=3, show_progress=False)
    assert got == single(texts, pre) + count_words(paragraphs, *counting_pipeline(pre, None, ()), num_proc=1,
                                                   show_progress=False)


def test_jsonl_parquet_and_a_ray_dataset(cluster, documents):
    paragraphs, jsonl, parquet = documents
    pre, norm = ByteLevel(), UnicodeNormalizer("NFC")
    one = count_words(paragraphs, *counting_pipeline(pre, norm, SPECIALS), num_proc=1, show_progress=False)
    got = count_words_distributed([jsonl, parquet], pre, normalizer=norm, special_tokens=SPECIALS,
                                  show_progress=False)
    assert got == Counter({w: 2 * c for w, c in one.items()})
    ds = ray.data.from_items([{"text": p} for p in paragraphs], override_num_blocks=2)   # not 200 tiny tasks
    assert count_words_distributed(ds, pre, normalizer=norm, special_tokens=SPECIALS,
                                   show_progress=False) == one
    with pytest.raises(CorpusError, match="no column 'body'"):
        count_words_distributed(ds, text_column="body", show_progress=False)


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
    # the record both engines write: every counting setting that changes the words
    record = ('# hf-greedtok count table {"normalizer": "NFKC", "special_tokens": ["<|endoftext|>"], '
              '"split": "gpt4-marks"}')
    assert (tmp_path / "ray.tsv").read_text(encoding="utf-8").split("\n", 1)[0] == record
    out = capsys.readouterr().out
    assert "counted by the ray engine" in out and "left out" in out   # "\n" words do not fit a TSV line
    # count's byte-level split is train's default, gpt4-marks: Devdas's words keep their vowel signs
    pre, norm = counting_pipeline(ByteLevel(DEFAULT_SPLIT), UnicodeNormalizer("NFKC"), ["<|endoftext|>"])
    expected = count_words_in_files(texts, pre, norm, num_proc=1, show_progress=False)
    # gpt4 would give " द", "ेवद", "ास" and " नह", "ी"
    assert " देवदास" in expected and " नही" in expected
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
    dist = count_words_distributed(texts, pre, special_tokens=SPECIALS, show_progress=False)
    local = single(texts, pre, None, SPECIALS)
    # the merged table comes in another order than the local one (count, then word): the
    # trainer's tie order must not depend on it
    assert list(dist) != list(local)
    def ranked(counts):
        trainer = GreedTokTrainer(k=400, special_tokens=list(SPECIALS), show_progress=False)
        tok = trainer.train_from_counts(counts)
        return tok.model.ranked_tokens, tok.training_info["k_learned"]
    assert ranked(dist) == ranked(local)


# ---------------------------------------------------------------- tokenizing (issue 16 items 3-5)

@pytest.fixture(scope="module")
def slices(tmp_path_factory):
    """The heads of en_brown and hi_devdas (whole lines) and two folders trained on them: cover
    with BOS/EOS added, and optimal."""
    folder = tmp_path_factory.mktemp("tokenize")
    files = []
    for name, lines in (("en_brown.txt", 3000), ("hi_devdas.txt", 1200)):
        with open(corpus(name), encoding="utf-8", newline="") as f:
            head = "".join(line for _, line in zip(range(lines), f))
        files.append(folder / name)
        files[-1].write_text(head, encoding="utf-8", newline="")
    common = [*map(str, files), "-k", "400", "--quiet"]
    assert main(["train", *common, "-o", str(folder / "cover"), "--mode", "cover", "--bos-token", "<s>",
                 "--eos-token", "</s>", "--add-bos-token", "--add-eos-token"]) == 0
    assert main(["train", *common, "-o", str(folder / "optimal")]) == 0      # optimal: train's default
    return folder, [str(f) for f in files]


def file_documents(paths):
    """A text file's documents as tokenize defines them: its lines, each keeping its "\\n"."""
    docs = []
    for p in paths:
        parts = open(p, encoding="utf-8", newline="").read().split("\n")
        docs += [x + "\n" for x in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return docs


def backend_ids(folder, docs, **kwargs):
    """tok(doc) through the transformers backend (not the native batch path tokenize uses)."""
    from hf_greedtok.hf.folder_encoder import load_folder_tokenizer
    tok = load_folder_tokenizer(folder, **kwargs)
    tok.native_batch_path = False
    return tok(docs)["input_ids"]


def test_cli_tokenize_ray_equals_local_and_one_process(cluster, slices, tmp_path, capsys):
    folder, files = slices
    for engine in ("local", "ray"):     # ray joins the fixture's cluster
        assert main(["tokenize", str(folder / "cover"), *files, "-o", str(tmp_path / engine), "--engine", engine,
                     "--batch-size", "700", "--quiet"]) == 0
    assert "counted" not in capsys.readouterr().out
    local, ray_table = pq.read_table(tmp_path / "local"), pq.read_table(tmp_path / "ray")
    assert ray_table.equals(local)
    assert ray_table.schema.field("input_ids").type == pa.list_(pa.int32())
    docs = file_documents(files)
    ids = ray_table.column("input_ids").to_pylist()
    assert ids == backend_ids(folder / "cover", docs)          # row k = document k, in input order
    assert ids[0][0] == 0 and ids[0][-1] == 1                  # <s> ... </s> (the first special tokens)
    # every training word covered as the trainer covered it: the corpus tokens are its objective
    info = json.loads((folder / "cover" / "greedtok.json").read_text(encoding="utf-8"))["training"]
    assert sum(map(len, ids)) - 2 * len(docs) == info["objective_tokens"]


def test_tokenize_documents_optimal_with_attention_mask(cluster, slices, tmp_path):
    from hf_greedtok import Tokenizer
    from hf_greedtok.distributed import tokenize_dataset
    folder, files = slices
    docs = [p for p in "".join(file_documents(files)).split("\n\n") if p] + ["", "<s> is text here"]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"text": d}, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    out = tokenize_dataset(jsonl, folder / "optimal", tmp_path / "out", attention_mask=True, batch_size=100,
                           num_workers=1, show_progress=False)
    table = pq.read_table(out.path)
    assert out.rows == len(docs) == table.num_rows
    tok = Tokenizer.load(folder / "optimal")
    expected = [tok.encode(d, mode="optimal") for d in docs]
    assert table.column("input_ids").to_pylist() == expected
    assert table.column("attention_mask").to_pylist() == [[1] * len(e) for e in expected]
    # the same folder in cover mode, from parquet, on the local engine
    parquet = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"text": docs}), parquet, row_group_size=300)
    tokenize_dataset(parquet, folder / "optimal", tmp_path / "cover", engine="local", mode="cover", num_threads=2)
    assert pq.read_table(tmp_path / "cover").column("input_ids").to_pylist() == \
        [tok.encode(d, mode="cover") for d in docs]


def test_a_worker_killed_once_is_retried_and_the_results_stay_exact(cluster, slices, tmp_path):
    """Issue 16 item 5: Ray reruns the task of a dead worker (counting) and restarts a dead actor
    (tokenizing); counts and ids equal one process."""
    from hf_greedtok.distributed import tokenize_dataset
    folder, files = slices
    docs = file_documents(files[1:])
    rows = [{"text": d} for d in docs]

    def crash_once(batch, marker):
        # defined here, so that Ray ships it by value (workers cannot import the tests)
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return batch
        os._exit(1)     # the first worker to get here dies, as a killed or lost node would
    ds = ray.data.from_items(rows, override_num_blocks=4).map_batches(
        crash_once, fn_kwargs=dict(marker=str(tmp_path / "count.crashed")), batch_format="pyarrow")
    got = count_words_distributed(ds, ByteLevel(), show_progress=False)
    assert (tmp_path / "count.crashed").exists()
    assert got == count_words(docs, ByteLevel(), num_proc=1, show_progress=False)
    ds = ray.data.from_items(rows, override_num_blocks=4).map_batches(
        crash_once, fn_kwargs=dict(marker=str(tmp_path / "encode.crashed")), batch_format="pyarrow")
    out = tokenize_dataset(ds, folder / "cover", tmp_path / "ids", batch_size=200, num_workers=1,
                           show_progress=False)
    assert (tmp_path / "encode.crashed").exists()
    assert pq.read_table(out.path).column("input_ids").to_pylist() == backend_ids(folder / "cover", docs)


def test_a_part_is_written_whole_in_order_and_a_rerun_replaces_it(slices, tmp_path):
    """Every tokenizing task writes its part with ``_write_part``: batch after batch in order,
    under a temporary name renamed at the end, so a task that died mid-write and was rerun leaves
    one whole file; a document that is not text stops it with the document's number."""
    from hf_greedtok.hf.folder_encoder import FolderEncoder
    from hf_greedtok.distributed.tokenizing import _write_part
    folder, files = slices
    encoder = FolderEncoder(folder / "optimal")
    docs = file_documents(files)[:1000]
    target = str(tmp_path / "part-00003.parquet")
    for _ in range(2):                                # the task, then its rerun
        assert _write_part(target, encoder, docs, "docs", batch_size=64) == 1000
    assert sorted(os.listdir(tmp_path)) == ["part-00003.parquet"]
    assert pq.read_table(target).column("input_ids").to_pylist() == backend_ids(folder / "optimal", docs)
    assert _write_part(str(tmp_path / "part-00004.parquet"), encoder, [], "docs", 64) == 0
    assert pq.read_table(tmp_path / "part-00004.parquet").column_names == ["input_ids"]
    with pytest.raises(CorpusError, match=r"docs: document 130 is NoneType, not text"):
        _write_part(str(tmp_path / "part-00005.parquet"), encoder, docs[:129] + [None], "docs", 64)
    assert not (tmp_path / "part-00005.parquet").exists()


def test_hf_datasets_sources(cluster, slices, tmp_path):
    datasets = pytest.importorskip("datasets")
    from hf_greedtok.distributed import tokenize_dataset
    folder, files = slices
    docs = file_documents(files[1:])[:300]
    hf = datasets.Dataset.from_dict({"text": docs})
    assert count_words_distributed(hf, ByteLevel(), show_progress=False) == \
        count_words(docs, ByteLevel(), num_proc=1, show_progress=False)
    out = tokenize_dataset(hf.select(range(299, -1, -1)), folder / "cover", tmp_path / "hf", num_workers=1,
                           show_progress=False)
    assert pq.read_table(out.path).column("input_ids").to_pylist() == backend_ids(folder / "cover", docs[::-1])


def test_cli_train_engine_ray_writes_the_local_folder(cluster, slices, tmp_path):
    """Issue 16 item 2a from the command line: counted on Ray, trained here; the same folder."""
    folder, files = slices
    args = [*files, "-k", "300", "--special-token", "<|endoftext|>", "--quiet"]
    assert main(["train", *args, "-o", str(tmp_path / "local")]) == 0
    assert main(["train", *args, "-o", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    for name in names:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name


def test_tokenize_checks_everything_before_any_work(slices, tmp_path, capsys):
    # no cluster fixture: every check runs before Ray would start (an unreachable address)
    folder, files = slices
    out = tmp_path / "out"
    cases = [
        ([str(folder / "cover"), files[0], str(tmp_path / "nope.txt")], "nope.txt: no such file"),
        ([str(tmp_path / "no-tokenizer"), files[0]], "no-tokenizer: no such file or directory"),
        ([str(folder / "cover"), files[0], str(tmp_path / "d.jsonl")], "different kinds"),
    ]
    (tmp_path / "d.jsonl").write_text('{"text": "x"}\n')
    for argv, message in cases:
        code = main(["tokenize", *argv, "-o", str(out), "--engine", "ray", "--ray-address", "ray://nowhere:1"])
        err = capsys.readouterr().err
        assert code == 2 and message in err and "Traceback" not in err, err
        assert not out.exists()
    assert main(["train", *files, "-k", "5", "-o", str(tmp_path / "t"), "--engine", "ray", "--counts"]) == 2
    assert "--counts" in capsys.readouterr().err


def test_tokenize_output_is_atomic_and_replaces_only_its_own_folders(slices, tmp_path, capsys):
    from hf_greedtok.distributed import tokenize_dataset
    folder, files = slices
    out = tmp_path / "out"
    bad = tmp_path / "bad.jsonl"      # the second batch holds a number: the run fails midway
    bad.write_text('{"text": "fine"}\n{"text": 7}\n')
    with pytest.raises(CorpusError, match=r"bad\.jsonl, line 2: 'text' is a number, not text"):
        tokenize_dataset(bad, folder / "cover", out, engine="local", batch_size=1)
    assert list(tmp_path.iterdir()) == [bad]          # no output, no temporary folder
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    tokenize_dataset(empty, folder / "cover", tmp_path / "none", engine="local", attention_mask=True)
    assert pq.read_table(tmp_path / "none").column_names == ["input_ids", "attention_mask"]
    assert pq.read_table(tmp_path / "none").num_rows == 0
    shutil.rmtree(tmp_path / "none")
    empty.unlink()
    tokenize_dataset(files[1], folder / "cover", out, engine="local")
    first = pq.read_table(out)
    assert sorted(p.name for p in out.iterdir()) == ["_hf_greedtok_manifest.json", "part-00000.parquet"]
    with pytest.raises(FileExistsError):
        tokenize_dataset(files[1], folder / "cover", out, engine="local")
    tokenize_dataset(files[1], folder / "optimal", out, engine="local", overwrite=True)
    assert not pq.read_table(out).equals(first)
    (out / "notes.txt").write_text("mine")
    code = main(["tokenize", str(folder / "cover"), files[1], "-o", str(out), "--overwrite"])
    assert code == 2 and "notes.txt" in capsys.readouterr().err and (out / "notes.txt").exists()


def test_a_killed_tokenize_leaves_no_output(slices, tmp_path):
    import signal
    import subprocess
    import sys
    import time
    folder, files = slices
    big = tmp_path / "big.txt"        # long enough to be killed mid-run
    big.write_bytes(b"".join(corpus(n).read_bytes() for n in ("en_brown.txt", "en_python_docs.txt")))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "hf_greedtok.cli", "tokenize", str(folder / "cover"), str(big),
                             "-o", str(out), "--num-proc", "1", "--batch-size", "256", "--quiet"],
                            cwd=tmp_path, stderr=subprocess.PIPE)
    while not list(tmp_path.glob(".out.new-*/part-00000.parquet")) and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()


def test_tokenize_a_bpe_folder_as_transformers_does(slices, tmp_path):
    """Folders without a ranked token file go through the transformers tokenizer's batch call."""
    from transformers import AutoTokenizer
    from hf_greedtok.distributed import tokenize_dataset
    folder, files = slices
    assert main(["train", files[1], "--algorithm", "bpe", "-k", "200", "-o", str(tmp_path / "bpe"), "--quiet"]) == 0
    out = tokenize_dataset(files[1], tmp_path / "bpe", tmp_path / "ids", engine="local", batch_size=500)
    docs = file_documents(files[1:])
    assert pq.read_table(out.path).column("input_ids").to_pylist() == \
        AutoTokenizer.from_pretrained(str(tmp_path / "bpe"))(docs)["input_ids"]


@given(rows=st.lists(st.lists(st.integers(0, 2**31 - 1), max_size=5), max_size=6),
       prefix=st.lists(st.integers(0, 9), max_size=2), suffix=st.lists(st.integers(0, 9), max_size=2))
def test_wrap_rows_puts_the_template_around_every_row(rows, prefix, suffix):
    import numpy as np
    from hf_greedtok.hf.folder_encoder import wrap_rows
    ids = np.array([i for r in rows for i in r], dtype=np.int32)
    offsets = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    out, bounds = wrap_rows(ids, offsets, prefix, suffix)
    assert out.dtype == np.int32 and bounds.dtype == np.int64
    assert [out[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])] == [prefix + r + suffix for r in rows]


def test_superword_chunks_count_on_ray_as_here_and_train_the_same_tokenizer(cluster, texts, tmp_path):
    """Issue 31: `count --superwords` on Ray gives the local table of chunks, and `train --counts
    --superwords` on it ranks the tokens training on the text does."""
    args = [*texts, "--superwords", "--quiet"]
    assert main(["count", *args, "-o", str(tmp_path / "local.parquet")]) == 0
    assert main(["count", *args, "-o", str(tmp_path / "ray.parquet"), "--engine", "ray"]) == 0
    local, ray = (pq.read_table(tmp_path / f"{name}.parquet") for name in ("local", "ray"))
    assert local.equals(ray)
    chunks = dict(zip(local.column("word").to_pylist(), local.column("count").to_pylist()))
    pre = ByteLevel("superwords")
    as_counter = count_words_distributed(texts, pre, show_progress=False)
    assert as_counter == chunks
    assert any(" " in c.strip() and "\n" in c for c in chunks)       # phrases, with their line ends
    train = ["--superwords", "--vocab-size", "600", "--word-tokens", "200", "--quiet"]
    assert main(["train", *texts, "-o", str(tmp_path / "text"), *train]) == 0
    assert main(["train", str(tmp_path / "ray.parquet"), "--counts", "--no-prefix-space",
                 "-o", str(tmp_path / "table"), *train]) == 0
    assert Tokenizer.load(tmp_path / "text").model.ranked_tokens == Tokenizer.load(tmp_path / "table").model.ranked_tokens
    assert main(["train", *texts, "-o", str(tmp_path / "on_ray"), "--engine", "ray", *train]) == 0
    on_ray = Tokenizer.load(tmp_path / "on_ray")
    assert Tokenizer.load(tmp_path / "text").model.ranked_tokens == on_ray.model.ranked_tokens


def test_superword_chunks_stay_on_the_cluster_in_disjoint_partitions(cluster, texts):
    """Issue 53: with ``table=True`` the chunks stay in the object stores, hash-partitioned; each
    partition read where it is (``map_partitions``) holds chunks no other holds, and together
    they are the local engine's exact counts, for any number of partitions."""
    from hf_greedtok.chunk_spill import count_histogram
    from hf_greedtok.trainers.chunk_sample import sampled
    pre = ByteLevel("superwords")
    local = single(texts, pre)
    for parts in (1, 5):
        with count_words_distributed(texts, pre, num_partitions=parts, show_progress=False, table=True) as chunks:
            assert chunks.partition_count == parts and len(chunks) == len(local) and chunks
            seen: dict = {}
            for part in chunks.map_partitions(functools.partial(sampled, rate=1)):   # rate 1: the partition
                assert part.to_dict().keys().isdisjoint(seen)
                seen.update(part.to_dict())
            assert seen == local and sorted(chunks) == sorted(local)
            histograms = list(chunks.map_partitions(count_histogram))
            assert len(histograms) == parts and sum(int(s.sum()) for _, s in histograms) == sum(
                len(c.encode("utf-8", "surrogatepass")) for c in local)
        with pytest.raises(ValueError, match="closed"):
            list(chunks.map_partitions(len))
    with pytest.raises(ValueError, match="num_partitions of chunk tables must be <= 65536, got 65537"):
        count_words_distributed(texts, pre, num_partitions=65537, table=True)


def test_superword_training_on_ray_samples_the_chunks_local_training_samples(cluster, texts, tmp_path, monkeypatch):
    """Issue 53: one text file counted in many byte ranges on Ray, the chunks partitioned, the
    words, histograms and sample read by Ray tasks: with a chunk budget small enough that the
    sample is drawn, the tokenizer folder is byte for byte the local engine's."""
    import hf_greedtok.formats.sources as sources
    monkeypatch.setattr(sources, "RANGE_BYTES", 100_000)
    assert len(sources.line_ranges(texts[0])) > 10
    train = [texts[0], "--superwords", "-k", "400", "--chunk-budget-mb", "0.1", "--quiet"]
    assert main(["train", *train, "-o", str(tmp_path / "local"), "--num-proc", "1"]) == 0
    assert main(["train", *train, "-o", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    sample = json.loads((tmp_path / "ray" / "greedtok.json").read_text())["training"]["curriculum"]["chunk_sample"]
    assert sample["rate"] > 2 and sample["kept_mb"] <= 0.1 < sample["distinct_mb"]
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    for name in names:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
