"""The commands of ``hf-greedtok`` (:mod:`hf_greedtok.cli` parses the arguments and calls
them; it imports this module only once a command runs, so ``--help`` stays fast). Each command
takes the parsed arguments and returns the exit status; errors are raised for ``cli.main``
to report in one line."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from ..core import Tokenizer
from ..defaults import DEFAULT_MAX_TOKEN_LENGTH
from ..errors import CorpusError
from ..experiments.evaluation import evaluate_texts, evaluate_word_counts
from ..formats.greedtok_json import FILE_NAME
from ..hf.folder import (TOKENIZER_FILE, check_tokenizer_folder, is_greedtok_config, load_greedtok_backend,
                         read_folder_json, save_greedtok_folder)
from ..indic.cbpe import CBPETrainer
from ..indic.lookup import MorphLookup
from ..normalizers import UnicodeNormalizer, normalizer_from_name, replace_surrogates
from ..pre_tokenizers import ByteLevel, Metaspace
from ..special_tokens import counting_pipeline
from ..trainers import GreedTokTrainer
from ..word_counts import check_learnable, count_corpus, count_words, read_token_list
from ..output_folders import check_target, check_writable, write_folder

if TYPE_CHECKING:
    from tokenizers import Tokenizer as HFTokenizer


def _input_files(args: argparse.Namespace) -> list[Path]:
    """Every file the command reads: inputs, lookup, candidates."""
    extra = [getattr(args, name, None) for name in ("lookup", "candidates")]
    return [Path(i) for i in args.inputs] + [Path(e) for e in extra if e is not None]


def _refuse_existing(args: argparse.Namespace) -> None:
    """The output checks of :func:`hf_greedtok.output_folders.write_folder`, run before any training
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


def train(args: argparse.Namespace) -> int:
    """``hf-greedtok train``: count the inputs' words, train GreedTok (or BPE/CBPE) and write
    the transformers folder ``--output``; returns 0. Raises ValueError, CorpusError or OSError
    for bad arguments or inputs (``cli.main`` prints them in one line, exit 2)."""
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
        write, summary = _train_greedtok(args, units, normalizer, lookup, specials, named)
    else:
        write, summary = _train_bpe(args, units, normalizer, lookup, specials, named)
    _write_dir(args, write)   # tokenizer.json, config, model files; manifest last
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
        pre_tokenizer=pre, normalizer=normalizer, show_progress=not args.quiet, num_threads=args.num_threads)
    tok = trainer.train_from_counts(wc, source=", ".join(args.inputs))
    tok.mode = args.mode
    def write(folder: Path) -> None:
        # the folder GreedTokTokenizerFast.save_pretrained writes, without importing transformers
        save_greedtok_folder(tok, folder, mode=args.mode, add_bos_token=args.add_bos_token,
                             add_eos_token=args.add_eos_token, **{k: v for k, v in named.items() if v})
    info = tok.training_info
    if info["k_learned"] == 0:
        raise CorpusError(", ".join(args.inputs), None, "nothing to learn: no candidate token has a positive "
                                                        "gain (every word is one unit, or --candidates or "
                                                        "--min-frequency leave no candidate)")
    stop = " (stopped early: no candidate has a positive gain)" if info["stopped_early"] else ""
    took = trainer.timings
    return write, (f"learned {info['k_learned']} tokens{stop}; final vocab size {info['final_vocab_size']} "
                    f"(with singletons and {len(specials)} special tokens); "
                    f"{info['tokens_per_word']:.4f} tokens per word on the training words; "
                    f"trained in {took['train_seconds']:.2f} s (setup {took['setup_seconds']:.2f} s)")


def _train_bpe(args, units, normalizer, lookup, specials, named):
    from transformers import PreTrainedTokenizerFast

    from ..hf.tokenization_greedtok import MorphLookupTokenizerFast
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
    return hf_tok.save_pretrained, (f"{info['algorithm']}: learned {info['learned_merges']} merges over {info['alphabet_units']} "
                    f"{units} units ({info['unit_merges']} unit merges); final vocab size "
                    f"{info['final_vocab_size']}")


def _training_counts(args: argparse.Namespace, pre, normalizer, specials: Sequence[str]) -> dict:
    """Words of the inputs as encoding sees them: special tokens cut out first (special_tokens);
    ``--engine ray`` counts them on Ray (:func:`hf_greedtok.distributed.count_words_distributed`,
    equal to counting here word for word)."""
    if args.engine == "ray":
        if args.counts:
            raise ValueError("--counts reads finished tables: nothing to count on Ray; drop --engine ray")
        from ..distributed.counting import count_words_distributed
        wc = count_words_distributed(args.inputs, pre, normalizer=normalizer, special_tokens=specials,
                                     encoding_errors=args.encoding_errors, address=args.ray_address,
                                     num_cpus=args.num_proc, max_retries=args.max_retries,
                                     show_progress=not args.quiet)
    else:
        wc = count_corpus(args.inputs, *counting_pipeline(pre, normalizer, specials), counts=args.counts,
                          encoding_errors=args.encoding_errors, num_proc=args.num_proc,
                          prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    check_learnable(wc, pre, ", ".join(map(str, args.inputs)))
    return wc


def _load_hf(folder: Path):
    """The transformers tokenizer of a checked folder that is not GreedTok's (BPE, CBPE, lookup)."""
    from transformers import AutoTokenizer     # importing it registers our classes (hf_greedtok.__init__)
    return AutoTokenizer.from_pretrained(str(folder))


def _load_backend(folder: Path) -> tuple[Optional[Tokenizer], "HFTokenizer"]:
    """The native tokenizer (GreedTok folders only, else None) and the ``tokenizers`` backend
    of a checked folder; GreedTok folders load without transformers."""
    config = check_tokenizer_folder(folder)
    if is_greedtok_config(config):
        return load_greedtok_backend(folder, config)
    return None, _load_hf(folder).backend_tokenizer


def _unicode_form(folder: Path) -> Optional[str]:
    """The Unicode normalization form (NFC, ...) of a folder's tokenizer.json normalizer, if any."""
    spec = read_folder_json(folder / TOKENIZER_FILE).get("normalizer") or {}
    steps = spec.get("normalizers", [spec]) if spec.get("type") == "Sequence" else [spec]
    forms = [s.get("type") for s in steps if s.get("type") in ("NFC", "NFD", "NFKC", "NFKD")]
    return forms[-1] if forms else None


def evaluate(args: argparse.Namespace) -> int:
    """``hf-greedtok evaluate``: print the metrics of a saved tokenizer on the inputs (one JSON
    object with ``--json``); returns 0. Raises GreedTokFileError for a damaged folder,
    CorpusError for unreadable inputs."""
    greedtok, backend = _load_backend(args.tokenizer)
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
    result.update(evaluate_texts(backend, args.inputs, counts=args.counts, gold=gold,
                                 encoding_errors=args.encoding_errors))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    return 0


def encode(args: argparse.Namespace) -> int:
    """``hf-greedtok encode``: print a text's tokens and ids as JSON; returns 0 when decoding
    gives the text back (normalized, if the tokenizer normalizes), else 1."""
    config = check_tokenizer_folder(args.tokenizer)
    if (args.tokenizer / FILE_NAME).is_file():
        tok = Tokenizer.load(args.tokenizer)
        ids = tok.encode(args.text, mode=args.mode)
        tokens, decoded = [tok.id_to_token(i) for i in ids], tok.decode(ids)
        form = tok.normalizer.form if tok.normalizer else None
    else:
        if args.mode is not None:
            raise ValueError(f"--mode: {args.tokenizer} is a {config.get('tokenizer_class')} folder with one "
                             "encoder; --mode applies to GreedTok folders")
        hf_tok = _load_hf(args.tokenizer)
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


def compare(args: argparse.Namespace) -> int:
    """``hf-greedtok compare``: GreedTok vs BPE vs GreedWMC on one corpus, written as report.md,
    report.json and plots to ``--output``; returns 0."""
    from ..experiments.compare import compare_word_counts
    _refuse_existing(args)
    if not args.no_plots:
        from ..experiments.plots import _pyplot
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
            from ..experiments.plots import write_plots
            names = [p.name for p in write_plots(result, folder, source)]
            markdown += "\n" + "\n".join(f"![{n}]({n})" for n in names) + "\n"
        (folder / "report.md").write_text(markdown, encoding="utf-8")
        (folder / "report.json").write_text(result.to_json(), encoding="utf-8")

    _write_dir(args, write)
    print("\n".join(f"{c['claim']}: {c['measured']} ({c['verdict']})" for c in result.summary["claims"]))
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def hierarchical(args: argparse.Namespace) -> int:
    """``hf-greedtok hierarchical``: one GreedTok run per input (``--engine ray``: one Ray task
    each, :class:`hf_greedtok.distributed.RayRunner`), then one on their tokens' substrings;
    report and tokenizer folder to ``--output``; returns 0."""
    from ..experiments.hierarchical import train_hierarchical
    if len(args.inputs) < 2:
        raise ValueError("hierarchical training needs at least two INPUT files (one per domain)")
    _refuse_existing(args)
    pre = ByteLevel()
    names = [Path(i).name for i in args.inputs]
    if len(set(names)) != len(names):
        raise ValueError(f"domain file names must differ: {names}")
    domains = {name: _corpus_counts(args, [path], pre) for name, path in zip(names, args.inputs)}
    settings = dict(pre_tokenizer=pre, max_token_length=args.max_token_length, show_progress=not args.quiet)
    if args.engine == "ray":     # the per-domain runs as Ray tasks; counting and the final run here
        from ..distributed.hierarchical import RayRunner
        from ..distributed.session import ensure_ray, require_ray
        started = ensure_ray(args.ray_address, args.num_proc, quiet=args.quiet)
        try:
            result = train_hierarchical(domains, args.vocab_size, local_runner=RayRunner(max_retries=args.max_retries),
                                        **settings)
        finally:
            if started:
                require_ray().shutdown()
    else:
        result = train_hierarchical(domains, args.vocab_size, **settings)

    def write(folder: Path) -> None:
        (folder / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        (folder / "report.json").write_text(result.to_json(), encoding="utf-8")
        save_greedtok_folder(result.hierarchical, folder / "tokenizer")

    _write_dir(args, write)
    s = result.summary
    print(f"candidates {s['candidates_direct']:,} (direct) -> {s['candidates_hierarchical']:,} (hierarchical), "
          f"{s['candidate_reduction']:.1f}x fewer; tokens per word {s['tokens_per_word_direct']:.4f} -> "
          f"{s['tokens_per_word_hierarchical']:.4f} ({100 * s['compression_cost']:+.3f} %); saved to {args.output}")
    return 0


def count(args: argparse.Namespace) -> int:
    """``hf-greedtok count``: count the inputs' words (``--engine local``: this machine's
    process pool; ``ray``: :func:`hf_greedtok.distributed.count_words_distributed`) and write the
    table ``--output`` atomically; returns 0. Every input is checked before counting starts
    (CorpusError: missing file or unmatched glob; OutputError: an existing output without
    ``--overwrite``, or an output that is an input)."""
    from ..distributed.sources import iter_documents, resolve_inputs
    from ..formats.count_table import write_count_table
    from ..errors import OutputError
    kinds = resolve_inputs(args.inputs)
    out: Path = args.output
    if out.is_dir():
        raise OutputError(out, "is a folder; give the table's file name")
    if out.exists() and not args.overwrite:
        raise OutputError(out, "exists (pass --overwrite to replace it)")
    if any(out.resolve() == Path(f).resolve() for files in kinds.values() for f in files if "://" not in f):
        raise OutputError(out, "is one of the inputs")
    check_writable(out)
    pre = ByteLevel() if args.units == "bytes" else Metaspace(units=args.units)
    normalizer = normalizer_from_name(args.normalizer)
    counting_pre, counting_norm = counting_pipeline(pre, normalizer, args.special_token)
    if args.engine == "ray":
        from ..distributed.counting import count_words_distributed
        wc = count_words_distributed(args.inputs, pre, normalizer=normalizer, special_tokens=args.special_token,
                                     text_column=args.text_column, encoding_errors=args.encoding_errors,
                                     address=args.ray_address, num_cpus=args.num_proc, max_retries=args.max_retries,
                                     show_progress=not args.quiet)
    else:
        from collections import Counter
        wc = Counter()
        if "text" in kinds:
            wc.update(count_corpus(kinds["text"], counting_pre, counting_norm, encoding_errors=args.encoding_errors,
                                   num_proc=args.num_proc, show_progress=not args.quiet))
        for kind in ("json", "parquet"):
            for f in kinds.get(kind, []):
                wc.update(count_words(iter_documents(f, kind, args.text_column), counting_pre, counting_norm,
                                      num_proc=args.num_proc, show_progress=not args.quiet, source=f))
    summary = write_count_table(wc, out, counting_pre)
    omitted = ""
    if summary.omitted_words:
        omitted = (f"; {summary.omitted_words:,} words ({summary.omitted_occurrences:,} occurrences) left out: "
                   "a TSV entry cannot hold them (tab, line break or NUL; write .parquet to keep every word)")
    print(f"{sum(wc.values()):,} words, {len(wc):,} distinct, counted by the {args.engine} engine; wrote "
          f"{summary.words:,} entries to {out}{omitted}")
    return 0


def tokenize(args: argparse.Namespace) -> int:
    """``hf-greedtok tokenize``: encode the inputs' documents with the folder DIR into the parquet
    folder ``--output`` (:func:`hf_greedtok.distributed.tokenize_dataset`, ``--engine local``:
    this process's native encoder threads; ``ray``: an actor pool); returns 0. Inputs, the
    folder and the output are checked before any work (CorpusError, GreedTokFileError,
    OutputError, FileExistsError: exit 2)."""
    from ..distributed.tokenizing import tokenize_dataset
    from .._threads import available_cores
    local = args.engine == "local"
    result = tokenize_dataset(args.inputs, args.tokenizer, args.output, engine=args.engine, mode=args.mode,
                              text_column=args.text_column, add_special_tokens=not args.no_special_tokens,
                              attention_mask=args.attention_mask, encoding_errors=args.encoding_errors,
                              batch_size=args.batch_size, overwrite=args.overwrite, address=args.ray_address,
                              max_retries=args.max_retries,
                              num_cpus=None if local else args.num_proc,
                              num_threads=(args.num_proc or available_cores()) if local else 1,
                              show_progress=not args.quiet)
    print(f"{result.rows:,} documents tokenized by the {args.engine} engine into {len(result.files)} parquet "
          f"file(s) in {result.path}")
    return 0
