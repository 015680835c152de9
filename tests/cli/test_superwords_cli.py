"""``hf-greedtok train --superwords`` and ``count --superwords`` (issue 31): tokens that span
words, saved as a folder stock transformers loads; bad combinations exit 2 and write nothing."""
from __future__ import annotations

import pytest
from corpora import EXAMPLE_TEXT, corpus

from hf_greedtok import Tokenizer
from hf_greedtok.cli import main


def test_train_superwords_saves_a_tokenizer_whose_tokens_span_words(tmp_path, capsys):
    from transformers import AutoTokenizer

    out = tmp_path / "sw"
    assert main(["train", str(EXAMPLE_TEXT), "--superwords", "--vocab-size", "2000", "--output", str(out),
                 "--quiet"]) == 0
    assert "learned 2000 tokens" in capsys.readouterr().out
    tok = Tokenizer.load(out)
    assert tok.pre_tokenizer.pattern == tok.pre_tokenizer.__class__("superwords").pattern
    assert tok.training_info["curriculum"]["word_tokens"] == 500     # a quarter by default
    assert any(b" of the" == t for t in tok.model.ranked_tokens)
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:300]
    hf = AutoTokenizer.from_pretrained(str(out))
    ids = hf(lines, add_special_tokens=False)["input_ids"]
    assert ids == [tok.encode(line) for line in lines]
    assert [hf.decode(i) for i in ids] == lines
    assert any(len(hf.convert_ids_to_tokens([i])[0].split("Ġ")) > 2 for row in ids for i in row)


def test_count_superwords_then_train_from_the_table_gives_the_same_tokenizer(tmp_path):
    table = tmp_path / "chunks.parquet"      # TSV cannot hold the chunks with line ends
    assert main(["count", str(EXAMPLE_TEXT), "--superwords", "-o", str(table), "--quiet"]) == 0
    import pyarrow.parquet as pq
    assert any(" " in chunk.strip() for chunk in pq.read_table(table).column("word").to_pylist())
    args = ["--superwords", "--vocab-size", "800", "--word-tokens", "300", "--quiet"]
    assert main(["train", str(EXAMPLE_TEXT), "-o", str(tmp_path / "a"), *args]) == 0
    assert main(["train", str(table), "--counts", "--no-prefix-space", "-o", str(tmp_path / "b"), *args]) == 0
    a, b = Tokenizer.load(tmp_path / "a"), Tokenizer.load(tmp_path / "b")
    assert a.model.ranked_tokens == b.model.ranked_tokens


def test_digits_in_chunks_counts_and_trains_chunks_that_hold_numbers(tmp_path, capsys):
    text = tmp_path / "numbers.txt"
    text.write_text("See page 12, line 3 of the book.\n" * 60 + "In 1990 the price was 3,000 dollars.\n" * 60)
    table = tmp_path / "chunks.parquet"
    assert main(["count", str(text), "--superwords", "--digits-in-chunks", "-o", str(table), "--quiet"]) == 0
    import pyarrow.parquet as pq
    assert set(pq.read_table(table).column("word").to_pylist()) == {
        "See page 12, line 3 of the book.\n", "In 1990 the price was 3,000 dollars.\n"}
    assert main(["train", str(text), "--superwords", "--digits-in-chunks", "--vocab-size", "60", "-o",
                 str(tmp_path / "sw"), "--quiet"]) == 0
    tok = Tokenizer.load(tmp_path / "sw")
    assert tok.pre_tokenizer.pattern == tok.pre_tokenizer.__class__("superwords-digits").pattern
    assert any(b"12" in t and b"page" in t for t in tok.model.ranked_tokens)
    assert main(["count", str(text), "--digits-in-chunks", "-o", str(tmp_path / "x.tsv"), "--quiet"]) == 2
    assert "add --superwords" in capsys.readouterr().err


def test_train_superwords_on_two_scripts_keeps_the_word_level_tokens_of_the_smaller_one(tmp_path, capsys):
    text = tmp_path / "mixed.txt"
    english = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:3000]
    hindi = corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines()[:300]
    text.write_text("\n".join(english + hindi) + "\n", encoding="utf-8")
    assert main(["train", str(text), "--superwords", "--vocab-size", "1500", "--output", str(tmp_path / "sw"),
                 "--quiet"]) == 0
    info = Tokenizer.load(tmp_path / "sw").training_info["curriculum"]
    assert info["dominant_script"] == "Latin" and info["other_script_tokens"] > 50
    assert (f"(375 word-level tokens and {info['other_script_tokens']} of scripts other than Latin first)"
            in capsys.readouterr().out)


@pytest.mark.parametrize("extra, message", [
    (["--superwords", "--units", "chars"], "--superwords trains byte-level GreedTok"),
    (["--superwords", "--bpe-candidates", "2"], "drop --bpe-candidates"),
    (["--superwords", "--pattern", "superwords"], "--pattern is the split of the word-level stage"),
    (["--word-tokens", "10"], "add --superwords"),
    (["--superwords", "--word-tokens", "900"], "--word-tokens 900 is more than the 500 learned tokens"),
    (["--superwords", "--algorithm", "bpe"], "--superwords"),
    (["--superwords", "--word-tokens", "-1"], "must be >= 0"),
    (["--digits-in-chunks"], "--digits-in-chunks changes the chunks of --superwords; add --superwords"),
    (["--superwords", "--pattern", "superwords-digits"], "--digits-in-chunks: superwords-digits"),
    (["--superwords", "--digits-in-chunks", "--algorithm", "bpe"], "--digits-in-chunks"),
    # word-level GreedTok on chunks reported its per-chunk figures as per word
    (["--pattern", "superwords"], "--pattern superwords is the chunk split of superword training: give "
                                  "--superwords instead (--word-tokens 0 trains on the chunks alone)"),
    (["--pattern", "superwords-digits"], "give --superwords --digits-in-chunks instead"),
])
def test_bad_combinations_exit_2_and_write_nothing(extra, message, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "500", "-o", str(out), "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


LIMIT = 65535       # the trainer's MAX_WORD_UNITS: singletons (here bytes) of one word


def long_lines() -> list[str]:
    """Lines of more than 65,535 bytes with no digit, punctuation run or line end inside: ASCII
    words (one superword chunk, short words), a CJK run (one word under every split) and one
    70,000-byte word; between short lines."""
    ascii_words = " ".join(("abcdefghij" * 2)[k % 10:k % 10 + 1 + k * 7 % 9] + "klm"[k % 3] * (k % 4)
                           for k in range(25_000))
    cjk = "".join(chr(0x4E00 + k * 7919 % 3000) for k in range(30_000))
    return ["Short line one, with words!\n", ascii_words + "\n", cjk + "\n", "x" * 70_000 + "\n",
            "Short line two, with words!\n"]


@pytest.mark.parametrize("mode", ["superwords", "word level"])
def test_train_on_lines_longer_than_the_trainer_limit_cuts_them_and_encodes_them_whole(mode, tmp_path):
    lines = long_lines()
    assert all(len(line.encode()) > LIMIT for line in lines[1:4])
    text = tmp_path / "long.txt"
    text.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "tok"
    extra = ["--superwords", "--word-tokens", "20"] if mode == "superwords" else []
    assert main(["train", str(text), *extra, "--vocab-size", "80", "-o", str(out), "--quiet"]) == 0
    tok = Tokenizer.load(out)
    for line in lines:
        for encode_mode in ("optimal", "cover"):       # the saved tokenizer does not cut
            ids = tok.encode(line, mode=encode_mode)
            assert tok.decode(ids) == line
    from transformers import AutoTokenizer
    hf = AutoTokenizer.from_pretrained(str(out))
    ids = hf(lines, add_special_tokens=False)["input_ids"]
    assert ids == [tok.encode(line) for line in lines]
    assert [hf.decode(i) for i in ids] == lines


def test_count_superwords_writes_long_chunks_as_pieces_that_spell_them(tmp_path):
    import pyarrow.parquet as pq

    lines = long_lines()
    text = tmp_path / "long.txt"
    text.write_text("".join(lines), encoding="utf-8")
    table = tmp_path / "chunks.parquet"
    assert main(["count", str(text), "--superwords", "-o", str(table), "--quiet"]) == 0
    rows = pq.read_table(table).to_pydict()
    entries = dict(zip(rows["word"], rows["count"]))
    assert max(len(e.encode()) for e in entries) <= LIMIT
    assert set(entries.values()) == {1}
    # Each line is one chunk (or, the short ones, a few): its pieces are the entries found in
    # it, and in the order they are found they spell it. The short lines share no text with
    # the long ones.
    for line in lines:
        found = sorted((line.find(e), e) for e in entries if e in line)
        assert "".join(e for _, e in found) == line
    assert sum(len(e.encode()) for e in entries) == sum(len(line.encode()) for line in lines)
    # and the table trains as the text does
    args = ["--superwords", "--vocab-size", "60", "--word-tokens", "20", "--quiet"]
    assert main(["train", str(text), "-o", str(tmp_path / "a"), *args]) == 0
    assert main(["train", str(table), "--counts", "--no-prefix-space", "-o", str(tmp_path / "b"), *args]) == 0
    assert Tokenizer.load(tmp_path / "a").model.ranked_tokens == Tokenizer.load(tmp_path / "b").model.ranked_tokens


def test_past_the_chunk_budget_a_count_table_and_the_text_train_the_same_sample(tmp_path, capsys):
    """Issue 41: the sample depends on the counts only, so a table and the text it was counted
    from give the same tokenizer past the budget too, and the folder records the sample."""
    table = tmp_path / "chunks.parquet"
    assert main(["count", str(EXAMPLE_TEXT), "--superwords", "-o", str(table), "--quiet"]) == 0
    args = ["--superwords", "--vocab-size", "800", "--chunk-budget-mb", "0.1"]
    assert main(["train", str(EXAMPLE_TEXT), "-o", str(tmp_path / "a"), *args]) == 0
    assert "stage 2 trains on a sample at rate" in capsys.readouterr().out
    assert main(["train", str(table), "--counts", "-o", str(tmp_path / "b"), "--quiet", *args]) == 0
    a, b = Tokenizer.load(tmp_path / "a"), Tokenizer.load(tmp_path / "b")
    assert a.model.ranked_tokens == b.model.ranked_tokens
    sample = a.training_info["curriculum"]["chunk_sample"]
    assert sample["budget_mb"] == 0.1 and 3 < sample["rate"] < 5 and sample["kept_mb"] < 0.12 < sample["distinct_mb"]


@pytest.mark.parametrize("argv, message", [
    (["--chunk-budget-mb", "5"], "--chunk-budget-mb bounds the chunk stage of --superwords; add --superwords"),
    (["--superwords", "--chunk-budget-mb", "0"], "must be a finite number above 0, got 0"),
    (["--superwords", "--chunk-budget-mb", "1e-9"], "keeps none of the"),
])
def test_bad_chunk_budgets_exit_2_in_one_line_and_write_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "300", "-o", str(out), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["--superwords", "--max-memory", "0.01"], "even a small chunk budget does not fit"),     # before counting
    (["--max-memory", "0.01"], "above the memory limit of 0.01 GB"),       # word level: after counting
    (["--superwords", "--max-memory", "0"], "must be a finite number above 0, got 0"),
    (["--superwords", "--max-memory", "nan"], "must be a finite number above 0"),
    (["--superwords", "--max-memory", "4GB"], "'4GB' is not a number"),
    (["--algorithm", "bpe", "--max-memory", "4"], "--max-memory: GreedTok options"),
])
def test_a_memory_limit_the_estimate_exceeds_exits_2_in_one_line_and_writes_nothing(argv, message, tmp_path,
                                                                                   capsys):
    """Issue 41, item 5: --max-memory refuses up front; a bad limit is refused as it is parsed."""
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "300", "-o", str(out), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_under_a_memory_limit_training_prints_its_estimate_and_the_stages_bars(tmp_path, capsys):
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "300", "--superwords", "--max-memory", "4", "-o", str(out)]) == 0
    printed = capsys.readouterr()
    estimate = float(printed.out.split("estimated peak memory ")[1].split(" GB")[0])
    assert 0 < estimate <= 4 and "for stage 2 on 0.4 MB of distinct chunks" in printed.out
    assert all(bar in printed.err for bar in ("counting words", "stage 1: words", "stage 2: superwords"))
    assert Tokenizer.load(out).training_info["k_learned"] == 300


def test_chunk_tables_read_for_superwords_refuse_a_total_past_int64_naming_the_place(tmp_path, capsys):
    """Issue 41: `train --counts --superwords` reads tables into the compact chunk table; a total
    past what the trainer holds is refused there as in a Counter, the entry named."""
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv"]
    paths[0].write_text(" the cat sat\t9223372036854775807\n", encoding="utf-8")
    paths[1].write_text(" the cat sat\t1\n", encoding="utf-8")
    out = tmp_path / "tok"
    argv = ["train", *map(str, paths), "--counts", "--no-prefix-space", "--superwords", "-k", "50", "--quiet"]
    assert main([*argv, "-o", str(out)]) == 2
    message = "b.tsv, line 1: word ' the cat sat' passes 2**63-1 here"
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and not out.exists()


def test_a_missing_input_is_named_before_the_chunk_budget_is_weighed(tmp_path, capsys):
    missing = tmp_path / "nope.txt"
    argv = ["train", str(missing), "--superwords", "-k", "300", "--max-memory", "0.01", "-o", str(tmp_path / "t")]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip().endswith(f"{missing}: no such file")


def test_counting_past_the_memory_limit_trains_the_same_folder_and_writes_the_same_counts(tmp_path, monkeypatch,
                                                                                         capsys):
    """The chunks spill to disk past the counting limit (here 20 KB, to spill a small text); the
    folder's files are byte for byte those of counting in memory, and the table holds the same
    counts (its rows grouped by partition)."""
    import pyarrow.parquet as pq

    from hf_greedtok.chunk_spill import ChunkSpiller
    from hf_greedtok.trainers import memory_estimate
    text = corpus("en_shakespeare_milton.txt")
    args = ["--superwords", "--vocab-size", "800", "--chunk-budget-mb", "0.1", "--quiet"]
    assert main(["train", str(text), "-o", str(tmp_path / "memory"), *args]) == 0
    assert main(["count", str(text), "--superwords", "-o", str(tmp_path / "memory.parquet"), "--quiet"]) == 0
    monkeypatch.setattr(memory_estimate, "DEFAULT_COUNTING_TABLE_GB", 20e-6)
    spills = []
    spill = ChunkSpiller._spill
    monkeypatch.setattr(ChunkSpiller, "_spill", lambda self: spills.append(1) or spill(self))
    assert main(["train", str(text), "-o", str(tmp_path / "disk"), *args]) == 0
    assert main(["count", str(text), "--superwords", "-o", str(tmp_path / "disk.parquet"), "--quiet"]) == 0
    assert len(spills) >= 2
    for name in ("tokenizer.json", "greedtok.json", "tokenizer_config.json"):
        assert (tmp_path / "disk" / name).read_bytes() == (tmp_path / "memory" / name).read_bytes()
    disk, memory = (pq.read_table(tmp_path / f"{name}.parquet") for name in ("disk", "memory"))
    assert disk.schema.metadata == memory.schema.metadata
    assert sorted(zip(*disk.to_pydict().values())) == sorted(zip(*memory.to_pydict().values()))
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == lines[3].replace("disk.parquet", "memory.parquet") and "distinct" in lines[1]
