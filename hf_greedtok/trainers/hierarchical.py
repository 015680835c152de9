"""Hierarchical GreedTok's two levels (Lim, Choo & Lauw 2025, Section 5.4), wherever its local runs execute.

GreedTok runs on each domain (corpus) alone, giving S_1..S_K (:class:`LocalRun`). The candidate
set T of the final run is every substring of at least 2 singletons of a token in
S_1 u ... u S_K, instead of every substring of every word; the final run selects k tokens from
it on the combined counts (:func:`run_hierarchical`). Where the local runs execute is a
parameter (a :data:`LocalRunner`): in turn here (:func:`run_locally`), or as Ray tasks
(:class:`hf_greedtok.distributed.RayRunner`, in :mod:`hf_greedtok.distributed.training`). The
report comparing it with a direct run is
:func:`hf_greedtok.experiments.hierarchical_vs_direct.train_hierarchical`.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Optional

from ..core import Tokenizer
from ..defaults import DEFAULT_MAX_TOKEN_LENGTH
from ..pre_tokenizers import PreTokenizer, Token
from .greedtok import GreedTokTrainer


def token_substrings(tokens: Iterable[Token], min_length: int = 2) -> set[Token]:
    """Every substring of at least ``min_length`` singletons (bytes or characters) of the tokens."""
    out: set[Token] = set()
    for t in tokens:
        n = len(t)
        for i in range(n - min_length + 1):
            for j in range(i + min_length, n + 1):
                out.add(t[i:j])
    return out


@dataclass(frozen=True)
class LocalRun:
    """One domain's local GreedTok run (S_i of Section 5.4), as a picklable callable: the same
    settings wherever it runs (this process, or a Ray task in
    :func:`hf_greedtok.distributed.train_hierarchical_distributed`).

    Attributes:
        k: tokens to learn. pre_tokenizer: shared by every run (None: :class:`ByteLevel`).
        max_token_length: longest candidate, in singletons. num_threads: trainer threads
        (None: all cores; the ranking does not depend on it).
    """

    k: int
    pre_tokenizer: Optional[PreTokenizer] = None
    max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH
    show_progress: bool = True
    num_threads: Optional[int] = None

    def trainer(self, **kw) -> GreedTokTrainer:
        # all of T built at once: the report compares the sizes of T (Section 5.4)
        return GreedTokTrainer(k=self.k, max_token_length=self.max_token_length, pre_tokenizer=self.pre_tokenizer,
                               show_progress=self.show_progress, candidates_on_demand=False,
                               num_threads=self.num_threads, **kw)

    def __call__(self, name: str, word_counts: Mapping[str, int]) -> Tokenizer:
        """GreedTok on one domain's {word: count}. Raises CorpusError for an empty domain."""
        return self.trainer().train_from_counts(word_counts, source=name)


#: Runs every domain's :class:`LocalRun`: (run, {name: word counts}) -> {name: tokenizer}, in
#: the domains' order. The default runs them one after another in this process.
LocalRunner = Callable[[LocalRun, Mapping[str, Mapping[str, int]]], Mapping[str, Tokenizer]]


def run_locally(run: LocalRun, domains: Mapping[str, Mapping[str, int]]) -> dict[str, Tokenizer]:
    """The default :data:`LocalRunner`: each domain's run in turn, here."""
    return {name: run(name, wc) for name, wc in domains.items()}


@dataclass
class HierarchicalRun:
    """The two levels of Section 5.4 (no direct run): what :func:`run_hierarchical` returns.

    Attributes:
        local: {domain: S_i}, in the domains' order. final: the run on ``combined`` whose
        candidates are ``substrings``. combined: {word: count} summed over the domains.
        union: the local tokens (S_1 u ... u S_K). substrings: T, every substring of at least
        2 singletons of a token in ``union``. seconds_local, seconds_final: wall time.
    """

    local: dict[str, Tokenizer]
    final: Tokenizer
    combined: Counter
    union: set
    substrings: set
    seconds_local: float
    seconds_final: float


def check_domains(domains: Mapping, k: int) -> None:
    """Raises ValueError unless there are at least two domains and k >= 1."""
    if len(domains) < 2:
        raise ValueError(f"hierarchical training needs at least 2 domains, got {len(domains)}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def run_hierarchical(domains: Mapping[str, Mapping[str, int]], k: int, *,
                     pre_tokenizer: Optional[PreTokenizer] = None,
                     max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH, show_progress: bool = True,
                     num_threads: Optional[int] = None,
                     local_runner: LocalRunner = run_locally) -> HierarchicalRun:
    """Section 5.4's two levels: a :class:`LocalRun` per domain (executed by ``local_runner``),
    then GreedTok on the combined counts with T = the local tokens' substrings as candidates.

    Args:
        domains: {name: {pre-tokenized word: count}}, at least two, all pre-tokenized with
            ``pre_tokenizer``.
        k: tokens per local run and in the final run (the paper uses the same k for both).
        max_token_length: longest candidate of the local runs, in singletons.
        num_threads: trainer threads of the final run (and of the local runs unless
            ``local_runner`` sets its own); the ranking does not depend on it.
        local_runner: where the local runs execute; their results, not their place, decide
            the final run, so any runner giving each domain ``run(name, counts)`` gives the
            same tokenizers.

    Raises:
        ValueError: fewer than two domains, or k < 1. CorpusError: an empty domain.
    """
    check_domains(domains, k)
    run = LocalRun(k, pre_tokenizer, max_token_length, show_progress, num_threads)
    started = time.perf_counter()
    local = dict(local_runner(run, domains))
    seconds_local = time.perf_counter() - started
    union = {t for tok in local.values() for t in tok.model.ranked_tokens}
    substrings = token_substrings(union)
    combined: Counter = Counter()
    for wc in domains.values():
        combined.update(wc)
    started = time.perf_counter()
    final = run.trainer(candidates=substrings).train_from_counts(combined, source="combined (hierarchical)")
    return HierarchicalRun(local, final, combined, union, substrings, seconds_local,
                           time.perf_counter() - started)
