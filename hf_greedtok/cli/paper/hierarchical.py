"""``hf-greedtok hierarchical``: the paper's Section 5.4: one GreedTok run per domain, then a final
run whose candidates are the substrings of their tokens, compared with a direct run."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..options import add_corpus_options, add_engine_options, add_text_column_option, vocab_int

HELP = ("paper Section 5.4: GreedTok per corpus, then a final run whose candidates are the substrings of their "
        "tokens; compared with a direct run")


def add_arguments(h: argparse.ArgumentParser) -> None:
    """hierarchical's arguments, in the order ``--help`` lists them."""
    h.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="one file per domain (at least two): text, .jsonl/.ndjson/.json or .parquet, compressed or not")
    h.add_argument("--vocab-size", "-k", type=vocab_int, required=True, help="k of every local run and of the final run")
    add_engine_options(h, "", "per-domain runs", engine_help="run the per-domain GreedTok runs: local (here, in "
                                                             "turn, default) or ray (one Ray task each)")
    add_text_column_option(h)
    add_corpus_options(h, "GreedTok: longest candidate token in bytes (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    """One GreedTok run per input (``--engine ray``: one Ray task each,
    :class:`hf_greedtok.distributed.RayRunner`), then one on their tokens' substrings; report
    and tokenizer folder to ``--output``; returns 0."""
    from ...experiments.hierarchical_vs_direct import train_hierarchical
    from ...formats.manifest import HIERARCHICAL
    from ...hf.folder import save_greedtok_folder
    from ...pre_tokenizers import ByteLevel
    from ..inputs import corpus_counts
    from ..options import check_engine_options
    from ..output import refuse_existing, write_output

    check_engine_options(args, num_proc_here=True)      # the domains are counted here
    if len(args.inputs) < 2:
        raise ValueError("hierarchical training needs at least two INPUT files (one per domain)")
    refuse_existing(args, HIERARCHICAL)
    pre = ByteLevel()
    names = [Path(i).name for i in args.inputs]
    if len(set(names)) != len(names):
        raise ValueError(f"domain file names must differ: {names}")
    domains = {name: corpus_counts(args, [path], pre) for name, path in zip(names, args.inputs)}
    settings = dict(pre_tokenizer=pre, max_token_length=args.max_token_length, show_progress=not args.quiet)
    if args.engine == "ray":     # the per-domain runs as Ray tasks; counting and the final run here
        from ...distributed.training import RayRunner
        from ...distributed.session import ray_session
        with ray_session(args.ray_address, args.num_proc, quiet=args.quiet):
            result = train_hierarchical(domains, args.vocab_size, local_runner=RayRunner(max_retries=args.max_retries),
                                        **settings)
    else:
        result = train_hierarchical(domains, args.vocab_size, **settings)

    def write(folder: Path) -> None:
        (folder / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        (folder / "report.json").write_text(result.to_json(), encoding="utf-8")
        save_greedtok_folder(result.hierarchical, folder / "tokenizer")

    write_output(args, HIERARCHICAL, write)
    s = result.summary
    print(f"candidates {s['candidates_direct']:,} (direct) -> {s['candidates_hierarchical']:,} (hierarchical), "
          f"{s['candidate_reduction']:.1f}x fewer; tokens per word {s['tokens_per_word_direct']:.4f} -> "
          f"{s['tokens_per_word_hierarchical']:.4f} ({100 * s['compression_cost']:+.3f} %); saved to {args.output}")
    return 0
