"""The ``hf-greedtok`` command: train, evaluate, encode.

    hf-greedtok train INPUT... --vocab-size K --output DIR [--algorithm greedtok|bpe|cbpe]
        [--units bytes|chars|marks|vowels] [--lookup FILE] [--counts] [--max-token-length N]
        (DIR is a transformers folder: AutoTokenizer.from_pretrained(DIR); GreedTok and lookup
        folders after import hf_greedtok, plain BPE/CBPE folders with no custom code)
    hf-greedtok evaluate DIR INPUT... [--counts] [--gold FILE] --json
    hf-greedtok encode DIR TEXT [--mode cover|optimal]
        (DIR: any folder `train` writes, or a Tokenizer.save folder with only greedtok.json)
    hf-greedtok compare INPUT... --vocab-sizes K... --output DIR [--counts] [--targets T...]
        (GreedTok vs HF BPE vs GreedWMC: report.md, report.json, tokens_per_word.png, d_inst.png)
    hf-greedtok hierarchical INPUT INPUT... --vocab-size K --output DIR [--counts]
        (paper Section 5.4: one GreedTok run per INPUT, then a run restricted to their tokens'
        substrings on the combined counts; report.md, report.json and the tokenizer/ folder)

Output folders (:mod:`hf_greedtok.folders`): never the working directory, an ancestor of it or
a folder holding an input; written beside the target and renamed into place with a manifest
(sha256 of every file) written last; ``--overwrite`` replaces only a folder hf-greedtok wrote,
and the old one is deleted only after the new one is in place. Loading (``encode``,
``evaluate``) verifies the manifest and that the folder is complete.

Errors: bad input exits with status 2 and one line on stderr naming the file, line or argument.
SIGTERM is handled like Ctrl-C: word-counting workers are stopped, temporary folders removed,
and the command exits with status 143 (130 for Ctrl-C).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

from transformers import PreTrainedTokenizerFast

from .cbpe import CBPETrainer
from .core import Tokenizer
from .evaluation import evaluate_texts, evaluate_word_counts
from .file_format import FILE_NAME, GreedTokFileError, verify_manifest
from .folders import check_target, check_writable, write_folder
from .lookup import SANDHI_POLICIES, MorphLookup
from .normalizers import UnicodeNormalizer, normalizer_from_name
from .pre_tokenizers import ByteLevel, Metaspace, replace_surrogates
from .special_tokens import counting_pipeline
from .tokenization_greedtok import LOOKUP_FILE, TOKENIZER_FILE, GreedTokTokenizerFast, MorphLookupTokenizerFast
from .trainers import DEFAULT_MAX_TOKEN_LENGTH, GreedTokTrainer
from .word_counts import ENCODING_ERRORS, CorpusError, check_learnable, count_corpus, read_token_list

CONFIG_FILE = "tokenizer_config.json"


class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error convention of the rest of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so it unwinds (and cleans up) like Ctrl-C."""


def _raise_terminated(signum, frame):
    raise _Terminated()


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="hf-greedtok", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a tokenizer (GreedTok, BPE or CBPE) and save it to a new directory")
    t.add_argument("inputs", nargs="+", metavar="INPUT", help="UTF-8 text files (or word<TAB>count tables with --counts)")
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
    t.add_argument("--lookup", type=Path, help="morphology lookup table (TSV word<TAB>seg|seg, or CSV "
                                               "word,segmentation,language with +)")
    t.add_argument("--sandhi", choices=SANDHI_POLICIES, default="skip",
                   help="lookup entries whose segments do not spell the word: skip (default, counted) or error")
    t.add_argument("--lookup-language", help="with a CSV lookup: keep only rows of this language")
    t.add_argument("--min-frequency", type=int, default=None,
                   help="minimum count-weighted candidate (GreedTok, default 1) or pair (BPE, default 0) frequency")
    t.add_argument("--pre-tokenizer", default=None, choices=["byte-level", "metaspace"],
                   help="same as --units bytes / --units chars")
    t.add_argument("--normalizer", default=None, choices=["NFC", "NFKC", "NFD", "NFKD", "none"],
                   help="Unicode normalization; default NFC for marks/vowels units or with a lookup, else none")
    t.add_argument("--special-token", action="append", default=[], help="a special token (repeatable)")
    t.add_argument("--bos-token", help="beginning-of-sequence special token (added to the special tokens)")
    t.add_argument("--eos-token", help="end-of-sequence special token (added to the special tokens)")
    t.add_argument("--pad-token", help="padding special token (added to the special tokens)")
    t.add_argument("--add-bos-token", action="store_true", help="the HF tokenizer adds BOS to every sequence")
    t.add_argument("--add-eos-token", action="store_true", help="the HF tokenizer adds EOS to every sequence")
    t.add_argument("--mode", choices=["cover", "optimal"], default="cover",
                   help="default encoder of the saved tokenizer (default %(default)s)")
    t.add_argument("--pin", action="append", default=[], help="a token placed first (repeatable)")
    t.add_argument("--candidates", type=Path, help="file with one candidate token per line; restricts T")
    _add_corpus_options(t, "GreedTok: longest candidate token in singletons, inclusive (default %(default)s)")

    e = sub.add_parser("evaluate", help="compression and segmentation metrics of a saved tokenizer on a corpus")
    e.add_argument("tokenizer", type=Path, metavar="DIR")
    e.add_argument("inputs", nargs="+", metavar="INPUT")
    e.add_argument("--counts", action="store_true", help="inputs are word<TAB>count tables")
    e.add_argument("--gold", type=Path, help="gold segmentation table (lookup format) for boundary precision/recall/F1")
    e.add_argument("--no-prefix-space", action="store_true")
    e.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--quiet", action="store_true")

    c = sub.add_parser("encode", help="encode a text, show tokens, and check that decoding restores it")
    c.add_argument("tokenizer", type=Path, metavar="DIR")
    c.add_argument("text")
    c.add_argument("--mode", choices=["cover", "optimal"], default=None)

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
    m.add_argument("--pattern", choices=["gpt4", "gpt2", "whitespace"], default="gpt4",
                   help="byte-level split regex: gpt4 (default, as `train`), gpt2, or whitespace (the paper's "
                        "space-delimited words)")
    m.add_argument("--no-plots", action="store_true", help="skip the PNG plots (no matplotlib needed)")
    m.add_argument("--num-threads", type=positive_int, default=1, help="encoder threads for the TSR measurements")
    _add_corpus_options(m, "GreedTok/GreedWMC: longest candidate token in bytes (default %(default)s)")

    h = sub.add_parser("hierarchical", help="paper Section 5.4: GreedTok per corpus, then a final run whose "
                                            "candidates are the substrings of their tokens; compared with a "
                                            "direct run")
    h.add_argument("inputs", nargs="+", metavar="INPUT", help="one file per domain (at least two)")
    h.add_argument("--vocab-size", "-k", type=int, required=True, help="k of every local run and of the final run")
    _add_corpus_options(h, "GreedTok: longest candidate token in bytes (default %(default)s)")
    return p


def _add_corpus_options(p: argparse.ArgumentParser, max_length_help: str) -> None:
    """Options shared by the commands that train: output folder, corpus reading, progress."""
    p.add_argument("--output", "-o", type=Path, required=True, help="directory to create")
    p.add_argument("--counts", action="store_true", help="inputs are word<TAB>count tables")
    p.add_argument("--max-token-length", type=int, default=DEFAULT_MAX_TOKEN_LENGTH, help=max_length_help)
    p.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space")
    p.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    p.add_argument("--num-proc", type=positive_int, default=None,
                   help="processes for word counting (default: all cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder hf-greedtok wrote; the old one is "
                        "deleted after the new one is in place)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _input_files(args: argparse.Namespace) -> list[Path]:
    """Every file the command reads: inputs, lookup, candidates."""
    extra = [getattr(args, name, None) for name in ("lookup", "candidates")]
    return [Path(i) for i in args.inputs] + [Path(e) for e in extra if e is not None]


def _refuse_existing(args: argparse.Namespace) -> None:
    """The output checks of :func:`hf_greedtok.folders.write_folder`, run before any training
    too, so that a long run never ends in one of these errors."""
    check_target(args.output, overwrite=args.overwrite, inputs=_input_files(args))
    check_writable(args.output)


def _write_dir(args: argparse.Namespace, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a new folder beside ``--output``, then put it in place atomically
    (a tokenizer folder of ``train`` ends with its manifest)."""
    write_folder(args.output, write, overwrite=args.overwrite, inputs=_input_files(args),
                 manifest=args.command == "train")


def _resolve_units(args: argparse.Namespace) -> str:
    from_pre = {"byte-level": "bytes", "metaspace": "chars", None: None}[args.pre_tokenizer]
    if args.units and from_pre and (from_pre == "bytes") != (args.units == "bytes"):
        raise ValueError(f"--pre-tokenizer {args.pre_tokenizer} contradicts --units {args.units}")
    units = args.units or from_pre or ("marks" if args.algorithm == "cbpe" else "bytes")
    if args.algorithm == "cbpe" and units not in ("marks", "vowels"):
        raise ValueError(f"--algorithm cbpe constrains script units: use --units marks or vowels "
                         f"(for --units {units} use --algorithm bpe)")
    if args.algorithm == "bpe" and units in ("marks", "vowels"):
        raise ValueError(f"BPE over {units} units is CBPE: use --algorithm cbpe")
    if args.lookup and units == "bytes":
        raise ValueError("--lookup needs --units chars, marks or vowels (Metaspace words), not bytes")
    return units


def _train(args: argparse.Namespace) -> int:
    out: Path = args.output
    _refuse_existing(args)
    named = {"bos_token": args.bos_token, "eos_token": args.eos_token, "pad_token": args.pad_token}
    specials = list(dict.fromkeys([*args.special_token, *(t for t in named.values() if t)]))
    for flag, name in (("--add-bos-token", "bos_token"), ("--add-eos-token", "eos_token")):
        if getattr(args, flag[2:].replace("-", "_")) and not named[name]:
            raise ValueError(f"{flag} needs --{name.replace('_', '-')}")
    units = _resolve_units(args)
    norm_name = args.normalizer or ("NFC" if units in ("marks", "vowels") or args.lookup else "none")
    normalizer = normalizer_from_name(norm_name)
    lookup = None
    if args.lookup:
        lookup = MorphLookup.load(args.lookup, sandhi=args.sandhi, language=args.lookup_language,
                                  normalizer=None if normalizer is None else normalizer.form)
        if not lookup.entries:
            st = lookup.stats
            raise CorpusError(str(args.lookup), None, f"no usable entries ({st['rows']} rows read, "
                                                      f"{st['sandhi_skipped']} sandhi rows skipped, "
                                                      f"{st['filtered_language']} of other languages)")
    if args.algorithm == "greedtok":
        hf_tok, summary = _train_greedtok(args, units, normalizer, lookup, specials, named)
    else:
        hf_tok, summary = _train_bpe(args, units, normalizer, lookup, specials, named)
    _write_dir(args, hf_tok.save_pretrained)   # tokenizer.json, config, model files; manifest last
    if lookup is not None:
        st = lookup.stats
        summary += (f"; lookup {args.lookup}: {st['entries']} words ({st['split_entries']} split), "
                    f"{st['sandhi_skipped']} sandhi entries skipped, {st['conflicting_duplicates']} "
                    "conflicting duplicates ignored")
    print(f"{summary}; saved to {out}")
    return 0


def _train_greedtok(args, units, normalizer, lookup, specials, named):
    pre = ByteLevel() if units == "bytes" else Metaspace(units=units, lookup=lookup)
    candidates = read_token_list(args.candidates) if args.candidates else None   # before the long part
    wc = _training_counts(args, pre, normalizer, specials)
    k = args.vocab_size
    if k is None:
        fixed = 256 if units == "bytes" else 256 + len({u for w in wc for u in pre.word_units(w)})
        k = args.total_vocab_size - fixed - len(specials)
        if k < 1:
            raise ValueError(f"--total-vocab-size {args.total_vocab_size} leaves no learned tokens: "
                             f"{fixed} singletons and {len(specials)} special tokens take {fixed + len(specials)}")
    trainer = GreedTokTrainer(
        k, max_token_length=args.max_token_length, min_frequency=args.min_frequency or 1,
        candidates=candidates, pinned_tokens=args.pin, special_tokens=specials,
        pre_tokenizer=pre, normalizer=normalizer, show_progress=not args.quiet)
    tok = trainer.train_from_counts(wc, source=", ".join(args.inputs))
    tok.mode = args.mode
    hf_tok = GreedTokTokenizerFast.from_greedtok(
        tok, mode=args.mode, add_bos_token=args.add_bos_token, add_eos_token=args.add_eos_token,
        **{k: v for k, v in named.items() if v})
    info = tok.training_info
    if info["k_learned"] == 0:
        raise CorpusError(", ".join(args.inputs), None, "nothing to learn: no candidate token has a positive "
                                                        "gain (every word is one unit, or --candidates or "
                                                        "--min-frequency leave no candidate)")
    stop = " (stopped early: no candidate has a positive gain)" if info["stopped_early"] else ""
    took = trainer.timings
    return hf_tok, (f"learned {info['k_learned']} tokens{stop}; final vocab size {info['final_vocab_size']} "
                    f"(with singletons and {len(specials)} special tokens); "
                    f"{info['tokens_per_word']:.4f} tokens per word on the training words; "
                    f"trained in {took['train_seconds']:.2f} s (setup {took['setup_seconds']:.2f} s)")


def _train_bpe(args, units, normalizer, lookup, specials, named):
    only_greedtok = [flag for flag, used in (
        ("--pin", args.pin), ("--candidates", args.candidates), ("--mode", args.mode != "cover"),
        ("--max-token-length", args.max_token_length != DEFAULT_MAX_TOKEN_LENGTH)) if used]
    if only_greedtok:
        raise ValueError(f"{', '.join(only_greedtok)}: GreedTok options, not used by --algorithm {args.algorithm}")
    trainer = CBPETrainer(num_merges=args.vocab_size, vocab_size=args.total_vocab_size, units=units,
                          lookup=lookup, normalizer=normalizer, special_tokens=specials,
                          min_frequency=args.min_frequency or 0, show_progress=not args.quiet)
    wc = _training_counts(args, trainer.pre_tokenizer, trainer.normalizer, specials)
    backend = trainer.train_from_counts(wc, source=", ".join(args.inputs))
    if trainer.training_info["learned_merges"] == 0:
        raise CorpusError(", ".join(args.inputs), None, "nothing to learn: no pair of units to merge")
    kwargs = dict(add_bos_token=args.add_bos_token, add_eos_token=args.add_eos_token,
                  **{k: v for k, v in named.items() if v})
    if lookup is not None:
        hf_tok = MorphLookupTokenizerFast(lookup=lookup, units=units, tokenizer_object=backend, **kwargs)
    else:
        hf_tok = PreTrainedTokenizerFast(tokenizer_object=backend, **kwargs)
    info = trainer.training_info
    return hf_tok, (f"{info['algorithm']}: learned {info['learned_merges']} merges over {info['alphabet_units']} "
                    f"{units} units ({info['unit_merges']} unit merges); final vocab size "
                    f"{info['final_vocab_size']}")


def _training_counts(args: argparse.Namespace, pre, normalizer, specials: Sequence[str]) -> dict:
    """Words of the inputs as encoding sees them: special tokens cut out first (special_tokens)."""
    wc = count_corpus(args.inputs, *counting_pipeline(pre, normalizer, specials), counts=args.counts,
                      encoding_errors=args.encoding_errors, num_proc=args.num_proc,
                      prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    check_learnable(wc, pre, ", ".join(map(str, args.inputs)))
    return wc


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise GreedTokFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise GreedTokFileError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                                      "the file is truncated or corrupted") from None


def _check_folder(folder: Path) -> Optional[dict]:
    """Check that ``folder`` is a complete tokenizer folder before anything parses it.

    Returns tokenizer_config.json's content, or None for a ``Tokenizer.save`` folder (only
    greedtok.json). Raises GreedTokFileError naming the missing or damaged file.
    """
    if not folder.is_dir():
        raise GreedTokFileError(folder, "not a folder written by hf-greedtok train or save_pretrained")
    has = {name: (folder / name).is_file() for name in (FILE_NAME, TOKENIZER_FILE, CONFIG_FILE)}
    if not has[CONFIG_FILE]:
        if has[TOKENIZER_FILE]:
            # AutoTokenizer would load tokenizer.json alone as a plain tokenizer: other ids
            raise GreedTokFileError(folder / CONFIG_FILE, "no such file: the folder is incomplete (it has "
                                                          f"{TOKENIZER_FILE} but not {CONFIG_FILE})")
        if has[FILE_NAME]:
            return None          # Tokenizer.load checks the manifest
        raise GreedTokFileError(folder, f"not a tokenizer folder: no {CONFIG_FILE} and no {FILE_NAME}")
    config = _read_json(folder / CONFIG_FILE)
    # transformers saves "GreedTokTokenizer" for GreedTokTokenizerFast
    required = {"GreedTokTokenizer": FILE_NAME, "MorphLookupTokenizer": LOOKUP_FILE}
    kind = str(config.get("tokenizer_class") or "").removesuffix("Fast")
    needed = [TOKENIZER_FILE] + [f for f in (required.get(kind),) if f]
    if has[FILE_NAME]:
        needed.append(FILE_NAME)
    for name in dict.fromkeys(needed):
        if not (folder / name).is_file():
            raise GreedTokFileError(folder / name, f"no such file: the folder is incomplete (it has {CONFIG_FILE} "
                                                   f"but not {name})")
    _read_json(folder / TOKENIZER_FILE)
    verify_manifest(folder)         # after the checks above, whose messages say more
    return config


def _load_hf(folder: Path, config: Optional[dict]):
    """The transformers tokenizer of a checked folder."""
    if config is None:
        return GreedTokTokenizerFast.from_greedtok(Tokenizer.load(folder))
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(str(folder))


def _unicode_form(folder: Path) -> Optional[str]:
    """The Unicode normalization form (NFC, ...) of a folder's tokenizer.json normalizer, if any."""
    spec = _read_json(folder / TOKENIZER_FILE).get("normalizer") or {}
    steps = spec.get("normalizers", [spec]) if spec.get("type") == "Sequence" else [spec]
    forms = [s.get("type") for s in steps if s.get("type") in ("NFC", "NFD", "NFKC", "NFKD")]
    return forms[-1] if forms else None


def _evaluate(args: argparse.Namespace) -> int:
    hf_tok = _load_hf(args.tokenizer, _check_folder(args.tokenizer))
    greedtok = hf_tok.greedtok if isinstance(hf_tok, GreedTokTokenizerFast) else None
    normalizer = getattr(greedtok, "normalizer", None)
    gold = MorphLookup.load(args.gold, normalizer=normalizer.form if normalizer else "NFC") if args.gold else None
    result: dict = {"tokenizer": str(args.tokenizer), "inputs": args.inputs}
    if greedtok is not None:
        wc = count_corpus(args.inputs, *counting_pipeline(greedtok.pre_tokenizer, greedtok.normalizer,
                                                          greedtok.model.special_tokens), counts=args.counts,
                          encoding_errors=args.encoding_errors, prefix_space=not args.no_prefix_space,
                          show_progress=not args.quiet)
        if not wc:
            raise CorpusError(", ".join(args.inputs), None, "empty corpus: no words to evaluate")
        result.update(evaluate_word_counts(greedtok, wc))
    result.update(evaluate_texts(hf_tok.backend_tokenizer, args.inputs, counts=args.counts, gold=gold,
                                 encoding_errors=args.encoding_errors))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    return 0


def _encode(args: argparse.Namespace) -> int:
    """Exit 0 when decoding gives the text back (normalized, if the tokenizer normalizes)."""
    config = _check_folder(args.tokenizer)
    if (args.tokenizer / FILE_NAME).is_file():
        tok = Tokenizer.load(args.tokenizer)
        ids = tok.encode(args.text, mode=args.mode)
        tokens, decoded = [tok.id_to_token(i) for i in ids], tok.decode(ids)
        form = tok.normalizer.form if tok.normalizer else None
    else:
        if args.mode is not None:
            raise ValueError(f"--mode: {args.tokenizer} is a {config.get('tokenizer_class')} folder with one "
                             "encoder; --mode applies to GreedTok folders")
        hf_tok = _load_hf(args.tokenizer, config)
        ids = hf_tok.encode(args.text, add_special_tokens=False)
        tokens = hf_tok.convert_ids_to_tokens(ids)
        decoded = hf_tok.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        form = _unicode_form(args.tokenizer)
    expected = replace_surrogates(args.text)
    expected = UnicodeNormalizer(form)(expected) if form else expected
    print(json.dumps({"tokens": tokens, "ids": ids, "decoded": decoded, "round_trip": decoded == args.text},
                     ensure_ascii=False))
    return 0 if decoded == expected else 1


def _corpus_counts(args: argparse.Namespace, inputs: Sequence[str], pre: ByteLevel) -> dict:
    wc = count_corpus(inputs, pre, None, counts=args.counts, encoding_errors=args.encoding_errors,
                      num_proc=args.num_proc, prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    check_learnable(wc, pre, ", ".join(map(str, inputs)))
    return wc


def _compare(args: argparse.Namespace) -> int:
    from .compare import compare_word_counts
    _refuse_existing(args)
    if not args.no_plots:
        from .plots import _pyplot
        _pyplot()            # fail before hours of training, not after
    pre = ByteLevel(args.pattern)
    source = ", ".join(Path(i).name for i in args.inputs)
    result = compare_word_counts(_corpus_counts(args, args.inputs, pre), args.vocab_sizes, targets=args.targets,
                                 pattern=args.pattern, max_token_length=args.max_token_length, source=source,
                                 num_threads=args.num_threads, show_progress=not args.quiet)
    result.settings["inputs"] = [str(i) for i in args.inputs]

    def write(folder: Path) -> None:
        markdown = result.to_markdown()
        if not args.no_plots:
            from .plots import write_plots
            names = [p.name for p in write_plots(result, folder, source)]
            markdown += "\n" + "\n".join(f"![{n}]({n})" for n in names) + "\n"
        (folder / "report.md").write_text(markdown, encoding="utf-8")
        (folder / "report.json").write_text(result.to_json(), encoding="utf-8")

    _write_dir(args, write)
    print("\n".join(f"{c['claim']}: {c['measured']} ({c['verdict']})" for c in result.summary["claims"]))
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def _hierarchical(args: argparse.Namespace) -> int:
    from .hierarchical import train_hierarchical
    if len(args.inputs) < 2:
        raise ValueError("hierarchical training needs at least two INPUT files (one per domain)")
    _refuse_existing(args)
    pre = ByteLevel()
    names = [Path(i).name for i in args.inputs]
    if len(set(names)) != len(names):
        raise ValueError(f"domain file names must differ: {names}")
    domains = {name: _corpus_counts(args, [path], pre) for name, path in zip(names, args.inputs)}
    result = train_hierarchical(domains, args.vocab_size, pre_tokenizer=pre,
                                max_token_length=args.max_token_length, show_progress=not args.quiet)

    def write(folder: Path) -> None:
        (folder / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        (folder / "report.json").write_text(result.to_json(), encoding="utf-8")
        GreedTokTokenizerFast.from_greedtok(result.hierarchical).save_pretrained(folder / "tokenizer")

    _write_dir(args, write)
    s = result.summary
    print(f"candidates {s['candidates_direct']:,} (direct) -> {s['candidates_hierarchical']:,} (hierarchical), "
          f"{s['candidate_reduction']:.1f}x fewer; tokens per word {s['tokens_per_word_direct']:.4f} -> "
          f"{s['tokens_per_word_hierarchical']:.4f} ({100 * s['compression_cost']:+.3f} %); saved to {args.output}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; bad input exits with status 2 and a one-line message naming the problem,
    Ctrl-C with 130 and SIGTERM with 143, after cleaning up (no worker, no temporary folder)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:      # --help, or a usage error already printed: return its status
        return e.code if isinstance(e.code, int) else 2
    restore = _handle_sigterm()
    try:
        return {"train": _train, "evaluate": _evaluate, "encode": _encode, "compare": _compare,
                "hierarchical": _hierarchical}[args.command](args)
    except (CorpusError, GreedTokFileError, FileExistsError, ValueError, OSError, ImportError) as e:
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        signum = signal.SIGTERM if isinstance(e, _Terminated) else signal.SIGINT
        print(f"hf-greedtok {args.command}: stopped by {signum.name}", file=sys.stderr)
        return 128 + signum
    finally:
        restore()


def _handle_sigterm() -> Callable[[], None]:
    """Turn SIGTERM into an exception in the main thread; returns what restores the previous
    handler (nothing to do outside the main thread, where handlers cannot be set)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


if __name__ == "__main__":
    sys.exit(main())
