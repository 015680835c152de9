"""The ``hf-greedtok`` command: train, evaluate, encode.

    hf-greedtok train INPUT... --vocab-size K --output DIR [--counts] [--max-token-length N]
        (DIR is a transformers folder: AutoTokenizer.from_pretrained(DIR) after import hf_greedtok)
    hf-greedtok evaluate DIR INPUT... [--counts] --json
    hf-greedtok encode DIR TEXT [--mode cover|optimal]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from .core import Tokenizer
from .evaluation import evaluate_word_counts
from .file_format import GreedTokFileError, current_umask
from .pre_tokenizers import pre_tokenizer_from_name
from .tokenization_greedtok import GreedTokTokenizerFast
from .trainers import DEFAULT_MAX_TOKEN_LENGTH, GreedTokTrainer
from .word_counts import ENCODING_ERRORS, CorpusError, count_words_in_files, read_count_tables


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hf-greedtok", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a GreedTok tokenizer and save it to a new directory")
    t.add_argument("inputs", nargs="+", metavar="INPUT", help="UTF-8 text files (or word<TAB>count tables with --counts)")
    t.add_argument("--vocab-size", "-k", type=int, required=True, help="k, the number of tokens to learn")
    t.add_argument("--output", "-o", type=Path, required=True, help="directory to create")
    t.add_argument("--counts", action="store_true", help="inputs are word<TAB>count tables")
    t.add_argument("--max-token-length", type=int, default=DEFAULT_MAX_TOKEN_LENGTH,
                   help="longest candidate token in singletons, inclusive (default %(default)s)")
    t.add_argument("--min-frequency", type=int, default=1, help="minimum count-weighted candidate frequency")
    t.add_argument("--pre-tokenizer", default="byte-level", choices=["byte-level", "metaspace"])
    t.add_argument("--normalizer", default=None, choices=["NFC", "NFKC", "NFD", "NFKD"])
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
    t.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space")
    t.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    t.add_argument("--num-proc", type=int, default=None, help="processes for word counting (default: all cores)")
    t.add_argument("--overwrite", action="store_true", help="replace --output if it exists")
    t.add_argument("--quiet", action="store_true", help="no progress bars")

    e = sub.add_parser("evaluate", help="compression metrics of a trained tokenizer on a corpus")
    e.add_argument("tokenizer", type=Path, metavar="DIR")
    e.add_argument("inputs", nargs="+", metavar="INPUT")
    e.add_argument("--counts", action="store_true", help="inputs are word<TAB>count tables")
    e.add_argument("--no-prefix-space", action="store_true")
    e.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--quiet", action="store_true")

    c = sub.add_parser("encode", help="encode a text, show tokens, and check that decoding restores it")
    c.add_argument("tokenizer", type=Path, metavar="DIR")
    c.add_argument("text")
    c.add_argument("--mode", choices=["cover", "optimal"], default=None)
    return p


def _train(args: argparse.Namespace) -> int:
    out: Path = args.output
    if out.exists() and not args.overwrite:
        raise FileExistsError(f"{out} already exists; choose a new --output or pass --overwrite")
    named = {"bos_token": args.bos_token, "eos_token": args.eos_token, "pad_token": args.pad_token}
    specials = list(dict.fromkeys([*args.special_token, *(t for t in named.values() if t)]))
    for flag, name in (("--add-bos-token", "bos_token"), ("--add-eos-token", "eos_token")):
        if getattr(args, flag[2:].replace("-", "_")) and not named[name]:
            raise ValueError(f"{flag} needs --{name.replace('_', '-')}")
    candidates = None
    if args.candidates:
        candidates = [line.rstrip("\n") for line in args.candidates.read_text(encoding="utf-8").splitlines()]
        candidates = [c for c in candidates if c]
    trainer = GreedTokTrainer(
        args.vocab_size, max_token_length=args.max_token_length, min_frequency=args.min_frequency,
        candidates=candidates, pinned_tokens=args.pin, special_tokens=specials,
        pre_tokenizer=pre_tokenizer_from_name(args.pre_tokenizer), normalizer=args.normalizer,
        show_progress=not args.quiet)
    tok = trainer.train(args.inputs, counts=args.counts, encoding_errors=args.encoding_errors,
                        num_proc=args.num_proc, prefix_space=not args.no_prefix_space)
    tok.mode = args.mode
    hf_tok = GreedTokTokenizerFast.from_greedtok(
        tok, mode=args.mode, add_bos_token=args.add_bos_token, add_eos_token=args.add_eos_token,
        **{k: v for k, v in named.items() if v})
    # Build the directory next to its destination, then rename: never a half-written DIR.
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        tmp.chmod(0o777 & ~current_umask())   # mkdtemp creates 0700
        hf_tok.save_pretrained(tmp)     # tokenizer.json, greedtok.json, tokenizer_config.json, code
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    info = tok.training_info
    stop = " (stopped early: no candidate has a positive gain)" if info["stopped_early"] else ""
    print(f"learned {info['k_learned']} tokens{stop}; final vocab size {info['final_vocab_size']} "
          f"(with singletons and {len(specials)} special tokens); "
          f"{info['tokens_per_word']:.4f} tokens per word on the training words; saved to {out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    tok = Tokenizer.load(args.tokenizer)
    pre = tok.pre_tokenizer
    if args.counts:
        wc = read_count_tables(args.inputs, pre, tok.normalizer, prefix_space=not args.no_prefix_space)
    else:
        wc = count_words_in_files(args.inputs, pre, tok.normalizer, encoding_errors=args.encoding_errors,
                                  show_progress=not args.quiet)
    if not wc:
        raise CorpusError(", ".join(args.inputs), None, "empty corpus: no words to evaluate")
    result = {"tokenizer": str(args.tokenizer), "inputs": args.inputs, **evaluate_word_counts(tok, wc)}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    return 0


def _encode(args: argparse.Namespace) -> int:
    tok = Tokenizer.load(args.tokenizer)
    ids = tok.encode(args.text, mode=args.mode)
    decoded = tok.decode(ids)
    print(json.dumps({"tokens": [tok.id_to_token(i) for i in ids], "ids": ids, "decoded": decoded,
                      "round_trip": decoded == args.text}, ensure_ascii=False))
    return 0 if decoded == args.text or tok.normalizer is not None else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; bad input exits with status 2 and a one-line message naming the problem."""
    args = _parser().parse_args(argv)
    try:
        return {"train": _train, "evaluate": _evaluate, "encode": _encode}[args.command](args)
    except (CorpusError, GreedTokFileError, FileExistsError, ValueError, OSError) as e:
        print(f"hf-greedtok {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
