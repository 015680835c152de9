"""The command line under random flags (issue 40 item 6): hypothesis draws a command (train,
count, evaluate, tokenize), inputs among small good and bad files, a place to write that may
already hold something, and any combination of the command's flags, read from its parser, with
values in and out of range. Every run either

* succeeds, and what it wrote loads: a tokenizer folder encodes and decodes a text back
  (``hf-greedtok encode``), a count table reads back with its split recorded, a tokenized
  dataset's parquet files hold ``input_ids``, evaluate prints its metrics; nothing that was
  there before and is not of the command's own kind was replaced; or
* exits 2 with one line on stderr (no traceback) and leaves every file as it was.

Anything else (an exception out of ``main``, another exit status, two lines, a file written or
deleted on refusal) fails the test with the command line that did it. The local engine only:
a Ray cluster per example would take seconds (tests/distributed/ runs the Ray paths).

Profiles as tests/behaviour/test_fuzz.py's: ``HF_GREEDTOK_FUZZ=ci`` (default: the same 200
command lines every run), ``nightly`` (5,000 new ones; marked ``slow``) or a number:

    HF_GREEDTOK_FUZZ=nightly pytest -m slow tests/behaviour/test_cli_fuzz.py
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_greedtok.cli import _parser, main

FUZZ = os.environ.get("HF_GREEDTOK_FUZZ", "ci")
EXAMPLES = int(FUZZ) if FUZZ.isdigit() else {"ci": 200, "nightly": 5_000}[FUZZ]
pytestmark = [pytest.mark.fuzz, *([pytest.mark.slow] if EXAMPLES >= 5_000 else [])]

COMMANDS = ("train", "count", "evaluate", "tokenize")
OUT = "out"                      # relative: every example runs in a folder of its own
# flags the drawn command line never takes (added by the test, or Ray's)
FIXED = {"--help", "--output", "--quiet", "--engine", "--ray-address"}
SAMPLE = "The cynic's 3 blackguards — naïve café 東京 नमस्ते 🙂\n"

TEXT = ("The cynic is a blackguard whose faulty vision sees things as they are, not as they ought to be.\n"
        "BORE, n. A person who talks when you wish him to listen; 12 May 1990, page 3.\n"
        "वह एक अच्छा आदमी है। 東京は大きい都市です。\n") * 6
# inputs, by the name a drawn command line gives them
INPUT_NAMES = ["text.txt", "text2.txt", "long.txt", "empty.txt", "blank.txt", "binary.bin", "docs.jsonl", "docs.parquet",
               "words.tsv", "chunks.parquet", "old_words.tsv", "bad.tsv", "lookup.tsv", "candidates.txt",
               "folder", "missing.txt"]
TOKENIZER_NAMES = ["word-tok", "superword-tok", "bpe-tok", "text.txt", "folder", "missing"]
STRINGS = ["<s>", "", " ", "the", "\t", "ab\ncd", "ü", "[SEP]", "text", "body", "hi", "o", "<|endoftext|>"]
# the values that should work, by flag
GOOD_FILES = {"--lookup": ["lookup.tsv"], "--candidates": ["candidates.txt"], "--gold": ["lookup.tsv"]}
GOOD_STRINGS = {"--pin": [" the", "guard", " cynic is"], "--special-token": ["<s>", "<|endoftext|>", "[SEP]"],
                "--bos-token": ["<s>"], "--eos-token": ["</s>"], "--pad-token": ["<pad>"], "--text-column": ["text"],
                "--lookup-language": ["hi"], "--pattern": ["gpt4"]}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Small good and bad inputs, and three tokenizer folders, made once (read-only for the examples)."""
    pq = pytest.importorskip("pyarrow.parquet", reason="parquet inputs need the ray extra (pyarrow)")
    import pyarrow as pa

    d = tmp_path_factory.mktemp("cli_fuzz_inputs")
    (d / "text.txt").write_text(TEXT, encoding="utf-8")
    (d / "text2.txt").write_text(TEXT.upper(), encoding="utf-8")
    # lines past the trainer's 65,535 units: a paragraph of words, one word, a CJK run
    (d / "long.txt").write_text(" ".join(["lorem ipsum dolor"] * 4000) + "\n" + "lorem" * 14_000 + "\n"
                                + "東京" * 12_000 + "\n", encoding="utf-8")
    (d / "empty.txt").write_text("", encoding="utf-8")
    (d / "blank.txt").write_text(" \n\t\n\n", encoding="utf-8")
    (d / "binary.bin").write_bytes(bytes(range(256)) * 4)
    lines = TEXT.splitlines()
    (d / "docs.jsonl").write_text("".join(json.dumps({"text": t, "id": k}) + "\n" for k, t in enumerate(lines)),
                                  encoding="utf-8")
    pq.write_table(pa.table({"text": lines}), d / "docs.parquet")
    (d / "old_words.tsv").write_text("the\t12\ncynic\t3\nblackguard\t2\n", encoding="utf-8")
    (d / "bad.tsv").write_text("the\t12\nno count here\n", encoding="utf-8")
    (d / "lookup.tsv").write_text("blackguard\tblack|guard\nवह\tव|ह\n", encoding="utf-8")
    (d / "candidates.txt").write_text("the\n cynic\nguard\n", encoding="utf-8")
    (d / "folder").mkdir()
    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet:
        assert main(["count", str(d / "text.txt"), "-o", str(d / "words.tsv"), "--quiet"]) == 0
        assert main(["count", str(d / "text.txt"), "--superwords", "-o", str(d / "chunks.parquet"), "--quiet"]) == 0
        for name, extra in (("word-tok", []), ("superword-tok", ["--superwords", "--min-frequency", "2"]),
                            ("bpe-tok", ["--algorithm", "bpe"])):
            assert main(["train", str(d / "text.txt"), "-k", "60", *extra, "-o", str(d / name), "--quiet"]) == 0
    return d


def _actions(command: str) -> list[argparse.Action]:
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in sub.choices[command]._actions if a.option_strings and not FIXED & set(a.option_strings)]


ACTIONS = {command: _actions(command) for command in COMMANDS}


def _rarely(draw) -> bool:
    """True about one time in ten: a bad value, a bad input, something in the way (a middle
    value: hypothesis draws the ends of a range more often)."""
    return draw(st.integers(0, 9)) == 5


def _value(action: argparse.Action, draw) -> list[str]:
    """The words after one flag: mostly a value of its kind in range, one time in ten not."""
    name = action.option_strings[0]
    if action.nargs == 0:
        return []
    if action.choices is not None:
        return [draw(st.sampled_from(["bogus", "", *action.choices] if _rarely(draw) else action.choices))]
    bounds = getattr(action.type, "bounds", None)
    if bounds is not None and action.type.__name__ == "number":
        low = bounds[0]
        if _rarely(draw):
            return [draw(st.sampled_from(["1e300", "nan", "inf", "-1", "0", "1", "x", ""]))]
        return [str(draw(st.floats(low + 0.01, low + 1.5)))]
    if bounds is not None:
        low, high = bounds
        if _rarely(draw):
            return [draw(st.sampled_from(["", "x", "1e3", "0x10", "١٢", " 7", "1_0", str(low - 1), str(high),
                                          str(high + 1), str(2**64)]))]
        return [str(draw(st.integers(low, min(high, low + 80))))]
    if getattr(action.type, "__name__", "") == "local_path":
        return [draw(st.sampled_from(INPUT_NAMES if _rarely(draw) else GOOD_FILES[name]))]
    if action.nargs == "+":
        return draw(st.lists(st.sampled_from(INPUT_NAMES if _rarely(draw) else ["text.txt", "text2.txt"]),
                             min_size=1, max_size=2))
    if name in ("--pin", "--special-token", "--bos-token", "--eos-token", "--pad-token", "--text-column",
                "--lookup-language", "--pattern"):
        return [draw(st.one_of(st.sampled_from(STRINGS), st.text(max_size=4)) if _rarely(draw)
                     else st.sampled_from(GOOD_STRINGS[name]))]
    raise AssertionError(f"no values for {name}: add them to the fuzz campaign")


@st.composite
def command_lines(draw) -> tuple[list[str], str]:
    """(argv with names relative to the inputs folder, what is at OUT before the run): mostly a
    command line that should work, with one piece in ten drawn from the bad ones."""
    command = draw(st.sampled_from(COMMANDS))
    argv = [command]
    if command in ("evaluate", "tokenize"):
        argv.append(draw(st.sampled_from(TOKENIZER_NAMES if _rarely(draw) else TOKENIZER_NAMES[:3])))
    good = ["text.txt", "text2.txt", "long.txt"] + (["docs.jsonl", "docs.parquet"] if command in ("count", "tokenize")
                                                    else [])
    argv += draw(st.lists(st.sampled_from(INPUT_NAMES if _rarely(draw) else good), min_size=1, max_size=3))
    if command == "train" and not _rarely(draw):
        argv += draw(st.sampled_from([["-k", str(draw(st.integers(1, 300)))],
                                      ["--total-vocab-size", str(draw(st.integers(200, 700)))]]))
    for action in draw(st.lists(st.sampled_from(ACTIONS[command]), max_size=5, unique_by=id)):
        argv += [action.option_strings[0], *_value(action, draw)]
    if command != "evaluate":
        argv += ["--output", OUT + (".tsv" if command == "count" and not _rarely(draw) else "")]
    before = draw(st.sampled_from(["empty folder", "file", "other folder"])) if _rarely(draw) else "nothing"
    return argv + ["--quiet"], before


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and its sha256 (folders as "dir")."""
    return {str(p.relative_to(folder)): ("dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*"))}


def _place(out: Path, before: str) -> None:
    if before == "empty folder":
        out.mkdir()
    elif before == "file":
        out.write_text("someone's notes\n", encoding="utf-8")
    elif before == "other folder":
        out.mkdir()
        (out / "keep.txt").write_text("someone's file\n", encoding="utf-8")


def _check_output(command: str, out: Path, argv: list[str]) -> None:
    """What a successful run wrote loads."""
    if command == "train":
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["encode", str(out), SAMPLE]) == 0, f"{argv}: the folder does not round-trip a text"
    elif command == "count":
        from hf_greedtok.formats.count_table import iter_count_tables, table_split
        assert table_split(out) is not None and list(iter_count_tables([out])), argv
    elif command == "tokenize":
        import pyarrow.parquet as pq
        files = sorted(out.glob("*.parquet"))
        assert files and all("input_ids" in pq.read_schema(f).names for f in files), argv


def _run_one(inputs: Path, argv: list[str], before: str, capsys) -> None:
    command = argv[0]
    names = set(INPUT_NAMES) | set(TOKENIZER_NAMES)
    with tempfile.TemporaryDirectory() as work:
        here = os.getcwd()
        os.chdir(work)
        try:
            work_dir = Path(work)
            out = work_dir / next((argv[k + 1] for k, a in enumerate(argv) if a == "--output"), OUT)
            _place(out, before)
            full = [str(inputs / a) if a in names else a for a in argv]
            state, inputs_state = _snapshot(work_dir), _snapshot(inputs)
            capsys.readouterr()
            rc = main(full)
            said = capsys.readouterr()
            assert _snapshot(inputs) == inputs_state, f"{argv} changed an input"
            if rc == 2:
                assert said.err.count("\n") == 1 and said.err.startswith(f"hf-greedtok {command}: error: "), \
                    f"{argv}: {said.err!r}"
                assert _snapshot(work_dir) == state, f"{argv} refused but changed {work_dir}"
                return
            assert rc == 0, f"{argv}: exit {rc}, {said.err!r}"
            if command == "evaluate":
                assert said.out.strip(), argv
                return
            kept = before == "other folder" and (out / "keep.txt").exists()
            replaced_foreign = before in ("other folder", "file") and command != "count" and not kept
            assert not replaced_foreign, f"{argv} replaced a {before} that was not its own"
            _check_output(command, out, argv)
        finally:
            os.chdir(here)


@settings(max_examples=EXAMPLES, derandomize=FUZZ == "ci" or FUZZ.isdigit(), database=None, deadline=None,
          print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                  HealthCheck.data_too_large])
@given(line=command_lines())
def test_every_command_line_succeeds_with_a_loadable_output_or_exits_2_in_one_line(inputs, line, capsys):
    argv, before = line
    _run_one(inputs, argv, before, capsys)
