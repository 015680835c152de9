"""Hierarchical GreedTok on Ray (issue 16 item 2b; Lim, Choo & Lauw 2025, Section 5.4).

Shape of the job::

    {domain: word counts} ─► one Ray task per domain: GreedTok on that domain alone (S_i)
                          ─► the driver: T = substrings of S_1 u ... u S_K,
                             GreedTok on the combined counts with candidates T

Only where the local runs execute differs from
:func:`hf_greedtok.trainers.hierarchical.run_hierarchical`: this module supplies its
``local_runner`` (:class:`RayRunner`), which ships the same
:class:`~hf_greedtok.trainers.hierarchical.LocalRun` to Ray tasks. The trainer's ranking does not
depend on the thread count or the process, so the local tokenizers, T and the final tokenizer
equal the single-machine ones exactly (``tests/distributed/test_killed_workers.py``). What crosses the
network: each domain's {word: count} to its task, and each local tokenizer (its greedtok.json
text) back.
"""
from __future__ import annotations

import dataclasses
from functools import partial
from typing import Mapping, Optional

from ..core import Tokenizer
from ..defaults import DEFAULT_MAX_RETRIES, DEFAULT_MAX_TOKEN_LENGTH
from ..trainers.hierarchical import HierarchicalRun, LocalRun, check_domains, run_hierarchical
from ..pre_tokenizers import PreTokenizer
from .session import core_retries, ray_session, require_ray, run_tasks


def _local_task(run: LocalRun, name: str, word_counts: Mapping[str, int]) -> Tokenizer:
    return run(name, word_counts)


def _submit(task, *args) -> tuple:
    return task.remote(*args), None


class RayRunner:
    """A :data:`~hf_greedtok.trainers.hierarchical.LocalRunner` that runs each domain's
    :class:`LocalRun` as one Ray task (needs a connected Ray: :func:`~.session.ensure_ray`).

    Args:
        num_cpus: CPUs each task reserves, and its trainer's threads.
        max_retries: reruns of a task whose worker process or node died (Ray's ``max_retries``;
            None: forever).

    Calling it returns {domain: Tokenizer} in the domains' order. Raises the task's own
    GreedTokError (CorpusError for an empty domain) rather than Ray's wrapper, and
    :class:`~hf_greedtok.errors.WorkerLostError` once a task's worker has died
    ``max_retries + 1`` times.
    """

    def __init__(self, num_cpus: int = 1, max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        if num_cpus < 1:
            raise ValueError(f"num_cpus must be >= 1, got {num_cpus}")
        self.num_cpus, self.max_retries = num_cpus, max_retries

    def __call__(self, run: LocalRun, domains: Mapping[str, Mapping[str, int]]) -> dict[str, Tokenizer]:
        ray = require_ray()
        task = ray.remote(_local_task).options(num_cpus=self.num_cpus, **core_retries(self.max_retries))
        # a worker's progress bar goes to its log file, not to the user: off
        run = dataclasses.replace(run, num_threads=self.num_cpus, show_progress=False)
        names = list(domains)
        tokenizers: list = [None] * len(names)
        run_tasks([partial(_submit, task, run, name, ray.put(dict(domains[name]))) for name in names],
                  "hierarchical training, per-domain runs", self.max_retries,
                  lambda k, tok, _: tokenizers.__setitem__(k, tok))
        return dict(zip(names, tokenizers))


def train_hierarchical_distributed(domains: Mapping[str, Mapping[str, int]], k: int, *,
                                   pre_tokenizer: Optional[PreTokenizer] = None,
                                   max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH,
                                   num_cpus_per_task: int = 1, max_retries: int = DEFAULT_MAX_RETRIES,
                                   address: Optional[str] = None, num_cpus: Optional[int] = None,
                                   show_progress: bool = True) -> HierarchicalRun:
    """Section 5.4's hierarchical GreedTok with one Ray task per domain, then the final run here.

    Args:
        domains: {name: {pre-tokenized word: count}} (e.g. from
            :func:`~hf_greedtok.distributed.count_words_distributed`, one per shard), at least
            two, pre-tokenized with ``pre_tokenizer``.
        k: tokens per local run and in the final run.
        pre_tokenizer: shared by every run (default :class:`ByteLevel`).
        max_token_length: longest candidate of the local runs, in singletons.
        num_cpus_per_task: CPUs (and trainer threads) of each domain's task.
        max_retries: reruns of a task whose worker died.
        address, num_cpus: None starts a local cluster of ``num_cpus`` CPUs when Ray is not
            initialized; ``"auto"`` or an address joins one; an existing connection is used.
        show_progress: the final run's progress bar and Ray's INFO lines.

    Returns:
        :class:`~hf_greedtok.trainers.hierarchical.HierarchicalRun`: ``local`` and ``final``
        tokenizers equal to :func:`~hf_greedtok.trainers.hierarchical.run_hierarchical`'s (and
        to the ``local`` / ``hierarchical`` of
        :func:`hf_greedtok.experiments.hierarchical_vs_direct.train_hierarchical`) on the same
        domains.

    Raises:
        ValueError: fewer than two domains, k < 1. CorpusError: an empty domain (from its task).
        WorkerLostError: a domain's task died on every one of its ``max_retries + 1`` attempts.
        ImportError: Ray not installed.
    """
    check_domains(domains, k)      # before Ray starts
    runner = RayRunner(num_cpus_per_task, max_retries)
    with ray_session(address, num_cpus, quiet=not show_progress):
        return run_hierarchical(domains, k, pre_tokenizer=pre_tokenizer, max_token_length=max_token_length,
                                show_progress=show_progress, local_runner=runner)
