"""Hierarchical GreedTok (Lim, Choo & Lauw 2025, Section 5.4), measured: local runs, then one
restricted run (:func:`hf_greedtok.trainers.hierarchical.run_hierarchical`), beside a direct run.

GreedTok runs on each domain (corpus) alone, giving S_1..S_K. The candidate set T of the final
run is every substring of at least 2 singletons of a token in S_1 u ... u S_K, instead of every
substring of every word; the final run selects k tokens from it on the combined counts. The
report compares it with a direct run on the combined counts: how much smaller T is, what it
costs in tokens per word on the combined corpus and on each domain, and the time taken. The
local tokenizers are evaluated on every domain too (the paper's Figure 4).

Example:
    >>> result = train_hierarchical({"en": en_counts, "zh": zh_counts}, 5000)   # doctest: +SKIP
    >>> result.summary["candidate_reduction"]                                   # doctest: +SKIP
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Mapping, Optional

import numpy as np

from ..core import Tokenizer
from ..defaults import DEFAULT_MAX_TOKEN_LENGTH
from ..trainers.hierarchical import LocalRun, LocalRunner, run_hierarchical, run_locally, token_substrings
from ..pre_tokenizers import PreTokenizer
from .evaluation import total_tokens

__all__ = ["HierarchicalResult", "token_substrings", "train_hierarchical"]


@dataclass
class HierarchicalResult:
    """Tokenizers and measurements of :func:`train_hierarchical`.

    Attributes:
        local: {domain: GreedTok trained on that domain alone} (S_i).
        hierarchical: the final run restricted to the local tokens' substrings.
        direct: GreedTok on the combined counts with every substring as candidate.
        tokens_per_word: {tokenizer name: {domain or "combined": tokens per pre-tokenized word}}.
        summary: candidate-set sizes and reduction, compression cost, timings (seconds).
    """

    local: dict[str, Tokenizer]
    hierarchical: Tokenizer
    direct: Tokenizer
    tokens_per_word: dict[str, dict[str, float]]
    summary: dict

    def to_dict(self) -> dict:
        return {"summary": self.summary, "tokens_per_word": self.tokens_per_word}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_markdown(self) -> str:
        s = self.summary
        domains = list(s["domains"])
        lines = [
            "# Hierarchical GreedTok (paper Section 5.4)", "",
            f"k = {s['k']} on each of {len(domains)} domains, then k = {s['k']} on the combined counts "
            f"({s['combined_words']:,} words, {s['combined_distinct_words']:,} distinct).", "",
            "| | candidates T | training seconds |", "|---|---:|---:|",
            f"| direct run (all substrings of all words) | {s['candidates_direct']:,} | {s['seconds_direct']} |",
            f"| hierarchical: substrings of the {s['local_tokens_union']:,} local tokens "
            f"| {s['candidate_substrings']:,} ({s['candidates_hierarchical']:,} occur) "
            f"| {s['seconds_local']} local + {s['seconds_final']} final |",
            "", f"Candidate set reduced {s['candidate_reduction']:.1f}x "
                f"({s['candidates_direct']:,} -> {s['candidates_hierarchical']:,}); "
                f"tokens per word on the combined corpus {s['tokens_per_word_direct']:.4f} (direct) vs "
                f"{s['tokens_per_word_hierarchical']:.4f} (hierarchical), a cost of "
                f"{100 * s['compression_cost']:+.3f} %; {s['shared_tokens']:,} of {s['k']:,} tokens shared.", "",
            "Tokens per word of each tokenizer (rows) on each corpus (columns):", "",
            "| tokenizer | " + " | ".join([*domains, "combined"]) + " |",
            "|---|" + "---:|" * (len(domains) + 1),
        ]
        for name, row in self.tokens_per_word.items():
            lines.append(f"| {name} | " + " | ".join(f"{row[d]:.4f}" for d in [*domains, "combined"]) + " |")
        lines.append("")
        return "\n".join(lines)


def train_hierarchical(domains: Mapping[str, Mapping[str, int]], k: int, *,
                       pre_tokenizer: Optional[PreTokenizer] = None,
                       max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH,
                       show_progress: bool = True,
                       local_runner: LocalRunner = run_locally) -> HierarchicalResult:
    """Run Section 5.4's two-level GreedTok (:func:`run_hierarchical`) and a direct run; measure both.

    Args:
        domains: {name: {pre-tokenized word: count}}, at least two, all pre-tokenized with
            ``pre_tokenizer``.
        k: tokens per local run and in the final run (the paper uses the same k for both).
        pre_tokenizer: shared by every run (default :class:`ByteLevel`).
        max_token_length: longest candidate of the local and direct runs, in singletons.
        local_runner: where the local runs execute (default: here, in turn; Ray tasks:
            :class:`hf_greedtok.distributed.RayRunner`).

    Raises:
        ValueError: fewer than two domains, or k < 1. CorpusError: an empty domain.
    """
    two = run_hierarchical(domains, k, pre_tokenizer=pre_tokenizer, max_token_length=max_token_length,
                           show_progress=show_progress, local_runner=local_runner)
    local, hierarchical, combined, union, substrings = two.local, two.final, two.combined, two.union, two.substrings
    seconds_local, seconds_final = two.seconds_local, two.seconds_final
    started = time.perf_counter()
    direct = LocalRun(k, pre_tokenizer, max_token_length, show_progress).trainer().train_from_counts(
        combined, source="combined (direct)")
    seconds_direct = time.perf_counter() - started

    corpora = {**domains, "combined": combined}
    named = {**{f"local: {n}": t for n, t in local.items()}, "hierarchical": hierarchical, "direct": direct}
    tpw = {name: {c: _tokens_per_word(tok, wc) for c, wc in corpora.items()} for name, tok in named.items()}
    h_info, d_info = hierarchical.training_info, direct.training_info
    summary = {
        "k": k, "domains": {n: {"words": int(sum(wc.values())), "distinct_words": len(wc)} for n, wc in domains.items()},
        "combined_words": int(sum(combined.values())), "combined_distinct_words": len(combined),
        "local_tokens_union": len(union), "candidate_substrings": len(substrings),
        "candidates_direct": d_info["candidates"], "candidates_hierarchical": h_info["candidates"],
        "candidate_reduction": d_info["candidates"] / max(1, h_info["candidates"]),
        "tokens_per_word_direct": tpw["direct"]["combined"],
        "tokens_per_word_hierarchical": tpw["hierarchical"]["combined"],
        "compression_cost": tpw["hierarchical"]["combined"] / tpw["direct"]["combined"] - 1,
        "shared_tokens": len(set(hierarchical.model.ranked_tokens) & set(direct.model.ranked_tokens)),
        "seconds_local": round(seconds_local, 2), "seconds_final": round(seconds_final, 2),
        "seconds_direct": round(seconds_direct, 2),
        "max_token_length": max_token_length,
    }
    return HierarchicalResult(local, hierarchical, direct, tpw, summary)


def _tokens_per_word(tok: Tokenizer, word_counts: Mapping[str, int]) -> float:
    counts = np.fromiter(word_counts.values(), dtype=np.int64, count=len(word_counts))
    return total_tokens(tok, list(word_counts), counts) / int(counts.sum())
