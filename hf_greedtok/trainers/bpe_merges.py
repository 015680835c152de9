"""BPE merges learned from word counts by HF ``tokenizers``' BpeTrainer (the Rust trainer, unchanged).

Two users: CBPE and plain BPE (:mod:`hf_greedtok.trainers.cbpe`), whose units become one symbol
each, and GreedTok's ``bpe_candidates`` option (:class:`hf_greedtok.trainers.GreedTokTrainer`),
which chooses its tokens among a byte-level BPE vocabulary of the same words
(:func:`byte_level_bpe_tokens`). ``tokenizers`` is imported only when merges are learned.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from .._progress import native_progress
from ..errors import CorpusError

if TYPE_CHECKING:
    from ..pre_tokenizers import ByteLevel

_REPEAT_CHUNK = 65536      # occurrences of one word per training text (fewer, longer texts feed faster)
INT32_MAX = 2**31 - 1      # BpeTrainer keeps pair counts as Rust i32 (tokenizers/src/models/bpe/trainer.rs)
U32_IDS = 2**32            # HF tokenizers' ids are u32: no vocabulary has more


def check_pair_counts(word_counts: Mapping[str, int], unit_words: Mapping[str, Sequence[str]], source: str) -> None:
    """Refuse counts that would wrap BpeTrainer's i32 pair counts.

    A pair (X, Y) of merged symbols sits on boundaries whose units are (last unit of X, first
    unit of Y), each boundary at most once, so its count, even midway through an update, never
    exceeds the count-weighted occurrences of that unit pair in the words as fed.

    Raises:
        CorpusError: a unit pair occurs more than 2**31-1 times (count-weighted).
    """
    pairs_fed = sum(c * (len(unit_words[w]) - 1) for w, c in word_counts.items())
    if pairs_fed <= INT32_MAX:
        return
    pairs: Counter = Counter()
    for w, c in word_counts.items():
        units = unit_words[w]
        for pair in zip(units, units[1:]):
            pairs[pair] += c
    (a, b), n = max(pairs.items(), key=lambda item: item[1])
    if n > INT32_MAX:
        raise CorpusError(source, None, f"counts too large for HF's BpeTrainer: the pair {a!r} {b!r} occurs {n} "
                                        f"times, above 2**31-1 = {INT32_MAX}, where its 32-bit pair counts "
                                        "would wrap. Scale the counts down (divide them) or train on a sample")


def train_merges(symbol_words: Iterator[tuple[str, int]], alphabet: Sequence[str], symbol: Mapping[str, str],
                 target: int, min_frequency: int, show_progress: bool) -> list[tuple[str, str]]:
    """BpeTrainer on words written one symbol (a character that is never whitespace) per unit.

    Args:
        symbol_words: (word as symbols, count) pairs.
        alphabet: every unit; ``symbol[u]`` is its one character.
        target: the alphabet plus the merges to learn. BpeTrainer reserves memory in
            proportion to the ``vocab_size`` it is given (2**32 ids abort the process), so it is
            given at most the alphabet plus :func:`merge_bound` of the words: the same merges as
            any larger target, since BPE cannot merge more often.
        min_frequency: a pair must occur this often to be merged.

    Returns:
        The learned merges in order, as (left, right) unit strings.
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers
    back = {s: u for u, s in symbol.items()}
    words = list(symbol_words)
    target = min(target, len(alphabet) + merge_bound(len(w) for w, _ in words))

    def texts() -> Iterator[str]:
        # BpeTrainer counts words itself; repeat each one (in bounded chunks) to give its count.
        # A one-symbol word holds no pair, so it cannot change a merge: it is not fed at all
        # (initial_alphabet keeps its symbol), however large its count.
        for w, c in words:
            if len(w) < 2:
                continue
            while c > 0:
                n = min(c, _REPEAT_CHUNK)
                yield " ".join([w] * n)
                c -= n

    trainer = trainers.BpeTrainer(vocab_size=target, min_frequency=min_frequency,
                                  show_progress=native_progress(show_progress),
                                  initial_alphabet=[symbol[u] for u in alphabet])
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(texts(), trainer, length=len(words))
    merges = json.loads(tok.to_str())["model"]["merges"]
    decode = lambda s: "".join(back[c] for c in s)   # noqa: E731
    return [(decode(a), decode(b)) for a, b in (m.split(" ") if isinstance(m, str) else m for m in merges)]


def merge_bound(unit_lengths: Iterable[int]) -> int:
    """The most merges BPE can learn on words of these lengths (in units, one per distinct word):
    sum of (length - 1). Each merge replaces at least one adjacent pair of symbols in at least
    one distinct word by one symbol, and a word of n units has n - 1 pairs to give."""
    return sum(n - 1 for n in unit_lengths if n >= 2)


@dataclass(frozen=True)
class ByteLevelBpeRun:
    """What :func:`byte_level_bpe_run` learned and asked for.

    Attributes:
        tokens: one ``bytes`` per learned merge, in merge order.
        vocab_size: the total ids requested (256 bytes included).
        merge_bound: :func:`merge_bound` of the words fed (those of 2 bytes or more).
        merges_asked: min(vocab_size - 256, merge_bound): the merges BpeTrainer was asked for.
    """

    tokens: list
    vocab_size: int
    merge_bound: int
    merges_asked: int

    @property
    def capped(self) -> bool:
        """Whether the request was cut to the merge bound (with the same result)."""
        return self.merges_asked < self.vocab_size - 256


def byte_level_bpe_run(word_counts: Mapping[str, int], pre_tokenizer: "ByteLevel", vocab_size: int, *,
                       source: str = "word counts", show_progress: bool = False) -> ByteLevelBpeRun:
    """Byte-level BPE trained on ``word_counts`` at ``vocab_size`` total ids (its 256 bytes count
    toward it), by HF ``tokenizers``' BpeTrainer.

    The words are taken as ``pre_tokenizer`` made them (its byte singletons, no re-splitting),
    so this is HF BPE with the same split and byte level trained on the same text.

    BpeTrainer reserves memory in proportion to the vocabulary size it is given, whatever the
    words (about 71 bytes of address space per id at once, and 1.3 bytes touched, with
    ``tokenizers`` 0.23: 1e9 ids abort the process on a 24 GiB machine). BPE cannot merge more
    often than :func:`merge_bound` of the words, and asked for more it stops when no pair is
    left, so it is asked for min(vocab_size - 256, bound) merges: the same merges in the same
    order as any larger request, in memory that grows with the words, not with ``vocab_size``.

    Raises:
        CorpusError: counts that would wrap BpeTrainer's 32-bit pair counts (:func:`check_pair_counts`).
        ValueError: ``vocab_size`` <= 256, or above 2**32 (its ids are u32).
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not 256 < vocab_size <= U32_IDS:
        raise ValueError(f"a byte-level BPE vocabulary needs more than its 256 bytes and at most 2**32 ids "
                         f"(u32), got vocab_size {vocab_size!r}")
    shown = {w: pre_tokenizer.token_to_str(pre_tokenizer.word_units(w)) for w in word_counts}
    check_pair_counts(word_counts, shown, source)
    alphabet = sorted({c for s in shown.values() for c in s})
    bound = merge_bound(map(len, shown.values()))
    asked = min(vocab_size - 256, bound)
    merges = train_merges(((shown[w], c) for w, c in word_counts.items()), alphabet, {c: c for c in alphabet},
                          asked + len(alphabet), 0, show_progress)
    return ByteLevelBpeRun([pre_tokenizer.str_to_token(a + b) for a, b in merges], vocab_size, bound, asked)


def byte_level_bpe_tokens(word_counts: Mapping[str, int], pre_tokenizer: "ByteLevel", vocab_size: int, *,
                          source: str = "word counts", show_progress: bool = False) -> list[bytes]:
    """The learned tokens of :func:`byte_level_bpe_run` (same arguments and errors): one ``bytes``
    per merge (``vocab_size - 256`` at most; fewer when no pair is left), in merge order."""
    return byte_level_bpe_run(word_counts, pre_tokenizer, vocab_size, source=source,
                              show_progress=show_progress).tokens
