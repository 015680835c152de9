"""``hf-greedtok tokenize``: a dataset encoded by a saved tokenizer into a folder of parquet files,
in this process or on Ray."""
from __future__ import annotations

import argparse

from ..defaults import ENCODING_ERRORS
from .options import (ENCODING_ERRORS_HELP, INPUT_HELP, MODES, add_engine_options, add_text_column_option,
                      local_path, size_int, workers_int)

HELP = ("tokenize a dataset with a saved tokenizer into a folder of parquet files (input_ids, optional "
        "attention_mask), in this process or on Ray")


def add_arguments(z: argparse.ArgumentParser) -> None:
    """tokenize's arguments, in the order ``--help`` lists them."""
    z.add_argument("tokenizer", type=local_path, metavar="DIR", help="any folder `train` writes")
    z.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=f"{INPUT_HELP}; one kind per run (a text file's documents keep their line ends)")
    z.add_argument("--output", "-o", type=local_path, required=True,
                   help="the folder of parquet files to create; row k is document k of the inputs in order")
    z.add_argument("--mode", choices=MODES, default=None,
                   help="GreedTok folders: the encoder (default: the folder's)")
    add_text_column_option(z)
    z.add_argument("--attention-mask", action="store_true", help="also write attention_mask (all ones)")
    z.add_argument("--no-special-tokens", action="store_true",
                   help="leave out the BOS/EOS the tokenizer adds (add_special_tokens=False)")
    z.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS, help=ENCODING_ERRORS_HELP)
    z.add_argument("--batch-size", type=size_int, default=4096, help="documents per encoder call")
    add_engine_options(z, "tokenize", "encoding")
    z.add_argument("--num-proc", type=workers_int, default=None,
                   help="local: encoder threads (default: all cores); ray: CPUs of the local cluster")
    z.add_argument("--overwrite", action="store_true",
                   help="replace --output if it exists (only a folder hf-greedtok tokenize wrote)")
    z.add_argument("--quiet", action="store_true", help="no progress bars (Ray's included)")


def run(args: argparse.Namespace) -> int:
    """Encode the inputs' documents with the folder DIR into the parquet folder ``--output``
    (``--engine local``: this process's native encoder threads,
    :func:`hf_greedtok.hf.tokenize_local.tokenize_local`; ``ray``: Ray Core tasks,
    :func:`hf_greedtok.distributed.tokenize_dataset`); returns 0. Inputs, the folder and the
    output are checked before any work (CorpusError, GreedTokFileError, OutputError,
    FileExistsError: exit 2)."""
    from .._threads import available_cores
    from ..formats.sources import resolve_inputs
    from .inputs import check_text_column, check_uri_inputs
    from .loading import check_exists
    from .options import check_engine_options

    check_engine_options(args)
    check_exists(args.tokenizer)
    check_uri_inputs(args.inputs, args.engine)
    # the readers resolve the inputs again; here for --text-column's check, before any work
    text_column = check_text_column(args, resolve_inputs(args.inputs))
    options = dict(mode=args.mode, text_column=text_column, add_special_tokens=not args.no_special_tokens,
                   attention_mask=args.attention_mask, encoding_errors=args.encoding_errors,
                   batch_size=args.batch_size, overwrite=args.overwrite)
    if args.engine == "local":          # the local engine never imports hf_greedtok.distributed
        from ..hf.tokenize_local import tokenize_local
        result = tokenize_local(args.inputs, args.tokenizer, args.output,
                                num_threads=args.num_proc or available_cores(), **options)
    else:
        from ..distributed.tokenizing import tokenize_dataset
        result = tokenize_dataset(args.inputs, args.tokenizer, args.output, engine="ray", address=args.ray_address,
                                  max_retries=args.max_retries, num_cpus=args.num_proc, show_progress=not args.quiet,
                                  **options)
    print(f"{result.rows:,} documents tokenized by the {args.engine} engine into {len(result.files)} parquet "
          f"file(s) in {result.path}")
    return 0
