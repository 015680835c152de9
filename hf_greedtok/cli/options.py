"""What the commands' argument definitions share: argparse types, choices, and the option groups
of the commands that run on Ray (:func:`add_engine_options`) and of those that train
(:func:`add_corpus_options`). Every number flag takes a bounded type (:func:`bounded_int`,
:func:`bounded_float`), so a value no C type can hold is refused when the command line is parsed.
It imports only :mod:`hf_greedtok.defaults`, so ``--help`` builds every parser without loading
the trainer, the encoders or transformers."""
from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Optional

from ..defaults import DEFAULT_MAX_RETRIES, DEFAULT_MAX_TOKEN_LENGTH, ENCODING_ERRORS, MAX_TOKEN_LENGTH

#: --units: the singletons of the tokenizer to train (bytes: byte level; the others: Metaspace)
UNITS = ["bytes", "chars", "marks", "vowels"]
#: --normalizer
NORMALIZERS = ["NFC", "NFKC", "NFD", "NFKD", "none"]
#: --mode: the encoders of a GreedTok tokenizer
MODES = ["cover", "optimal"]
#: --engine
ENGINES = ["local", "ray"]
#: DIR of the commands that load a saved tokenizer or a vocabulary file (evaluate, encode)
TOKENIZER_OR_VOCABULARY = "a folder `train` writes, a .tiktoken file or a byte-level BPE tokenizer.json"
#: --pattern of those commands
TIKTOKEN_PATTERN = "split of a .tiktoken file that is not one of OpenAI's"
#: --encoding-errors of every command that reads text
ENCODING_ERRORS_HELP = ("invalid UTF-8 in the inputs: strict (an error naming the file and line; default), "
                        "replace (with U+FFFD) or ignore (dropped)")


#: The largest vocabulary: HF tokenizers' ids are u32 (also --vocab-size, --word-tokens).
MAX_IDS = 2**32
#: The largest count or frequency the trainer holds (int64).
MAX_COUNT = 2**63 - 1
#: The most threads or processes a flag may ask for; more than any machine here has cores, and
#: a process pool of millions would exhaust the system before it failed.
MAX_WORKERS = 1024


def bounded_int(low: int, high: int, why: str = ""):
    """An argparse type: an integer in ``low..high`` (ASCII digits, optional sign), refused at
    parse time with one line naming the range (and ``why`` the bound is there), so no value
    can overflow a C type later.

    Example:
        >>> bounded_int(1, 10)("3")
        3
    """
    def parse(text: str) -> int:
        # int() would also take " 7", "1_000" and other scripts' digits
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer (ASCII digits, an optional sign)")
        value = int(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high:,}{why}, got {text}")
        return value
    parse.__name__ = f"integer in {low}..{high}"
    parse.bounds = (low, high)
    return parse


def bounded_float(low: float, high: float = math.inf):
    """An argparse type: a finite number strictly between ``low`` and ``high`` (ASCII decimal or
    exponent notation, as ``1.75`` or ``2e-3``); nan and infinities refused.

    Example:
        >>> bounded_float(0)("2.5e1")
        25.0
    """
    def parse(text: str) -> float:
        # float() would also take " 5", "1_0" and other scripts' digits
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", text,
                            re.IGNORECASE):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        value = float(text)
        if not (low < value < high and math.isfinite(value)):
            if high < math.inf:
                raise argparse.ArgumentTypeError(f"must be strictly between {low:g} and {high:g}, got {text}")
            raise argparse.ArgumentTypeError(f"must be a finite number above {low:g}, got {text}")
        return value
    parse.__name__ = "number"
    parse.bounds = (low, high)
    return parse


#: argparse type: a finite number > 1.
above_one = bounded_float(1)
#: argparse type: a number strictly between 0 and 1.
open_fraction = bounded_float(0, 1)
#: argparse type: a finite number > 0.
positive_float = bounded_float(0)
#: argparse types of the vocabulary sizes (k, total): 1 .. 2**32 ids.
vocab_int = bounded_int(1, MAX_IDS, " (a vocabulary's ids are u32)")
#: argparse type: threads and processes, 1 .. MAX_WORKERS.
workers_int = bounded_int(1, MAX_WORKERS)
#: argparse type: a count or frequency, 0 .. 2**63-1.
count_int = bounded_int(0, MAX_COUNT, " (the trainer's counts are int64)")
#: argparse type: --word-tokens, 0 .. 2**32.
word_tokens_int = bounded_int(0, MAX_IDS, " (a vocabulary's ids are u32)")
#: argparse type: --max-token-length, 2 .. MAX_TOKEN_LENGTH singletons.
token_length_int = bounded_int(2, MAX_TOKEN_LENGTH, " (longer tokens crash HF tokenizers' Unigram when it is freed)")
#: argparse type: --max-retries, 0 .. 1000.
retries_int = bounded_int(0, 1000)
#: argparse type: items per batch and similar sizes, 1 .. 2**31-1.
size_int = bounded_int(1, 2**31 - 1)


def warning_line(command: str, message: str) -> str:
    """What a command prints on stderr for a result it could not give in full (a size not
    reached): ``hf-greedtok COMMAND: warning: MESSAGE``, one line, as its errors are."""
    return f"hf-greedtok {command}: warning: {message}"


def local_path(text: str) -> Path:
    """argparse type: a local file or folder. A URI is refused naming it whole: ``Path`` would
    collapse ``s3://bucket/key`` to ``s3:/bucket/key`` (and an output would become a local
    folder named ``s3:``); URIs are inputs of count, tokenize and train with --engine ray."""
    if "://" in text:
        raise argparse.ArgumentTypeError(f"{text} is a URI; this option takes a local path (URIs are read "
                                         "as INPUTs of count, tokenize and train with --engine ray)")
    return Path(text)


#: What an INPUT may be, in the help of every command that reads documents.
INPUT_HELP = ("UTF-8 text files (one document per line), .jsonl/.ndjson/.json (JSON Lines) or .parquet documents, "
              "any of them compressed (.gz, .bz2, .xz, .zst), globs (quoted or not) or directories (their files, "
              "recursively)")
#: --text-column's default: the field or column of JSON Lines and parquet documents.
DEFAULT_TEXT_COLUMN = "text"


def add_text_column_option(p: argparse.ArgumentParser) -> None:
    """--text-column, default None (read as "text"), so that giving it with text-only inputs can be refused."""
    p.add_argument("--text-column", default=None, metavar="FIELD",
                   help=f"the documents' field in .jsonl inputs or column in .parquet inputs (default "
                        f"{DEFAULT_TEXT_COLUMN}); a dotted path such as meta.body reaches a nested field")


def add_engine_options(p: argparse.ArgumentParser, verb: str, work: str, engine_help: Optional[str] = None) -> None:
    """--engine and --ray-address of the commands that can run on Ray."""
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help=engine_help or f"where to {verb}: local (this machine, default) or ray (Ray tasks on a cluster)")
    p.add_argument("--ray-address", default=None,
                   help=f"with --engine ray: 'auto', HOST:PORT or ray://HOST:PORT joins a running cluster for "
                        f"the {work} (refused at once if nothing answers there); default: start a new local one "
                        "(--num-proc CPUs), whatever RAY_ADDRESS says")
    # default None, so that giving it without --engine ray is refused (check_engine_options)
    p.add_argument("--max-retries", type=retries_int, default=None,
                   help="with --engine ray: reruns of a task whose worker process or node died (killed, out of "
                        "memory, crashed, lost) before the run fails with exit status 1 "
                        f"(default {DEFAULT_MAX_RETRIES})")


def refuse_without(needed: str, present: bool, given: dict[str, bool]) -> None:
    """Refuse options that only apply with ``needed`` (another option, or a kind of input) when
    ``present`` is False: they would do nothing, silently.

    Args:
        needed: what the options need, as the user would add it ("--engine ray", "--counts").
        present: whether ``needed`` holds.
        given: {option as typed: whether the user gave it}.

    Raises:
        ValueError: one line naming every option given and ``needed``.

    Example:
        >>> refuse_without("--lookup", False, {"--sandhi": False})
    """
    flags = [flag for flag, used in given.items() if used]
    if flags and not present:
        names = ", ".join(flags)
        raise ValueError(f"{names} appl{'y' if len(flags) > 1 else 'ies'} only with {needed}: add {needed} "
                         f"or drop {names}")


def check_engine_options(args: argparse.Namespace, num_proc_here: bool = False) -> None:
    """--ray-address and --max-retries refused without --engine ray (:func:`refuse_without`),
    and --num-proc with --ray-address on Ray (it sizes the local cluster a run starts, and a
    joined cluster has its own), unless ``num_proc_here`` (the command also counts here with
    it); then ``args.max_retries`` is the number of retries Ray gets (default
    :data:`~hf_greedtok.defaults.DEFAULT_MAX_RETRIES`).

    Raises:
        ValueError: one line naming the options.
    """
    refuse_without("--engine ray", args.engine == "ray",
                   {"--ray-address": args.ray_address is not None, "--max-retries": args.max_retries is not None})
    if args.engine == "ray" and args.ray_address is not None and args.num_proc is not None and not num_proc_here:
        raise ValueError("--num-proc sets the CPUs of the local Ray cluster a run starts; with --ray-address the "
                         "run joins a cluster with CPUs of its own: drop --num-proc or --ray-address")
    if args.max_retries is None:
        args.max_retries = DEFAULT_MAX_RETRIES


def add_corpus_options(p: argparse.ArgumentParser, max_length_help: str) -> None:
    """Options shared by the commands that train: output folder, corpus reading, progress."""
    p.add_argument("--output", "-o", type=local_path, required=True, help="directory to create")
    p.add_argument("--counts", action="store_true", help="inputs are count tables: word<TAB>count TSV or .parquet "
                                                         "(word, count columns), each word once per table")
    p.add_argument("--max-token-length", type=token_length_int, default=DEFAULT_MAX_TOKEN_LENGTH, help=max_length_help)
    p.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space (tables `count` wrote "
                        "record their split and are read as written anyway)")
    p.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS, help=ENCODING_ERRORS_HELP)
    p.add_argument("--num-proc", type=workers_int, default=None,
                   help="processes for word counting (default: all cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder this command wrote; the old one is "
                        "deleted after the new one is in place)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")

