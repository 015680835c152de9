"""The GreedTok trainer (Lim, Choo & Lauw 2025, Algorithm 1) and its GreedWMC relaxation, in the shape
of HF trainers.

Example:
    >>> from hf_greedtok import GreedTokTrainer
    >>> trainer = GreedTokTrainer(k=2000, show_progress=False)
    >>> tok = trainer.train(["examples/data/devils_dictionary.txt"])     # doctest: +SKIP
    >>> tok = trainer.continue_training(k=5000)   # resumes from k=2000, no retraining  # doctest: +SKIP
"""
from __future__ import annotations

import itertools
import math
import operator
import os
import sys
import time
import warnings
from typing import ClassVar, Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from .._progress import note, progress_bar, setup_progress
from .._threads import available_cores
from .._trainer import GreedTokCore
from ..core import Tokenizer
from ..defaults import CACHE_WORDS, DEFAULT_MAX_TOKEN_LENGTH, DEFAULT_MODE, MAX_TOKEN_LENGTH
from ..models import GreedTokModel, pack_units
from ..normalizers import UnicodeNormalizer, check_normalizer
from ..pre_tokenizers import ByteLevel, PreTokenizer, Token, check_pre_tokenizer
from ..pre_tokenizers.patterns import DEFAULT_SPLIT
from ..special_tokens import check_counted_words, check_special_tokens, counting_pipeline
from ..errors import CorpusError, VocabularySizeWarning
from ..indic.units import pack_codes, unit_codes
from ..word_counts import always_short, count_corpus, count_words, cut_long_words
from .memory_estimate import MemoryEstimate, counting_table_bytes, reached_bytes, resident_bytes, training_bytes

INT64_MAX = 2**63 - 1
# Corpora with fewer singletons (bytes of distinct words) build in well under a second: no bar.
SETUP_BAR_UNITS = 2_000_000
U32_IDS = 2**32      # HF tokenizers' ids are u32 (hf_greedtok.trainers.bpe_merges.U32_IDS)


class GreedTokTrainer:
    """Select k tokens by GreedTok's greedy partition cover.

    The size is one of two keywords: ``k``, the number of tokens to learn (the paper's k; the
    singletons and special tokens come on top), or ``vocab_size``, the whole vocabulary (every
    id: special tokens, the 256 bytes or the singleton alphabet with its 256 byte-fallback ids,
    and the learned tokens, as in HF trainers and :attr:`Tokenizer.vocab_size`;
    :func:`learned_tokens` gives its k). A first positional integer is read as ``k``, as before
    the keywords, with a ``FutureWarning``.

    Args:
        k: the number of tokens to learn (pinned tokens included).
        vocab_size: the whole vocabulary instead; at byte level its k is known at once, with
            character or script units once the words (their alphabet) are seen.
        max_token_length: longest candidate in singletons (bytes or characters), inclusive, at
            most ``MAX_TOKEN_LENGTH`` (1,024: :mod:`hf_greedtok.defaults` says why).
        min_frequency: a candidate must occur at least this often (count-weighted).
        candidates: optional token strings restricting T (paper Section 5.4); singletons in
            the list are ignored since they are always in the vocabulary, and so are candidates
            longer than ``MAX_TOKEN_LENGTH`` (``max_token_length`` bounds only the candidates the
            trainer derives from the words). With byte-level singletons a candidate may also be
            ``bytes`` (any byte string, UTF-8 or not).
        bpe_candidates: F > 1 restricts T to the learned tokens of byte-level BPE (HF
            ``tokenizers``' BpeTrainer, :func:`hf_greedtok.trainers.bpe_merges.byte_level_bpe_tokens`)
            trained on the same words at F x (vocab_size + 256) total ids (those of at most
            ``MAX_TOKEN_LENGTH`` bytes); byte level only, not
            with ``candidates``. BPE's tokens are pieces that recur across words, where GreedTok
            alone prefers rare whole training words, so the vocabulary holds better on text it
            was not trained on: F = 1.75 gave 0.4-0.8 points fewer tokens against HF BPE on other
            domains at 16,384 and 32,768 ids, the same on held-out lines of the training domain
            (benchmarks/RESULTS.md). It adds a BPE run, several times GreedTok's own
            training time. ``training_info["bpe_candidates"]`` counts the tokens given, and
            ``training_info["bpe_candidates_run"]`` what BPE was asked: BPE cannot merge more
            often than the sum over distinct words of (bytes - 1), so a larger request is cut to
            that bound, with the same tokens (:func:`hf_greedtok.trainers.bpe_merges.byte_level_bpe_run`).
        pinned_tokens: tokens placed first, in order, before any greedy step (domain tokens).
        special_tokens: strings given their own ids (0..n-1) and never learned; the ``train*``
            methods cut them out of the text before counting, exactly as encoding does
            (:mod:`hf_greedtok.special_tokens`).
        pre_tokenizer: :class:`ByteLevel` (default: ``ByteLevel(DEFAULT_SPLIT)``, gpt4-marks, the
            split of ``hf-greedtok train``) or :class:`Metaspace`; a Metaspace with
            ``units="marks"`` or ``"vowels"`` gives script-aware GreedTok (the units of
            :mod:`hf_greedtok.indic.units` are the singletons, so every candidate token starts and
            ends on a unit boundary), and one with a ``lookup`` trains on morphological segments.
        normalizer: optional :class:`UnicodeNormalizer` or its name ("NFC", ...).
        show_progress: progress bars for counting and training.
        num_threads: threads for the trainer's setup (candidates, occurrence lists, initial
            scores); None (default) uses every core this process may run on. The result is the
            same for every thread count.
        candidates_on_demand: build only the candidates whose gain bound can still reach the
            best gain, more as the gains fall (default); False builds all of T at once. The
            ranking and the objective are the same either way (no candidate left unbuilt could
            have been chosen); ``training_info["candidates"]`` counts the
            candidates built at first, which is all of T only with False.
        max_memory_gb: refuse, before the trainer's index is built, a training whose estimated
            peak memory (:mod:`hf_greedtok.trainers.memory_estimate`) exceeds this many GB
            (10**9 bytes); None (default): no limit. With ``show_progress`` the estimate is
            printed either way.

    The tokenizers it returns encode with ``DEFAULT_MODE`` (optimal, as ``hf-greedtok train``
    saves them; :mod:`hf_greedtok.defaults` says why); ``tok.mode = "cover"`` gives Algorithm 4,
    which reproduces the trainer's partition of every training word.

    Ties between equal gains go to the shorter token, then to the lexicographically smaller
    singleton sequence (bytes, code points, or unit codes of :func:`hf_greedtok.indic.units.unit_codes`). Training stops early, and says so in
    ``training_info["stopped_early"]``, when no candidate has a positive gain; then it warns
    (:class:`~hf_greedtok.errors.VocabularySizeWarning`) with the cause it saw and the option
    that changes it, also in ``training_info["size_shortfall"]``.

    Raises:
        ValueError: neither or both of k and vocab_size (or a positional size with either), k
            < 1, a vocab_size that leaves no learned tokens, max_token_length outside 2..1,024, min_frequency < 1, a
            pinned token of fewer than 2 or more than 1,024 singletons, a pinned token listed
            twice, num_threads < 1, an empty, whitespace-only or repeated special token, or
            bpe_candidates not a number above 1, whose F x (k + 256) is not finite or
            above 2**32 (the most u32 ids; :func:`bpe_vocab_size`), with a pre-tokenizer that is
            not byte level, or with ``candidates``, or max_memory_gb not a positive number.
        MemoryLimitError (a ValueError, from ``train*``): the estimated peak memory exceeds
            ``max_memory_gb``; raised before the heavy part starts.
        TypeError: a pre-tokenizer or normalizer of another library, e.g.
            ``tokenizers.pre_tokenizers.ByteLevel()`` (use :class:`ByteLevel`, :class:`Metaspace`,
            :class:`UnicodeNormalizer`).
    """

    relaxed: ClassVar[bool] = False
    algorithm: ClassVar[str] = "GreedTok (Lim, Choo & Lauw 2025, Algorithm 1)"
    # the train* methods count text into a ChunkTable (what _kept takes), not a Counter
    counts_as_table: ClassVar[bool] = False

    # a superword trainer's first stage reports nothing: its tokens only start stage 2
    _report_shortfall: ClassVar[bool] = True

    def __init__(self, size: Optional[int] = None, /, *, k: Optional[int] = None, vocab_size: Optional[int] = None,
                 max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH,
                 min_frequency: int = 1, candidates: Optional[Iterable[Token]] = None,
                 bpe_candidates: Optional[float] = None, pinned_tokens: Sequence[str] = (),
                 special_tokens: Sequence[str] = (),
                 pre_tokenizer: Optional[PreTokenizer] = None,
                 normalizer: Union[None, str, UnicodeNormalizer] = None,
                 show_progress: bool = True, num_threads: Optional[int] = None,
                 candidates_on_demand: bool = True, max_memory_gb: Optional[float] = None) -> None:
        k = size_keyword(type(self).__name__, size, k, vocab_size)
        for name, value in (("k", k), ("vocab_size", vocab_size)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
                raise ValueError(f"{name} ({SIZE_NAMES[name]}) must be an integer >= 1, got {value!r}")
        if not 2 <= max_token_length <= MAX_TOKEN_LENGTH:
            raise ValueError(f"max_token_length must be in 2..{MAX_TOKEN_LENGTH} singletons (longer tokens crash "
                             f"HF tokenizers' Unigram; hf_greedtok.defaults.MAX_TOKEN_LENGTH), got {max_token_length}")
        if min_frequency < 1:
            raise ValueError(f"min_frequency must be >= 1, got {min_frequency}")
        if num_threads is not None and num_threads < 1:
            raise ValueError(f"num_threads must be >= 1 (or None for every core), got {num_threads}")
        if max_memory_gb is not None and (isinstance(max_memory_gb, bool) or not isinstance(max_memory_gb, (int, float))
                                          or not math.isfinite(max_memory_gb) or max_memory_gb <= 0):
            raise ValueError(f"max_memory_gb must be a positive number of GB (or None: no limit), "
                             f"got {max_memory_gb!r}")
        self.max_memory_gb = None if max_memory_gb is None else float(max_memory_gb)
        self.num_threads = available_cores() if num_threads is None else int(num_threads)
        self.candidates_on_demand = bool(candidates_on_demand)
        self.max_token_length = int(max_token_length)
        self.min_frequency = int(min_frequency)
        owner = type(self).__name__
        self.pre_tokenizer = ByteLevel(DEFAULT_SPLIT) if pre_tokenizer is None else check_pre_tokenizer(pre_tokenizer, owner)
        self.normalizer = check_normalizer(normalizer, owner, names=True)
        self.special_tokens = check_special_tokens(special_tokens, "special_tokens")
        self.pinned = [self._candidate_units(t) for t in pinned_tokens]
        for t, units in zip(pinned_tokens, self.pinned):
            if not 2 <= len(units) <= MAX_TOKEN_LENGTH:
                raise ValueError(f"pinned token {t!r} has {len(units)} singletons, not 2..{MAX_TOKEN_LENGTH}")
        if len(set(self.pinned)) != len(self.pinned):
            raise ValueError("pinned_tokens has duplicates")
        self.candidates = None if candidates is None else sorted(
            {u for u in map(self._candidate_units, candidates) if 2 <= len(u) <= MAX_TOKEN_LENGTH})
        #: the whole vocabulary asked for, or None when k was given
        self.vocab_size: Optional[int] = None if vocab_size is None else int(vocab_size)
        #: the learned tokens to reach; None until the words are seen (vocab_size, character or script units)
        self.k: Optional[int] = int(k) if k is not None else self._learned_tokens([])
        if bpe_candidates is not None:
            if self.pre_tokenizer.unit_kind != "bytes":
                raise ValueError("bpe_candidates needs a byte-level pre-tokenizer (ByteLevel), not "
                                 f"{type(self.pre_tokenizer).__name__}")
            bpe_vocab_size(bpe_candidates, self.k)
            if candidates is not None:
                raise ValueError("give candidates or bpe_candidates, not both")
        self.bpe_candidates = None if bpe_candidates is None else float(bpe_candidates)
        self.show_progress = show_progress
        self._stage_name: Optional[str] = None
        self._memory_checked = False       # the next _fit's memory was estimated by its caller
        self._core: Optional[GreedTokCore] = None
        self._cache_words: list[str] = []
        self._alphabet: list[str] = []
        self._corpus_info: dict = {}
        self._setup_seconds = self._train_seconds = 0.0

    def _learned_tokens(self, alphabet: Sequence[str]) -> Optional[int]:
        """k of ``self.vocab_size`` with the singleton ``alphabet`` (:func:`learned_tokens`); None
        while the alphabet is unknown (before the words, for character or script units)."""
        if self.pre_tokenizer.unit_kind != "bytes" and not alphabet:
            return None
        return learned_tokens(self.vocab_size, len(alphabet), len(self.special_tokens))

    def _candidate_units(self, token: Token) -> Token:
        # Byte strings are taken as they are: substrings of byte tokens need not be UTF-8.
        if isinstance(token, bytes):
            if self.pre_tokenizer.unit_kind != "bytes":
                raise ValueError(f"candidate {token!r} is bytes; the pre-tokenizer's singletons are "
                                 f"{self.pre_tokenizer.unit_kind}")
            return token
        return self.pre_tokenizer.word_units(token)

    # ------------------------------------------------------------------ inputs

    def counting_pipeline(self) -> tuple:
        """(pre-tokenizer, normalizer) to pass to the counters of :mod:`hf_greedtok.word_counts`
        so that the counts hold the words encoding sees (special tokens cut out of the raw text
        first); :meth:`train_from_counts` expects counts made this way."""
        return counting_pipeline(self.pre_tokenizer, self.normalizer, self.special_tokens)

    def train(self, files: Sequence[Union[str, os.PathLike]], *, counts: bool = False,
              encoding_errors: str = "strict", num_proc: Optional[int] = None,
              prefix_space: bool = True) -> Tokenizer:
        """Train on text files, or on ``word<TAB>count`` tables when ``counts`` is true."""
        source = ", ".join(map(str, files))
        wc = self._kept(count_corpus(files, *self.counting_pipeline(), counts=counts,
                                     encoding_errors=encoding_errors, num_proc=num_proc, prefix_space=prefix_space,
                                     show_progress=self.show_progress, table=self.counts_as_table,
                                     max_table_bytes=self._table_limit()), source)
        return self._fit(wc, source)

    def train_from_iterator(self, texts: Iterable[str], *, num_proc: Optional[int] = None) -> Tokenizer:
        """Train on an iterable of strings (each pre-tokenized as a whole)."""
        wc = self._kept(count_words(texts, *self.counting_pipeline(), num_proc=num_proc,
                                    show_progress=self.show_progress, table=self.counts_as_table,
                                    max_table_bytes=self._table_limit()), "iterator")
        return self._fit(wc, "iterator")

    def train_from_dataset(self, dataset, column: str = "text", *, batch_size: int = 1000,
                           num_proc: Optional[int] = None) -> Tokenizer:
        """Train on one string column of a ``datasets.Dataset``.

        Raises:
            ValueError: the column does not exist.
        """
        if column not in dataset.column_names:
            raise ValueError(f"dataset has no column {column!r} (columns: {dataset.column_names})")
        texts = (t for batch in dataset.iter(batch_size=batch_size) for t in batch[column])
        source = f"dataset column {column!r}"
        wc = self._kept(count_words(texts, *self.counting_pipeline(), num_proc=num_proc,
                                    show_progress=self.show_progress, source=source, table=self.counts_as_table,
                                     max_table_bytes=self._table_limit()),
                        source)
        return self._fit(wc, source)

    def train_from_counts(self, word_counts: Mapping[str, int], *, source: str = "word counts") -> Tokenizer:
        """Train on {pre-tokenized word: count}; words are used as given, so count them with
        :meth:`counting_pipeline` (as the ``train*`` methods do) when there are special tokens.

        The native core keeps counts, scores and gains in 64 bits. Every one of them is at most
        the initial objective, sum(count x singletons of the word), so that sum is checked
        exactly first: nothing can wrap once it fits.

        A word with more singletons than the trainer supports (65,535) is trained as its
        :func:`hf_greedtok.word_counts.cut_word` pieces, each with the word's count, as the
        counters count it.

        Raises:
            CorpusError: empty corpus, a count < 1 or above 2**63-1, counts whose
                sum(count x singletons) exceeds 2**63-1 (pieces of a cut word included), or
                (without a normalizer, which could have made it) a word containing a special token.
        """
        check_counted_words(word_counts, self.special_tokens, self.normalizer, source)
        return self._fit(word_counts, source)

    def _table_limit(self) -> Optional[int]:
        """The chunk table's bytes while the ``train*`` methods count into one (past them the
        counts spill to disk, :mod:`hf_greedtok.chunk_spill`): from ``max_memory_gb``
        (:func:`~hf_greedtok.trainers.memory_estimate.counting_table_bytes`)."""
        return counting_table_bytes(self.max_memory_gb) if self.counts_as_table else None

    def _kept(self, word_counts: Mapping[str, int], source: str):
        """What :meth:`_fit` needs of counts the ``train*`` methods made (and drop after this
        call): the counts themselves here; a trainer that keeps less overrides it."""
        return word_counts

    def _fit(self, word_counts: Mapping[str, int], source: str) -> Tokenizer:
        """:meth:`train_from_counts` for counts made with :meth:`counting_pipeline`."""
        if not word_counts:
            raise CorpusError(source, None, "empty corpus: no words to train on")
        words_in = list(word_counts)
        values = list(word_counts.values())
        short = always_short(self.pre_tokenizer)
        # One pass of C-level checks over the whole table; only a table that fails one of
        # them (or holds numpy integers, or a long word) takes the word-by-word checks, which
        # name the word.
        if not (set(map(type, values)) <= {int} and min(values) >= 1 and max(values) <= INT64_MAX
                and max(map(len, words_in)) <= short):
            check_counts(word_counts, source)
            # Trained as its pieces, as every counter of hf_greedtok.word_counts counts it, so a
            # {word: count} of one's own trains as the same text counted by us would.
            word_counts = cut_long_words(word_counts, self.pre_tokenizer)
            words_in = list(word_counts)
            values = list(map(int, word_counts.values()))
        words: list[Token] = list(map(self.pre_tokenizer.word_units, words_in))
        singletons = sum(map(operator.mul, values, map(len, words)))
        if singletons > INT64_MAX:     # checked first: every count (pieces' sums too) is below it
            raise CorpusError(source, None, _too_large(word_counts, singletons))
        counts = np.array(values, dtype=np.int64)
        self._cache_words = most_frequent(words_in, counts, CACHE_WORDS)
        self._alphabet = singleton_alphabet(itertools.chain(words, self.pinned), self.pre_tokenizer.unit_kind)
        if self.vocab_size is not None:
            self.k = self._learned_tokens(self._alphabet)
        if self.pre_tokenizer.unit_kind in ("bytes", "chars"):
            pack = pack_units
        else:
            # script-aware units: every unit is one uint32 code, so candidates are unit strings
            codes = unit_codes(self._alphabet)
            self._unit_of = {c: u for u, c in codes.items()}

            def pack(seqs):
                return pack_codes(seqs, codes)
        units, offsets = pack(words)
        self._check_memory(np.diff(offsets))
        pin_units, pin_offsets = pack(self.pinned)
        started = time.perf_counter()
        candidates = self.candidates
        bpe_info = None
        if self.bpe_candidates is not None:
            from .bpe_merges import byte_level_bpe_run
            run = byte_level_bpe_run(word_counts, self.pre_tokenizer,
                                     bpe_vocab_size(self.bpe_candidates, self.k), source=source,
                                     show_progress=self.show_progress)
            candidates = sorted({t for t in run.tokens if 2 <= len(t) <= MAX_TOKEN_LENGTH})
            bpe_info = {"factor": self.bpe_candidates, "vocab_size_requested": run.vocab_size,
                        "merge_bound": run.merge_bound, "merges_asked": run.merges_asked, "capped": run.capped,
                        "note": "BpeTrainer is asked for min(requested merges, merge_bound) merges, merge_bound "
                                "being the sum over distinct words of (bytes - 1), the most BPE can learn: "
                                "the same merges as the full request"}
        cand_units, cand_offsets = pack(candidates or [])
        bar = self.show_progress and len(units) >= SETUP_BAR_UNITS
        with setup_progress(f"{self.stage_name} setup", show=bar) as cell:
            self._core = GreedTokCore(units, offsets, counts, self.max_token_length, self.min_frequency,
                                      pin_units, pin_offsets, cand_units, cand_offsets,
                                      candidates is not None, self.relaxed, self.num_threads,
                                      threshold=-1 if self.candidates_on_demand else 0,
                                      expected_steps=self.k + len(self.pinned), progress=cell)
        self._corpus_info = {
            "source": source, "distinct_words": len(words), "words": int(counts.sum()),
            "singletons_in_corpus": int(self._core.initial_objective),
            "candidates": int(self._core.n_candidates), "occurrences": int(self._core.n_occurrences),
            "bpe_candidates": None if self.bpe_candidates is None else len(candidates),
        }
        if bpe_info is not None:
            self._corpus_info["bpe_candidates_run"] = bpe_info
        self._setup_seconds = self._train_seconds = time.perf_counter() - started
        return self._run(self.k)

    def memory_estimate(self, word_counts: Mapping[str, int]) -> MemoryEstimate:
        """The estimated peak memory of training on ``word_counts`` (as :meth:`train_from_counts`
        takes them), from this process's memory now (:mod:`hf_greedtok.trainers.memory_estimate`).

        Example:
            >>> GreedTokTrainer(k=100).memory_estimate({" lower": 5, " lowest": 2}).training
            100000432
        """
        units = self.pre_tokenizer.word_units
        return self._estimate(np.fromiter((len(units(w)) for w in word_counts), dtype=np.int64,
                                          count=len(word_counts)))

    def _estimate(self, lengths: np.ndarray) -> MemoryEstimate:
        """:meth:`memory_estimate` for distinct words of ``lengths`` singletons (int64[n])."""
        need = training_bytes(lengths, max_token_length=self.max_token_length, min_frequency=self.min_frequency)
        return MemoryEstimate(resident_bytes(), need,
                              f"{self.stage_name} on {int(lengths.sum()) / 1e6:,.2f} M singletons of distinct words",
                              reached_bytes())

    def _check_memory(self, lengths: np.ndarray) -> None:
        """Print the estimate (``show_progress``) and refuse it past ``max_memory_gb``; nothing
        when the caller checked already (a superword trainer, for both its stages)."""
        if self._memory_checked or not (self.show_progress or self.max_memory_gb is not None):
            return
        self._report_memory(self.stage_name, self._estimate(lengths),
                            "train on fewer distinct words (or raise the limit)")

    def _report_memory(self, name: str, estimate: MemoryEstimate, advice: str) -> None:
        """Print ``estimate`` (``show_progress``), then refuse it past ``max_memory_gb``."""
        if self.show_progress:
            note(f"{name}: {estimate.describe()}")
        estimate.check(self.max_memory_gb, advice)

    # ------------------------------------------------------------------ training

    def continue_training(self, k: Optional[int] = None, *, vocab_size: Optional[int] = None) -> Tokenizer:
        """Resume to a larger size from the current state; the first ranks are unchanged.

        Args:
            k: the learned tokens to reach; or
            vocab_size: the whole vocabulary to reach (as in the constructor).

        Raises:
            RuntimeError: nothing trained yet. ValueError: neither or both sizes, or one below the
                tokens already learned.
        """
        if self._core is None:
            raise RuntimeError("continue_training needs a previous train*() call on this trainer")
        self._resume_size(k, vocab_size)
        return self._run(self.k)

    def _resume_size(self, k: Optional[int], vocab_size: Optional[int]) -> None:
        """Set ``self.k`` (and ``self.vocab_size``) for :meth:`continue_training`."""
        if (k is None) == (vocab_size is None):
            raise ValueError("continue_training: give k= (the learned tokens) or vocab_size= (the whole vocabulary)")
        if vocab_size is not None:
            self.vocab_size = int(vocab_size)
            k = self._learned_tokens(self._alphabet)
        else:
            self.vocab_size = None
        if k < self._core.n_selected:
            raise ValueError(f"k {k} is below the {self._core.n_selected} tokens already learned")
        self.k = int(k)

    def _run(self, k: int) -> Tokenizer:
        core = self._core
        assert core is not None
        started = time.perf_counter()
        todo = k - core.n_selected
        chunk = max(1, min(500, k // 100))
        name = self.stage_name
        with progress_bar(total=k, initial=core.n_selected, desc=name, unit=" tokens",
                          show=self.show_progress) as bar:
            while todo > 0 and not core.exhausted:
                done = core.step(min(chunk, todo))
                todo -= done
                if done:
                    # refresh=False: the bar redraws on update(), at its own pace (see _progress)
                    bar.set_postfix(gain=int(core.gains_array()[-1]) if core.n_selected else 0,
                                    tokens=core.objective, refresh=False)
                bar.update(done)
        self._train_seconds += time.perf_counter() - started
        tok = self._tokenizer()
        if core.n_selected < k and self._report_shortfall:
            info = tok.training_info
            info["size_shortfall"] = shortfall = self._shortfall(info)
            if self.vocab_size is not None:
                shortfall.update(vocab_size_asked=self.vocab_size, vocab_size_got=info["final_vocab_size"])
            warnings.warn(shortfall_message(type(self).__name__, shortfall), VocabularySizeWarning,
                          stacklevel=caller_stacklevel())
        return tok

    def _shortfall(self, info: dict) -> dict:
        """{"asked", "got", "cause", "option"} of a training that stopped before k: why no
        candidate had a positive gain, from what it saw (the option None: only more text helps)."""
        core = self._core
        asked, got = self.k, int(core.n_selected)
        what = "chunk" if "chunks" in info else "word"
        pieces = info.get("chunks", info["words"])
        if core.objective == (0 if self.relaxed else pieces):
            cause = (f"every training {what} is one token already (the corpus is too small for {asked:,} learned "
                     "tokens)")
            option = None
        elif self.candidates is not None or self.bpe_candidates is not None:
            option = "candidates" if self.candidates is not None else "bpe_candidates"
            cause = f"no token of the candidate list ({option}) has a positive gain left"
        elif self.min_frequency > 1:
            cause = f"no candidate occurring at least {self.min_frequency} times has a positive gain"
            option = "min_frequency"
        else:
            cause = (f"every {what} still in several tokens is longer than max_token_length "
                     f"({self.max_token_length} singletons)")
            option = "max_token_length"
        return {"asked": asked, "got": got, "cause": cause, "option": option}

    def _tokenizer(self) -> Tokenizer:
        core = self._core
        units, offsets = core.ranked_units()
        if self.pre_tokenizer.unit_kind == "bytes":
            data = units.astype(np.uint8).tobytes()
            ranked: list[Token] = [data[offsets[r]:offsets[r + 1]] for r in range(len(offsets) - 1)]
        elif self.pre_tokenizer.unit_kind == "chars":
            ranked = ["".join(map(chr, units[offsets[r]:offsets[r + 1]])) for r in range(len(offsets) - 1)]
        else:
            unit_of = self._unit_of
            ranked = ["".join(unit_of[int(c)] for c in units[offsets[r]:offsets[r + 1]])
                      for r in range(len(offsets) - 1)]
        gains = core.gains_array()
        model = GreedTokModel(ranked, unit_kind=self.pre_tokenizer.unit_kind, alphabet=self._alphabet,
                              special_tokens=self.special_tokens, gains=gains.tolist())
        info = {
            "algorithm": self.algorithm,
            "k_requested": self.k, "k_learned": int(core.n_selected),
            "stopped_early": bool(core.exhausted), "pinned_tokens": int(core.n_pinned),
            "final_vocab_size": model.vocab_size,
            "max_token_length": self.max_token_length, "min_frequency": self.min_frequency,
            "restricted_candidates": self.candidates is not None or self.bpe_candidates is not None,
            "candidates_on_demand": self.candidates_on_demand,
            "covered_gaps": int(core.initial_objective - core.objective),
            **self._corpus_info,
        }
        if not self.relaxed:
            info["objective_tokens"] = int(core.objective)
            info["tokens_per_word"] = core.objective / max(1, self._corpus_info["words"])
        return Tokenizer(model, self.pre_tokenizer, normalizer=self.normalizer, mode=DEFAULT_MODE, training_info=info,
                         cache_words=self._cache_words)

    @property
    def timings(self) -> dict:
        """{"setup_seconds", "train_seconds"} (wall time) of the last training; kept out of
        ``training_info`` so that identical runs save byte-identical files."""
        return {"setup_seconds": round(self._setup_seconds, 3), "train_seconds": round(self._train_seconds, 3)}

    @property
    def stage_name(self) -> str:
        """What this trainer's progress bars are called: its class's name without "Trainer", or
        its stage when it runs inside a two-stage trainer (superwords)."""
        return self._stage_name or type(self).__name__.removesuffix("Trainer")

    @property
    def core(self) -> Optional[GreedTokCore]:
        """The native state after training (scores, partitions, gains), or None."""
        return self._core


class GreedWMCTrainer(GreedTokTrainer):
    """GreedWMC: the greedy (1 - 1/e) algorithm for GreedTok's weighted maximum coverage relaxation.

    Paper Section 4.2.1 (Lim, Choo & Lauw 2025) with [Hoc96, Section 3.9]. Same arguments,
    candidates and tie order as :class:`GreedTokTrainer`; the elements are the gaps between
    adjacent singletons of every word, weighted by the word's count, and a token covers every
    gap inside any of its occurrences (constraints (5)-(8) dropped: occurrences may overlap).
    Its objective, ``training_info["covered_gaps"]`` (count-weighted gaps covered), bounds what
    GreedTok can reach from above up to the (1 - 1/e) factor; d_inst = GreedTok / GreedWMC
    (Section 5.3). The returned :class:`Tokenizer` ranks the selected tokens in selection order
    and encodes as GreedTok's does (``DEFAULT_MODE``); no encoder reaches the relaxed objective.

    Example:
        >>> wmc = GreedWMCTrainer(k=1000, show_progress=False)
        >>> tok = wmc.train_from_counts({" lower": 5, " lowest": 2})
        >>> tok.training_info["covered_gaps"]
        37
    """

    relaxed: ClassVar[bool] = True
    algorithm: ClassVar[str] = "GreedWMC (weighted maximum coverage relaxation, Lim, Choo & Lauw 2025, Section 4.2.1)"


#: what the two size keywords mean, for messages
SIZE_NAMES = {"k": "the learned tokens", "vocab_size": "the whole vocabulary: learned tokens, singletons and special "
                                                       "tokens"}
#: how the CLI spells each trainer option a size shortfall names
OPTION_FLAGS = {"min_frequency": "--min-frequency", "max_token_length": "--max-token-length",
                "candidates": "--candidates", "bpe_candidates": "--bpe-candidates"}


def size_keyword(owner: str, size: Optional[int], k: Optional[int], vocab_size: Optional[int]) -> Optional[int]:
    """k as a trainer's constructor was given it: a first positional ``size`` is read as k, the
    learned tokens, as before the keywords (with a ``FutureWarning`` naming both); else ``k``
    (None when ``vocab_size`` was given).

    Raises:
        ValueError: not exactly one of the three given.
    """
    given = [name for name, value in (("a positional size", size), ("k", k), ("vocab_size", vocab_size))
             if value is not None]
    if len(given) != 1:
        raise ValueError(f"{owner}: give exactly one of k= ({SIZE_NAMES['k']}) and vocab_size= "
                         f"({SIZE_NAMES['vocab_size']}); got {' and '.join(given) or 'neither'}")
    if size is None:
        return k
    warnings.warn(f"{owner}({size!r}, ...): a positional size is read as k, the learned tokens, as before; write "
                  f"k={size!r} for the learned tokens or vocab_size= for the whole vocabulary (learned tokens, "
                  "singletons and special tokens, as in HF trainers)", FutureWarning, stacklevel=caller_stacklevel())
    return size


def learned_tokens(vocab_size: int, alphabet: int, special_tokens: int, name: str = "vocab_size") -> int:
    """k, the learned tokens, of a whole vocabulary of ``vocab_size`` ids: what the singletons
    (the 256 bytes; with character or script units the ``alphabet`` units of
    :func:`singleton_alphabet` on top, the 256 being their byte fallback) and the special tokens
    leave.

    Example:
        >>> learned_tokens(1000, 0, 2)      # byte level, 2 special tokens
        742

    Raises:
        ValueError: nothing left, naming the size as ``name`` (the CLI: ``--total-vocab-size``).
    """
    fixed = 256 + alphabet
    k = vocab_size - fixed - special_tokens
    if k < 1:
        raise ValueError(f"{name} {vocab_size} leaves no learned tokens: {fixed} singletons and {special_tokens} "
                         f"special tokens take {fixed + special_tokens}")
    return k


def shortfall_message(owner: str, shortfall: dict) -> str:
    """The one line a size not reached is reported in (``warnings.warn`` and the CLI's stderr)."""
    asked, got = shortfall["asked"], shortfall["got"]
    line = f"{owner} learned {got:,} of the {asked:,} tokens asked"
    if "vocab_size_asked" in shortfall:
        line += f" (a vocabulary of {shortfall['vocab_size_got']:,} ids, not {shortfall['vocab_size_asked']:,})"
    option = shortfall["option"]
    advice = {None: "train on more text, or ask for fewer tokens",
              "min_frequency": "lower min_frequency to learn more",
              "max_token_length": "raise max_token_length to learn more",
              "candidates": "give more candidates (or none) to learn more",
              "bpe_candidates": "raise bpe_candidates (or drop it) to learn more"}[option]
    if option is not None:
        advice += f" ({OPTION_FLAGS[option]} in hf-greedtok train)"
    return f"{line}: {shortfall['cause']}; {advice}"


def caller_stacklevel() -> int:
    """``stacklevel`` for a ``warnings.warn`` in the calling function that names the first frame
    outside hf_greedtok: the user's line, however deep in the package the warning starts."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame, level = frame.f_back, level + 1
    return level


def bpe_vocab_size(factor: float, vocab_size: int, name: str = "bpe_candidates") -> int:
    """BPE's total vocabulary for ``bpe_candidates``: round(factor x (vocab_size + 256)) ids.

    Args:
        factor: F, a finite number above 1.
        vocab_size: k, GreedTok's learned tokens (the 256 bytes come on top).
        name: how the error names the option (the CLI passes ``--bpe-candidates``).

    Raises:
        ValueError: F not a number above 1, or a product that is not finite or above 2**32,
            the most ids HF tokenizers' u32 ids can number (BpeTrainer would abort the process
            trying to reserve memory for it, or overflow converting it).
    """
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)) or not factor > 1:
        raise ValueError(f"{name} must be a number above 1 (BPE's vocabulary as a multiple of the total), "
                         f"got {factor!r}")
    try:
        total = float(factor) * (int(vocab_size) + 256)
    except OverflowError:      # an int beyond float's range
        total = float("inf")
    if not total <= U32_IDS:     # also true of inf
        shown = f"{factor:g}" if total < float("inf") or isinstance(factor, float) else f"~1e+{len(str(factor)) - 1}"
        size = f"{shown} x {int(vocab_size) + 256:,}"
        size += f" = {total:.3g} ids," if total < float("inf") else " ids, not a finite number,"
        raise ValueError(f"{name} {shown}: BPE's vocabulary would be {size} above 2**32 = {U32_IDS:,}, the most "
                         "a vocabulary's u32 ids can number")
    return round(total)


def singleton_alphabet(unit_sequences: Iterable[Sequence[str]], unit_kind: str) -> list[str]:
    """The sorted singletons of a character-level or script-aware vocabulary: every unit of the
    training words (and pinned tokens), given as unit sequences (``pre_tokenizer.word_units``),
    plus, for script-aware units, every character of those units. With those characters, a
    unit never seen in training (ज़ + ा in unseen text, the nukta letters being NFC composition
    exclusions) falls back to its longest seen prefix and single characters, never to the
    bytes of a character the tokenizer knows (issue 19 item 1). Byte level: [] (the 256 bytes
    are fixed).
    """
    if unit_kind == "bytes":
        return []
    alphabet = set(itertools.chain.from_iterable(unit_sequences))
    if unit_kind != "chars":
        alphabet.update(c for unit in list(alphabet) if len(unit) > 1 for c in unit)
    return sorted(alphabet)


def check_counts(word_counts: Mapping[str, int], source: str) -> None:
    """Raise CorpusError for the first word (in table order) whose count is not an integer in
    1..2**63-1."""
    for word, c in word_counts.items():
        if not isinstance(c, (int, np.integer)) or c < 1:
            raise CorpusError(source, None, f"word {word!r} has count {c!r}; counts must be integers >= 1")
        if c > INT64_MAX:
            raise CorpusError(source, None, f"word {word!r} has count {c}, above 2**63-1, the largest "
                                            "count the trainer can hold")


def _too_large(word_counts: Mapping[str, int], singletons: int) -> str:
    word, count = max(word_counts.items(), key=lambda item: item[1])
    return (f"counts too large: the corpus has {singletons} singletons (sum of count x length), above "
            f"2**63-1 = {INT64_MAX}, the bound of the trainer's 64-bit scores and gains; the largest "
            f"count is {count} (word {word!r}). Scale the counts down (divide them) or train on a sample")


def most_frequent(words: Sequence[str], counts: np.ndarray, n: int) -> list[str]:
    """Up to ``n`` of ``words`` (with ``counts``, int64[len(words)]), the most frequent first
    kept: every word counted more often than the n-th largest count, sorted; none of the words
    tied at that count, so the result does not depend on the order of ``words``.

    Example:
        >>> most_frequent(["a", "b", "c", "d"], np.array([5, 2, 2, 9]), 3)
        ['a', 'd']
    """
    if n <= 0:
        return []
    if len(words) <= n:
        return sorted(words)
    kth = np.partition(counts, len(counts) - n)[len(counts) - n]
    return sorted(words[i] for i in np.flatnonzero(counts > kth).tolist())
