"""Superword GreedTok: tokens that may span words, chosen by GreedTok's partition-cover objective
on superword chunks after a word-level curriculum (issue 31).

The curriculum follows SuperBPE's (Liu et al., COLM 2025, arXiv 2503.13423, Section 3): a first
stage learns ordinary word-level tokens, a second one continues on pre-tokens that may hold
several words. With GreedTok both stages are Algorithm 1 of Lim, Choo & Lauw (2025):

1. words: every chunk of the corpus is cut into the words of ``word_pattern`` (GPT-4's split,
   marks kept, by default) and GreedTok picks ``word_tokens`` tokens on those word counts;
2. chunks: GreedTok runs on the chunk counts themselves (the ``superwords`` split of
   :mod:`hf_greedtok.pre_tokenizers.patterns`: runs of words and single punctuation within a line)
   with stage 1's tokens pinned first, in their order, and picks the rest of ``vocab_size``
   among every substring of the chunks, multi-word ones included, with the frequency floor
   ``min_frequency`` so that phrases seen a handful of times do not take the vocabulary.

Other scripts keep their word-level tokens (``keep_other_scripts``, on by default). On a corpus
that is mostly in one script, stage 2's phrases of that script outscore the words of the others,
and the ids they take are ids word-level GreedTok gives those scripts (trained on the shared
multilingual mix, 32,768: Hindi +5.7% and Chinese +3.8% tokens against word level). So when the
words hold letters of more than one script, stage 1 runs on to ``vocab_size`` and its tokens with
letters of a script other than the dominant one (or pieces of a multi-byte character) are pinned
after its first t: text in those scripts gets every token word-level GreedTok at the same size
gives it, and optimal encoding of a chunk (a run of words) never takes more tokens than of its
words with a subset of the tokens. Measured in benchmarks/RESULTS.md, "Superwords".

Counting chunks is counting pre-tokens (the counting trick of "Faster Superword Tokenization",
arXiv 2604.05192: a run of consecutive pre-tokens is counted like one), so count tables,
``hf-greedtok count --superwords`` and the Ray counter need nothing new, and stage 2's gains are
exact under the cover rule on chunks, as the paper's are on words. The tokenizer it returns
splits text into chunks and encodes each chunk (optimal: the fewest tokens of the chunk over
the whole vocabulary; cover: Algorithm 4 in rank order, which reproduces stage 2's partition of
every training chunk).

Example:
    >>> from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer
    >>> trainer = GreedTokSuperwordTrainer(k=8000, show_progress=False)
    >>> tok = trainer.train(["examples/data/devils_dictionary.txt"])     # doctest: +SKIP
    >>> tok.pre_tokenizer.pre_tokenize("It is a truth, I said.")          # doctest: +SKIP
    ['It is a truth, I said.']
"""
from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Union

import numpy as np

from .._chunk_table import ChunkTable
from .._progress import note, progress_bar
from ..chunk_spill import add_histograms, count_histogram
from ..core import Tokenizer
from ..defaults import (DEFAULT_CHUNK_BUDGET_MB, DEFAULT_MAX_TOKEN_LENGTH, DEFAULT_SUPERWORD_MIN_FREQUENCY,
                        DEFAULT_WORD_BUDGET_MB,
                        DEFAULT_WORD_TOKEN_SHARE)
from ..errors import CorpusError
from ..normalizers import UnicodeNormalizer
from ..pre_tokenizers import ByteLevel
from ..pre_tokenizers.patterns import DEFAULT_SPLIT, find_split, superword_split
from ..special_tokens import check_counted_words
from ..unicode_scripts import letter_scripts, most_letters, scripts_of_token
from ..word_counts import cut_long_words
from .chunk_sample import ChunkSample, sample_chunks
from .greedtok import INT64_MAX, GreedTokTrainer, check_counts, size_keyword
from .memory_estimate import MemoryEstimate, reached_bytes, resident_bytes, training_bytes


class GreedTokSuperwordTrainer(GreedTokTrainer):
    """GreedTok with tokens that may span words: a word-level stage, then one on superword chunks.

    Args:
        k: the learned tokens of both stages together (singletons and special tokens come on
            top); or
        vocab_size: the whole vocabulary, as for :class:`GreedTokTrainer` (a first positional
            integer is k, with a ``FutureWarning``).
        word_tokens: t, the tokens of the word-level stage (SuperBPE's transition point);
            default ``DEFAULT_WORD_TOKEN_SHARE`` of k (a quarter), chosen by held-out
            measurement (benchmarks/RESULTS.md, "Superwords"); 0 trains on chunks from scratch.
        word_pattern: the word split of stage 1 (a split name of :mod:`.patterns`, not
            "superwords"); default gpt4-marks, the default split of ``hf-greedtok train``.
        min_frequency: stage 2's floor: a candidate needs this many count-weighted occurrences
            in the chunks (default ``DEFAULT_SUPERWORD_MIN_FREQUENCY``). Stage 1 takes every
            candidate (1).
        digits_in_chunks: chunks hold digits too (the ``superwords-digits`` split: "page 12, line
            3." is one chunk), so tokens may span numbers and words. Off by default: SuperBPE and
            GPT-4 keep digits apart, in groups of at most 3, for arithmetic. Held out, 1.6 points
            fewer tokens on English of other domains (benchmarks/RESULTS.md, "Superwords").
        keep_other_scripts: pin, after stage 1's first t tokens, every token a word-level run to
            k gives scripts other than the dominant one (the script most letters
            of the words belong to; :mod:`hf_greedtok.unicode_scripts`), so that text in them
            takes no more tokens than with word-level GreedTok. Only costs anything on a corpus
            with letters of several scripts.
        chunk_budget_mb: the most distinct chunk text stage 2 trains on, in MB of UTF-8 (10**6
            bytes; default ``DEFAULT_CHUNK_BUDGET_MB``, 35); None: every chunk, however many.
            Stage 2's memory and time follow the distinct chunks' bytes (English: about 100 MB
            of peak memory per MB), and those grow with the corpus, so past the budget stage 2
            trains on a threshold sample of the chunk counts
            (:func:`~hf_greedtok.trainers.chunk_sample.sample_chunks`: chunks seen m times or
            more exactly, rarer ones kept with probability c / m by their hash and counted m
            times; the same sample from text, tables or Ray). Exact when the distinct chunks
            fit; approximate past it, measured in benchmarks/RESULTS.md ("Superwords at corpus
            scale"). Stage 1 always counts the words of every chunk.
            ``training_info["curriculum"]["chunk_sample"]`` records m and the sizes.
        word_budget_mb: the most distinct word text stage 1 trains on, in MB of UTF-8 (default
            ``DEFAULT_WORD_BUDGET_MB``, 25; None: every word): past it stage 1 trains on the
            words' threshold sample, drawn as the chunks' is (frequent words exact, rarer ones
            by their hash, every count unbiased). Distinct words grow with the corpus, and
            stage 1 indexes every substring of each (about 60 bytes of memory per byte).
            ``training_info["curriculum"]["word_sample"]`` records it.
        max_token_length: longest candidate in bytes, both stages.
        pinned_tokens: tokens placed first, before stage 1's.
        special_tokens, normalizer, show_progress, num_threads, candidates_on_demand: as for
            :class:`GreedTokTrainer`.
        max_memory_gb: as for :class:`GreedTokTrainer`, over both stages, checked before
            stage 1 starts (:meth:`memory_estimate`).

    The pre-tokenizer is ``ByteLevel("superwords")`` (``"superwords-digits"`` with
    ``digits_in_chunks``); the ``train*`` methods count chunks, a chunk of more than 65,535 bytes
    as pieces cut at its word ends (:func:`hf_greedtok.word_counts.cut_word`).

    Raises:
        ValueError: ``word_tokens`` below 0 or above k, ``word_pattern`` not a
            word split we ship, ``chunk_budget_mb`` not a positive number, or what
            :class:`GreedTokTrainer` refuses.
    """

    algorithm = "GreedTok superwords (word-level GreedTok to t tokens, then GreedTok on superword chunks)"
    counts_as_table = True

    def __init__(self, size: Optional[int] = None, /, *, k: Optional[int] = None, vocab_size: Optional[int] = None,
                 word_tokens: Optional[int] = None, word_pattern: str = DEFAULT_SPLIT,
                 min_frequency: int = DEFAULT_SUPERWORD_MIN_FREQUENCY,
                 max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH, pinned_tokens: Sequence[str] = (),
                 digits_in_chunks: bool = False, keep_other_scripts: bool = True,
                 chunk_budget_mb: Optional[float] = DEFAULT_CHUNK_BUDGET_MB,
                 word_budget_mb: Optional[float] = DEFAULT_WORD_BUDGET_MB,
                 special_tokens: Sequence[str] = (), normalizer: Union[None, str, UnicodeNormalizer] = None,
                 show_progress: bool = True, num_threads: Optional[int] = None,
                 candidates_on_demand: bool = True, max_memory_gb: Optional[float] = None) -> None:
        k = size_keyword(type(self).__name__, size, k, vocab_size)
        super().__init__(k=k, vocab_size=vocab_size, max_token_length=max_token_length, min_frequency=min_frequency,
                         pinned_tokens=pinned_tokens, special_tokens=special_tokens,
                         pre_tokenizer=ByteLevel(superword_split(digits_in_chunks).name),
                         normalizer=normalizer,
                         show_progress=show_progress, num_threads=num_threads,
                         candidates_on_demand=candidates_on_demand, max_memory_gb=max_memory_gb)
        word_tokens_given = word_tokens
        if word_tokens is None:
            word_tokens = default_word_tokens(self.k)
        if not 0 <= word_tokens <= self.k:
            raise ValueError(f"word_tokens (t, the word-level tokens) must be in 0..k ({self.k}), "
                             f"got {word_tokens}")
        split = find_split(word_pattern)
        if split is None or split.spans_words:
            raise ValueError(f"word_pattern must name a word split (gpt4-marks, gpt4, gpt2, o200k, whitespace), "
                             f"got {word_pattern!r}")
        for name, budget in (("chunk_budget_mb", chunk_budget_mb), ("word_budget_mb", word_budget_mb)):
            if budget is not None and not (isinstance(budget, (int, float)) and math.isfinite(budget) and budget > 0):
                raise ValueError(f"{name} must be a positive number of MB (or None: every {name.split('_')[0]}), "
                                 f"got {budget!r}")
        self.chunk_budget_mb = None if chunk_budget_mb is None else float(chunk_budget_mb)
        self.word_budget_mb = None if word_budget_mb is None else float(word_budget_mb)
        self.word_tokens = int(word_tokens)
        # None: t follows k (its default share) when continue_training changes k
        self._word_tokens_given = word_tokens_given
        self.keep_other_scripts = bool(keep_other_scripts)
        self.word_pre_tokenizer = ByteLevel(split.name)
        self._user_pinned = list(self.pinned)
        self._stage1: Optional[GreedTokTrainer] = None
        self._curriculum: dict = {}
        self._counts: Optional[SuperwordCounts] = None
        self._source = ""
        self._stage_name = "stage 2: superwords"

    def word_counts(self, chunk_counts: Mapping[str, int]) -> Counter:
        """Stage 1's table: the words of ``word_pattern`` in every chunk, with the chunk's count
        ({word: count}, words as str).

        Chunk edges are nearly always word edges of the GPT-4 splits (a chunk ends before a
        digit, a run of punctuation or other whitespace), so these are the words the word split
        gives on the text itself, counted from the smaller chunk table. They can differ at a
        chunk's edge in rare cases, e.g. where the line ends a chunk keeps begin a longer
        whitespace run ("a\\n \\n": "a", "\\n", " \\n" here, "a", "\\n \\n" on the text) or a
        combining mark ends a chunk before punctuation; the first 3 MB of every shared corpus
        give identical tables.
        """
        return chunk_words(chunk_counts, self.word_pre_tokenizer)

    def reduce_counts(self, chunk_counts: Union[Mapping[str, int], ChunkTable],
                      source: str = "chunk counts") -> "SuperwordCounts":
        """What training keeps of a corpus's ``{chunk: count}`` (a ``ChunkTable`` our counters
        made, or partitioned counts: :class:`~hf_greedtok.chunk_spill.SpilledChunks`, Ray's):
        stage 1's words of every chunk within ``word_budget_mb``, and stage 2's chunks within
        ``chunk_budget_mb`` (:func:`~hf_greedtok.trainers.chunk_sample.sample_chunks`, both). The
        ``train*`` methods call it on the counts they make and drop those; a caller holding a
        large table does the same with ``counts = trainer.reduce_counts(counts)`` before
        :meth:`train_from_counts`, so the whole table is freed before the trainer's index is built.

        Raises:
            CorpusError: an empty table, a count that is not an integer in 1..2**63-1 (the chunk
                named), a budget so small that its sample keeps no chunk (or word), or what
                :func:`~hf_greedtok.special_tokens.check_counted_words` refuses.
        """
        if not chunk_counts:
            raise CorpusError(source, None, "empty corpus: no words to train on")
        if hasattr(chunk_counts, "map_partitions"):
            all_words, sample = self._reduce_spilled(chunk_counts, source)
        else:
            all_words, sample = self._reduce_table(chunk_counts, source)
        words = sample_chunks(all_words, self.word_budget_mb)      # stage 1's words within their budget
        for kind, kept, option in (("chunk", sample, "chunk_budget_mb (--chunk-budget-mb)"),
                                   ("word", words, "word_budget_mb (--word-budget-mb)")):
            if not len(kept.table):
                budget = getattr(self, option.split(" ")[0])
                raise CorpusError(source, None, f"a {kind} budget of {budget:g} MB keeps none of the "
                                                f"{kept.distinct_bytes:,} bytes of distinct {kind}s (rate "
                                                f"{kept.rate:.4g}): raise {option}")
        # per-word figures of what stage 2's objective is over: the sample's words when sampled
        sampled = all_words if sample.rate == 1 else self._words_table(sample.table)
        word_sample = words.info(self.word_budget_mb)
        word_sample["distinct_words_kept"] = word_sample.pop("distinct_chunks_kept")
        return SuperwordCounts(Counter(words.table.to_dict()), sample,
                               (int(sampled.counts().sum()), len(sampled)), word_sample)

    def _reduce_table(self, chunk_counts: Union[Mapping[str, int], ChunkTable], source: str) -> tuple:
        """:meth:`reduce_counts` of counts in memory: (the words of every chunk, a ChunkTable;
        stage 2's sample)."""
        if isinstance(chunk_counts, ChunkTable):
            table = chunk_counts        # our counters' (text or count tables): counts checked, long chunks cut
            if self.special_tokens:     # a table written by hand may hold one
                check_counted_words(table, self.special_tokens, self.normalizer, source)
        else:
            check_counted_words(chunk_counts, self.special_tokens, self.normalizer, source)
            values = chunk_counts.values()
            if not (set(map(type, values)) <= {int} and min(values) >= 1 and max(values) <= INT64_MAX):
                check_counts(chunk_counts, source)
            table = ChunkTable()
            try:
                table.add_counts(cut_long_words(chunk_counts, self.pre_tokenizer))
            except OverflowError as e:      # pieces of cut chunks adding up past int64
                raise CorpusError(source, None, str(e)) from None
        return self._words_table(table), sample_chunks(table, self.chunk_budget_mb)

    def _reduce_spilled(self, counts, source: str) -> tuple:
        """:meth:`reduce_counts` of partitioned counts (:class:`~hf_greedtok.chunk_spill.SpilledChunks`,
        or any with its ``map_partitions``), two reads of their partitions: the words and the
        count histogram, then the sample at the rate the histogram gives. Each partition is an
        exact part of the table, so both are what the table in memory gives."""
        read = functools.partial(partition_words, pattern=self.word_pre_tokenizer.native_pattern,
                                 word_split=self.word_pre_tokenizer, special_tokens=tuple(self.special_tokens),
                                 normalizer=self.normalizer, source=source)
        words = ChunkTable()
        histograms = []
        with progress_bar(total=2 * counts.partition_count, desc="reading partitioned chunks", unit=" partitions",
                          show=self.show_progress) as bar:
            for part_words, histogram in counts.map_partitions(read, bar):
                words.merge(part_words)
                histograms.append(histogram)
            sample = sample_chunks(counts, self.chunk_budget_mb, histogram=add_histograms(histograms), bar=bar)
        return words, sample

    def memory_estimate(self, word_counts: Union[Mapping[str, int], "SuperwordCounts"]) -> MemoryEstimate:
        """The estimated peak memory of training on chunk counts (or what :meth:`reduce_counts`
        kept of them): the larger of stage 1's, on the words of the chunks, and stage 2's, on the
        chunks within the budget (:mod:`hf_greedtok.trainers.memory_estimate`), from this
        process's memory now. Stage 1's index is freed before stage 2's is built."""
        counts = word_counts if isinstance(word_counts, SuperwordCounts) else self.reduce_counts(word_counts)
        words = np.fromiter((len(w.encode()) for w in counts.words), dtype=np.int64, count=len(counts.words))
        chunks = counts.sample.table.sizes()
        stage1 = training_bytes(words, max_token_length=self.max_token_length, min_frequency=1)
        stage2 = training_bytes(chunks, max_token_length=self.max_token_length, min_frequency=self.min_frequency)
        if stage2 >= stage1:
            what = f"stage 2 on {int(chunks.sum()) / 1e6:,.1f} MB of distinct chunks"
        else:
            what = f"stage 1 on {int(words.sum()) / 1e6:,.1f} MB of distinct words"
        return MemoryEstimate(resident_bytes(), max(stage1, stage2), what, reached_bytes())

    def _words_table(self, table: ChunkTable) -> ChunkTable:
        """:meth:`word_counts` of a chunk table as a ChunkTable, split natively without the GIL."""
        pattern = self.word_pre_tokenizer.native_pattern
        if pattern >= 0:
            return table.words(pattern)
        words = ChunkTable()
        words.add_counts(self.word_counts(table.to_dict()))
        return words

    def _kept(self, word_counts: Mapping[str, int], source: str) -> "SuperwordCounts":
        return self.reduce_counts(word_counts, source)

    def train_from_counts(self, word_counts: Union[Mapping[str, int], "SuperwordCounts"], *,
                          source: str = "word counts") -> Tokenizer:
        """As :meth:`GreedTokTrainer.train_from_counts` on ``{chunk: count}`` (counted with
        :meth:`counting_pipeline`), or on what :meth:`reduce_counts` kept of it."""
        return self._fit(word_counts, source)

    def _fit(self, word_counts: Union[Mapping[str, int], "SuperwordCounts"], source: str) -> Tokenizer:
        """Stage 1 on the words of the chunks ``word_counts``, then stage 2 on the chunks (or their sample)."""
        counts = word_counts if isinstance(word_counts, SuperwordCounts) else self.reduce_counts(word_counts, source)
        # both stages' peak, estimated (and refused past max_memory_gb) before either starts
        if self.show_progress or self.max_memory_gb is not None:
            self._report_memory(type(self).__name__, self.memory_estimate(counts),
                                "lower chunk_budget_mb (--chunk-budget-mb; stage 2 takes about 0.1 GB per MB of "
                                "chunks) or raise the limit")
        self.pinned = list(self._user_pinned)
        # kept for continue_training, which may have to run both stages again
        self._counts, self._source = counts, source
        words, sample = counts.words, counts.sample
        self._word_totals = counts.sample_words       # for training_info's per-word figures
        scripts = letter_scripts(words)
        dominant = most_letters(scripts)
        keep_others = self.keep_other_scripts and len(scripts) > 1
        depth = self.k if keep_others else self.word_tokens
        self._curriculum = {"word_tokens_requested": self.word_tokens, "word_tokens": 0,
                            "word_tokens_default": self._word_tokens_given is None,
                            "word_pattern": self.word_pre_tokenizer.pattern, "dominant_script": dominant,
                            "keep_other_scripts": self.keep_other_scripts,
                            "other_script_rule": keep_others, "other_script_tokens": 0,
                            "user_pinned_tokens": len(self._user_pinned),
                            "chunk_sample": sample.info(self.chunk_budget_mb), "word_sample": counts.word_sample}
        if depth:
            stage1 = GreedTokTrainer(k=depth, max_token_length=self.max_token_length,
                                     pre_tokenizer=self.word_pre_tokenizer, pinned_tokens=self._user_pinned,
                                     show_progress=self.show_progress, num_threads=self.num_threads,
                                     candidates_on_demand=self.candidates_on_demand)
            stage1._stage_name = "stage 1: words"
            stage1._memory_checked = True
            stage1._report_shortfall = False       # its tokens only start stage 2, which reports
            ranked = list(stage1._fit(words, source).model.ranked_tokens)
            stage1._core = None         # its index is not needed any more: freed before stage 2's is built
            # GreedTok's ranking does not depend on k, so the first t of a run to k are
            # the tokens a run to t picks.
            first = max(self.word_tokens, len(self._user_pinned))
            others = [tok for tok in ranked[first:] if keep_others and self._other_script(tok, dominant)]
            self.pinned = ranked[:first] + others
            self._curriculum["word_tokens"] = len(ranked[:first])
            self._curriculum["other_script_tokens"] = len(others)
            self._stage1 = stage1
        if sample.rate > 1 and self.show_progress:
            note(f"{type(self).__name__}: {sample.distinct_bytes / 1e6:,.1f} MB of distinct chunks, above the "
                 f"{self.chunk_budget_mb:g} MB budget: stage 2 trains on a sample at rate {sample.rate:.3f} "
                 f"({sample.kept_bytes / 1e6:,.1f} MB)")
        self._memory_checked = True
        try:
            return super()._fit(sample.table.to_dict(), source)
        finally:
            self._memory_checked = False

    def continue_training(self, k: Optional[int] = None, *, vocab_size: Optional[int] = None) -> Tokenizer:
        """The tokenizer training to ``k`` learned tokens (or a whole vocabulary of ``vocab_size``
        ids) directly gives, from the last ``train*`` call's chunks.

        Stage 2 resumes where it stopped (the first ranks unchanged, only the new steps run) when
        stage 1's pinned tokens do not depend on k: ``word_tokens`` was given and the other-script
        rule did not run (the words have letters of one script, or ``keep_other_scripts`` is off).
        Otherwise they do (the
        default t is a share of k, and other scripts' tokens are those of a word-level run to k),
        and both stages run again on the kept chunk counts, as long as a first training: resuming
        there would pin the tokens chosen for the old k (English + Hindi, 1,000 then 2,000:
        the first 294 ranks agreed with a direct run, held-out Hindi took 1.8% more tokens).

        Raises:
            RuntimeError: nothing trained yet. ValueError: neither or both sizes, or one below the
                tokens already learned.
        """
        if self._counts is None or self._core is None:
            raise RuntimeError("continue_training needs a previous train*() call on this trainer")
        self._resume_size(k, vocab_size)
        if self._word_tokens_given is not None and not self._curriculum["other_script_rule"]:
            return self._run(self.k)
        if self._word_tokens_given is None:
            self.word_tokens = default_word_tokens(self.k)
        if self.show_progress:
            note(f"{type(self).__name__}: stage 1's tokens depend on k; training both stages again to {self.k}")
        return self._fit(self._counts, self._source)

    def _tokenizer(self) -> Tokenizer:
        """As :class:`GreedTokTrainer`'s, with the curriculum in ``training_info``, and its
        figures per word: ``words``, ``distinct_words`` and ``tokens_per_word`` count the words of
        ``word_pattern`` in the chunks (those of stage 1, comparable with a word-level
        tokenizer's), ``chunks``, ``distinct_chunks`` and ``tokens_per_chunk`` the chunks stage
        2's objective is over. When stage 2 trains on a sample of the chunks (past
        ``chunk_budget_mb``), all six are the sample's, so that the per-word figure is the
        objective's; ``curriculum["chunk_sample"]`` gives the corpus's size. Folders saved
        before issue 40 hold chunk figures under ``words`` and ``tokens_per_word``
        (``training_info`` is informative only; nothing reads them back)."""
        tok = super()._tokenizer()
        info = tok.training_info
        words, distinct_words = self._word_totals
        chunks = info["words"]
        info.update(words=words, distinct_words=distinct_words, chunks=chunks, distinct_chunks=info["distinct_words"])
        if "tokens_per_word" in info:
            info["tokens_per_word"] = info["objective_tokens"] / max(1, words)
            info["tokens_per_chunk"] = info["objective_tokens"] / max(1, chunks)
        info["curriculum"] = dict(self._curriculum)
        return tok

    @staticmethod
    def _other_script(token: bytes, dominant: str) -> bool:
        """A token with a letter or mark of a script other than ``dominant`` or a piece of a
        multi-byte character (which script it belongs to, its bytes do not say)."""
        return bool(scripts_of_token(token) - {dominant})

    @property
    def timings(self) -> dict:
        """As :attr:`GreedTokTrainer.timings`, both stages together."""
        own = super().timings
        if self._stage1 is not None:
            for key, value in self._stage1.timings.items():
                own[key] = round(own[key] + value, 3)
        return own


@dataclass(frozen=True)
class SuperwordCounts:
    """What superword training keeps of a corpus's chunk counts
    (:meth:`GreedTokSuperwordTrainer.reduce_counts`): bounded by the chunk budget and the words'
    vocabulary, not by the corpus.

    Attributes:
        words: stage 1's table, {word: count} (Python ints): the words of every chunk, or their
            threshold sample past the word budget.
        sample: stage 2's chunks, all of them or their threshold sample
            (:class:`~hf_greedtok.trainers.chunk_sample.ChunkSample`).
        sample_words: (word occurrences, distinct words) in ``sample``'s chunks, for the per-word
            figures of ``training_info``.
        word_sample: the words' sample as ``training_info`` records it (``ChunkSample.info``).
    """

    words: Counter
    sample: ChunkSample
    sample_words: tuple[int, int]
    word_sample: dict = field(default_factory=dict)


def default_word_tokens(k: int) -> int:
    """t when ``word_tokens`` is not given: ``DEFAULT_WORD_TOKEN_SHARE`` of the learned tokens k
    (rounded down)."""
    return int(k * DEFAULT_WORD_TOKEN_SHARE)


def partition_words(part: ChunkTable, *, pattern: int, word_split: ByteLevel, special_tokens: tuple,
                    normalizer, source: str) -> tuple[ChunkTable, tuple]:
    """What superword training reads of one partition of partitioned chunk counts: its words
    under ``word_split`` (native ``pattern`` when >= 0), as a ChunkTable, and its
    :func:`~hf_greedtok.chunk_spill.count_histogram`; a chunk holding a special token refused
    (:func:`~hf_greedtok.special_tokens.check_counted_words`, naming ``source``). A module
    function so that Ray tasks run it where the partition is."""
    if special_tokens:
        check_counted_words(part, list(special_tokens), normalizer, source)
    if pattern >= 0:
        return part.words(pattern), count_histogram(part)
    words = ChunkTable()
    words.add_counts(chunk_words(part.to_dict(), word_split))
    return words, count_histogram(part)


def chunk_words(chunk_counts: Mapping[str, int], word_split: ByteLevel) -> Counter:
    """{word: count}: the words ``word_split`` gives on each chunk's text, each weighted by the
    chunk's count (a chunk seen 3 times adds 3 to each of its words). Counts are Python ints.

    These are the words stage 1 of superword training counts. For the GPT-4 and o200k splits
    they are the words of the text itself but in rare cases at a chunk's edge (see
    :meth:`~hf_greedtok.trainers.superwords.GreedTokSuperwordTrainer.word_counts`); gpt2 and
    whitespace words can cross a chunk's edge (" 12", "said...") and are cut there: on
    examples/data/devils_dictionary.txt 0.07% and 0.99% more words than on the text.
    """
    words: Counter = Counter()
    split = word_split.pre_tokenize
    for chunk, count in chunk_counts.items():
        count = int(count)
        for word in split(chunk):
            words[word] += count
    return words
