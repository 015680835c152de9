"""Every integer and float flag of every command is checked when the command line is parsed
(issue 40 item 6): a value out of range, not finite or past a C type is one line and exit 2,
before any counting, and nothing is written."""
from __future__ import annotations

import argparse
import math

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok.cli import COMMANDS, _parser, main
from hf_greedtok.cli.options import MAX_COUNT, MAX_IDS, MAX_TOKEN_LENGTH, MAX_WORKERS


def _numeric_actions():
    """(command, option, type) of every option that takes a number."""
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command_parser in sub.choices.items():
        for action in command_parser._actions:
            if action.option_strings and action.type is not None and action.type.__name__ != "local_path":
                yield name, next(o for o in action.option_strings if o.startswith("--")), action.type


NUMERIC = list(_numeric_actions())


def test_no_number_flag_takes_a_bare_int_or_float():
    """``type=int`` would take 2**64 and fail later in C (OverflowError, a traceback)."""
    assert {name for name, _, _ in NUMERIC} >= {"train", "count", "tokenize", "compare", "hierarchical", "tsr"}
    assert [(c, o) for c, o, t in NUMERIC if t in (int, float)] == []


# the minimal valid command line of each command, before the option under test
_BASE = {
    "train": ["train", str(EXAMPLE_TEXT), "-k", "5"], "count": ["count", str(EXAMPLE_TEXT)],
    "tokenize": ["tokenize", "TOK", str(EXAMPLE_TEXT)], "compare": ["compare", str(EXAMPLE_TEXT), "-k", "5"],
    "hierarchical": ["hierarchical", str(EXAMPLE_TEXT), str(EXAMPLE_TEXT), "-k", "5"],
    "tsr": ["tsr", "VOCAB", "--parallel", "P"],
}


@pytest.mark.parametrize("command, option, kind", NUMERIC, ids=[f"{c} {o}" for c, o, _ in NUMERIC])
@pytest.mark.parametrize("value", ["9223372036854775808", "99999999999999999999999", "1e24", "-1", "nan", "inf",
                                   "-inf", "", "0x10", "1_0", " 5", "١٢"])
def test_out_of_range_numbers_are_refused_at_parse_time(command, option, kind, value, tmp_path, capsys):
    try:
        accepted = kind(value)
    except argparse.ArgumentTypeError:
        accepted = None
    if accepted is not None:        # a value in range for this flag (e.g. -1 is never, 1e24 may be a float)
        assert isinstance(accepted, (int, float)) and math.isfinite(accepted)
        return
    out = tmp_path / ("out.tsv" if command == "count" else "out")
    argv = [*_BASE[command], "-o", str(out), "--quiet", f"{option}={value}"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"argument {option}" in err.replace("/-k", "") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind, inside, outside", [
    ("vocab_int", ["1", str(MAX_IDS)], ["0", str(MAX_IDS + 1)]),
    ("workers_int", ["1", str(MAX_WORKERS)], ["0", str(MAX_WORKERS + 1)]),
    ("count_int", ["0", str(MAX_COUNT)], ["-1", str(MAX_COUNT + 1)]),
    ("token_length_int", ["2", str(MAX_TOKEN_LENGTH)], ["1", str(MAX_TOKEN_LENGTH + 1)]),
    ("open_fraction", ["0.5", "1e-9"], ["0", "1", "nan"]),
    ("above_one", ["1.0001", "1e300"], ["1", "inf", "nan"]),
])
def test_the_bounds_are_inclusive_where_they_say(kind, inside, outside):
    from hf_greedtok.cli import options

    parse = getattr(options, kind)
    for text in inside:
        assert parse(text) == (int(text) if kind.endswith("_int") else float(text))
    for text in outside:
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


def test_every_command_is_covered():
    assert set(_BASE) == {name for name, _, _ in NUMERIC} and set(_BASE) <= set(COMMANDS)


@pytest.mark.parametrize("argv", [
    ["train", "-k", "4294967296", "--algorithm", "bpe"],
    ["train", "--total-vocab-size", "4294967296"],
])
def test_the_largest_vocabularies_train_and_stop_early(argv, tmp_path, capsys):
    """At the u32 bound the trainers stop when nothing is left to learn; BpeTrainer is asked for
    no more merges than its words allow (it would abort the process reserving memory for 2**32)."""
    text = tmp_path / "t.txt"
    text.write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    command, rest = argv[0], argv[1:]
    assert main([command, str(text), *rest, "-o", str(tmp_path / "tok"), "--quiet"]) == 0
    assert "final vocab size" in capsys.readouterr().out
