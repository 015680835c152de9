"""`hf-greedtok --help` and `--version`: every argument of every command says what it is for,
and the version is the installed distribution's."""
from __future__ import annotations

import argparse
import importlib.metadata

import hf_greedtok
from hf_greedtok import cli


def test_version_prints_the_installed_version_and_exits_0(capsys):
    try:
        expected = importlib.metadata.version("hf-greedtok")
    except importlib.metadata.PackageNotFoundError:
        expected = hf_greedtok.__version__
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"hf-greedtok {expected}\n"


def test_version_of_a_checkout_that_is_not_installed_is_the_package_version(monkeypatch):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert cli.version() == hf_greedtok.__version__


def test_every_argument_of_every_command_has_help():
    """Options and positionals alike, of the top-level parser and of each command (what
    `hf-greedtok CMD --help` and the CLI reference page show beside each flag)."""
    parsers = cli.parsers(cli._parser())
    assert {p.prog for p in parsers} >= {"hf-greedtok", *(f"hf-greedtok {c}" for c in cli.COMMANDS)}
    missing = []
    for parser in parsers:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):      # each command: its line in --help
                missing += [f"{parser.prog} {name}" for name, line, _ in cli.subcommands(parser)
                            if not line.strip()]
            elif action.help != argparse.SUPPRESS and not (action.help or "").strip():
                missing.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []
