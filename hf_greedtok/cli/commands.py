"""The commands of ``hf-greedtok`` (:mod:`hf_greedtok.cli` parses the arguments and calls
them; it imports this module only once a command runs, so ``--help`` stays fast). Each command
takes the parsed arguments and returns the exit status; errors are raised for ``cli.main``
to report in one line."""
from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from ..core import Tokenizer
from ..defaults import DEFAULT_MAX_TOKEN_LENGTH, DEFAULT_MODE
from ..errors import CorpusError
from ..experiments.evaluation import evaluate_texts, evaluate_word_counts
from ..formats.greedtok_json import FILE_NAME
from ..hf.folder import (TOKENIZER_FILE, check_tokenizer_folder, is_greedtok_config, load_greedtok_backend,
                         read_folder_json, save_greedtok_folder)
from ..indic.cbpe import CBPETrainer
from ..indic.lookup import MorphLookup
from ..normalizers import UnicodeNormalizer, normalizer_from_name, replace_surrogates
from ..pre_tokenizers import ByteLevel, Metaspace
from ..pre_tokenizers.patterns import DEFAULT_SPLIT
from ..special_tokens import counting_pipeline
from ..trainers import GreedTokTrainer, bpe_vocab_size, singleton_alphabet
from ..word_counts import check_learnable, count_corpus, count_words, read_token_list
from ..formats.manifest import COMPARE, HIERARCHICAL, TOKENIZER, TSR
from ..output_folders import check_target, check_writable, write_folder

if TYPE_CHECKING:
    from tokenizers import Tokenizer as HFTokenizer


def _input_files(args: argparse.Namespace) -> list[Path]:
    """Every file the command reads: inputs, lookup, candidates."""
    extra = [getattr(args, name, None) for name in ("lookup", "candidates")]
    return ([Path(i) for i in args.inputs] + [Path(e) for e in extra if e is not None]
            + [Path(e) for e in getattr(args, "eval", None) or []])


# the kind of folder each command writes (its manifest's "kind"), which its --overwrite replaces
_KINDS = {"train": TOKENIZER, "compare": COMPARE, "tsr": TSR, "hierarchical": HIERARCHICAL}


def _refuse_existing(args: argparse.Namespace) -> None:
    """The output checks of :func:`hf_greedtok.output_folders.write_folder`, run before any training
    too, so that a long run never ends in one of these errors."""
    check_target(args.output, kind=_KINDS[args.command], overwrite=args.overwrite, inputs=_input_files(args))
    check_writable(args.output)


def _write_dir(args: argparse.Namespace, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a new folder beside ``--output``, then put it in place atomically,
    its manifest (with the command's kind) last."""
    write_folder(args.output, write, kind=_KINDS[args.command], overwrite=args.overwrite,
                 inputs=_input_files(args))


def _check_uri_inputs(inputs: Sequence[str], engine: str) -> None:
    """URI inputs (``s3://...``), named whole, before any work: the local engine reads local
    files only; for Ray each is looked up with pyarrow's filesystem here, so that a missing
    object or an unreachable bucket is one line naming it rather than a failed Ray task.

    Raises:
        CorpusError: a URI with the local engine, or one pyarrow cannot read (:func:`hf_greedtok.remote.check_uri`).
        ImportError: a URI without pyarrow.
    """
    from ..remote import RAY_READS_URIS, check_uri, is_uri
    for uri in filter(is_uri, map(str, inputs)):
        if engine != "ray":
            raise CorpusError(uri, None, f"a URI: the local engine reads local files; {RAY_READS_URIS}")
        check_uri(uri)


def _check_pattern(pattern: Optional[str], units: str) -> None:
    """A split pattern is given only for byte-level units (train and count alike)."""
    if pattern is not None and units != "bytes":
        raise ValueError(f"--pattern {pattern} is a byte-level split; --units {units} splits at spaces (Metaspace)")


def _resolve_units(args: argparse.Namespace) -> str:
    from_pre = {"byte-level": "bytes", "metaspace": "chars", None: None}[args.pre_tokenizer]
    if args.units and from_pre and (from_pre == "bytes") != (args.units == "bytes"):
        raise ValueError(f"--pre-tokenizer {args.pre_tokenizer} contradicts --units {args.units}")
    units = args.units or from_pre or ("marks" if args.algorithm == "cbpe" else "bytes")
    _check_pattern(args.pattern, units)
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
    _check_uri_inputs(args.inputs, args.engine)
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
    pre = ByteLevel(args.pattern or DEFAULT_SPLIT) if units == "bytes" else Metaspace(units=units, lookup=lookup)
    if args.bpe_candidates is not None and (units != "bytes" or args.candidates):
        raise ValueError("--bpe-candidates chooses among byte-level BPE tokens: it needs --units bytes and no "
                         "--candidates")
    if args.bpe_candidates is not None:
        # Refused before counting: at byte level k is known without the words (256 fixed singletons).
        k = args.vocab_size if args.vocab_size is not None else args.total_vocab_size - 256 - len(specials)
        bpe_vocab_size(args.bpe_candidates, max(k, 1), "--bpe-candidates")
    candidates = read_token_list(args.candidates) if args.candidates else None   # before the long part
    wc = _training_counts(args, pre, normalizer, specials)
    k = args.vocab_size
    if k is None:
        pinned = [pre.word_units(t) for t in args.pin or ()]
        fixed = 256 + len(singleton_alphabet(itertools.chain(map(pre.word_units, wc), pinned), pre.unit_kind))
        k = args.total_vocab_size - fixed - len(specials)
        if k < 1:
            raise ValueError(f"--total-vocab-size {args.total_vocab_size} leaves no learned tokens: "
                             f"{fixed} singletons and {len(specials)} special tokens take {fixed + len(specials)}")
    trainer = GreedTokTrainer(
        k, max_token_length=args.max_token_length, min_frequency=args.min_frequency or 1,
        candidates=candidates, bpe_candidates=args.bpe_candidates, pinned_tokens=args.pin, special_tokens=specials,
        pre_tokenizer=pre, normalizer=normalizer, show_progress=not args.quiet, num_threads=args.num_threads)
    tok = trainer.train_from_counts(wc, source=", ".join(args.inputs))
    tok.mode = args.mode or DEFAULT_MODE
    def write(folder: Path) -> None:
        # the folder GreedTokTokenizerFast.save_pretrained writes, without importing transformers
        save_greedtok_folder(tok, folder, mode=tok.mode, add_bos_token=args.add_bos_token,
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
                    f"{_training_tokens_per_word(tok, wc, info['tokens_per_word'], args.num_threads)}; "
                    f"trained in {took['train_seconds']:.2f} s (setup {took['setup_seconds']:.2f} s)")


def _training_tokens_per_word(tok: Tokenizer, wc, cover_per_word: float, num_threads: Optional[int]) -> str:
    """Tokens per word of the encoder ``tok`` saves (its mode) on the training words ``wc``,
    exactly: the native encoder on the counted words, count-weighted. Cover's number
    (``cover_per_word``, the trainer's objective per word, which cover encoding reproduces) is
    shown beside optimal's, which never exceeds it."""
    from .._threads import available_cores
    from ..experiments.evaluation import total_tokens
    counts = [int(c) for c in wc.values()]
    tokens = total_tokens(tok, list(wc), counts, tok.mode, num_threads or available_cores())
    shown = f"{tokens / sum(counts):.4f} tokens per word on the training words ({tok.mode}, the saved encoder"
    return shown + (f"; cover {cover_per_word:.4f})" if tok.mode != "cover" else ")")


def _train_bpe(args, units, normalizer, lookup, specials, named):
    from transformers import PreTrainedTokenizerFast

    from ..hf.tokenization_greedtok import MorphLookupTokenizerFast
    only_greedtok = [flag for flag, used in (
        ("--pin", args.pin), ("--candidates", args.candidates), ("--bpe-candidates", args.bpe_candidates),
        ("--mode", args.mode is not None),
        ("--max-token-length", args.max_token_length != DEFAULT_MAX_TOKEN_LENGTH)) if used]
    if only_greedtok:
        raise ValueError(f"{', '.join(only_greedtok)}: GreedTok options, not used by --algorithm {args.algorithm}")
    trainer = CBPETrainer(num_merges=args.vocab_size, vocab_size=args.total_vocab_size, units=units,
                          lookup=lookup, normalizer=normalizer, special_tokens=specials,
                          min_frequency=args.min_frequency or 0, pattern=args.pattern or DEFAULT_SPLIT,
                          show_progress=not args.quiet)
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


def _vocabulary_file(path: Path) -> bool:
    """Whether ``path`` names a vocabulary file (.tiktoken, tokenizer.json) rather than a folder."""
    return path.is_file() or path.suffix in (".tiktoken", ".json")


def evaluate(args: argparse.Namespace) -> int:
    """``hf-greedtok evaluate``: print the metrics of a saved tokenizer (or of a vocabulary
    file: a .tiktoken file or a byte-level BPE tokenizer.json) on the inputs (one JSON object
    with ``--json``); returns 0. Raises GreedTokFileError for a damaged folder or file,
    CorpusError for unreadable inputs."""
    result: dict = {"tokenizer": str(args.tokenizer), "inputs": args.inputs}
    if _vocabulary_file(args.tokenizer):
        from ..experiments.vocabularies import load_vocabulary
        vocab = load_vocabulary(args.tokenizer, pattern=args.pattern)
        greedtok, backend = vocab.native, vocab.backend()
        result["text_metrics_encoder"] = vocab.backend_encoder
    else:
        if args.pattern is not None:
            raise ValueError("--pattern applies to .tiktoken files; a folder's tokenizer has its own split")
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


def _metrics(args: argparse.Namespace, greedtok: Optional[Tokenizer], backend, inputs: Sequence[str],
             gold: Optional[MorphLookup]) -> dict:
    """evaluate's metrics of ``inputs``: GreedTok's word-count metrics (if ``greedtok``), then
    the backend's text metrics (with boundary scores against ``gold``)."""
    result: dict = {}
    if greedtok is not None:
        wc = count_corpus(inputs, *counting_pipeline(greedtok.pre_tokenizer, greedtok.normalizer,
                                                     greedtok.model.special_tokens), counts=args.counts,
                          encoding_errors=args.encoding_errors, prefix_space=not args.no_prefix_space,
                          show_progress=not args.quiet)
        if not wc:
            raise CorpusError(", ".join(inputs), None, "empty corpus: no words to evaluate")
        result.update(evaluate_word_counts(greedtok, wc))
    result.update(evaluate_texts(backend, inputs, counts=args.counts, gold=gold, encoding_errors=args.encoding_errors))
    return result


def encode(args: argparse.Namespace) -> int:
    """``hf-greedtok encode``: print a text's tokens and ids as JSON; returns 0 when decoding
    gives the text back (normalized, if the tokenizer normalizes), else 1. A vocabulary file
    (.tiktoken, byte-level BPE tokenizer.json) encodes with its own BPE, or with ``--mode``."""
    if _vocabulary_file(args.tokenizer):
        from ..experiments.vocabularies import load_vocabulary
        vocab = load_vocabulary(args.tokenizer, pattern=args.pattern)
        tok = vocab.native
        ids = vocab.own_encode(args.text) if args.mode is None else tok.encode(args.text, mode=args.mode,
                                                                              allow_special=False)
        tokens, decoded = [tok.id_to_token(i) for i in ids], tok.decode(ids)
        form = tok.normalizer.form if tok.normalizer else None
        return _print_encoding(args.text, tokens, ids, decoded, form)
    if args.pattern is not None:
        raise ValueError("--pattern applies to .tiktoken files; a folder's tokenizer has its own split")
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
    return _print_encoding(args.text, tokens, ids, decoded, form)


def _print_encoding(text: str, tokens: list, ids: list[int], decoded: str, form: Optional[str]) -> int:
    expected = replace_surrogates(text)
    expected = UnicodeNormalizer(form)(expected) if form else expected
    print(json.dumps({"tokens": tokens, "ids": ids, "decoded": decoded, "round_trip": decoded == text},
                     ensure_ascii=False))
    return 0 if decoded == expected else 1


def _corpus_counts(args: argparse.Namespace, inputs: Sequence[str], pre: ByteLevel) -> dict:
    wc = count_corpus(inputs, pre, None, counts=args.counts, encoding_errors=args.encoding_errors,
                      num_proc=args.num_proc, prefix_space=not args.no_prefix_space, show_progress=not args.quiet)
    check_learnable(wc, pre, ", ".join(map(str, inputs)))
    return wc


def compare(args: argparse.Namespace) -> int:
    """``hf-greedtok compare``: GreedTok vs BPE vs GreedWMC on one corpus, written as report.md,
    report.json and plots to ``--output``; with ``--eval`` or ``--holdout-fraction`` also every
    peer in and out of sample (:mod:`hf_greedtok.experiments.heldout`); returns 0."""
    from ..experiments.compare import compare_word_counts
    held_out = bool(args.eval) or args.holdout_fraction is not None
    if held_out:
        _check_held_out_args(args)
    _refuse_existing(args)
    if not args.no_plots:
        from ..experiments.plots import _pyplot
        _pyplot()            # fail before hours of training, not after
    pre = ByteLevel(args.pattern)
    source = ", ".join(Path(i).name for i in args.inputs)
    if held_out:
        train_lines, texts = _held_out_texts(args)
        counts = count_words(train_lines, pre, None, num_proc=args.num_proc, show_progress=not args.quiet,
                             source=source)
        check_learnable(counts, pre, source)
        sp_peers = _sentencepiece_first(args, train_lines, counts)
    else:
        counts = _corpus_counts(args, args.inputs, pre)
    result = compare_word_counts(counts, args.vocab_sizes, targets=args.targets,
                                 pattern=args.pattern, max_token_length=args.max_token_length, source=source,
                                 num_threads=args.num_threads, show_progress=not args.quiet)
    result.settings["inputs"] = [str(i) for i in args.inputs]
    if held_out:
        from ..experiments.compare import heldout_grid
        result.heldout = _measure_held_out(args, result, train_lines, counts, texts, source, sp_peers)
        result.heldout_grid = heldout_grid(
            result, [(name, count_words(lines, pre, None, num_proc=args.num_proc, show_progress=False, source=name))
                     for name, _, lines in texts], args.num_threads)

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
    if held_out:
        for row in result.heldout.rows:
            if row["table"] == "main" and row["peer"] == "GreedTok (cover)":
                print(f"GreedTok (cover) vs HF BPE on {row['text']} ({row['kind']}): "
                      f"{100 * (row['ratio_to_reference'] - 1):+.2f} % tokens")
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def _check_held_out_args(args: argparse.Namespace) -> None:
    """Held-out options that cannot work, refused before any reading or training."""
    from ..word_counts import check_input_file
    if args.counts:
        raise ValueError("--eval and --holdout-fraction measure running text line by line; they cannot be "
                         "used with --counts (give the text files instead)")
    for path in [*args.inputs, *args.eval]:
        check_input_file(Path(path))
    if not args.no_sentencepiece:
        from ..experiments.peers import sentencepiece_module
        sentencepiece_module()


def _held_out_texts(args: argparse.Namespace) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """The training lines and the out-of-sample texts (name, kind, lines): the held-out split of
    the inputs first (:mod:`hf_greedtok.experiments.holdout`), then each ``--eval`` file."""
    from ..experiments.heldout import OUT_OF_SAMPLE
    from ..experiments.holdout import read_lines, split_lines
    lines = read_lines(args.inputs, args.encoding_errors)
    texts, held_name = [], None
    if args.holdout_fraction is not None:
        lines, held = split_lines(lines, args.holdout_fraction)
        held_name = f"held-out {args.holdout_fraction:g} of the inputs"
        texts.append((held_name, OUT_OF_SAMPLE, held))
    names = [Path(e).name for e in args.eval]
    for path, name in zip(args.eval, names):
        texts.append((name if names.count(name) == 1 else str(path), OUT_OF_SAMPLE,
                      read_lines([path], args.encoding_errors)))
    for name, _, text in [("the training lines", None, lines), *texts]:
        if not any(line.split() for line in text):     # refused now, not after the training
            hint = " (hold out a larger --holdout-fraction, or give more lines)" if name == held_name else ""
            raise CorpusError(name, None, "no words to measure" + hint)
    return lines, texts


def _sentencepiece_first(args: argparse.Namespace, train_lines, counts) -> dict:
    """The SentencePiece peers ({} with --no-sentencepiece), trained before GreedTok: SentencePiece
    refuses a vocabulary too large for the text, and that should not come after hours of training."""
    if args.no_sentencepiece:
        return {}
    from ..experiments.heldout import sentencepiece_peers
    seconds: dict = {}
    peers = sentencepiece_peers(train_lines, counts, 256 + max(args.vocab_sizes), args.pattern,
                                num_threads=args.num_threads, seconds=seconds)
    return {**peers, "seconds": seconds}


def _measure_held_out(args, result, train_lines, counts, texts, source, sp_peers: dict):
    """Train HF Unigram at the comparison's largest vocabulary and measure every peer."""
    import time

    from ..experiments.heldout import IN_SAMPLE, measure, train_peers
    vocab_size = 256 + result.settings["k_max"]
    trained, seconds = result.trained, dict(sp_peers.get("seconds", {}))
    peers = train_peers(train_lines, counts, vocab_size, args.pattern, greedtok=trained["greedtok"],
                        wmc=trained["wmc"], bpe=trained["bpe"], sentencepiece=sp_peers,
                        num_threads=args.num_threads, show_progress=not args.quiet, seconds=seconds)
    started = time.perf_counter()
    split = f"holdout fraction {args.holdout_fraction:g}, " if args.holdout_fraction is not None else ""
    training = f"{source} ({split}{sum(1 for line in train_lines if line):,} non-empty lines)"
    heldout = measure(peers, [("training text", IN_SAMPLE, train_lines), *texts],
                      settings={"vocab_size": vocab_size, "training": training,
                                "split": peers["main"][0].pre_tokenization,
                                "holdout_fraction": args.holdout_fraction, "eval": [str(e) for e in args.eval],
                                "seconds": seconds})
    seconds["measuring"] = round(time.perf_counter() - started, 2)
    return heldout


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
        from ..distributed.session import ray_session
        with ray_session(args.ray_address, args.num_proc, quiet=args.quiet):
            result = train_hierarchical(domains, args.vocab_size, local_runner=RayRunner(max_retries=args.max_retries),
                                        **settings)
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
    from ..distributed.sources import read_documents, resolve_inputs
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
    _check_uri_inputs(args.inputs, args.engine)
    _check_pattern(args.pattern, args.units)
    pre = ByteLevel(args.pattern or DEFAULT_SPLIT) if args.units == "bytes" else Metaspace(units=args.units)
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
                docs = read_documents(f, kind, args.text_column, args.encoding_errors)
                wc.update(count_words(docs, counting_pre, counting_norm, num_proc=args.num_proc,
                                      show_progress=not args.quiet, source=f))
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
    this process's native encoder threads; ``ray``: Ray Core tasks); returns 0. Inputs, the
    folder and the output are checked before any work (CorpusError, GreedTokFileError,
    OutputError, FileExistsError: exit 2)."""
    from ..distributed.tokenizing import tokenize_dataset
    from .._threads import available_cores
    local = args.engine == "local"
    _check_uri_inputs(args.inputs, args.engine)
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


def tsr(args: argparse.Namespace) -> int:
    """``hf-greedtok tsr``: token-saving ratio and tokenization tax per language for each
    vocabulary (:func:`hf_greedtok.experiments.tsr.tsr_report`), written as report.md,
    report.json and plots to ``--output``; returns 0. Vocabularies and texts are read before
    anything is written (GreedTokFileError, CorpusError, ValueError: exit 2)."""
    from ..experiments.tsr import read_parallel, read_texts, tsr_report
    from ..experiments.vocabularies import load_vocabulary
    named = {}
    for item in args.text or ():
        lang, sep, path = item.partition("=")
        if not sep or not lang or not path:
            raise ValueError(f"--text {item!r}: expected LANG=FILE")
        if lang in named:
            raise ValueError(f"--text: language {lang} given twice ({named[lang]} and {path})")
        named[lang] = path
    args.inputs = [*map(str, args.vocabularies), *([str(args.parallel)] if args.parallel else named.values())]
    _refuse_existing(args)
    if not args.no_plots:
        from ..experiments.plots import _pyplot
        _pyplot()
    text = read_parallel(args.parallel) if args.parallel else read_texts(named)
    vocabularies = [load_vocabulary(v, pattern=args.pattern) for v in args.vocabularies]
    names = [v.name for v in vocabularies]
    if len(set(names)) != len(names):
        raise ValueError(f"two vocabularies have the same name: {names}; rename a file or folder")
    report = tsr_report(vocabularies, text, min_strings=args.min_strings)

    def write(folder: Path) -> None:
        files = []
        if not args.no_plots:
            from ..experiments.tsr_map import maps_available, write_tsr_maps
            from ..experiments.tsr_plots import write_tsr_plots
            files = [p.name for p in write_tsr_plots(report, folder)]
            missing = maps_available()
            if missing is None:
                files += [p.name for p in write_tsr_maps(report, folder)]
            else:
                report.settings["world_map"] = f"not drawn: {missing}"
        markdown = report.to_markdown() + "\n" + "\n".join(f"![{n}]({n})" for n in files) + "\n"
        (folder / "report.md").write_text(markdown, encoding="utf-8")
        (folder / "report.json").write_text(report.to_json(), encoding="utf-8")

    _write_dir(args, write)
    for v in report.vocabularies:
        s = report.summary(v["name"])
        tax = (f"; tax {s['lowest_tax'][1]:.2f}x ({s['lowest_tax'][0]}) .. {s['highest_tax'][1]:.2f}x "
               f"({s['highest_tax'][0]})" if s["lowest_tax"] else "")
        print(f"{v['name']}: {s['languages']} languages, median TSR {100 * s['median_tsr']:.2f}%, highest "
              f"{s['highest_tsr'][0][0]} {100 * s['highest_tsr'][0][1]:.2f}%{tax}")
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0
