"""``hf-greedtok evaluate``: compression and segmentation metrics of a saved tokenizer, or of a
vocabulary file, on a corpus (and on held-out text)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from ..defaults import ENCODING_ERRORS
from ..errors import CorpusError
from .options import (ENCODING_ERRORS_HELP, INPUT_HELP, TIKTOKEN_PATTERN, TOKENIZER_OR_VOCABULARY, add_text_column_option,
                      local_path)

if TYPE_CHECKING:
    from tokenizers import Tokenizer as HFTokenizer

    from ..core import Tokenizer
    from ..indic.lookup import MorphLookup

HELP = "compression and segmentation metrics of a saved tokenizer on a corpus"


def add_arguments(e: argparse.ArgumentParser) -> None:
    """evaluate's arguments, in the order ``--help`` lists them."""
    e.add_argument("tokenizer", type=local_path, metavar="DIR", help=TOKENIZER_OR_VOCABULARY)
    e.add_argument("--pattern", default=None, help=TIKTOKEN_PATTERN)
    e.add_argument("inputs", nargs="+", metavar="INPUT", help=f"{INPUT_HELP}; with --counts: count tables")
    e.add_argument("--counts", action="store_true", help="inputs are count tables: word<TAB>count TSV or .parquet "
                                                         "(word, count columns)")
    e.add_argument("--held-out", nargs="+", default=[], metavar="FILE",
                   help="text the tokenizer was not trained on: the same metrics again, under \"held_out\" "
                        "(INPUT is then the in-sample text); read like INPUT")
    e.add_argument("--gold", type=local_path,
                   help="gold segmentation table (lookup format) for boundary precision/recall/F1")
    e.add_argument("--no-prefix-space", action="store_true",
                   help="with --counts: do not read table words as following a space (as train --no-prefix-space)")
    add_text_column_option(e)
    e.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS, help=ENCODING_ERRORS_HELP)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    """Print the metrics of a saved tokenizer (or of a vocabulary file: a .tiktoken file or a
    byte-level BPE tokenizer.json) on the inputs (one JSON object with ``--json``); returns 0.
    Raises GreedTokFileError for a damaged folder or file, CorpusError for unreadable inputs."""
    from ..indic.lookup import MorphLookup
    from .inputs import check_counts_options
    from .loading import check_exists, check_pattern_applies, is_vocabulary_file

    check_counts_options(args)
    check_exists(args.tokenizer)
    check_pattern_applies(args.pattern, [args.tokenizer])
    result: dict = {"tokenizer": str(args.tokenizer), "inputs": args.inputs}
    if is_vocabulary_file(args.tokenizer):
        from ..vocabularies import load_vocabulary
        vocab = load_vocabulary(args.tokenizer, pattern=args.pattern)
        greedtok, backend = vocab.native, vocab.backend()
        result["text_metrics_encoder"] = vocab.backend_encoder
    else:
        greedtok, backend = _load_backend(args.tokenizer)
    normalizer = getattr(greedtok, "normalizer", None)
    gold = MorphLookup.load(args.gold, normalizer=normalizer.form if normalizer else "NFC") if args.gold else None
    result.update(_metrics(args, greedtok, backend, args.inputs, gold))
    if args.held_out:
        # the same metrics on text the tokenizer was not trained on, beside the in-sample ones
        result["held_out"] = {"inputs": args.held_out, **_metrics(args, greedtok, backend, args.held_out, None)}
    if args.json:
        print(json.dumps(result))
    else:
        held_out = result.pop("held_out", {})
        for key, value in result.items():
            print(f"{key:>38}: {value}")
        for key, value in held_out.items():
            print(f"{'held_out ' + key:>38}: {value}")
    return 0


def _load_backend(folder: Path) -> tuple[Optional[Tokenizer], HFTokenizer]:
    """The native tokenizer (GreedTok folders only, else None) and the ``tokenizers`` backend
    of a checked folder; GreedTok folders load without transformers."""
    from ..hf.folder import TokenizerFolder
    from ..hf.folder_encoder import load_folder_tokenizer

    opened = TokenizerFolder.open(folder)
    if opened.is_greedtok:
        tok, _, backend = opened.greedtok_backend()
        return tok, backend
    return None, load_folder_tokenizer(opened).backend_tokenizer


def _metrics(args: argparse.Namespace, greedtok: Optional[Tokenizer], backend, inputs: Sequence[str],
             gold: Optional[MorphLookup]) -> dict:
    """evaluate's metrics of ``inputs``: GreedTok's word-count metrics (if ``greedtok``; per word
    for a superword folder too, its chunk figures beside), then the backend's text metrics (with
    boundary scores against ``gold``). ValueError: a superword folder whose recorded word split
    is a chunk split."""
    from ..experiments.evaluation import evaluate_texts, evaluate_word_counts
    from ..special_tokens import counting_pipeline
    from ..word_counts import count_inputs, read_count_tables, resolve_corpus
    from .inputs import check_text_column

    result: dict = {}
    # text read as count and train read it (a .jsonl is its documents, not raw JSON)
    kinds = None if args.counts else resolve_corpus(inputs)
    text_column = check_text_column(args, kinds or {})
    if greedtok is not None:
        pipeline = counting_pipeline(greedtok.pre_tokenizer, greedtok.normalizer, greedtok.model.special_tokens)
        if args.counts:
            wc = read_count_tables(inputs, *pipeline, prefix_space=not args.no_prefix_space)
        else:
            wc = count_inputs(kinds, *pipeline, text_column=text_column, encoding_errors=args.encoding_errors,
                              show_progress=not args.quiet)
        if not wc:
            raise CorpusError(", ".join(inputs), None, "empty corpus: no words to evaluate")
        result.update(evaluate_word_counts(greedtok, wc))
    result.update(evaluate_texts(backend, inputs, counts=args.counts, gold=gold, encoding_errors=args.encoding_errors,
                                 text_column=text_column))
    return result
