"""The hf-greedtok command: train, evaluate, encode, compare, tsr, and the Ray-capable ones.

    hf-greedtok train INPUT... --vocab-size K --output DIR [--algorithm greedtok|bpe|cbpe]
        [--units bytes|chars|marks|vowels] [--pattern gpt4|gpt2|o200k|whitespace|gpt4-marks] [--lookup FILE]
        [--counts] [--max-token-length N]
        (DIR is a transformers folder: AutoTokenizer.from_pretrained(DIR); GreedTok and lookup
        folders after import hf_greedtok, plain BPE/CBPE folders with no custom code)
    hf-greedtok evaluate DIR|VOCAB INPUT... [--held-out FILE...] [--counts] [--gold FILE] --json
    hf-greedtok encode DIR|VOCAB TEXT [--mode cover|optimal]
        (DIR: any folder `train` writes, or a Tokenizer.save folder with only greedtok.json;
        VOCAB: a .tiktoken file or a byte-level BPE tokenizer.json)
    hf-greedtok tsr VOCAB... (--parallel FILE | --text LANG=FILE...) --output DIR
        (token-saving ratio of optimal segmentation and tokenization tax per language:
        report.md, report.json, charts by script, world maps)
    hf-greedtok compare INPUT... --vocab-sizes K... --output DIR [--counts] [--targets T...]
        [--eval FILE...] [--holdout-fraction F] [--no-sentencepiece]
        (GreedTok vs HF BPE vs GreedWMC: report.md, report.json, tokens_per_word.png, d_inst.png;
        with held-out text also HF Unigram and SentencePiece, in and out of sample: heldout.png)
    hf-greedtok hierarchical INPUT INPUT... --vocab-size K --output DIR [--counts] [--engine local|ray]
        (paper Section 5.4: one GreedTok run per INPUT, then a run restricted to their tokens'
        substrings on the combined counts; report.md, report.json and the tokenizer/ folder;
        --engine ray runs the per-INPUT runs as Ray tasks, with the same result)
    hf-greedtok count INPUT... --output TABLE [--engine local|ray] [--ray-address ADDR]
        (a word<TAB>count table, or .parquet, that `train --counts` reads; it records its split,
        normalizer and special tokens; text, .jsonl and .parquet inputs, globs; --engine ray counts
        on a Ray cluster)
    hf-greedtok tokenize DIR INPUT... --output OUT [--engine local|ray] [--ray-address ADDR]
        (a folder of parquet files: input_ids [, attention_mask], one row per document in input
        order; --engine ray encodes one Ray task per file, row-group run or block, each worker
        loading DIR once)
    (train --engine ray counts the words on Ray, then trains here on the merged counts)

Output folders (:mod:`hf_greedtok.output_folders`): never the working directory, an ancestor of it or
a folder holding an input; written beside the target and renamed into place with a manifest
(the folder's kind and the sha256 of every file) written last; ``--overwrite`` replaces only a
folder of the command's own kind that hf-greedtok wrote (``tokenize`` never replaces a tokenizer,
nor ``train`` a dataset or a report), and the old one is deleted only after the new one is in
place. The next run on the same output removes the temporary folders a killed run left, putting
back an old folder left without its name. Loading (``encode``, ``evaluate``) verifies the
manifest and that the folder is complete.

Errors: bad input exits with status 2 and one line on stderr naming the file, line or argument.
A closed standard output (``hf-greedtok evaluate ... --json | head -c 10``) ends the command quietly
with status 141 (128 + SIGPIPE), as Unix tools do.
A Ray run whose worker died on every retry of a task exits with status 1 and one line
(nothing left under the output's name).
SIGTERM is handled like Ctrl-C, at any moment: word-counting workers and a Ray cluster the
command started are stopped, temporary folders removed, and the command exits with status 143
(130 for Ctrl-C); signals that follow while it cleans up are ignored.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import warnings
from typing import Optional, Sequence

from ..errors import GreedTokError, VocabularySizeWarning, WorkerLostError
from . import count, encode, evaluate, tokenize, train
from .options import warning_line
from .paper import compare, hierarchical, tsr

#: Every command, by name, in the order ``--help`` lists them. A command is a module with
#: ``HELP`` (its line in ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``, whose
#: top imports nothing heavy (so ``--help`` stays fast): ``run`` imports what it needs.
COMMANDS = {"train": train, "evaluate": evaluate, "encode": encode, "compare": compare,
            "hierarchical": hierarchical, "count": count, "tsr": tsr, "tokenize": tokenize}


class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error convention of the rest of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Version(argparse.Action):
    """``--version``: prints ``hf-greedtok X.Y.Z`` and exits 0, as argparse's "version" action,
    but looks the version up only when asked (:func:`version` takes 0.1 s, which every other
    run of the command, ``--help`` included, would pay)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {version()}")
        parser.exit()


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so it unwinds (and cleans up) like Ctrl-C."""


def version() -> str:
    """The installed distribution's version (``importlib.metadata``), or the package's own
    ``__version__`` when it runs from a checkout that is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    from .. import __version__
    try:
        return installed_version("hf-greedtok")
    except PackageNotFoundError:
        return __version__


def _parser() -> argparse.ArgumentParser:
    """``hf-greedtok``'s parser: one subcommand per entry of :data:`COMMANDS`."""
    p = _Parser(prog="hf-greedtok", description=__doc__.split("\n")[0])
    p.add_argument("--version", action=_Version, help="print hf-greedtok's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           help="what to do; `hf-greedtok COMMAND --help` lists its options")
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP))
    return p


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help line, parser) of each subcommand of ``parser``, in ``--help`` order (an alias
    shares its command's parser, which comes once)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    found.append((name, helps.get(name, ""), sub))
    return found


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser under it, nested ones included (what the
    reference page and the tests walk)."""
    return [parser, *(p for _, _, sub in subcommands(parser) for p in parsers(sub))]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; bad input exits with status 2 and a one-line message naming the problem,
    Ctrl-C with 130 and SIGTERM with 143, after cleaning up (no worker, no temporary folder); a
    closed standard output with 141 and no message."""
    # transformers (BPE/CBPE/lookup folders) would print an advisory that PyTorch is missing;
    # this command never needs PyTorch. setdefault: a user's own setting wins.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:      # --help, or a usage error already printed: return its status
        return e.code if isinstance(e.code, int) else 2
    # A Ray run reports the first failed task in one line; the tasks it then cancels would be
    # printed by Ray at exit as "unhandled errors". setdefault: a user's own setting wins.
    os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")
    signals = _Signals()
    try:
        with _warnings_in_one_line(args.command):
            code = COMMANDS[args.command].run(args)
        sys.stdout.flush()      # a closed pipe fails here, not in the interpreter's flush at exit
        return code
    except BrokenPipeError as e:
        if _stdout_closed():    # the reader of stdout is gone (`... | head`): stop quietly, as Unix tools do
            _silence_stdout()
            return 128 + signal.SIGPIPE
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)    # another pipe: an error
        return 2
    except WorkerLostError as e:     # the cluster failed, not the input: 1, not 2
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)
        return 1
    except (GreedTokError, FileExistsError, ValueError, OSError, ImportError) as e:
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        # the signal received, not the exception's type: Ray's ray.get/ray.wait turn any exception
        # a handler raises while they wait into a plain KeyboardInterrupt
        signum = signals.received() or (signal.SIGTERM if isinstance(e, _Terminated) else signal.SIGINT)
        print(f"hf-greedtok {args.command}: stopped by {signum.name}", file=sys.stderr)
        return 128 + signum
    finally:
        signals.restore()


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on it), rather than
    a pipe of the command's own (a worker's) that broke; False where stdout has no descriptor."""
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush of it at exit, after a
    BrokenPipeError, fails no more (https://docs.python.org/3/library/signal.html#note-on-sigpipe);
    a stdout without a file descriptor (a test's capture) is left as it is."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


@contextlib.contextmanager
def _warnings_in_one_line(command: str):
    """Inside: a :class:`~hf_greedtok.errors.VocabularySizeWarning` (hierarchical, compare...) is
    one :func:`warning_line` on stderr rather than Python's two lines naming the script; other
    warnings show as Python would."""
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, VocabularySizeWarning):
                print(warning_line(command, message), file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)
        warnings.showwarning = show
        yield


class _Signals:
    """SIGTERM and SIGINT raise an exception in the main thread (:class:`_Terminated`, a
    ``KeyboardInterrupt``), so the command unwinds through its cleanup: temporary folders
    removed, worker processes and a Ray cluster it started stopped. Only the first signal does:
    later ones, while that cleanup runs, are ignored, so a second Ctrl-C cannot cut it short and
    leave a temporary folder or a process behind (SIGKILL still ends everything at once, and the
    next run removes what it left). Nothing is set outside the main thread, where handlers
    cannot be."""

    def __init__(self) -> None:
        self.signals: list[signal.Signals] = []
        try:
            self.previous = {s: signal.signal(s, self._stop) for s in (signal.SIGTERM, signal.SIGINT)}
        except ValueError:
            self.previous = {}

    def _stop(self, signum, frame) -> None:
        if self.signals:
            return
        self.signals.append(signal.Signals(signum))
        raise _Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    def received(self) -> Optional[signal.Signals]:
        """The first signal received, if any."""
        return self.signals[0] if self.signals else None

    def restore(self) -> None:
        """The handlers that were set before."""
        for s, handler in self.previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
