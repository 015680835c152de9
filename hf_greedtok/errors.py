"""The package's errors: one base class, so ``except GreedTokError`` catches every problem
hf-greedtok reports about its inputs and files (and nothing else).

Each also subclasses ``ValueError``, as bad values are what they report; code written
against 0.1 that catches ``ValueError`` keeps working. The CLI turns any of them into one
line on stderr and exit code 2.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union


class GreedTokError(Exception):
    """Base class of every error hf-greedtok raises about its inputs, files and folders."""


class CorpusError(GreedTokError, ValueError):
    """Bad training or evaluation input; ``source`` and ``line`` say where (line may be None).

    Example:
        >>> str(CorpusError("counts.tsv", 7, "count is not an integer"))
        'counts.tsv, line 7: count is not an integer'
    """

    def __init__(self, source: str, line: Optional[int], problem: str) -> None:
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")
        self.source, self.line, self.problem = source, line, problem

    def __reduce__(self):
        return (CorpusError, (self.source, self.line, self.problem))


class GreedTokFileError(GreedTokError, ValueError):
    """A ranked token file or folder is missing, corrupted, foreign or of an unsupported version;
    ``path`` names the file."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem

    def __reduce__(self):
        return (GreedTokFileError, (self.path, self.problem))


class InvalidSpec(GreedTokError, ValueError):
    """A component's saved form (its ``to_dict``) is malformed. The message is the whole
    problem; file readers report it as is, prefixed with the file's path."""


class WorkerLostError(GreedTokError, RuntimeError):
    """A distributed run gave up: a worker process died (killed, out of memory, crashed) on every
    attempt of one of its tasks. Not a bad input: the CLI exits 1. ``step`` names the work."""

    def __init__(self, step: str, problem: str) -> None:
        super().__init__(f"{step}: {problem}")
        self.step, self.problem = step, problem

    def __reduce__(self):
        return (WorkerLostError, (self.step, self.problem))


class RayConnectionError(GreedTokError, ValueError):
    """The Ray cluster address given (``address=``, CLI ``--ray-address``) is malformed or no
    cluster answers there.

    Example:
        >>> str(RayConnectionError("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1 (Connection refused)"))
        '--ray-address 127.0.0.1:1: no Ray cluster answers at 127.0.0.1:1 (Connection refused)'
    """

    def __init__(self, address: str, problem: str) -> None:
        super().__init__(f"--ray-address {address}: {problem}")
        self.address, self.problem = address, problem

    def __reduce__(self):
        return (RayConnectionError, (self.address, self.problem))


class VocabularySizeWarning(UserWarning):
    """A trainer learned fewer tokens than asked. The message, and ``training_info["size_shortfall"]``
    (``{"asked", "got", "cause", "option"}``: learned tokens asked and learned, why it stopped, and
    the trainer option that changes it), give the cause the trainer saw: its frequency floor, the
    candidates running out (every training word one token already: a corpus too small for the
    size), the longest token length, or a restricted candidate list. The CLI prints it as one line
    on stderr."""


class AddedTokensWarning(UserWarning):
    """:meth:`hf_greedtok.Tokenizer.load` of a transformers folder whose tokenizer.json holds
    tokens added after training (``add_tokens``, ``add_special_tokens``) that the GreedTok model
    does not know: the loaded tokenizer encodes text holding them with its own tokens, not theirs.
    The message names the tokens and the readers that apply them (``AutoTokenizer``,
    ``FolderEncoder``, ``hf-greedtok encode``)."""


class OutputError(GreedTokError, ValueError):
    """An output folder a command refuses to write or replace; names the folder and why."""

    def __init__(self, path: Union[str, os.PathLike], problem: str) -> None:
        super().__init__(f"--output {path}: {problem}")
        self.path, self.problem = Path(path), problem

    def __reduce__(self):
        return (OutputError, (self.path, self.problem))
