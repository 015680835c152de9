"""The output folder of the commands that write one (train, compare, tsr, hierarchical; tokenize's
dataset is written by :func:`hf_greedtok.distributed.tokenize_dataset`): checked before any work,
then written beside its target and put in place (:mod:`hf_greedtok.output_folders`). The commands
import this module in their ``run``, so ``--help`` does without it."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from ..output_folders import check_target, check_writable, write_folder


def input_files(args: argparse.Namespace) -> list[Path]:
    """Every file the command reads: inputs, lookup, candidates, eval."""
    extra = [getattr(args, name, None) for name in ("lookup", "candidates")]
    return ([Path(i) for i in args.inputs] + [Path(e) for e in extra if e is not None]
            + [Path(e) for e in getattr(args, "eval", None) or []])


def refuse_existing(args: argparse.Namespace, kind: str) -> None:
    """The output checks of :func:`hf_greedtok.output_folders.write_folder` for a folder of
    ``kind`` (its manifest's kind, which ``--overwrite`` replaces), run before any training too,
    so that a long run never ends in one of these errors."""
    check_target(args.output, kind=kind, overwrite=args.overwrite, inputs=input_files(args))
    check_writable(args.output)


def write_output(args: argparse.Namespace, kind: str, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a new folder beside ``--output``, then put it in place atomically,
    its manifest (with ``kind``) last."""
    write_folder(args.output, write, kind=kind, overwrite=args.overwrite, inputs=input_files(args))
