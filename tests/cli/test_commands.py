"""The hf-greedtok command line: train, evaluate --json, encode; errors exit 2 with a message."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, VOCAB, corpus

from hf_greedtok import Tokenizer
from hf_greedtok import cli
from hf_greedtok.cli import main


def test_train_evaluate_encode_on_the_example_text(tmp_path, capsys):
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "500", "--output", str(out), "--quiet"]) == 0
    assert "final vocab size 756" in capsys.readouterr().out
    tok = Tokenizer.load(out)
    assert len(tok.model.ranked_tokens) == 500

    assert main(["evaluate", str(out), str(EXAMPLE_TEXT), "--json", "--quiet"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    for key in ("tokens_per_word", "chars_per_token", "tokens_cover", "tokens_optimal", "token_saving_ratio"):
        assert key in metrics
    # Evaluating on the training text reproduces the trainer's objective exactly.
    assert metrics["tokens_cover"] == tok.training_info["objective_tokens"]
    assert metrics["tokens_optimal"] <= metrics["tokens_cover"]
    assert metrics["token_saving_ratio"] == pytest.approx(1 - metrics["tokens_optimal"] / metrics["tokens_cover"])

    assert main(["encode", str(out), "Ambrose Bierce, 1911 — ok"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["round_trip"] and shown["decoded"] == "Ambrose Bierce, 1911 — ok"


def test_train_saves_the_optimal_encoder_unless_told(tmp_path, capsys):
    """The default encoder is the minimum-token segmentation: never more tokens than cover on
    any text, here on the training text and on text from another book."""
    from transformers import AutoTokenizer
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "500", "--output", str(out), "--quiet"]) == 0
    tok = Tokenizer.load(out)
    assert tok.mode == "optimal"
    hf = AutoTokenizer.from_pretrained(str(out))
    other = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()[:2000]
    for lines in (EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines()[:2000], other):
        ids = hf(lines, add_special_tokens=False)["input_ids"]
        assert ids == [tok.encode(line, mode="optimal") for line in lines]
        assert sum(map(len, ids)) < sum(len(tok.encode(line, mode="cover")) for line in lines)
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "500", "--mode", "cover", "--output",
                 str(tmp_path / "cover"), "--quiet"]) == 0
    assert Tokenizer.load(tmp_path / "cover").mode == "cover"
    capsys.readouterr()
    # --mode is GreedTok's: BPE refuses it rather than ignoring it
    assert main(["train", str(EXAMPLE_TEXT), "--vocab-size", "500", "--algorithm", "bpe", "--mode", "cover",
                 "--output", str(tmp_path / "bpe"), "--quiet"]) == 2
    assert "--mode: GreedTok options, not used by --algorithm bpe" in capsys.readouterr().err
    assert not (tmp_path / "bpe").exists()


@pytest.mark.parametrize("mode", [None, "cover", "optimal"])
def test_train_reports_tokens_per_word_of_the_encoder_it_saves(mode, tmp_path, capsys):
    """Issue 29 item 3: train printed cover's tokens per word while saving optimal. The printed
    numbers must equal an independent count: the saved folder encoding the corpus line by line."""
    import re
    out = tmp_path / "tok"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "400", "-o", str(out), "--quiet",
                 *(["--mode", mode] if mode else [])]) == 0
    printed = capsys.readouterr().out
    tok = Tokenizer.load(out)
    saved = mode or "optimal"
    assert tok.mode == saved
    lines = EXAMPLE_TEXT.read_text(encoding="utf-8").splitlines(keepends=True)
    words = sum(len(tok.pre_tokenize(line)) for line in lines)
    per_word = {m: sum(len(tok.encode(line, mode=m)) for line in lines) / words for m in ("cover", "optimal")}
    found = re.search(r"([0-9.]+) tokens per word on the training words \((\w+), the saved encoder", printed)
    assert found, printed
    assert found.group(2) == saved and found.group(1) == f"{per_word[saved]:.4f}"
    if saved == "optimal":
        assert f"cover {per_word['cover']:.4f}" in printed
        assert per_word["optimal"] < per_word["cover"]


def test_train_on_count_table_with_max_token_length(tmp_path, capsys):
    out = tmp_path / "wiki"
    table = corpus("hi_news_wordcounts.tsv")
    assert main(["train", str(table), "--counts", "--vocab-size", "300", "--max-token-length", "6",
                 "--output", str(out), "--quiet"]) == 0
    tok = Tokenizer.load(out)
    assert max(len(t) for t in tok.model.ranked_tokens) <= 6
    assert main(["evaluate", str(out), str(table), "--counts", "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert metrics["tokens_cover"] == tok.training_info["objective_tokens"]


@pytest.mark.parametrize("pattern", [None, "o200k"])
def test_byte_level_train_keeps_devanagari_vowel_signs_in_their_words(tmp_path, capsys, pattern):
    """GPT-4's split cuts a Hindi word at every combining mark (\\p{L} leaves out \\p{M});
    train's default split (gpt4-marks) and o200k's letter classes keep them, and the saved folder
    loads with that split. The default splits English exactly as GPT-4's does."""
    from transformers import AutoTokenizer
    from hf_greedtok.pre_tokenizers import GPT4_MARKS_PATTERN, O200K_PATTERN
    table = corpus("hi_news_wordcounts.tsv")
    out = tmp_path / f"split-{pattern}"
    given = ["--pattern", pattern] if pattern else []
    assert main(["train", str(table), "--counts", "--vocab-size", "400", *given,
                 "--output", str(out), "--quiet"]) == 0
    tok = Tokenizer.load(out)
    assert tok.pre_tokenizer.pattern == (O200K_PATTERN if pattern else GPT4_MARKS_PATTERN)
    assert tok.pre_tokenizer.pre_tokenize("लड़कियाँ स्कूल") == ["लड़कियाँ", " स्कूल"]
    assert Tokenizer.load(out).pre_tokenizer.native_pattern >= 0
    cl100k = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    assert len(cl100k.pre_tokenize("लड़कियाँ स्कूल")) > 2
    if pattern is None:
        english = EXAMPLE_TEXT.read_text(encoding="utf-8")
        assert tok.pre_tokenize(english) == cl100k.pre_tokenize(english)
    hf = AutoTokenizer.from_pretrained(str(out))
    text = "लड़कियाँ स्कूल जा रही हैं। CamelCase isn't 12345"
    assert hf(text)["input_ids"] == tok.encode(text)
    assert hf.backend_tokenizer.encode(text).ids == tok.encode(text)      # the Rust regex splits alike
    assert main(["train", str(table), "--counts", "--vocab-size", "400", "--pattern", pattern or "gpt4-marks",
                 "--units", "marks", "--output", str(tmp_path / "bad"), "--quiet"]) == 2
    assert f"--pattern {pattern or 'gpt4-marks'} is a byte-level split" in capsys.readouterr().err


def test_existing_output_directory_is_an_error_and_untouched(tmp_path, capsys):
    out = tmp_path / "exists"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["train", str(EXAMPLE_TEXT), "-k", "10", "-o", str(out), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"


def test_bad_input_exits_2_with_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("the\t1\nof\tmany\n")
    assert main(["train", str(bad), "--counts", "-k", "5", "-o", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 2" in err and "not an integer" in err
    assert not (tmp_path / "o").exists()


def test_console_script_is_installed():
    exe = shutil.which("hf-greedtok")
    if exe is None:
        pytest.skip("hf-greedtok entry point not on PATH (package not installed, only built in place)")
    result = subprocess.run([exe, "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "train" in result.stdout


def test_module_entry_point(tmp_path):
    # cwd outside the repo, so the installed package is imported, not the source tree.
    result = subprocess.run([sys.executable, "-m", "hf_greedtok.cli", "train", "--help"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0 and "--vocab-size" in result.stdout


CLI_FUNCTION_LINES = 60     # issue 30: no function in cli/ longer, from its def to its last line


def test_no_function_in_the_cli_is_longer_than_60_lines():
    folder = Path(cli.__file__).parent
    long = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > CLI_FUNCTION_LINES:
                    long.append(f"{path.relative_to(folder)}:{node.lineno} {node.name}: {lines} lines")
    assert long == []


def test_every_command_is_a_module_with_its_arguments_and_its_run():
    assert list(cli.COMMANDS) == ["train", "evaluate", "encode", "compare", "hierarchical", "count", "tsr",
                                  "tokenize"]
    for name, module in cli.COMMANDS.items():
        assert module.__name__.rpartition(".")[2] == name and module.__name__.startswith("hf_greedtok.cli.")
        assert callable(module.add_arguments) and callable(module.run) and module.HELP
    # the papers' experiments together, the product's commands beside them
    assert {n for n, m in cli.COMMANDS.items() if m.__name__.startswith("hf_greedtok.cli.paper.")} == {
        "compare", "hierarchical", "tsr"}


def test_evaluate_held_out_reports_the_same_metrics_on_unseen_text(tmp_path, capsys):
    out = tmp_path / "hi"
    train, unseen = tmp_path / "train.txt", tmp_path / "unseen.txt"
    lines = [line for line in corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    train.write_text("\n".join(lines[:1500]), encoding="utf-8")
    unseen.write_text("\n".join(lines[1500:2000]), encoding="utf-8")
    assert main(["train", str(train), "--vocab-size", "600", "--output", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(out), str(train), "--held-out", str(unseen), "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    held = result["held_out"]
    assert held["inputs"] == [str(unseen)]
    assert main(["evaluate", str(out), str(unseen), "--json", "--quiet"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in held.items() if k != "inputs"} == \
        {k: v for k, v in alone.items() if k not in ("inputs", "tokenizer")}
    assert result["tokens_per_word"] < held["tokens_per_word"]         # the training text compresses better
    # GPT-4's split cuts Hindi words at their vowel signs: byte-level tokens start with marks
    assert held["mark_initial_tokens"] >= held["avoidable_mark_initial_tokens"] > 0


def test_count_splits_like_train_and_refuses_a_pattern_for_metaspace_units(tmp_path, capsys):
    """`count` and `train` share the byte-level default split, so `count` then `train --counts
    --no-prefix-space` sees the words `train` would count; a split pattern has no meaning for
    Metaspace units, as in train."""
    from hf_greedtok import ByteLevel
    from hf_greedtok.pre_tokenizers.patterns import DEFAULT_SPLIT
    from hf_greedtok.word_counts import count_corpus, read_count_tables
    text = tmp_path / "hi.txt"
    text.write_text("देवदास नही आया।\nदेवदास कहा\n", encoding="utf-8")
    assert main(["count", str(text), "-o", str(tmp_path / "c.tsv"), "--quiet", "--num-proc", "1"]) == 0
    pre = ByteLevel(DEFAULT_SPLIT)
    counted = count_corpus([text], pre, None, num_proc=1, show_progress=False)
    fits = {w: c for w, c in counted.items() if "\n" not in w}      # a TSV line cannot hold "\n" words
    assert read_count_tables([tmp_path / "c.tsv"], pre, None, prefix_space=False) == fits
    assert "देवदास" in (tmp_path / "c.tsv").read_text(encoding="utf-8")
    assert main(["count", str(text), "-o", str(tmp_path / "m.tsv"), "--units", "marks", "--pattern", "gpt4"]) == 2
    err = capsys.readouterr().err
    assert "--pattern gpt4 is a byte-level split" in err and "Traceback" not in err
    assert not (tmp_path / "m.tsv").exists()


# ------------------------------------------------------------ options that would do nothing

@pytest.mark.parametrize("argv, message", [
    (["count", "{text}", "-o", "{out}.tsv", "--ray-address", "auto"],
     "--ray-address applies only with --engine ray: add --engine ray or drop --ray-address"),
    (["tokenize", "{text}", "{text}", "-o", "{out}", "--max-retries", "3"],
     "--max-retries applies only with --engine ray: add --engine ray or drop --max-retries"),
    (["hierarchical", "{text}", "{text}", "-k", "5", "-o", "{out}", "--engine", "local", "--max-retries", "1"],
     "--max-retries applies only with --engine ray"),
    (["train", "{text}", "-k", "5", "-o", "{out}", "--sandhi", "error"],
     "--sandhi applies only with --lookup: add --lookup or drop --sandhi"),
    (["train", "{text}", "-k", "5", "-o", "{out}", "--lookup-language", "hi", "--sandhi", "skip"],
     "--sandhi, --lookup-language apply only with --lookup: add --lookup or drop --sandhi, --lookup-language"),
    (["train", "{text}", "-k", "5", "-o", "{out}", "--algorithm", "bpe", "--num-threads", "2"],
     "--num-threads: GreedTok options, not used by --algorithm bpe"),
    (["train", "{table}", "--counts", "-k", "5", "-o", "{out}", "--encoding-errors", "replace"],
     "--encoding-errors replace: options of reading and counting text, not used with --counts"),
    (["train", "{table}", "--counts", "-k", "5", "-o", "{out}", "--num-proc", "2"],
     "--num-proc: options of reading and counting text, not used with --counts"),
    (["compare", "{text}", "-k", "5", "-o", "{out}", "--no-sentencepiece"],
     "--no-sentencepiece applies only with --eval or --holdout-fraction"),
    (["count", "{text}", "-o", "{out}.tsv", "--engine", "ray", "--ray-address", "auto", "--num-proc", "2"],
     "--num-proc sets the CPUs of the local Ray cluster a run starts; with --ray-address the run joins a cluster "
     "with CPUs of its own: drop --num-proc or --ray-address"),
])
def test_an_option_that_would_do_nothing_is_refused_in_one_line(argv, message, tmp_path, capsys):
    text, table = tmp_path / "a.txt", tmp_path / "t.tsv"
    text.write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    table.write_text("the\t5\ncat\t3\n", encoding="utf-8")
    names = {"text": text, "table": table, "out": tmp_path / "out"}
    assert main([a.format(**names) for a in argv] + ["--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hf-greedtok {argv[0]}: error: ") and message in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "t.tsv"]


@pytest.mark.parametrize("command", ["count", "tokenize", "train", "hierarchical"])
def test_max_retries_defaults_to_three_on_ray(command):
    from hf_greedtok.cli import _parser
    from hf_greedtok.cli.options import check_engine_options
    tokenizer = ["DIR"] if command == "tokenize" else []
    size = ["-k", "5"] if command in ("train", "hierarchical") else []
    args = _parser().parse_args([command, *tokenizer, "a.txt", *size, "-o", "out", "--engine", "ray"])
    assert args.max_retries is None          # not given: told apart from --max-retries 3
    check_engine_options(args)
    assert args.max_retries == 3


# ------------------------------------------------------------ messages that name the real problem

@pytest.mark.parametrize("command", ["encode", "evaluate", "tokenize"])
@pytest.mark.parametrize("name", ["nonexist", "nonexist.json"])
def test_a_tokenizer_that_is_not_there_is_named_so(command, name, tmp_path, capsys):
    text = tmp_path / "a.txt"
    text.write_text("hello\n", encoding="utf-8")
    rest = {"encode": ["hello"], "evaluate": [str(text)], "tokenize": [str(text), "-o", str(tmp_path / "ids")]}
    assert main([command, str(tmp_path / name), *rest[command]]) == 2
    assert capsys.readouterr().err == f"hf-greedtok {command}: error: {tmp_path / name}: no such file or directory\n"


def test_a_closed_standard_output_ends_the_command_quietly(tmp_path):
    """`hf-greedtok evaluate ... --json | head -c 10`: the reader is gone before the command
    writes; Unix tools stop without a message (141 = 128 + SIGPIPE), not "error: Broken pipe"."""
    import os
    text = tmp_path / "a.txt"
    text.write_text("hello world\n" * 20, encoding="utf-8")
    assert main(["train", str(text), "-k", "5", "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    reader, writer = os.pipe()
    os.close(reader)
    try:
        run = subprocess.run([sys.executable, "-m", "hf_greedtok.cli", "encode", str(tmp_path / "tok"), "hello world"],
                             stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120,
                             cwd=tmp_path)     # the installed package, not the checkout's sources
    finally:
        os.close(writer)
    assert (run.returncode, run.stderr) == (141, "")


@pytest.mark.parametrize("command", ["encode", "evaluate"])
@pytest.mark.parametrize("name", ["tok", "tok/tokenizer.json"])
def test_pattern_is_refused_where_the_tokenizer_has_its_own_split(command, name, tmp_path, capsys):
    """--pattern is a tiktoken file's split: a tokenizer.json ignored it silently."""
    text = tmp_path / "a.txt"
    text.write_text("hello world\n" * 20, encoding="utf-8")
    assert main(["train", str(text), "-k", "5", "-o", str(tmp_path / "tok"), "--algorithm", "bpe", "--quiet"]) == 0
    capsys.readouterr()
    rest = {"encode": ["hello"], "evaluate": [str(text), "--quiet"]}[command]
    assert main([command, str(tmp_path / name), *rest, "--pattern", "gpt2"]) == 2
    assert capsys.readouterr().err == (f"hf-greedtok {command}: error: --pattern applies to .tiktoken files; "
                                       f"{tmp_path / name}: a folder or a tokenizer.json has its own split\n")
