"""The ``hf-greedtok`` command: train, evaluate, encode.

    hf-greedtok train INPUT... --vocab-size K --output DIR [--algorithm greedtok|bpe|cbpe]
        [--units bytes|chars|marks|vowels] [--lookup FILE] [--counts] [--max-token-length N]
        (DIR is a transformers folder: AutoTokenizer.from_pretrained(DIR); GreedTok and lookup
        folders after import hf_greedtok, plain BPE/CBPE folders with no custom code)
    hf-greedtok evaluate DIR INPUT... [--counts] [--gold FILE] --json
    hf-greedtok encode DIR TEXT [--mode cover|optimal]
    hf-greedtok compare INPUT... --vocab-sizes K... --output DIR [--counts] [--targets T...]
        (GreedTok vs HF BPE vs GreedWMC: report.md, report.json, tokens_per_word.png, d_inst.png)
    hf-greedtok hierarchical INPUT INPUT... --vocab-size K --output DIR [--counts]
        (paper Section 5.4: one GreedTok run per INPUT, then a run restricted to their tokens'
        substrings on the combined counts; report.md, report.json and the tokenizer/ folder)
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional, Sequence

from transformers import PreTrainedTokenizerFast

from .cbpe import CBPETrainer
from .core import Tokenizer
from .evaluation import evaluate_texts, evaluate_word_counts
from .file_format import FILE_NAME, GreedTokFileError, current_umask
from .lookup import SANDHI_POLICIES, MorphLookup
from .normalizers import normalizer_from_name
from .pre_tokenizers import ByteLevel, Metaspace
from .tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast
from .trainers import DEFAULT_MAX_TOKEN_LENGTH, GreedTokTrainer
from .word_counts import ENCODING_ERRORS, CorpusError, count_corpus


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hf-greedtok", description=__doc__.split("\n")[0])
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
    m.add_argument("--num-threads", type=int, default=1, help="encoder threads for the TSR measurements")
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
    p.add_argument("--num-proc", type=int, default=None, help="processes for word counting (default: all cores)")
    p.add_argument("--overwrite", action="store_true", help="replace --output if it exists")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _refuse_existing(out: Path, overwrite: bool) -> None:
    """Checked before any training too, so that a long run never ends in this error."""
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} already exists; choose a new --output or pass --overwrite")


def _write_dir(out: Path, overwrite: bool, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a new directory next to ``out``, then rename it: never a half-written DIR."""
    _refuse_existing(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        tmp.chmod(0o777 & ~current_umask())   # mkdtemp creates 0700
        write(tmp)
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


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
    _refuse_existing(out, args.overwrite)
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
    if args.algorithm == "greedtok":
        hf_tok, summary = _train_greedtok(args, units, normalizer, lookup, specials, named)
    else:
        hf_tok, summary = _train_bpe(args, units, normalizer, lookup, specials, named)
    _write_dir(out, args.overwrite, hf_tok.save_pretrained)   # tokenizer.json, config, model files
    if lookup is not None:
        st = lookup.stats
        summary += (f"; lookup {args.lookup}: {st['entries']} words ({st['split_entries']} split), "
                    f"{st['sandhi_skipped']} sandhi entries skipped, {st['conflicting_duplicates']} "
                    "conflicting duplicates ignored")
    print(f"{summary}; saved to {out}")
    return 0


def _train_greedtok(args, units, normalizer, lookup, specials, named):
    pre = ByteLevel() if units == "bytes" else Metaspace(units=units, lookup=lookup)
    wc = count_corpus(args.inputs, pre, normalizer, counts=args.counts, encoding_errors=args.encoding_errors,
                      num_proc=args.num_proc, prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    k = args.vocab_size
    if k is None:
        fixed = 256 if units == "bytes" else 256 + len({u for w in wc for u in pre.word_units(w)})
        k = args.total_vocab_size - fixed - len(specials)
        if k < 1:
            raise ValueError(f"--total-vocab-size {args.total_vocab_size} leaves no learned tokens: "
                             f"{fixed} singletons and {len(specials)} special tokens take {fixed + len(specials)}")
    candidates = None
    if args.candidates:
        candidates = [line.rstrip("\n") for line in args.candidates.read_text(encoding="utf-8").splitlines()]
        candidates = [c for c in candidates if c]
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
    stop = " (stopped early: no candidate has a positive gain)" if info["stopped_early"] else ""
    return hf_tok, (f"learned {info['k_learned']} tokens{stop}; final vocab size {info['final_vocab_size']} "
                    f"(with singletons and {len(specials)} special tokens); "
                    f"{info['tokens_per_word']:.4f} tokens per word on the training words")


def _train_bpe(args, units, normalizer, lookup, specials, named):
    only_greedtok = [flag for flag, used in (
        ("--pin", args.pin), ("--candidates", args.candidates), ("--mode", args.mode != "cover"),
        ("--max-token-length", args.max_token_length != DEFAULT_MAX_TOKEN_LENGTH)) if used]
    if only_greedtok:
        raise ValueError(f"{', '.join(only_greedtok)}: GreedTok options, not used by --algorithm {args.algorithm}")
    trainer = CBPETrainer(num_merges=args.vocab_size, vocab_size=args.total_vocab_size, units=units,
                          lookup=lookup, normalizer=normalizer, special_tokens=specials,
                          min_frequency=args.min_frequency or 0, show_progress=not args.quiet)
    backend = trainer.train(args.inputs, counts=args.counts, encoding_errors=args.encoding_errors,
                            num_proc=args.num_proc)
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


def _evaluate(args: argparse.Namespace) -> int:
    from transformers import AutoTokenizer
    if not args.tokenizer.is_dir():
        raise GreedTokFileError(args.tokenizer, "not a directory written by hf-greedtok train or save_pretrained")
    hf_tok = AutoTokenizer.from_pretrained(str(args.tokenizer))
    greedtok = hf_tok.greedtok if isinstance(hf_tok, GreedTokTokenizerFast) else None
    normalizer = getattr(greedtok, "normalizer", None)
    gold = MorphLookup.load(args.gold, normalizer=normalizer.form if normalizer else "NFC") if args.gold else None
    result: dict = {"tokenizer": str(args.tokenizer), "inputs": args.inputs}
    if greedtok is not None and (args.tokenizer / FILE_NAME).is_file():
        wc = count_corpus(args.inputs, greedtok.pre_tokenizer, greedtok.normalizer, counts=args.counts,
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
    tok = Tokenizer.load(args.tokenizer)
    ids = tok.encode(args.text, mode=args.mode)
    decoded = tok.decode(ids)
    print(json.dumps({"tokens": [tok.id_to_token(i) for i in ids], "ids": ids, "decoded": decoded,
                      "round_trip": decoded == args.text}, ensure_ascii=False))
    return 0 if decoded == args.text or tok.normalizer is not None else 1


def _corpus_counts(args: argparse.Namespace, inputs: Sequence[str], pre: ByteLevel) -> dict:
    wc = count_corpus(inputs, pre, None, counts=args.counts, encoding_errors=args.encoding_errors,
                      num_proc=args.num_proc, prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    if not wc:
        raise CorpusError(", ".join(inputs), None, "empty corpus: no words")
    return wc


def _compare(args: argparse.Namespace) -> int:
    from .compare import compare_word_counts
    _refuse_existing(args.output, args.overwrite)
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

    _write_dir(args.output, args.overwrite, write)
    print("\n".join(f"{c['claim']}: {c['measured']} ({c['verdict']})" for c in result.summary["claims"]))
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def _hierarchical(args: argparse.Namespace) -> int:
    from .hierarchical import train_hierarchical
    if len(args.inputs) < 2:
        raise ValueError("hierarchical training needs at least two INPUT files (one per domain)")
    _refuse_existing(args.output, args.overwrite)
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

    _write_dir(args.output, args.overwrite, write)
    s = result.summary
    print(f"candidates {s['candidates_direct']:,} (direct) -> {s['candidates_hierarchical']:,} (hierarchical), "
          f"{s['candidate_reduction']:.1f}x fewer; tokens per word {s['tokens_per_word_direct']:.4f} -> "
          f"{s['tokens_per_word_hierarchical']:.4f} ({100 * s['compression_cost']:+.3f} %); saved to {args.output}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; bad input exits with status 2 and a one-line message naming the problem."""
    args = _parser().parse_args(argv)
    try:
        return {"train": _train, "evaluate": _evaluate, "encode": _encode, "compare": _compare,
                "hierarchical": _hierarchical}[args.command](args)
    except (CorpusError, GreedTokFileError, FileExistsError, ValueError, OSError, ImportError) as e:
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
