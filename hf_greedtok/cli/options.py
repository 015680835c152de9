"""What the commands' argument definitions share: argparse types, choices, and the option groups
of the commands that run on Ray (:func:`add_engine_options`) and of those that train
(:func:`add_corpus_options`). It imports only :mod:`hf_greedtok.defaults`, so ``--help`` builds
every parser without loading the trainer, the encoders or transformers."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from ..defaults import DEFAULT_MAX_RETRIES, DEFAULT_MAX_TOKEN_LENGTH, ENCODING_ERRORS

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


def above_one(text: str) -> float:
    """argparse type: a finite number > 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 1 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 1, got {text}")
    return value


def local_path(text: str) -> Path:
    """argparse type: a local file or folder. A URI is refused naming it whole: ``Path`` would
    collapse ``s3://bucket/key`` to ``s3:/bucket/key`` (and an output would become a local
    folder named ``s3:``); URIs are inputs of count, tokenize and train with --engine ray."""
    if "://" in text:
        raise argparse.ArgumentTypeError(f"{text} is a URI; this option takes a local path (URIs are read "
                                         "as INPUTs of count, tokenize and train with --engine ray)")
    return Path(text)


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return positive_int(text, 0)


def positive_int(text: str, minimum: int = 1) -> int:
    """argparse type: an integer >= 1 (>= ``minimum``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def open_fraction(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return positive_int(text, 0)


def add_engine_options(p: argparse.ArgumentParser, verb: str, work: str, engine_help: Optional[str] = None) -> None:
    """--engine and --ray-address of the commands that can run on Ray."""
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help=engine_help or f"where to {verb}: local (this machine, default) or ray (Ray tasks on a cluster)")
    p.add_argument("--ray-address", default=None,
                   help=f"with --engine ray: 'auto', HOST:PORT or ray://HOST:PORT joins a running cluster for "
                        f"the {work} (refused at once if nothing answers there); default: start a new local one "
                        "(--num-proc CPUs), whatever RAY_ADDRESS says")
    p.add_argument("--max-retries", type=non_negative_int, default=DEFAULT_MAX_RETRIES,
                   help="with --engine ray: reruns of a task whose worker process or node died (killed, out of "
                        "memory, crashed, lost) before the run fails with exit status 1 (default %(default)s)")


def add_corpus_options(p: argparse.ArgumentParser, max_length_help: str) -> None:
    """Options shared by the commands that train: output folder, corpus reading, progress."""
    p.add_argument("--output", "-o", type=local_path, required=True, help="directory to create")
    p.add_argument("--counts", action="store_true", help="inputs are count tables: word<TAB>count TSV or .parquet "
                                                         "(word, count columns), each word once per table")
    p.add_argument("--max-token-length", type=int, default=DEFAULT_MAX_TOKEN_LENGTH, help=max_length_help)
    p.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space (tables `count` wrote "
                        "record their split and are read as written anyway)")
    p.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    p.add_argument("--num-proc", type=positive_int, default=None,
                   help="processes for word counting (default: all cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder this command wrote; the old one is "
                        "deleted after the new one is in place)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")

