"""BPE merges learned from word counts by HF ``tokenizers``' BpeTrainer (the Rust trainer, unchanged).

Two users: CBPE and plain BPE (:mod:`hf_greedtok.indic.cbpe`), whose units become one symbol
each, and GreedTok's ``bpe_candidates`` option (:class:`hf_greedtok.trainers.GreedTokTrainer`),
which chooses its tokens among a byte-level BPE vocabulary of the same words
(:func:`byte_level_bpe_tokens`). ``tokenizers`` is imported only when merges are learned.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from ._progress import native_progress
from .errors import CorpusError

if TYPE_CHECKING:
    from .pre_tokenizers import ByteLevel

_REPEAT_CHUNK = 65536      # occurrences of one word per training text (fewer, longer texts feed faster)
INT32_MAX = 2**31 - 1      # BpeTrainer keeps pair counts as Rust i32 (tokenizers/src/models/bpe/trainer.rs)


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
        target: BpeTrainer's ``vocab_size``: the alphabet plus the merges to learn.
        min_frequency: a pair must occur this often to be merged.

    Returns:
        The learned merges in order, as (left, right) unit strings.
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers
    back = {s: u for u, s in symbol.items()}
    words = list(symbol_words)

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


def byte_level_bpe_tokens(word_counts: Mapping[str, int], pre_tokenizer: "ByteLevel", vocab_size: int, *,
                          source: str = "word counts", show_progress: bool = False) -> list[bytes]:
    """The learned tokens of byte-level BPE trained on ``word_counts`` at ``vocab_size`` total ids.

    The words are taken as ``pre_tokenizer`` made them (its byte singletons, no re-splitting),
    so this is HF BPE with the same split and byte level trained on the same text; its 256 bytes
    count toward ``vocab_size``.

    Returns:
        One ``bytes`` per merge (``vocab_size - 256`` at most; fewer when no pair is left), in
        merge order.

    Raises:
        CorpusError: counts that would wrap BpeTrainer's 32-bit pair counts (:func:`check_pair_counts`).
        ValueError: ``vocab_size`` <= 256.
    """
    if vocab_size <= 256:
        raise ValueError(f"a byte-level BPE vocabulary needs more than its 256 bytes, got vocab_size {vocab_size}")
    shown = {w: pre_tokenizer.token_to_str(pre_tokenizer.word_units(w)) for w in word_counts}
    check_pair_counts(word_counts, shown, source)
    alphabet = sorted({c for s in shown.values() for c in s})
    merges = train_merges(((shown[w], c) for w, c in word_counts.items()), alphabet, {c: c for c in alphabet},
                          vocab_size - 256 + len(alphabet), 0, show_progress)
    return [pre_tokenizer.str_to_token(a + b) for a, b in merges]
