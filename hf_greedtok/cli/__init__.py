"""The ``hf-greedtok`` command: train, evaluate, encode, compare, tsr, and the Ray-capable ones.

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
        (a word<TAB>count table, or .parquet, that `train --counts --no-prefix-space` reads;
        text, .jsonl and .parquet inputs, globs; --engine ray counts on a Ray cluster)
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
A Ray run whose worker died on every retry of a task exits with status 1 and one line
(nothing left under the output's name).
SIGTERM is handled like Ctrl-C, at any moment: word-counting workers and a Ray cluster the
command started are stopped, temporary folders removed, and the command exits with status 143
(130 for Ctrl-C); signals that follow while it cleans up are ignored.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Optional, Sequence

from ..defaults import DEFAULT_MAX_RETRIES, DEFAULT_MAX_TOKEN_LENGTH, ENCODING_ERRORS, SANDHI_POLICIES
from ..errors import GreedTokError, WorkerLostError
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, SPLIT_NAMES


class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error convention of the rest of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


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


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so it unwinds (and cleans up) like Ctrl-C."""


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="hf-greedtok", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a tokenizer (GreedTok, BPE or CBPE) and save it to a new directory")
    t.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="UTF-8 text files (or count tables, TSV or .parquet, with --counts)")
    size = t.add_mutually_exclusive_group(required=True)
    size.add_argument("--vocab-size", "-k", type=int,
                      help="K, the number of learned tokens: GreedTok's k, or BPE/CBPE merges (on top of the "
                           "singletons, unit merges, byte fallback and special tokens)")
    size.add_argument("--total-vocab-size", type=int, help="the final vocabulary size instead (every id)")
    t.add_argument("--algorithm", choices=["greedtok", "bpe", "cbpe"], default="greedtok",
                   help="greedtok (partition cover), bpe (HF tokenizers' BPE) or cbpe (MorphTok's constrained BPE)")
    t.add_argument("--units", choices=["bytes", "chars", "marks", "vowels"], default=None,
                   help="singletons: bytes (byte level), chars (Metaspace), marks (base + combining marks) or "
                        "vowels (base + dependent vowel signs); default bytes, for cbpe marks")
    t.add_argument("--lookup", type=local_path, help="morphology lookup table (TSV word<TAB>seg|seg, or CSV "
                                               "word,segmentation,language with +)")
    t.add_argument("--sandhi", choices=SANDHI_POLICIES, default="skip",
                   help="lookup entries whose segments do not spell the word: skip (default, counted) or error")
    t.add_argument("--lookup-language", help="with a CSV lookup: keep only rows of this language")
    t.add_argument("--min-frequency", type=int, default=None,
                   help="minimum count-weighted candidate (GreedTok, default 1) or pair (BPE, default 0) frequency")
    t.add_argument("--pre-tokenizer", default=None, choices=["byte-level", "metaspace"],
                   help="same as --units bytes / --units chars")
    t.add_argument("--pattern", choices=SPLIT_NAMES, default=None,
                   help="byte level: the split regex; gpt4-marks (default: GPT-4's split whose letter runs keep "
                        "their combining marks, as o200k's do, so Devanagari and other Indic words are not cut at "
                        "every vowel sign; on text without marks it is gpt4), gpt4 (cl100k's), gpt2, o200k "
                        "(GPT-4o's) or whitespace (the GreedTok paper's space-delimited words)")
    t.add_argument("--normalizer", default=None, choices=["NFC", "NFKC", "NFD", "NFKD", "none"],
                   help="Unicode normalization; default NFC for marks/vowels units or with a lookup, else none")
    t.add_argument("--special-token", action="append", default=[], help="a special token (repeatable)")
    t.add_argument("--bos-token", help="beginning-of-sequence special token (added to the special tokens)")
    t.add_argument("--eos-token", help="end-of-sequence special token (added to the special tokens)")
    t.add_argument("--pad-token", help="padding special token (added to the special tokens)")
    t.add_argument("--add-bos-token", action="store_true", help="the HF tokenizer adds BOS to every sequence")
    t.add_argument("--add-eos-token", action="store_true", help="the HF tokenizer adds EOS to every sequence")
    t.add_argument("--mode", choices=["cover", "optimal"], default=None,
                   help="default encoder of a saved GreedTok tokenizer (default: optimal, the fewest tokens "
                        "for every word; cover is the paper's Algorithm 4)")
    t.add_argument("--pin", action="append", default=[], help="a token placed first (repeatable)")
    t.add_argument("--candidates", type=local_path, help="file with one candidate token per line; restricts T")
    t.add_argument("--bpe-candidates", type=above_one, default=None, metavar="F",
                   help="GreedTok, byte level: choose the tokens among those of HF BPE trained on the same words "
                        "at F x the total vocabulary (1.75: fewer tokens on text of other domains, several times "
                        "the training time; see README)")
    t.add_argument("--num-threads", type=positive_int, default=None,
                   help="GreedTok trainer threads (default: all cores); the result does not depend on it")
    _add_engine_options(t, "count the words", "counting")
    _add_corpus_options(t, "GreedTok: longest candidate token in singletons, inclusive (default %(default)s)")

    e = sub.add_parser("evaluate", help="compression and segmentation metrics of a saved tokenizer on a corpus")
    e.add_argument("tokenizer", type=local_path, metavar="DIR", help="a folder `train` writes, a .tiktoken file or a "
                                                               "byte-level BPE tokenizer.json")
    e.add_argument("--pattern", default=None, help="split of a .tiktoken file that is not one of OpenAI's")
    e.add_argument("inputs", nargs="+", metavar="INPUT")
    e.add_argument("--counts", action="store_true", help="inputs are count tables: word<TAB>count TSV or .parquet "
                                                         "(word, count columns)")
    e.add_argument("--held-out", nargs="+", default=[], metavar="FILE",
                   help="text the tokenizer was not trained on: the same metrics again, under \"held_out\" "
                        "(INPUT is then the in-sample text); read like INPUT")
    e.add_argument("--gold", type=local_path,
                   help="gold segmentation table (lookup format) for boundary precision/recall/F1")
    e.add_argument("--no-prefix-space", action="store_true")
    e.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--quiet", action="store_true")

    c = sub.add_parser("encode", help="encode a text, show tokens, and check that decoding restores it")
    c.add_argument("tokenizer", type=local_path, metavar="DIR", help="a folder `train` writes, a .tiktoken file or a "
                                                               "byte-level BPE tokenizer.json")
    c.add_argument("text")
    c.add_argument("--mode", choices=["cover", "optimal"], default=None,
                   help="GreedTok folders and vocabulary files: cover or optimal (a vocabulary file's default: "
                        "its own BPE encoder)")
    c.add_argument("--pattern", default=None, help="split of a .tiktoken file that is not one of OpenAI's")

    m = sub.add_parser("compare", help="GreedTok vs HF BPE vs GreedWMC on one corpus (the paper's Table 3 "
                                       "and Figure 3), as Markdown, JSON and PNG plots")
    m.add_argument("inputs", nargs="+", metavar="INPUT", help="UTF-8 text files (or word<TAB>count tables with "
                                                              "--counts), combined into one corpus")
    m.add_argument("--vocab-sizes", "-k", type=int, nargs="+", required=True, metavar="K",
                   help="k values reported (learned tokens = BPE merges; both vocabularies are 256 + k); "
                        "curves cover every k up to the largest")
    m.add_argument("--targets", type=float, nargs="+", metavar="T",
                   help="tokens-per-word targets of the Table 3 rows (default: 8 targets 0.2 apart that "
                        "both algorithms reach)")
    m.add_argument("--pattern", choices=SPLIT_NAMES, default=DEFAULT_SPLIT,
                   help="byte-level split regex: gpt4-marks (default, as `train`), gpt4, gpt2, o200k or whitespace "
                        "(the paper's space-delimited words); every tokenizer compared uses it, except where a "
                        "report row names another")
    m.add_argument("--no-plots", action="store_true", help="skip the PNG plots (no matplotlib needed)")
    m.add_argument("--num-threads", type=positive_int, default=1, help="encoder threads for the TSR measurements")
    m.add_argument("--eval", type=local_path, nargs="+", default=[], metavar="FILE",
                   help="UTF-8 text never trained on: every tokenizer, trained at total vocabulary 256 + the "
                        "largest K, is measured on it line by line (out of sample) and on the training text")
    m.add_argument("--holdout-fraction", type=open_fraction, default=None, metavar="F",
                   help="hold out this share of the INPUT lines as out-of-sample text (line j is held out iff "
                        "floor((j+1)F) > floor(jF): every 1/F-th line, the same split on every run) and "
                        "train on the rest")
    m.add_argument("--no-sentencepiece", action="store_true",
                   help="with held-out text: leave out the SentencePiece peers (no sentencepiece needed)")
    _add_corpus_options(m, "GreedTok/GreedWMC: longest candidate token in bytes (default %(default)s)")

    h = sub.add_parser("hierarchical", help="paper Section 5.4: GreedTok per corpus, then a final run whose "
                                            "candidates are the substrings of their tokens; compared with a "
                                            "direct run")
    h.add_argument("inputs", nargs="+", metavar="INPUT", help="one file per domain (at least two)")
    h.add_argument("--vocab-size", "-k", type=int, required=True, help="k of every local run and of the final run")
    p_engine = "run the per-domain GreedTok runs: local (here, in turn, default) or ray (one Ray task each)"
    _add_engine_options(h, "", "per-domain runs", engine_help=p_engine)
    _add_corpus_options(h, "GreedTok: longest candidate token in bytes (default %(default)s)")

    n = sub.add_parser("count", help="count a corpus's words into a table that `train --counts "
                                     "--no-prefix-space` reads (TSV) or parquet, in this process pool or on Ray")
    n.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="UTF-8 text files (counted line by line), .jsonl or .parquet documents, or globs")
    n.add_argument("--output", "-o", type=local_path, required=True,
                   help="the table: word<TAB>count (.tsv, default) or .parquet (word, count columns)")
    n.add_argument("--units", choices=["bytes", "chars", "marks", "vowels"], default="bytes",
                   help="the pre-tokenizer of the tokenizer to train: bytes (byte level, default) or Metaspace units")
    n.add_argument("--pattern", choices=SPLIT_NAMES, default=None,
                   help=f"byte level: the split regex, as `train --pattern` (default {DEFAULT_SPLIT}); give "
                        "train the same")
    n.add_argument("--normalizer", default="none", choices=["NFC", "NFKC", "NFD", "NFKD", "none"],
                   help="Unicode normalization (default none); give train the same")
    n.add_argument("--special-token", action="append", default=[],
                   help="a special token, cut out of the text before counting as encoding does (repeatable)")
    n.add_argument("--text-column", default="text", help="the documents' field in .jsonl/.parquet inputs")
    n.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    _add_engine_options(n, "count", "counting")
    n.add_argument("--num-proc", type=positive_int, default=None,
                   help="local: counting processes (default: all cores); ray: CPUs of the local cluster")
    n.add_argument("--overwrite", action="store_true", help="replace --output if it exists")
    n.add_argument("--quiet", action="store_true", help="no progress bars (Ray's included)")

    r = sub.add_parser("tsr", help="token-saving ratio of optimal segmentation and the tokenization tax per "
                                   "language, for any vocabulary (report.md, report.json, plots)")
    r.add_argument("vocabularies", nargs="+", type=local_path, metavar="VOCAB",
                   help="a .tiktoken file, a byte-level BPE tokenizer.json, or any folder `train` writes")
    source = r.add_mutually_exclusive_group(required=True)
    source.add_argument("--parallel", type=local_path, metavar="FILE",
                        help="lang<TAB>domain<TAB>english<TAB>translation table with that header "
                             "(e.g. multi_isocodes_parallel.tsv)")
    # extend, not the default store: a repeated --text must add its languages, not replace the earlier ones
    source.add_argument("--text", nargs="+", action="extend", metavar="LANG=FILE",
                        help="plain text per language (one string a line), repeatable (--text en=a.txt --text "
                             "hi=b.txt or --text en=a.txt hi=b.txt); each language once; the tax is measured "
                             "against en=FILE if given")
    r.add_argument("--output", "-o", type=local_path, required=True, help="the report folder to create")
    r.add_argument("--pattern", default=None,
                   help="split of a .tiktoken file that is not one of OpenAI's (gpt4, gpt2, o200k or a regex); "
                        "OpenAI's files are recognised by checksum")
    r.add_argument("--min-strings", type=positive_int, default=300,
                   help="leave out languages with fewer strings (default %(default)s)")
    r.add_argument("--no-plots", action="store_true", help="skip the plots (no matplotlib needed)")
    r.add_argument("--overwrite", action="store_true", help="replace --output (only a report hf-greedtok tsr wrote)")
    r.add_argument("--quiet", action="store_true")

    z = sub.add_parser("tokenize", help="tokenize a dataset with a saved tokenizer into a folder of parquet files "
                                        "(input_ids, optional attention_mask), in this process or on Ray")
    z.add_argument("tokenizer", type=local_path, metavar="DIR", help="any folder `train` writes")
    z.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="UTF-8 text files (one document per line, keeping its line end), .jsonl or .parquet "
                        "documents, or globs; one kind per run")
    z.add_argument("--output", "-o", type=local_path, required=True,
                   help="the folder of parquet files to create; row k is document k of the inputs in order")
    z.add_argument("--mode", choices=["cover", "optimal"], default=None,
                   help="GreedTok folders: the encoder (default: the folder's)")
    z.add_argument("--text-column", default="text", help="the documents' field in .jsonl/.parquet inputs")
    z.add_argument("--attention-mask", action="store_true", help="also write attention_mask (all ones)")
    z.add_argument("--no-special-tokens", action="store_true",
                   help="leave out the BOS/EOS the tokenizer adds (add_special_tokens=False)")
    z.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    z.add_argument("--batch-size", type=positive_int, default=4096, help="documents per encoder call")
    _add_engine_options(z, "tokenize", "encoding")
    z.add_argument("--num-proc", type=positive_int, default=None,
                   help="local: encoder threads (default: all cores); ray: CPUs of the local cluster")
    z.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder hf-greedtok tokenize wrote)")
    z.add_argument("--quiet", action="store_true", help="no progress bars (Ray's included)")
    return p


def _add_engine_options(p: argparse.ArgumentParser, verb: str, work: str, engine_help: Optional[str] = None) -> None:
    """--engine and --ray-address of the commands that can run on Ray."""
    p.add_argument("--engine", choices=["local", "ray"], default="local",
                   help=engine_help or f"where to {verb}: local (this machine, default) or ray (Ray tasks on a cluster)")
    p.add_argument("--ray-address", default=None,
                   help=f"with --engine ray: 'auto', HOST:PORT or ray://HOST:PORT joins a running cluster for "
                        f"the {work} (refused at once if nothing answers there); default: start a new local one "
                        "(--num-proc CPUs), whatever RAY_ADDRESS says")
    p.add_argument("--max-retries", type=non_negative_int, default=DEFAULT_MAX_RETRIES,
                   help="with --engine ray: reruns of a task whose worker process or node died (killed, out of "
                        "memory, crashed, lost) before the run fails with exit status 1 (default %(default)s)")


def _add_corpus_options(p: argparse.ArgumentParser, max_length_help: str) -> None:
    """Options shared by the commands that train: output folder, corpus reading, progress."""
    p.add_argument("--output", "-o", type=local_path, required=True, help="directory to create")
    p.add_argument("--counts", action="store_true", help="inputs are count tables: word<TAB>count TSV or .parquet "
                                                         "(word, count columns), each word once per table")
    p.add_argument("--max-token-length", type=int, default=DEFAULT_MAX_TOKEN_LENGTH, help=max_length_help)
    p.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space")
    p.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    p.add_argument("--num-proc", type=positive_int, default=None,
                   help="processes for word counting (default: all cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder this command wrote; the old one is "
                        "deleted after the new one is in place)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; bad input exits with status 2 and a one-line message naming the problem,
    Ctrl-C with 130 and SIGTERM with 143, after cleaning up (no worker, no temporary folder)."""
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
        from . import commands      # here, not at the top: --help does without the trainer and encoders
        return {"train": commands.train, "evaluate": commands.evaluate, "encode": commands.encode,
                "compare": commands.compare, "hierarchical": commands.hierarchical,
                "count": commands.count, "tokenize": commands.tokenize, "tsr": commands.tsr}[args.command](args)
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
