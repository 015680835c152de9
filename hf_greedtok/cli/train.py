"""``hf-greedtok train``: count the inputs' words, train GreedTok (or BPE/CBPE) and write a
transformers folder. The trainers are imported when the command runs, not at ``--help``."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from ..defaults import (DEFAULT_CHUNK_BUDGET_MB, DEFAULT_MAX_TOKEN_LENGTH, DEFAULT_MODE, DEFAULT_WORD_BUDGET_MB,
                        SANDHI_POLICIES)
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, SPLIT_NAMES, find_split, superword_split
from ..errors import CorpusError
from .options import (INPUT_HELP, MODES, NORMALIZERS, UNITS, above_one, add_corpus_options, add_engine_options,
                      add_text_column_option, count_int, local_path, positive_float, vocab_int, word_tokens_int,
                      workers_int)

HELP = "train a tokenizer (GreedTok, BPE or CBPE) and save it to a new directory"


def add_arguments(t: argparse.ArgumentParser) -> None:
    """train's arguments, in the order ``--help`` lists them."""
    t.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=f"{INPUT_HELP}, or - for standard input (local engine; text lines, JSON Lines with "
                        "--text-column); with --counts: count tables (TSV, compressed or not, or .parquet; files, "
                        "globs or directories)")
    size = t.add_mutually_exclusive_group(required=True)
    size.add_argument("--vocab-size", "-k", type=vocab_int,
                      help="K, the number of learned tokens: GreedTok's k, or BPE/CBPE merges (on top of the "
                           "singletons, unit merges, byte fallback and special tokens)")
    size.add_argument("--total-vocab-size", type=vocab_int, help="the final vocabulary size instead (every id)")
    t.add_argument("--algorithm", choices=["greedtok", "bpe", "cbpe"], default="greedtok",
                   help="greedtok (partition cover), bpe (HF tokenizers' BPE) or cbpe (MorphTok's constrained BPE)")
    _add_pipeline_options(t)
    _add_special_token_options(t)
    _add_greedtok_options(t)
    add_text_column_option(t)
    add_engine_options(t, "count the words", "counting")
    add_corpus_options(t, "GreedTok: longest candidate token in singletons, inclusive (default %(default)s)")


def _add_pipeline_options(t: argparse.ArgumentParser) -> None:
    """Units, lookup, pre-tokenizer and normalizer of the tokenizer to train."""
    t.add_argument("--units", choices=UNITS, default=None,
                   help="singletons: bytes (byte level), chars (Metaspace), marks (base + combining marks) or "
                        "vowels (base + dependent vowel signs); default bytes, for cbpe marks")
    t.add_argument("--lookup", type=local_path, help="morphology lookup table (TSV word<TAB>seg|seg, or CSV "
                                               "word,segmentation,language with +)")
    t.add_argument("--sandhi", choices=SANDHI_POLICIES, default=None,
                   help="with --lookup: entries whose segments do not spell the word: skip (default, counted) or "
                        "error")
    t.add_argument("--lookup-language", help="with a CSV lookup: keep only rows of this language")
    t.add_argument("--min-frequency", type=count_int, default=None,
                   help="minimum count-weighted candidate (GreedTok, default 1) or pair (BPE, default 0) frequency")
    t.add_argument("--pre-tokenizer", default=None, choices=["byte-level", "metaspace"],
                   help="same as --units bytes / --units chars")
    t.add_argument("--pattern", choices=SPLIT_NAMES, default=None,
                   help="byte level: the split regex; gpt4-marks (default: GPT-4's split whose letter runs keep "
                        "their combining marks, as o200k's do, so Devanagari and other Indic words are not cut at "
                        "every vowel sign; on text without marks it is gpt4), gpt4 (cl100k's), gpt2, o200k "
                        "(GPT-4o's) or whitespace (the GreedTok paper's space-delimited words); with --superwords, "
                        "the split of its word-level stage (the chunks' splits, superwords and superwords-digits, are "
                        "given as --superwords [--digits-in-chunks])")
    t.add_argument("--normalizer", default=None, choices=NORMALIZERS,
                   help="Unicode normalization; default NFC for marks/vowels units or with a lookup, else none")


def _add_special_token_options(t: argparse.ArgumentParser) -> None:
    t.add_argument("--special-token", action="append", default=[], help="a special token (repeatable)")
    t.add_argument("--bos-token", help="beginning-of-sequence special token (added to the special tokens)")
    t.add_argument("--eos-token", help="end-of-sequence special token (added to the special tokens)")
    t.add_argument("--pad-token", help="padding special token (added to the special tokens)")
    t.add_argument("--add-bos-token", action="store_true", help="the HF tokenizer adds BOS to every sequence")
    t.add_argument("--add-eos-token", action="store_true", help="the HF tokenizer adds EOS to every sequence")


def _add_greedtok_options(t: argparse.ArgumentParser) -> None:
    """The options only GreedTok uses (BPE and CBPE refuse them)."""
    t.add_argument("--mode", choices=MODES, default=None,
                   help="default encoder of a saved GreedTok tokenizer (default: optimal, the fewest tokens "
                        "for every word; cover is the paper's Algorithm 4)")
    t.add_argument("--pin", action="append", default=[], help="a token placed first (repeatable)")
    t.add_argument("--candidates", type=local_path, help="file with one candidate token per line; restricts T")
    t.add_argument("--bpe-candidates", type=above_one, default=None, metavar="F",
                   help="GreedTok, byte level: choose the tokens among those of HF BPE trained on the same words "
                        "at F x the total vocabulary (1.75: fewer tokens on text of other domains, several times "
                        "the training time; docs/training.md, Word-level tokenizers)")
    t.add_argument("--num-threads", type=workers_int, default=None,
                   help="GreedTok trainer threads (default: all cores); the result does not depend on it")
    t.add_argument("--superwords", action="store_true",
                   help="GreedTok, byte level: tokens may span words (word-level GreedTok to --word-tokens tokens "
                        "on the words of --pattern, then GreedTok on superword chunks, runs of words within a "
                        "line; the saved tokenizer splits text into chunks; docs/training.md, Superwords)")
    t.add_argument("--digits-in-chunks", action="store_true",
                   help="with --superwords: digits join the chunks (split superwords-digits), so tokens may span "
                        "numbers and words; fewer tokens, but numbers are no longer cut in groups of 3 (docs/training.md, "
                        "Superwords)")
    t.add_argument("--word-tokens", type=word_tokens_int, default=None, metavar="T",
                   help="with --superwords: tokens of the word-level stage (default: a quarter of the learned "
                        "tokens); 0 trains on the chunks from scratch")
    t.add_argument("--chunk-budget-mb", type=positive_float, default=None, metavar="MB",
                   help="with --superwords: the most distinct chunk text the chunk stage trains on, in MB "
                        f"(default {DEFAULT_CHUNK_BUDGET_MB:g}; about 100 MB of memory per MB of English); past "
                        "it, it trains on a sample of the chunks (those seen often counted exactly; docs/training.md, "
                        "Superwords)")
    t.add_argument("--word-budget-mb", type=positive_float, default=None, metavar="MB",
                   help="with --superwords: the most distinct word text the word-level stage trains on, in MB "
                        f"(default {DEFAULT_WORD_BUDGET_MB:g}; about 60 MB of memory per MB); past it, it trains on "
                        "a sample of the words drawn as the chunks' is")
    t.add_argument("--max-memory", type=positive_float, default=None, metavar="GB",
                   help="GreedTok: refuse (exit 2, nothing written) a training whose estimated peak memory exceeds "
                        "GB (10^9 bytes); with --superwords the chunk budget is checked before counting, the "
                        "counted chunks before training, and counting keeps to half of GB (past it the counts "
                        "spill to disk, TMPDIR; default 1 GB). The estimate is printed either way (unless --quiet)")


def run(args: argparse.Namespace) -> int:
    """Count the inputs' words, train GreedTok (or BPE/CBPE) and write the transformers folder
    ``--output``; returns 0. Raises ValueError, CorpusError or OSError for bad arguments or
    inputs (``cli.main`` prints them in one line, exit 2)."""
    from ..defaults import default_normalizer
    from ..formats.manifest import TOKENIZER
    from ..normalizers import normalizer_from_name
    from ..word_counts import resolve_corpus
    from .inputs import check_counts_options, check_text_column, check_uri_inputs, stdin_kind
    from .options import check_engine_options, refuse_without
    from .output import refuse_existing, write_output

    out: Path = args.output
    check_engine_options(args)
    refuse_without("--lookup", args.lookup is not None,
                   {"--sandhi": args.sandhi is not None, "--lookup-language": args.lookup_language is not None})
    refuse_existing(args, TOKENIZER)
    check_counts_options(args)
    # the corpus, resolved and checked before any work (count tables are read by their own reader)
    args.input_kinds = None if args.counts else resolve_corpus(args.inputs, stdin=args.engine == "local",
                                                               stdin_kind=stdin_kind(args))
    args.text_column = check_text_column(args, args.input_kinds or {})
    check_uri_inputs(args.inputs, args.engine)
    named = {"bos_token": args.bos_token, "eos_token": args.eos_token, "pad_token": args.pad_token}
    specials = list(dict.fromkeys([*args.special_token, *(t for t in named.values() if t)]))
    for flag, name in (("--add-bos-token", "bos_token"), ("--add-eos-token", "eos_token")):
        if getattr(args, flag[2:].replace("-", "_")) and not named[name]:
            raise ValueError(f"{flag} needs --{name.replace('_', '-')}")
    units = _resolve_units(args)
    norm_name = args.normalizer or default_normalizer(units, bool(args.lookup))
    normalizer = normalizer_from_name(norm_name)
    lookup = _load_lookup(args, normalizer)
    if args.algorithm == "greedtok":
        write, summary = _train_greedtok(args, units, normalizer, lookup, specials, named)
    else:
        write, summary = _train_bpe(args, units, normalizer, lookup, specials, named)
    write_output(args, TOKENIZER, write)   # tokenizer.json, config, model files; manifest last
    if lookup is not None:
        st = lookup.stats
        summary += (f"; lookup {args.lookup}: {st['entries']} words ({st['split_entries']} split), "
                    f"{st['sandhi_skipped']} sandhi entries skipped, {st['conflicting_duplicates']} "
                    "conflicting duplicates ignored")
    print(f"{summary}; saved to {out}")
    return 0


def _resolve_units(args: argparse.Namespace) -> str:
    """The units of --units, --pre-tokenizer and --algorithm together; ValueError where they disagree."""
    from .inputs import check_pattern

    from_pre = {"byte-level": "bytes", "metaspace": "chars", None: None}[args.pre_tokenizer]
    if args.units and from_pre and (from_pre == "bytes") != (args.units == "bytes"):
        raise ValueError(f"--pre-tokenizer {args.pre_tokenizer} contradicts --units {args.units}")
    units = args.units or from_pre or ("marks" if args.algorithm == "cbpe" else "bytes")
    check_pattern(args.pattern, units)
    if args.algorithm == "cbpe" and units not in ("marks", "vowels"):
        raise ValueError(f"--algorithm cbpe constrains script units: use --units marks or vowels "
                         f"(for --units {units} use --algorithm bpe)")
    if args.algorithm == "bpe" and units in ("marks", "vowels"):
        raise ValueError(f"BPE over {units} units is CBPE: use --algorithm cbpe")
    if args.lookup and units == "bytes":
        raise ValueError("--lookup needs --units chars, marks or vowels (Metaspace words), not bytes")
    return units


def _load_lookup(args: argparse.Namespace, normalizer):
    """The --lookup table (None without one); CorpusError if it has no usable entry."""
    if not args.lookup:
        return None
    from ..indic.lookup import MorphLookup

    lookup = MorphLookup.load(args.lookup, **({} if args.sandhi is None else {"sandhi": args.sandhi}),
                              language=args.lookup_language,
                              normalizer=None if normalizer is None else normalizer.form)
    if not lookup.entries:
        st = lookup.stats
        raise CorpusError(str(args.lookup), None, f"no usable entries ({st['rows']} rows read, "
                                                  f"{st['sandhi_skipped']} sandhi rows skipped, "
                                                  f"{st['filtered_language']} of other languages)")
    return lookup


def _train_greedtok(args, units, normalizer, lookup, specials, named):
    """Train GreedTok; returns the folder writer and the summary line."""
    from ..hf.folder import save_greedtok_folder
    from ..pre_tokenizers import ByteLevel, Metaspace
    from ..trainers import bpe_vocab_size, learned_tokens
    from ..word_counts import read_token_list
    from .inputs import closing_counts

    _check_superword_options(args, units)
    pre = ByteLevel(args.pattern or DEFAULT_SPLIT) if units == "bytes" else Metaspace(units=units, lookup=lookup)
    if args.superwords:
        pre = ByteLevel(superword_split(args.digits_in_chunks).name)
    if args.bpe_candidates is not None and (units != "bytes" or args.candidates):
        raise ValueError("--bpe-candidates chooses among byte-level BPE tokens: it needs --units bytes and no "
                         "--candidates")
    if args.bpe_candidates is not None:
        # Refused before counting: at byte level k is known without the words (256 fixed singletons).
        k = args.vocab_size if args.vocab_size is not None else learned_tokens(
            args.total_vocab_size, 0, len(specials), "--total-vocab-size")
        bpe_vocab_size(args.bpe_candidates, k, "--bpe-candidates")
    candidates = read_token_list(args.candidates) if args.candidates else None   # before the long part
    # (a missing input is left to the counter, which names it)
    if args.superwords and args.max_memory is not None and not args.counts and args.engine == "local":
        from ..trainers.memory_estimate import chunk_budget_check

        # the files' sizes on disk (a compressed file's text is larger; standard input's is unknown)
        chunk_budget_check(args.chunk_budget_mb or DEFAULT_CHUNK_BUDGET_MB,
                           sum(Path(f).stat().st_size for fs in args.input_kinds.values() for f in fs if f != "-"),
                           args.max_memory)
    with closing_counts(_training_counts(args, pre, normalizer, specials)) as wc:
        k = args.vocab_size if args.vocab_size is not None else _learned_tokens(args, pre, wc, specials)
        trainer = _greedtok_trainer(args, k, pre, normalizer, candidates, specials)
        if args.superwords:
            # stage 1's words and stage 2's bounded chunks; the whole chunk table (run files, Ray
            # partitions and session) is freed here
            wc = trainer.reduce_counts(wc, ", ".join(args.inputs))
    tok, shortfall = caught_shortfall(lambda: trainer.train_from_counts(wc, source=", ".join(args.inputs)))
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
    print_warnings(shortfall)
    stop = f" (stopped early: {info['size_shortfall']['cause']})" if "size_shortfall" in info else ""
    curriculum = info.get("curriculum")
    if curriculum:
        others = (f" and {curriculum['other_script_tokens']} of scripts other than {curriculum['dominant_script']}"
                  if curriculum["other_script_tokens"] else "")
        stop += f" ({curriculum['word_tokens']} word-level tokens{others} first)"
    took = trainer.timings
    return write, (f"learned {info['k_learned']} tokens{stop}; final vocab size {info['final_vocab_size']} "
                    f"(with singletons and {len(specials)} special tokens); "
                    f"{_training_tokens_per_word(tok, wc, info, args.num_threads)}; "
                    f"trained in {took['train_seconds']:.2f} s (setup {took['setup_seconds']:.2f} s)")


def _check_superword_options(args: argparse.Namespace, units: str) -> None:
    """ValueError for options --superwords cannot take, or those of superword training without
    it (--word-tokens, --digits-in-chunks, --chunk-budget-mb, a --pattern of chunks)."""
    from ..formats.count_table import count_flags
    if not args.superwords:
        if args.word_tokens is not None:
            raise ValueError("--word-tokens is the word-level stage of --superwords; add --superwords")
        if args.digits_in_chunks:
            raise ValueError("--digits-in-chunks changes the chunks of --superwords; add --superwords")
        if args.chunk_budget_mb is not None:
            raise ValueError("--chunk-budget-mb bounds the chunk stage of --superwords; add --superwords")
        if args.word_budget_mb is not None:
            raise ValueError("--word-budget-mb bounds the word-level stage of --superwords; add --superwords")
        if args.pattern is not None and find_split(args.pattern).spans_words:
            # word-level GreedTok on chunks would report per chunk what it calls per word, and is
            # --superwords --word-tokens 0 under another name
            flags = count_flags(args.pattern)
            raise ValueError(f"--pattern {args.pattern} is the chunk split of superword training: give {flags} "
                             f"instead (--word-tokens 0 trains on the chunks alone); a table `count --pattern "
                             f"{args.pattern}` wrote is read with {flags} too")
        return
    refused = [flag for flag, used in (("--candidates", args.candidates), ("--bpe-candidates", args.bpe_candidates),
                                       (f"--units {units}", units != "bytes")) if used]
    if refused:
        raise ValueError(f"--superwords trains byte-level GreedTok on its own candidates: drop {', '.join(refused)}")
    if args.pattern is not None and find_split(args.pattern).spans_words:
        raise ValueError("with --superwords, --pattern is the split of the word-level stage (e.g. gpt4-marks); "
                         "the chunks are the superwords split already (--digits-in-chunks: superwords-digits)")
    if args.vocab_size is not None:      # refused before counting when k is known already
        _check_word_tokens(args.word_tokens, args.vocab_size)


def _check_word_tokens(word_tokens: Optional[int], k: int) -> None:
    """ValueError if --word-tokens exceeds the learned tokens k."""
    if word_tokens is not None and word_tokens > k:
        raise ValueError(f"--word-tokens {word_tokens} is more than the {k} learned tokens")


def _greedtok_trainer(args: argparse.Namespace, k: int, pre, normalizer, candidates, specials):
    """The GreedTok trainer the options ask for: superword (two stages) or word level."""
    from ..trainers import GreedTokTrainer

    common = dict(max_token_length=args.max_token_length, pinned_tokens=args.pin, special_tokens=specials,
                  normalizer=normalizer, show_progress=not args.quiet, num_threads=args.num_threads,
                  max_memory_gb=args.max_memory)
    if args.superwords:
        from ..trainers.superwords import GreedTokSuperwordTrainer

        # a floor of 0 is no floor, as 1 is: every candidate occurs at least once
        floor = {} if args.min_frequency is None else {"min_frequency": max(args.min_frequency, 1)}
        _check_word_tokens(args.word_tokens, k)
        budget = {name: value for name, value in (("chunk_budget_mb", args.chunk_budget_mb),
                                                  ("word_budget_mb", args.word_budget_mb)) if value is not None}
        return GreedTokSuperwordTrainer(k=k, word_tokens=args.word_tokens, word_pattern=args.pattern or DEFAULT_SPLIT,
                                        digits_in_chunks=args.digits_in_chunks, **floor, **budget, **common)
    return GreedTokTrainer(k=k, min_frequency=args.min_frequency or 1, candidates=candidates,
                           bpe_candidates=args.bpe_candidates, pre_tokenizer=pre, **common)


def _learned_tokens(args: argparse.Namespace, pre, wc: dict, specials: list[str]) -> int:
    """GreedTok's k for --total-vocab-size (:func:`hf_greedtok.trainers.learned_tokens` with the
    singletons of the words and the pinned tokens); ValueError if nothing is left."""
    import itertools

    from ..trainers import learned_tokens, singleton_alphabet

    pinned = [pre.word_units(t) for t in args.pin or ()]
    alphabet = singleton_alphabet(itertools.chain(map(pre.word_units, wc), pinned), pre.unit_kind)
    return learned_tokens(args.total_vocab_size, len(alphabet), len(specials), "--total-vocab-size")


def caught_shortfall(train) -> tuple:
    """(``train()``'s result, the messages of the
    :class:`~hf_greedtok.errors.VocabularySizeWarning` it raised), for :func:`print_warnings`
    after the checks that refuse the result; other warnings are shown as they would have been."""
    import warnings

    from ..errors import VocabularySizeWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", VocabularySizeWarning)
        result = train()
    messages = []
    for w in caught:
        if issubclass(w.category, VocabularySizeWarning):
            messages.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, messages


def print_warnings(messages) -> None:
    """Each message as one line on stderr, ``hf-greedtok train: warning: ...`` (even with --quiet:
    a size not reached is a result, not progress)."""
    import sys

    from .options import warning_line

    for message in messages:
        print(warning_line("train", message), file=sys.stderr)


def _training_tokens_per_word(tok, wc, info: dict, num_threads: Optional[int]) -> str:
    """Tokens per word of the encoder ``tok`` saves (its mode) on the training words ``wc``,
    exactly: the native encoder on the counted words, count-weighted. Cover's number (from
    ``info``, the trainer's objective, which cover encoding reproduces) is shown beside
    optimal's, which never exceeds it.

    For a superword tokenizer ``wc`` is what
    :meth:`~hf_greedtok.trainers.superwords.GreedTokSuperwordTrainer.reduce_counts` kept: the
    number is over the chunks stage 2 trained on (all, or their sample past the chunk budget),
    still per word (their words under the word-level stage's split, ``info["words"]``), so that
    it compares with a word-level folder's, and tokens per chunk follow it."""
    from .._threads import available_cores
    from ..experiments.evaluation import total_tokens

    if not isinstance(wc, dict):
        wc = wc.sample.table.to_dict()
    counts = [int(c) for c in wc.values()]
    tokens = total_tokens(tok, list(wc), counts, tok.mode, num_threads or available_cores())
    split = find_split(getattr(tok.pre_tokenizer, "pattern", ""))
    chunks = sum(counts)
    superwords = split is not None and split.spans_words
    words = info["words"] if superwords else chunks
    cover = info["objective_tokens"]
    shown = f"{tokens / words:.4f} tokens per word on the training words ({tok.mode}, the saved encoder"
    shown += f"; cover {cover / words:.4f})" if tok.mode != "cover" else ")"
    if superwords:
        shown += f", {tokens / chunks:.4f} per chunk ({chunks:,} chunks of {words:,} words)"
    return shown


def _train_bpe(args, units, normalizer, lookup, specials, named):
    """Train BPE or CBPE (HF tokenizers' trainer); returns the folder writer and the summary line."""
    only_greedtok = [flag for flag, used in (
        ("--pin", args.pin), ("--candidates", args.candidates), ("--bpe-candidates", args.bpe_candidates),
        ("--mode", args.mode is not None), ("--num-threads", args.num_threads is not None),
        ("--superwords", args.superwords),
        ("--word-tokens", args.word_tokens is not None), ("--digits-in-chunks", args.digits_in_chunks),
        ("--chunk-budget-mb", args.chunk_budget_mb is not None), ("--word-budget-mb", args.word_budget_mb is not None),
        ("--max-memory", args.max_memory is not None),
        ("--max-token-length", args.max_token_length != DEFAULT_MAX_TOKEN_LENGTH)) if used]
    if only_greedtok:
        raise ValueError(f"{', '.join(only_greedtok)}: GreedTok options, not used by --algorithm {args.algorithm}")
    from transformers import PreTrainedTokenizerFast      # after the refusals, which need none of it

    from ..hf.tokenization_greedtok import MorphLookupTokenizerFast
    from ..trainers.cbpe import CBPETrainer

    trainer = CBPETrainer(num_merges=args.vocab_size, vocab_size=args.total_vocab_size, units=units,
                          lookup=lookup, normalizer=normalizer, special_tokens=specials,
                          min_frequency=args.min_frequency or 0, pattern=args.pattern or DEFAULT_SPLIT,
                          show_progress=not args.quiet)
    wc = _training_counts(args, trainer.pre_tokenizer, trainer.normalizer, specials)
    backend, shortfall = caught_shortfall(lambda: trainer.train_from_counts(wc, source=", ".join(args.inputs)))
    if trainer.training_info["learned_merges"] == 0:
        raise CorpusError(", ".join(args.inputs), None, "nothing to learn: no pair of units to merge")
    print_warnings(shortfall)
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


def _training_counts(args: argparse.Namespace, pre, normalizer, specials):
    """Words of the inputs as encoding sees them: special tokens cut out first (special_tokens);
    ``--engine ray`` counts them on Ray (:func:`hf_greedtok.distributed.count_words_distributed`,
    equal to counting here word for word). A dict, or with ``--superwords`` a
    :class:`~hf_greedtok._chunk_table.ChunkTable` (the chunks of a large corpus in a fifth of
    the memory; from text or count tables), the :class:`~hf_greedtok.chunk_spill.SpilledChunks`
    of a local count past its memory limit (1 GB, or half of ``--max-memory``), or on Ray the
    :class:`~hf_greedtok.distributed.chunk_partitions.RayChunks` left on the cluster; the caller
    closes those (:func:`~.inputs.closing_counts`)."""
    from ..special_tokens import counting_pipeline
    from ..trainers import INT64_MAX
    from ..trainers.memory_estimate import counting_table_bytes
    from ..word_counts import check_learnable, count_inputs, read_count_tables
    from .inputs import closing_counts

    if args.engine == "ray":
        if args.counts:
            raise ValueError("--counts reads finished tables: nothing to count on Ray; drop --engine ray")
        from ..distributed.counting import count_words_distributed
        wc = count_words_distributed(args.inputs, pre, normalizer=normalizer, special_tokens=specials,
                                     text_column=args.text_column, encoding_errors=args.encoding_errors,
                                     address=args.ray_address, num_cpus=args.num_proc, max_retries=args.max_retries,
                                     show_progress=not args.quiet, table=args.superwords)
    elif args.counts:
        wc = read_count_tables(args.inputs, *counting_pipeline(pre, normalizer, specials),
                               prefix_space=not args.no_prefix_space,
                               max_count=INT64_MAX if args.algorithm == "greedtok" else None, table=args.superwords)
    else:       # as `hf-greedtok count` counts
        wc = count_inputs(args.input_kinds, *counting_pipeline(pre, normalizer, specials),
                          text_column=args.text_column, encoding_errors=args.encoding_errors,
                          num_proc=args.num_proc, show_progress=not args.quiet, table=args.superwords,
                          max_table_bytes=counting_table_bytes(args.max_memory) if args.superwords else None)
    try:
        check_learnable(wc, pre, ", ".join(map(str, args.inputs)))
    except BaseException:
        with closing_counts(wc):        # refused: their run files or Ray session go now
            raise
    return wc
