"""Intrinsic tokenization metrics from texts and the character spans of their tokens.

Everything here works on ``(text, spans, ids)`` triples, where ``spans[i] = (start, end)`` are the
character (code point, not byte) offsets of token ``i`` in ``text``, as in a Hugging Face
``Encoding.offsets`` computed with character offsets, and ``ids[i]`` is its id. So the metrics apply
to any tokenizer (HF BPE/Unigram/WordPiece, GreedTok, byte-level or character-level) without
importing one.

Metrics:

* **Fertility** (tokens per whitespace word) and **proportion of continued words** (PCW, the share of
  whitespace words split into two or more tokens): Rust et al. 2021, "How Good is Your Tokenizer?
  On the Monolingual Performance of Multilingual Language Models" (ACL), Section 4.
* **Mark-initial tokens** (tokens beginning with a combining mark, category Mn/Mc/Me, or ZWJ/ZWNJ)
  and **dependent-vowel tokens** (tokens beginning with a dependent vowel sign, Unicode
  Indic_Syllabic_Category=Vowel_Dependent): MorphTok (Brahma et al. 2025) Table 7 counts dependent
  vowels cut off into separate tokens; mark-initial tokens generalise this to all combining marks.
* **Rényi efficiency** ``H_alpha(p) / log2 |V|`` of the token unigram distribution: Zouhar et al.
  2023, "Tokenization and the Noiseless Channel" (ACL), with ``alpha = 2.5`` as they recommend and as
  MorphTok Section 6.3 uses.
* **Boundary precision / recall / F1** of token boundaries against gold morpheme segmentations,
  micro-averaged over boundaries as in Creutz & Lagus 2007 ("Unsupervised models for morpheme
  segmentation and morphology learning", ACM TSLP).

Example:
    >>> stats = TokenizationStats()
    >>> stats.add("the cat", [(0, 3), (4, 5), (5, 7)], [10, 11, 12])
    >>> r = stats.result(vocab_size=100)
    >>> r["fertility"], r["proportion_continued_words"]
    (1.5, 0.5)
"""
from __future__ import annotations

import bisect
import math
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

from ..indic.units import starts_with_dependent_vowel, starts_with_mark

__all__ = [
    "BoundaryScores",
    "TokenizationStats",
    "renyi_efficiency",
    "renyi_entropy",
    "token_boundaries",
    "whitespace_words",
]


def whitespace_words(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` (end exclusive) of the maximal runs of non-whitespace
    characters of ``text`` (whitespace as in ``str.isspace``), in text order.

    Example:
        >>> whitespace_words(" the  cat\\n")
        [(1, 4), (6, 9)]
    """
    words: list[tuple[int, int]] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isspace():
            if start >= 0:
                words.append((start, i))
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        words.append((start, len(text)))
    return words


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if math.isnan(alpha) or alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return alpha


def _probabilities(frequencies: Sequence[int] | np.ndarray) -> np.ndarray:
    """Nonzero frequencies normalised to probabilities (float64[K], K = number of nonzero types)."""
    f = np.asarray(frequencies, dtype=np.float64).ravel()
    if f.size == 0:
        raise ValueError("frequencies are empty")
    if not np.all(np.isfinite(f)):
        raise ValueError("frequencies must be finite")
    if np.any(f < 0):
        raise ValueError("frequencies must be non-negative counts")
    f = f[f > 0]
    if f.size == 0:
        raise ValueError("all frequencies are zero")
    return f / f.sum()


def renyi_entropy(frequencies: Sequence[int] | np.ndarray, alpha: float = 2.5) -> float:
    """Rényi entropy of order ``alpha``, in bits, of the distribution given by ``frequencies``.

    ``H_alpha(p) = 1 / (1 - alpha) * log2(sum_i p_i ** alpha)`` with ``p_i = f_i / sum_j f_j``.
    ``alpha == 1`` gives Shannon entropy ``-sum_i p_i log2 p_i`` (the limit), ``alpha == 0`` gives
    ``log2`` of the number of types with nonzero frequency, and ``alpha == inf`` gives the
    min-entropy ``-log2 max_i p_i``. Types with zero frequency do not contribute.

    Args:
        frequencies: non-negative counts (or weights), any 1-D shape of length K (list or ndarray of
            any real dtype); only their ratios matter.
        alpha: order, ``>= 0`` (``math.inf`` allowed).

    Raises:
        ValueError: empty or all-zero frequencies, negative or non-finite counts, ``alpha < 0``.
    """
    alpha = _check_alpha(alpha)
    p = _probabilities(frequencies)
    if alpha == 1.0:
        return float(-np.sum(p * np.log2(p)))
    if alpha == 0.0:
        return float(math.log2(p.size))
    p_max = float(p.max())
    if math.isinf(alpha):
        return float(-math.log2(p_max))
    # Factor out max(p) so that p ** alpha does not underflow to 0 for large alpha:
    # log2 sum p^a = a log2 pmax + log2 sum (p/pmax)^a, and the second sum is >= 1.
    log_sum = alpha * math.log2(p_max) + math.log2(float(np.sum((p / p_max) ** alpha)))
    return float(log_sum / (1.0 - alpha))


def renyi_efficiency(frequencies: Sequence[int] | np.ndarray, vocab_size: int, alpha: float = 2.5) -> float:
    """Rényi efficiency ``H_alpha(p) / log2(vocab_size)`` (dimensionless, in [0, 1]).

    Zouhar et al. 2023, "Tokenization and the Noiseless Channel" (ACL): the Rényi entropy of the
    token unigram distribution, normalised by the entropy of the uniform distribution over the
    vocabulary; they recommend ``alpha = 2.5`` (as MorphTok Section 6.3 uses). ``vocab_size`` is the
    full vocabulary size |V| of the tokenizer, not the number of token types observed in the
    evaluation text (the latter is ``tokenization_scorer``'s default when its ``vocab`` is not
    given, and makes the score not comparable across tokenizers).

    Args:
        frequencies: non-negative token counts (1-D, length K; see :func:`renyi_entropy`).
        vocab_size: |V|, ``>= 2`` and at least the number of types with nonzero frequency.
        alpha: Rényi order, ``>= 0``.

    Raises:
        ValueError: empty or all-zero frequencies, negative counts, ``vocab_size < 2``, more
            observed types than ``vocab_size`` (the efficiency would exceed 1), ``alpha < 0``.
    """
    if int(vocab_size) != vocab_size or vocab_size < 2:
        raise ValueError(f"vocab_size must be an integer >= 2, got {vocab_size}")
    entropy = renyi_entropy(frequencies, alpha)
    observed = int(np.count_nonzero(np.asarray(frequencies, dtype=np.float64)))
    if observed > vocab_size:
        raise ValueError(f"{observed} token types were observed but vocab_size is {vocab_size}")
    return entropy / math.log2(int(vocab_size))


class TokenizationStats:
    """Accumulates fertility, continued words, mark-initial tokens and token frequencies.

    Feed it one tokenized text at a time with :meth:`add` (weighted, so a word-count table can be
    fed word by word with its counts), then read the metrics with :meth:`result`. Words are
    whitespace words (:func:`whitespace_words`); all positions are character (code point) offsets.
    """

    def __init__(self) -> None:
        self.words = 0
        self.tokens = 0
        self.characters = 0
        self.continued_words = 0
        self.mark_initial_tokens = 0
        self.avoidable_mark_initial_tokens = 0
        self.dependent_vowel_tokens = 0
        self.mid_character_tokens = 0
        self._frequencies: Counter[int] = Counter()

    def add(self, text: str, spans: Sequence[tuple[int, int]], ids: Sequence[int], weight: int = 1) -> None:
        """Add one tokenized text, counted ``weight`` times.

        Args:
            text: the text as given to the tokenizer (offsets refer to it).
            spans: ``(start, end)`` character offsets of each token in ``text``, end exclusive, as
                HF ``Encoding.offsets`` with character offsets; ``0 <= start <= end <= len(text)``.
            ids: token ids, one per span.
            weight: how many times this text occurs (e.g. its count in a word-count table), ``>= 0``.

        Counting rules:

        * Every token counts for ``tokens`` and for the token frequencies, including tokens with
          an empty span (``start == end``: a prepended "▁", special tokens); those belong to no
          word and are never mark-initial. Pass only the tokens you want counted (e.g. drop
          special tokens) if they should not affect fertility or Rényi efficiency.
        * A token belongs to every whitespace word its span overlaps (a token like "t c" counts for
          both words); a word's token count is the number of tokens overlapping it, so byte-level
          tokens that share one character's span each count.
        * Byte-level and byte-fallback tokenizers split one character into several tokens whose
          spans all cover that character: a token whose span starts before the end of an
          earlier token's (in sequence order) begins inside a character and counts as
          ``mid_character``; it is never mark-initial or dependent-vowel-initial. Any other
          token is mark-initial if ``text[start]`` is a combining mark or ZWJ/ZWNJ
          (:func:`hf_greedtok.indic.units.starts_with_mark`), dependent-vowel-initial if it is a
          dependent vowel sign (:func:`hf_greedtok.indic.units.starts_with_dependent_vowel`).
          A mark-initial token is avoidable when the character before it is not whitespace
          (the mark had a base to stay with); a mark opening the text or following a space has
          none.

        Raises:
            ValueError: ``len(spans) != len(ids)``, a span outside ``text`` or with ``end < start``,
                a negative or non-integer weight.
        """
        if len(spans) != len(ids):
            raise ValueError(f"{len(spans)} spans but {len(ids)} ids")
        if int(weight) != weight or weight < 0:
            raise ValueError(f"weight must be a non-negative integer, got {weight}")
        weight = int(weight)
        n = len(text)
        starts: list[int] = []
        ends: list[int] = []
        reached = 0                 # the furthest end of the tokens so far
        marks = avoidable = vowels = inside = 0
        for span in spans:
            start, end = int(span[0]), int(span[1])
            if not 0 <= start <= end <= n:
                raise ValueError(f"token span {span!r} is not within text of length {n}")
            if start == end:
                continue
            starts.append(start)
            ends.append(end)
            if start < reached:
                inside += 1
                continue
            reached = end
            first = text[start]
            if starts_with_mark(first):
                marks += 1
                avoidable += start > 0 and not text[start - 1].isspace()
            vowels += starts_with_dependent_vowel(first)
        starts.sort()
        ends.sort()
        words = whitespace_words(text)
        continued = 0
        for w_start, w_end in words:
            # Tokens overlapping [w_start, w_end): start < w_end and end > w_start. Tokens with
            # end <= w_start all have start < w_end too (start < end), so subtract them from the
            # start < w_end count; this holds for spans in any order.
            overlapping = bisect.bisect_left(starts, w_end) - bisect.bisect_right(ends, w_start)
            continued += overlapping >= 2
        self.words += weight * len(words)
        self.tokens += weight * len(ids)
        self.characters += weight * n
        self.continued_words += weight * continued
        self.mark_initial_tokens += weight * marks
        self.avoidable_mark_initial_tokens += weight * avoidable
        self.dependent_vowel_tokens += weight * vowels
        self.mid_character_tokens += weight * inside
        if weight:
            for token_id in ids:
                self._frequencies[int(token_id)] += weight

    def frequencies(self) -> tuple[np.ndarray, np.ndarray]:
        """Observed token ids and their weighted counts: ``(ids int64[K], counts int64[K])``, sorted by id."""
        items = sorted(self._frequencies.items())
        ids = np.fromiter((i for i, _ in items), dtype=np.int64, count=len(items))
        counts = np.fromiter((c for _, c in items), dtype=np.int64, count=len(items))
        return ids, counts

    def result(self, vocab_size: int, alpha: float = 2.5) -> dict:
        """The accumulated metrics as a dict (all counts weighted by the ``add`` weights):

        * ``words``: whitespace words; ``tokens``: tokens (including empty-span tokens);
        * ``fertility``: ``tokens / words``, tokens per word (Rust et al. 2021);
        * ``continued_words``: words overlapped by >= 2 tokens; ``proportion_continued_words``:
          ``continued_words / words`` (PCW, Rust et al. 2021);
        * ``mark_initial_tokens``: tokens starting with a combining mark (Mn/Mc/Me) or ZWJ/ZWNJ;
          ``mark_initial_share``: that / ``tokens``; ``avoidable_mark_initial_tokens``: those
          whose mark follows a non-space character (a tokenizer could have kept it with its
          base), the rest open the text or follow whitespace;
        * ``mid_character_tokens``: tokens that begin inside a character (the second and later
          byte tokens of a character split into bytes);
        * ``dependent_vowel_tokens``: tokens starting with a dependent vowel sign (MorphTok
          Table 7's separated dependent vowels); ``dependent_vowel_share``: that / ``tokens``;
        * ``distinct_tokens``: token ids observed;
        * ``renyi_efficiency``: :func:`renyi_efficiency` of the token id frequencies with
          ``vocab_size`` and ``alpha`` (Zouhar et al. 2023); ``renyi_alpha``, ``vocab_size``: echoed;
        * ``characters``: characters (code points, whitespace included) of the added texts;
          ``chars_per_token``: ``characters / tokens``.

        Args:
            vocab_size: the tokenizer's full vocabulary size |V| (``>= 2``).
            alpha: Rényi order (``>= 0``).

        Raises:
            ValueError: nothing added (no words), ``vocab_size < 2``, no tokens, more distinct
                tokens than ``vocab_size``, ``alpha < 0``.
        """
        if int(vocab_size) != vocab_size or vocab_size < 2:
            raise ValueError(f"vocab_size must be an integer >= 2, got {vocab_size}")
        if self.words == 0:
            raise ValueError("no words were added")
        if self.tokens == 0:
            raise ValueError("no tokens were added")
        counts = list(self._frequencies.values())   # Python ints: a weighted count may exceed int64
        return {
            "words": self.words,
            "tokens": self.tokens,
            "fertility": self.tokens / self.words,
            "continued_words": self.continued_words,
            "proportion_continued_words": self.continued_words / self.words,
            "mark_initial_tokens": self.mark_initial_tokens,
            "mark_initial_share": self.mark_initial_tokens / self.tokens,
            "avoidable_mark_initial_tokens": self.avoidable_mark_initial_tokens,
            "mid_character_tokens": self.mid_character_tokens,
            "dependent_vowel_tokens": self.dependent_vowel_tokens,
            "dependent_vowel_share": self.dependent_vowel_tokens / self.tokens,
            "distinct_tokens": len(counts),
            "renyi_efficiency": renyi_efficiency(counts, int(vocab_size), alpha),
            "renyi_alpha": float(alpha),
            "vocab_size": int(vocab_size),
            "characters": self.characters,
            "chars_per_token": self.characters / self.tokens,
        }


def token_boundaries(spans: Sequence[tuple[int, int]], length: int) -> set[int]:
    """Internal boundaries of a tokenized word, as character offsets into the word.

    The start offsets ``p`` of the tokens with ``0 < p < length``; empty spans (``start == end``)
    are ignored, and byte-level tokens sharing one start count once (the result is a set).

    Args:
        spans: ``(start, end)`` character offsets of the word's tokens, relative to the word.
        length: the word's length in characters.

    Example:
        >>> sorted(token_boundaries([(0, 0), (0, 4), (4, 6), (4, 6), (6, 9)], 9))
        [4, 6]
    """
    return {int(s) for s, e in spans if s != e and 0 < s < length}


class BoundaryScores:
    """Micro-averaged boundary precision / recall / F1 against gold segmentations (Creutz & Lagus style).

    Boundaries are character offsets strictly inside a word (see :func:`token_boundaries`). Counts
    are pooled over all added words before dividing (micro-averaging), following Creutz & Lagus
    2007 ("Unsupervised models for morpheme segmentation and morphology learning", ACM TSLP):
    precision = correct / predicted boundaries, recall = correct / gold boundaries.
    """

    def __init__(self) -> None:
        self.gold_words = 0
        self.gold_boundaries = 0
        self.predicted_boundaries = 0
        self.correct_boundaries = 0

    def add(self, predicted: Iterable[int], gold: Iterable[int], weight: int = 1) -> None:
        """Add one word: its predicted and gold internal boundary offsets (duplicates are merged),
        counted ``weight`` times.

        Raises:
            ValueError: a negative or non-integer weight.
        """
        if int(weight) != weight or weight < 0:
            raise ValueError(f"weight must be a non-negative integer, got {weight}")
        weight = int(weight)
        p = {int(b) for b in predicted}
        g = {int(b) for b in gold}
        self.gold_words += weight
        self.gold_boundaries += weight * len(g)
        self.predicted_boundaries += weight * len(p)
        self.correct_boundaries += weight * len(p & g)

    def result(self) -> dict:
        """``boundary_precision``, ``boundary_recall``, ``boundary_f1`` (in [0, 1]) and the counts
        ``gold_words``, ``gold_boundaries``, ``predicted_boundaries``, ``correct_boundaries``.

        Precision is 0.0 when no boundary was predicted, recall is 0.0 when the gold has no
        boundary (both undefined otherwise), and F1 (harmonic mean of P and R) is 0.0 when
        P + R == 0.

        Raises:
            ValueError: no word was added.
        """
        if self.gold_words == 0:
            raise ValueError("no words were added")
        precision = self.correct_boundaries / self.predicted_boundaries if self.predicted_boundaries else 0.0
        recall = self.correct_boundaries / self.gold_boundaries if self.gold_boundaries else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return {
            "boundary_precision": precision,
            "boundary_recall": recall,
            "boundary_f1": f1,
            "gold_words": self.gold_words,
            "gold_boundaries": self.gold_boundaries,
            "predicted_boundaries": self.predicted_boundaries,
            "correct_boundaries": self.correct_boundaries,
        }
