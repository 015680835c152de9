"""BPE and Constrained BPE (CBPE, MorphTok Algorithm 2) trained with HF ``tokenizers``' BpeTrainer.

CBPE is BPE whose initial symbols are script-aware units (:mod:`hf_greedtok.indic.units`): a consonant
with its dependent vowel signs (``units="vowels"``, the paper's rule) or with all its combining
marks (``units="marks"``), instead of single characters (MorphTok, Brahma et al. 2025, Section
3.2, Figure 3). The result is a standard HF BPE ``tokenizer.json`` that loads with
``tokenizers.Tokenizer.from_file`` or ``AutoTokenizer`` and no custom code. How the constraint
is enforced:

* Training: words are pre-tokenized exactly as at encoding time, split into units, and every
  unit is written as one private-use character, so ``tokenizers.trainers.BpeTrainer`` (the Rust
  trainer, unchanged) sees units as its alphabet and can only merge whole units. Its merges are
  then mapped back to text.
* Encoding: HF BPE starts from single characters, so the file gets *unit merges* first: for
  every unit seen in training, the chain ``(c0, c1) -> c0c1``, ``(c0c1, c2) -> c0c1c2``, ...
  All of them rank before every learned merge, and BPE always applies the lowest-ranked merge
  available, so each word is rebuilt into its units before any learned merge can apply. A unit
  never seen in training (for example from text that is not NFC) stays partly split: its
  marks may then begin a token. Characters outside the alphabet use byte fallback
  (``<0x00>``..``<0xFF>``), so nothing is unknown and ``decode(encode(x)) == x`` (with the
  NFC normalizer: ``NFC(x)``).

``units="chars"`` gives plain character-level BPE with byte fallback (MorphTok's BPE baseline)
and ``units="bytes"`` byte-level BPE (GPT-2 style), over the same pre-tokenization as GreedTok.
A morphology lookup (:mod:`hf_greedtok.indic.lookup`) can split words before training and encoding;
it is a custom pre-tokenizer step, so such a tokenizer is saved with
:class:`hf_greedtok.MorphLookupTokenizerFast`.

Example:
    >>> trainer = CBPETrainer(num_merges=8000, units="marks")            # doctest: +SKIP
    >>> backend = trainer.train(["hi_news_wordcounts.tsv"], counts=True)  # doctest: +SKIP
    >>> backend.encode("हिंदी भाषा").tokens                               # doctest: +SKIP
"""
from __future__ import annotations

import os
import warnings
from typing import Iterable, Mapping, Optional, Sequence, Union

from tokenizers import AddedToken, Tokenizer as HFTokenizer
from tokenizers import models

from .bpe_merges import check_pair_counts, train_merges
from .greedtok import caller_stacklevel, shortfall_message
from ..errors import CorpusError, VocabularySizeWarning
from ..hf.pipeline import attach, standard_decoder, standard_normalizer, standard_pre_tokenizer
from ..models import byte_fallback_token
from ..normalizers import UnicodeNormalizer, check_normalizer
from ..pre_tokenizers import ByteLevel, Metaspace, PreTokenizer
from ..pre_tokenizers.patterns import DEFAULT_SPLIT
from ..special_tokens import check_counted_words, check_special_tokens, counting_pipeline
from ..word_counts import count_corpus, count_words
from ..indic.lookup import MorphLookup
from ..indic.units import UNIT_KINDS, UnitSplitter

BPE_UNITS = ("bytes",) + UNIT_KINDS
# Supplementary private-use planes: each training unit is one of these characters.
_PUA_RANGES = ((0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))


class CBPETrainer:
    """Train BPE (``units`` "bytes" or "chars") or CBPE ("marks" or "vowels").

    Args:
        num_merges: learned merges (MorphTok's K), on top of the alphabet, unit merges, byte
            fallback and special tokens; or give ``vocab_size``.
        vocab_size: the final vocabulary size (every id, as in HF trainers).
        units: "bytes", "chars", "marks" or "vowels" (see the module docstring).
        lookup: optional morphology lookup applied before training and encoding (not with
            byte-level units).
        normalizer: Unicode normalization applied first; defaults to NFC except for bytes.
        special_tokens: strings given ids 0..n-1, never produced from text; ``train`` and
            ``train_from_iterator`` cut them out of the raw text before counting, as HF's added
            tokens are cut out when encoding (:mod:`hf_greedtok.special_tokens`).
        min_frequency: a pair must occur this often to be merged (BpeTrainer's option).
        pattern: the split regex of byte-level units (:class:`ByteLevel`'s ``pattern``); default
            ``DEFAULT_SPLIT`` (gpt4-marks), as ``hf-greedtok train``.
        show_progress: progress bars.

    Raises:
        TypeError: a normalizer that is not a :class:`UnicodeNormalizer`, its name or None.
        ValueError: neither or both of num_merges/vocab_size, a target < 1, unknown units,
            a lookup with byte-level units, or an empty, whitespace-only or repeated special token.
    """

    def __init__(self, *, num_merges: Optional[int] = None, vocab_size: Optional[int] = None,
                 units: str = "marks", lookup: Optional[MorphLookup] = None,
                 normalizer: Union[None, str, UnicodeNormalizer] = "default",
                 special_tokens: Sequence[str] = (), min_frequency: int = 0,
                 pattern: str = DEFAULT_SPLIT, show_progress: bool = True) -> None:
        if (num_merges is None) == (vocab_size is None):
            raise ValueError("give exactly one of num_merges and vocab_size")
        target = num_merges if num_merges is not None else vocab_size
        if not isinstance(target, int) or target < 1:
            raise ValueError(f"{'num_merges' if num_merges is not None else 'vocab_size'} must be an "
                             f"integer >= 1, got {target!r}")
        if units not in BPE_UNITS:
            raise ValueError(f"units must be one of {', '.join(BPE_UNITS)}, got {units!r}")
        if lookup is not None and units == "bytes":
            raise ValueError("a morphology lookup needs units 'chars', 'marks' or 'vowels', not 'bytes'")
        if normalizer == "default":
            normalizer = None if units == "bytes" else "NFC"
        self.num_merges, self.vocab_size = num_merges, vocab_size
        self.units = units
        self.lookup = lookup
        self.normalizer = check_normalizer(normalizer, "CBPETrainer", names=True)
        self.special_tokens = check_special_tokens(special_tokens, "special_tokens")
        self.min_frequency = min_frequency
        self.show_progress = show_progress
        self.pre_tokenizer: PreTokenizer = ByteLevel(pattern) if units == "bytes" else Metaspace(
            units="chars" if units == "chars" else units, lookup=lookup)
        self.training_info: dict = {}

    # ------------------------------------------------------------------ inputs

    def train(self, files: Sequence[Union[str, os.PathLike]], *, counts: bool = False,
              encoding_errors: str = "strict", num_proc: Optional[int] = None) -> HFTokenizer:
        """Train on text files, or on ``word<TAB>count`` tables when ``counts`` is true."""
        wc = count_corpus(files, *self.counting_pipeline(), counts=counts,
                          encoding_errors=encoding_errors, num_proc=num_proc, show_progress=self.show_progress)
        return self._fit(wc, ", ".join(map(str, files)))

    def train_from_iterator(self, texts: Iterable[str], *, num_proc: Optional[int] = None) -> HFTokenizer:
        """Train on an iterable of strings."""
        wc = count_words(texts, *self.counting_pipeline(), num_proc=num_proc,
                         show_progress=self.show_progress)
        return self._fit(wc, "iterator")

    def counting_pipeline(self) -> tuple:
        """(pre-tokenizer, normalizer) for the counters of :mod:`hf_greedtok.word_counts`: the
        words encoding sees, special tokens cut out of the raw text first."""
        return counting_pipeline(self.pre_tokenizer, self.normalizer, self.special_tokens)

    def train_from_counts(self, word_counts: Mapping[str, int], *, source: str = "word counts") -> HFTokenizer:
        """Train on {pre-tokenized word: count}; returns the HF backend (see :meth:`train`).

        Words are used as given: count them with :meth:`counting_pipeline` when there are
        special tokens. HF's BpeTrainer keeps pair counts in 32 bits; a pair's count never grows
        past the count of the unit pair under its boundary, so those counts are checked first.
        Counts of any size are fine on one-unit words, which are not fed (they hold no pair).

        Raises:
            CorpusError: empty corpus, a count < 1, a unit pair occurring more than 2**31-1
                times (count-weighted), or a word containing a special token
                (:func:`hf_greedtok.special_tokens.check_counted_words`).
            ValueError: ``vocab_size`` too small for the alphabet, or more distinct units
                than private-use characters (about 131,000).
        """
        check_counted_words(word_counts, self.special_tokens, self.normalizer, source)
        return self._fit(word_counts, source)

    def _fit(self, word_counts: Mapping[str, int], source: str) -> HFTokenizer:
        """:meth:`train_from_counts` for counts made with :meth:`counting_pipeline`."""
        if not word_counts:
            raise CorpusError(source, None, "empty corpus: no words to train on")
        for word, c in word_counts.items():
            if not isinstance(c, int) or c < 1:
                raise CorpusError(source, None, f"word {word!r} has count {c!r}; counts must be integers >= 1")
        split = self._unit_split()
        unit_words = {w: split(w) for w in word_counts}
        check_pair_counts(word_counts, unit_words, source)
        alphabet = sorted({u for units in unit_words.values() for u in units})
        symbol = _symbols(alphabet, self.units)
        base = self._base_vocab(alphabet)
        target = self.num_merges + len(alphabet) if self.num_merges is not None \
            else self.vocab_size - len(base) + len(alphabet)
        if target <= len(alphabet):
            raise ValueError(f"vocab_size {self.vocab_size} leaves no merges: the alphabet, unit merges, "
                             f"byte fallback and special tokens already take {len(base)} ids")
        learned = train_merges(((("".join(symbol[u] for u in unit_words[w])), c)
                                 for w, c in word_counts.items()), alphabet, symbol, target,
                                self.min_frequency, self.show_progress)
        vocab, merges, n_unit_merges = self._assemble(base, alphabet, learned)
        backend = self._backend(vocab, merges)
        self.training_info = {
            "algorithm": "CBPE (MorphTok Algorithm 2)" if self.units in ("marks", "vowels") else "BPE",
            "units": self.units, "source": source, "distinct_words": len(word_counts),
            "words": sum(word_counts.values()), "alphabet_units": len(alphabet),
            "unit_merges": n_unit_merges, "learned_merges": len(merges) - n_unit_merges,
            "dropped_merges": len(learned) - (len(merges) - n_unit_merges),
            "final_vocab_size": backend.get_vocab_size(with_added_tokens=True),
            "normalizer": None if self.normalizer is None else self.normalizer.form,
            "lookup_entries": None if self.lookup is None else len(self.lookup),
        }
        self._report_shortfall(target - len(alphabet))
        return backend

    def _report_shortfall(self, asked: int) -> None:
        """Warn (:class:`~hf_greedtok.errors.VocabularySizeWarning`) and record
        ``training_info["size_shortfall"]`` when fewer than ``asked`` merges were learned.
        BpeTrainer stops when no pair occurs ``min_frequency`` times; with a floor of at most 1,
        when no pair is left: every training word is one token."""
        info = self.training_info
        got = info["learned_merges"]
        if got >= asked:
            return
        if self.min_frequency > 1:
            cause, option = f"no pair of tokens occurs at least {self.min_frequency} times", "min_frequency"
        else:
            cause, option = f"every training word is one token already (the corpus is too small for {asked:,} merges)", None
        if info["dropped_merges"]:
            cause += (f"; {info['dropped_merges']} merges were dropped (spelled like a special token or a "
                      "byte-fallback piece)")
        shortfall = {"asked": asked, "got": got, "cause": cause, "option": option}
        if self.vocab_size is not None:
            shortfall.update(vocab_size_asked=self.vocab_size, vocab_size_got=info["final_vocab_size"])
        info["size_shortfall"] = shortfall
        warnings.warn(shortfall_message(info["algorithm"], shortfall), VocabularySizeWarning,
                      stacklevel=caller_stacklevel())

    # ------------------------------------------------------------------ pieces

    def _unit_split(self):
        if self.units == "bytes":
            table = ByteLevel.token_to_str
            return lambda w: list(table(ByteLevel.word_units(w)))
        return UnitSplitter(self.units).split

    def _base_vocab(self, alphabet: list[str]) -> list[str]:
        """Ids before the learned merges: specials, byte fallback, characters, unit prefixes."""
        if self.units == "bytes":
            return [*self.special_tokens, *(ByteLevel.token_to_str(bytes([b])) for b in range(256))]
        chars = sorted({c for u in alphabet for c in u})
        prefixes = sorted({u[:i] for u in alphabet for i in range(2, len(u) + 1)}, key=lambda p: (len(p), p))
        return list(dict.fromkeys([*self.special_tokens, *(byte_fallback_token(b) for b in range(256)),
                                   *chars, *prefixes]))

    def _assemble(self, base: list[str], alphabet: list[str],
                  learned: list[tuple[str, str]]) -> tuple[dict[str, int], list[tuple[str, str]], int]:
        vocab = {t: i for i, t in enumerate(base)}
        merges: list[tuple[str, str]] = []
        if self.units != "bytes":
            chains = {(u[:i - 1], u[i - 1]) for u in alphabet for i in range(2, len(u) + 1)}
            merges = sorted(chains, key=lambda m: (len(m[0]) + 1, m[0] + m[1]))
        n_unit_merges = len(merges)
        # A learned token spelled like a special token or a byte-fallback piece ("<0x41>" from
        # text that contains it) would share that id, and decode as the byte: drop such merges
        # and every merge built on them (they could never apply).
        reserved = set(self.special_tokens)
        if self.units != "bytes":
            reserved.update(byte_fallback_token(b) for b in range(256))
        unreachable: set[str] = set()
        for a, b in learned:
            if a in unreachable or b in unreachable or a + b in reserved:
                if a + b not in vocab or a + b in reserved:
                    unreachable.add(a + b)
                continue
            merges.append((a, b))
            vocab.setdefault(a + b, len(vocab))
        return vocab, merges, n_unit_merges

    def _backend(self, vocab: dict[str, int], merges: list[tuple[str, str]]) -> HFTokenizer:
        backend = HFTokenizer(models.BPE(vocab, merges, byte_fallback=self.units != "bytes",
                                         ignore_merges=False))
        backend.normalizer = standard_normalizer(self.pre_tokenizer, self.normalizer)
        backend.pre_tokenizer = standard_pre_tokenizer(self.pre_tokenizer)
        backend.decoder = standard_decoder(self.pre_tokenizer, self.special_tokens)
        if self.special_tokens:
            backend.add_special_tokens([AddedToken(s, special=True, normalized=False)
                                        for s in self.special_tokens])
        if self.lookup is not None:
            attach(backend, None, None, lookup=self.lookup, units=self.units)
        return backend


def _symbols(alphabet: list[str], units: str) -> dict[str, str]:
    """unit -> the one character BpeTrainer sees for it."""
    if units == "bytes":
        return {u: u for u in alphabet}          # byte-level display characters are never spaces
    capacity = sum(hi - lo + 1 for lo, hi in _PUA_RANGES)
    if len(alphabet) > capacity:
        raise ValueError(f"{len(alphabet)} distinct units exceed the {capacity} private-use characters "
                         "available to represent them")
    codes = (c for lo, hi in _PUA_RANGES for c in range(lo, hi + 1))
    return {u: chr(c) for u, c in zip(alphabet, codes)}
