"""GreedTok against HF BPE and GreedWMC on one corpus: the GreedTok paper's Table 3 and Figure 3.

Lim, Choo & Lauw, "A partition cover approach to tokenization" (2025):

* Table 3 (Section 5.2): for tokens-per-word targets, the smallest k at which GreedTok (k_g)
  and BPE (k_b) reach the target, k_g / k_b, and BPE's tokens per word at k_g.
* d_inst = GreedTok / GreedWMC objective against k (Section 5.3, Figure 3); the objective is
  the count-weighted number of covered gaps between adjacent singletons (Eq. (1) and (9)).
* The token-saving ratio (TSR) of minimum-token segmentation (``optimal``) over GreedTok's
  cover encoding and over BPE's own merge encoding of the same BPE vocabulary.

Setting (the paper's): byte singletons, so GreedTok(k) and BPE(k) both have 256 + k ids; BPE
is ``tokenizers``' Rust ``BpeTrainer`` over the very same pre-tokenized words and counts.
"Words" are the pre-tokenized words W (count-weighted), as in the paper. With a chunk split
(``superwords``: pre-tokens that span words) both train on the chunks, and tokens per word
still divide by words, those of the default split in the chunks, with the chunks counted beside
them, so that the numbers compare with a word-level run's.

Every curve is exact at every k from 0 to k_max, from single training runs:

* GreedTok and GreedWMC select greedily, so their first k tokens are the k-token solution and
  the objective after k steps is a prefix sum of the recorded gains.
* BPE(k) (the first k merges) encodes a word exactly as the full merge list does up to its
  first merge of rank >= k: a token made by merge r only takes part in merges ranked after
  r, so merges of rank >= k never enable one of rank < k. Hence tokens(BPE(k)) = singletons
  minus the count-weighted merges of rank < k applied by the full encoding. Which merges
  build a final token depends only on the token (merges never cross its edges), so each is
  replayed once. The identity is checked against real truncated BPE encodings at every k
  of the grid, and a mismatch is an error.

Example:
    >>> from hf_greedtok.experiments.compare import compare_word_counts
    >>> result = compare_word_counts(counts, [500, 1000, 2000])      # doctest: +SKIP
    >>> print(result.to_markdown())                                  # doctest: +SKIP
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

import numpy as np
from tokenizers import models

from ..defaults import DEFAULT_MAX_TOKEN_LENGTH
from ..trainers.cbpe import CBPETrainer
from ..models import GreedTokModel
from ..pre_tokenizers import ByteLevel
from ..pre_tokenizers.patterns import GPT4, find_split
from ..trainers import GreedTokTrainer, GreedWMCTrainer
from ..trainers.superwords import chunk_words
from .evaluation import chunk_word_split, total_tokens

if TYPE_CHECKING:
    from .heldout import HeldOutComparison

TARGET_STEP = 0.2          # the paper's targets are 1.3, 1.5, ..., 2.7
N_TARGETS = 8
# The paper's statements that the report checks (Sections 5.2 and 5.3).
PAPER_K_SAVING = 0.13      # "GreedTok requires an average of 13% fewer tokens than BPE"
PAPER_TPW_SAVING = 0.03    # "an average of 3%, and up to 5%, fewer tokens per word"
PAPER_D_INST = 0.9         # "at least 0.9(1 - 1/e) of the optimal for large k"


@dataclass
class Comparison:
    """Result of :func:`compare_word_counts`; all counts are count-weighted over words W.

    Attributes:
        corpus: {"source", "words", "distinct_words", "singletons"} (singletons = bytes); with a
            chunk split also "chunks", "distinct_chunks" and "word_split" (:func:`corpus_words`).
        k: int64[k_max + 1], 0..k_max.
        tokens_greedtok, tokens_bpe: int64[k_max + 1], total tokens of GreedTok(k) / BPE(k).
        covered_greedtok, covered_wmc: int64[k_max + 1], the objective (covered gaps).
        grid: one dict per requested k (tokens per word, d_inst, TSRs).
        table: one dict per tokens-per-word target (the paper's Table 3 rows).
        summary: means over the table and the claims checked.
        settings: the run's parameters and timings.
        trained: the tokenizers at k_max, not saved: {"greedtok": Tokenizer, "wmc": Tokenizer,
            "bpe": the ``tokenizers`` backend, "merges": BPE's merges, "pre_tokenizer": the ByteLevel}
            (the held-out comparison measures them on more text).
        heldout_grid: :func:`heldout_grid`'s rows (the k grid on held-out text), if measured.
        heldout: the peers in and out of sample (:mod:`hf_greedtok.experiments.heldout`), if measured.
    """

    corpus: dict
    k: np.ndarray
    tokens_greedtok: np.ndarray
    tokens_bpe: np.ndarray
    covered_greedtok: np.ndarray
    covered_wmc: np.ndarray
    grid: list[dict]
    table: list[dict]
    summary: dict
    settings: dict = field(default_factory=dict)
    trained: dict = field(default_factory=dict, repr=False)
    heldout: Optional["HeldOutComparison"] = None
    heldout_grid: list[dict] = field(default_factory=list)

    @property
    def tokens_per_word_greedtok(self) -> np.ndarray:
        """float64[k_max + 1]: tokens per word of GreedTok(k)."""
        return self.tokens_greedtok / self.corpus["words"]

    @property
    def tokens_per_word_bpe(self) -> np.ndarray:
        """float64[k_max + 1]: tokens per word of BPE(k) (its own merge encoding)."""
        return self.tokens_bpe / self.corpus["words"]

    @property
    def d_inst(self) -> np.ndarray:
        """float64[k_max]: GreedTok / GreedWMC objective for k = 1..k_max (Section 5.3)."""
        return self.covered_greedtok[1:] / np.maximum(self.covered_wmc[1:], 1)

    def to_dict(self) -> dict:
        """JSON-ready: everything, with the curves as lists indexed by k (last)."""
        d = {"corpus": self.corpus, "settings": self.settings, "summary": self.summary,
             "table3": self.table, "grid": self.grid}
        if self.heldout is not None:
            d["heldout"] = self.heldout.to_dict()
        if self.heldout_grid:
            d["heldout_grid"] = self.heldout_grid
        d["curves"] = {
            "k": self.k.tolist(),
            "tokens_greedtok": self.tokens_greedtok.tolist(), "tokens_bpe": self.tokens_bpe.tolist(),
            "covered_greedtok": self.covered_greedtok.tolist(), "covered_wmc": self.covered_wmc.tolist(),
        }
        return d

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON; each curve on one line so the file stays small and diffable."""
        d = self.to_dict()
        curves = d.pop("curves")
        head = json.dumps(d, indent=1)
        body = ",\n".join(f"  {json.dumps(name)}: {json.dumps(v, separators=(',', ':'))}"
                          for name, v in curves.items())
        return head[:-2] + ',\n "curves": {\n' + body + "\n }\n}\n"

    def to_markdown(self) -> str:
        """The report: corpus, Table 3, the k grid, and the paper's claims checked."""
        c, s = self.corpus, self.summary
        if "chunks" in c:
            counted = (f"{c['words']:,} words ({c['distinct_words']:,} distinct) in {c['chunks']:,} chunks "
                       f"({c['distinct_chunks']:,} distinct)")
            per_word = (f"Tokens per word = tokens / words (count-weighted; the {c['word_split']} split of the "
                        f"chunks, as a word-level run counts them); tokens per chunk = tokens / {c['chunks']:,}.")
        else:
            counted = f"{c['words']:,} words ({c['distinct_words']:,} distinct)"
            per_word = "Tokens per word = tokens / pre-tokenized words (count-weighted)."
        lines = [
            f"# GreedTok vs BPE vs GreedWMC on {c['source']}", "",
            f"{counted}, {c['singletons']:,} bytes; "
            f"byte singletons, pre-tokenizer {self.settings['pre_tokenizer']}; GreedTok(k) and BPE(k) "
            f"both have 256 + k ids. {per_word}", "",
            "## Table 3 (paper Section 5.2)", "",
            "| tokens per word target | k_g (GreedTok) | k_b (BPE) | k_b - k_g | k_g / k_b | BPE(k_g) tokens per word "
            "| GreedTok(k_g) / BPE(k_g) |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in self.table:
            lines.append(
                f"| {r['target']:.2f} | {_fmt(r['k_g'])} | {_fmt(r['k_b'])} | {_fmt(r['k_b_minus_k_g'])} "
                f"| {_pct(r['k_ratio'])} | {_num(r['bpe_tokens_per_word_at_k_g'])} | {_pct(r['tpw_ratio_at_k_g'])} |")
        lines += [
            "", "A dash: the target is not reached within k_max.", "",
            "## At each k", "",
            "| k | GreedTok tokens/word | BPE tokens/word | GreedTok / BPE | d_inst = GreedTok / GreedWMC "
            "| TSR optimal vs cover (GreedTok vocab) | TSR optimal vs merges (BPE vocab) |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for g in self.grid:
            lines.append(
                f"| {g['k']} | {g['tokens_per_word_greedtok']:.4f} | {g['tokens_per_word_bpe']:.4f} "
                f"| {_pct(g['tpw_ratio'])} | {g['d_inst']:.4f} | {_pct(g['tsr_greedtok'], 2)} "
                f"| {_pct(g['tsr_bpe'], 2)} |")
        lines += [
            "", "TSR = 1 - tokens(optimal) / tokens(the vocabulary's own encoder) on the same words.", "",
            "## The paper's claims", "",
            "| claim (paper) | here | agrees |", "|---|---|---|",
        ]
        for claim in s["claims"]:
            lines.append(f"| {claim['claim']} | {claim['measured']} | {claim['verdict']} |")
        lines += ["", "yes: at least 75 % of the paper's figure (stronger: above 125 %); weaker: GreedTok "
                      "ahead by less; no: GreedTok not ahead (d_inst: below 0.9)."]
        st = self.settings
        lines += ["", f"Timings: GreedTok {st['seconds_greedtok']} s, GreedWMC {st['seconds_wmc']} s, "
                      f"BPE {st['seconds_bpe']} s, evaluation {st['seconds_evaluation']} s.", ""]
        if self.heldout_grid:
            lines += ["## At each k, out of sample", "",
                      "The grid's GreedTok(k) and BPE(k) on text they were not trained on (tokens per "
                      "pre-tokenized word, as above).", "",
                      "| text | k | GreedTok tokens/word | BPE tokens/word | GreedTok / BPE "
                      "| TSR optimal vs cover (GreedTok vocab) |", "|---|---:|---:|---:|---:|---:|"]
            lines += [f"| {g['text']} | {g['k']} | {g['tokens_per_word_greedtok']:.4f} "
                      f"| {g['tokens_per_word_bpe']:.4f} | {_pct(g['tpw_ratio'])} | {_pct(g['tsr_greedtok'], 2)} |"
                      for g in self.heldout_grid]
            lines += [""]
        if self.heldout is not None:
            lines += [self.heldout.to_markdown()]
        return "\n".join(lines)


def compare_word_counts(word_counts: Mapping[str, int], vocab_sizes: Sequence[int], *,
                        targets: Optional[Sequence[float]] = None, pattern: str = GPT4.name,
                        max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH, source: str = "word counts",
                        num_threads: int = 1, show_progress: bool = True) -> Comparison:
    """Train GreedTok, GreedWMC and HF BPE to max(vocab_sizes) and compare them at every k.

    Args:
        word_counts: {pre-tokenized word: count}, pre-tokenized with ``ByteLevel(pattern)``
            (as :func:`hf_greedtok.word_counts.count_corpus` returns them).
        vocab_sizes: the k values (learned tokens = BPE merges) reported in the grid; the
            curves cover every k up to the largest.
        targets: tokens-per-word targets for Table 3; default: 8 targets 0.2 apart (as the
            paper's 1.3..2.7), starting at the first multiple of 0.1 both algorithms reach.
        pattern: the ByteLevel split regex ("gpt4", "gpt2" or a pattern).
        max_token_length: GreedTok's and GreedWMC's longest candidate, in bytes.
        num_threads: encoder threads for the TSR measurements.

    Raises:
        ValueError: no vocab sizes, a size < 1, or an empty corpus.
        RuntimeError: the BPE curve disagrees with a truncated BPE encoding, or GreedTok's
            cover encoding with its training objective (an internal inconsistency).
    """
    sizes = sorted(set(int(k) for k in vocab_sizes))
    if not sizes or sizes[0] < 1:
        raise ValueError(f"vocab_sizes must be integers >= 1, got {list(vocab_sizes)!r}")
    if not word_counts:
        raise ValueError(f"{source}: empty corpus")
    k_max = sizes[-1]
    pre = ByteLevel(pattern)
    words = list(word_counts)
    counted = corpus_words(word_counts, pattern)
    n_words = counted["words"]
    timings = {}

    started = time.perf_counter()
    gt_trainer = GreedTokTrainer(k=k_max, max_token_length=max_token_length, pre_tokenizer=pre,
                                 show_progress=show_progress)
    greedtok = gt_trainer.train_from_counts(word_counts, source=source)
    counts = np.fromiter(word_counts.values(), dtype=np.int64, count=len(words))
    timings["seconds_greedtok"] = round(time.perf_counter() - started, 2)
    singletons = int(gt_trainer.core.initial_objective)

    started = time.perf_counter()
    wmc = GreedWMCTrainer(k=k_max, max_token_length=max_token_length, pre_tokenizer=pre,
                          show_progress=show_progress).train_from_counts(word_counts, source=source)
    timings["seconds_wmc"] = round(time.perf_counter() - started, 2)

    started = time.perf_counter()
    bpe_trainer = CBPETrainer(num_merges=k_max, units="bytes", pattern=pattern, normalizer=None,
                              show_progress=show_progress)
    backend = bpe_trainer.train_from_counts(word_counts, source=source)
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m)
              for m in json.loads(backend.to_str())["model"]["merges"]]
    timings["seconds_bpe"] = round(time.perf_counter() - started, 2)

    started = time.perf_counter()
    word_bytes = [pre.word_units(w) for w in words]
    symbol_words = [ByteLevel.token_to_str(w) for w in word_bytes]
    covered_g = _prefix_sums(greedtok.model.gains, k_max)
    covered_w = _prefix_sums(wmc.model.gains, k_max)
    tokens_g = singletons - covered_g
    tokens_b = singletons - _prefix_sums(bpe_merge_savings(merges, backend.model, symbol_words, counts), k_max)

    grid = []
    for k in sizes:
        gt_k = GreedTokModel(greedtok.model.ranked_tokens[:k], unit_kind="bytes")
        cover = total_tokens(gt_k, word_bytes, counts, "cover", num_threads)
        if cover != tokens_g[k]:
            raise RuntimeError(f"GreedTok({k}) cover encoding gives {cover} tokens, training {tokens_g[k]}")
        merges_k = merges[:k]
        bpe_tokens = _bpe_total(merges_k, symbol_words, counts)
        if bpe_tokens != tokens_b[k]:
            raise RuntimeError(f"BPE({k}) encodes to {bpe_tokens} tokens, the merge curve says {tokens_b[k]}")
        bpe_as_ranked = GreedTokModel(list(dict.fromkeys(ByteLevel.str_to_token(a + b) for a, b in merges_k)),
                                      unit_kind="bytes")
        opt_g = total_tokens(gt_k, word_bytes, counts, "optimal", num_threads)
        opt_b = total_tokens(bpe_as_ranked, word_bytes, counts, "optimal", num_threads)
        grid.append({
            "k": k, "tokens_greedtok": int(cover), "tokens_bpe": int(bpe_tokens),
            "tokens_per_word_greedtok": cover / n_words, "tokens_per_word_bpe": bpe_tokens / n_words,
            "tpw_ratio": cover / bpe_tokens,
            "covered_greedtok": int(covered_g[k]), "covered_wmc": int(covered_w[k]),
            "d_inst": covered_g[k] / max(1, covered_w[k]),
            "tokens_optimal_greedtok": opt_g, "tsr_greedtok": 1 - opt_g / cover,
            "tokens_optimal_bpe": opt_b, "tsr_bpe": 1 - opt_b / bpe_tokens,
        })
    timings["seconds_evaluation"] = round(time.perf_counter() - started, 2)

    if targets is None:
        targets = default_targets(tokens_g / n_words, tokens_b / n_words)
    table = table3(tokens_g / n_words, tokens_b / n_words, targets)
    result = Comparison(
        corpus={"source": source, **counted, "singletons": singletons},
        k=np.arange(k_max + 1), tokens_greedtok=tokens_g, tokens_bpe=tokens_b,
        covered_greedtok=covered_g, covered_wmc=covered_w, grid=grid, table=table, summary={},
        settings={"vocab_sizes": sizes, "k_max": k_max, "pre_tokenizer": f"ByteLevel({pattern!r})",
                  "max_token_length": max_token_length, "targets": [float(t) for t in targets],
                  "greedtok_k_learned": len(greedtok.model.ranked_tokens),
                  "wmc_k_learned": len(wmc.model.ranked_tokens), "bpe_merges_learned": len(merges),
                  "greedtok_candidates": greedtok.training_info["candidates"], **timings},
        trained={"greedtok": greedtok, "wmc": wmc, "bpe": backend, "merges": merges, "pre_tokenizer": pre})
    result.summary = summarize(result)
    return result


def heldout_grid(result: Comparison, texts: Sequence[tuple[str, Mapping[str, int]]],
                 num_threads: int = 1) -> list[dict]:
    """The grid on held-out text: for each text and each k of ``result``'s grid, the tokens of
    GreedTok(k) (cover and optimal) and of BPE(k) (its first k merges) on the text's words.

    Args:
        result: a comparison whose ``trained`` holds the k_max tokenizers (:func:`compare_word_counts`).
        texts: (name, {pre-tokenized word: count}), counted with ``result.trained["pre_tokenizer"]``.

    Returns:
        One dict per (text, k): ``words``, ``tokens_greedtok``, ``tokens_bpe``,
        ``tokens_per_word_greedtok``, ``tokens_per_word_bpe``, ``tpw_ratio`` (GreedTok / BPE),
        ``tokens_optimal_greedtok`` and ``tsr_greedtok`` (1 - optimal / cover); with a chunk
        split, ``words`` counts words as :func:`corpus_words` does and ``chunks`` follows it.

    Raises:
        ValueError: a text without words.
    """
    pre, ranked = result.trained["pre_tokenizer"], result.trained["greedtok"].model.ranked_tokens
    merges = result.trained["merges"]
    rows = []
    for name, word_counts in texts:
        if not word_counts:
            raise ValueError(f"{name}: no words")
        words = list(word_counts)
        counts = np.fromiter(word_counts.values(), dtype=np.int64, count=len(words))
        counted = corpus_words(word_counts, pre.pattern)
        n_words = counted["words"]
        chunks = {"chunks": counted["chunks"]} if "chunks" in counted else {}
        word_bytes = [pre.word_units(w) for w in words]
        symbol_words = [ByteLevel.token_to_str(w) for w in word_bytes]
        for k in result.settings["vocab_sizes"]:
            gt_k = GreedTokModel(ranked[:k], unit_kind="bytes")
            cover = total_tokens(gt_k, word_bytes, counts, "cover", num_threads)
            optimal = total_tokens(gt_k, word_bytes, counts, "optimal", num_threads)
            bpe = _bpe_total(merges[:k], symbol_words, counts)
            rows.append({"text": name, "k": k, "words": n_words, **chunks, "tokens_greedtok": cover,
                         "tokens_bpe": bpe, "tokens_per_word_greedtok": cover / n_words,
                         "tokens_per_word_bpe": bpe / n_words,
                         "tpw_ratio": cover / bpe, "tokens_optimal_greedtok": optimal,
                         "tsr_greedtok": 1 - optimal / cover})
    return rows


def corpus_words(word_counts: Mapping[str, int], pattern: str) -> dict:
    """{"words", "distinct_words"} of a table pre-tokenized with ``ByteLevel(pattern)``
    (count-weighted total, exact). When ``pattern`` is a chunk split (its matches span words),
    the words are those of the default split in the chunks (:func:`chunk_words`), followed by
    "chunks", "distinct_chunks" and "word_split" (the split's name): tokens per word then mean
    what they mean for a word-level table."""
    split = find_split(pattern)
    if split is None or not split.spans_words:
        # exact; the trainers refuse counts their 64 bits cannot hold
        return {"words": sum(word_counts.values()), "distinct_words": len(word_counts)}
    word_split = chunk_word_split()
    in_words = chunk_words(word_counts, word_split)
    return {"words": sum(in_words.values()), "distinct_words": len(in_words),
            "chunks": sum(word_counts.values()), "distinct_chunks": len(word_counts),
            "word_split": find_split(word_split.pattern).name}


# ---------------------------------------------------------------- BPE's exact curve

def bpe_merge_savings(merges: Sequence[tuple[str, str]], model: models.Model, symbol_words: Sequence[str],
                      counts: np.ndarray) -> np.ndarray:
    """int64[len(merges)]: count-weighted number of times the full BPE encoding applies each merge.

    ``symbol_words`` are words in the model's alphabet (byte-level characters). The final
    tokens come from ``model.tokenize`` (HF's own encoder); each distinct token's merges are
    replayed once (lowest rank first, leftmost on ties, as HF's ``Word::merge_all``).

    Raises:
        RuntimeError: replaying a token's merges does not rebuild the token.
    """
    uses: dict[str, int] = {}
    for word, c in zip(symbol_words, counts.tolist()):
        for t in model.tokenize(word):
            uses[t.value] = uses.get(t.value, 0) + c
    rank = {pair: r for r, pair in reversed(list(enumerate(merges)))}
    applied = np.zeros(len(merges), dtype=np.int64)
    for token, n in uses.items():
        pieces, ranks = _replay(token, rank)
        if pieces != [token]:
            raise RuntimeError(f"replaying BPE merges on {token!r} gives {pieces}, not the token itself")
        for r in ranks:
            applied[r] += n
    return applied


def _replay(token: str, rank: dict[tuple[str, str], int]) -> tuple[list[str], list[int]]:
    pieces, ranks = list(token), []
    while len(pieces) > 1:
        best, at = None, -1
        for i in range(len(pieces) - 1):
            r = rank.get((pieces[i], pieces[i + 1]))
            if r is not None and (best is None or r < best):
                best, at = r, i
        if best is None:
            break
        pieces[at:at + 2] = [pieces[at] + pieces[at + 1]]
        ranks.append(best)
    return pieces, ranks


def _bpe_total(merges: Sequence[tuple[str, str]], symbol_words: Sequence[str], counts: np.ndarray) -> int:
    """Tokens of HF BPE with exactly these merges (vocab: the 256 bytes plus their outputs)."""
    vocab = {ByteLevel.token_to_str(bytes([b])): b for b in range(256)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    model = models.BPE(vocab, list(merges), ignore_merges=False)
    return int(sum(c * len(model.tokenize(w)) for w, c in zip(symbol_words, counts.tolist())))


# ---------------------------------------------------------------- tables

def _prefix_sums(gains: Sequence[int], k_max: int) -> np.ndarray:
    """int64[k_max + 1]: sum of the first k gains; flat after the last one (stopped early)."""
    out = np.zeros(k_max + 1, dtype=np.int64)
    g = np.asarray(list(gains)[:k_max], dtype=np.int64)
    out[1:len(g) + 1] = np.cumsum(g)
    out[len(g) + 1:] = out[len(g)]
    return out


def smallest_k(tokens_per_word: np.ndarray, target: float) -> Optional[int]:
    """Smallest k with tokens_per_word[k] <= target (the curve is non-increasing), or None."""
    hits = np.flatnonzero(tokens_per_word <= target + 1e-12)
    return int(hits[0]) if hits.size else None


def default_targets(tpw_g: np.ndarray, tpw_b: np.ndarray) -> list[float]:
    """8 targets 0.2 apart from the first multiple of 0.1 both curves reach, below the start."""
    lo = math.ceil(max(tpw_g[-1], tpw_b[-1]) * 10 - 1e-9) / 10
    return [round(lo + TARGET_STEP * i, 2) for i in range(N_TARGETS) if lo + TARGET_STEP * i < tpw_g[0]]


def table3(tpw_g: np.ndarray, tpw_b: np.ndarray, targets: Sequence[float]) -> list[dict]:
    """The paper's Table 3 rows: k_g, k_b, k_b - k_g, k_g / k_b, BPE(k_g) and GreedTok(k_g) / BPE(k_g)."""
    rows = []
    for t in targets:
        k_g, k_b = smallest_k(tpw_g, t), smallest_k(tpw_b, t)
        rows.append({
            "target": float(t), "k_g": k_g, "k_b": k_b,
            "k_b_minus_k_g": None if k_g is None or k_b is None else k_b - k_g,
            "k_ratio": None if k_g is None or not k_b else k_g / k_b,
            "bpe_tokens_per_word_at_k_g": None if k_g is None else float(tpw_b[k_g]),
            "tpw_ratio_at_k_g": None if k_g is None else float(tpw_g[k_g] / tpw_b[k_g]),
        })
    return rows


def summarize(result: Comparison) -> dict:
    """Means over Table 3 and the paper's three claims, each with the measured value and a verdict."""
    k_ratios = [r["k_ratio"] for r in result.table if r["k_ratio"] is not None]
    tpw_ratios = [r["tpw_ratio_at_k_g"] for r in result.table if r["tpw_ratio_at_k_g"] is not None]
    k_max = result.settings["k_max"]
    d = result.d_inst                       # d[i] is k = i + 1
    late = d[max(1, k_max // 2) - 1:]
    summary: dict = {
        "mean_k_saving": None if not k_ratios else 1 - float(np.mean(k_ratios)),
        "mean_tpw_saving_at_k_g": None if not tpw_ratios else 1 - float(np.mean(tpw_ratios)),
        "max_tpw_saving_at_k_g": None if not tpw_ratios else 1 - float(np.min(tpw_ratios)),
        "d_inst_at_k_max": float(d[-1]), "d_inst_min_upper_half": float(late.min()),
        "d_inst_min": float(d.min()), "d_inst_argmin": int(np.argmin(d)) + 1,
    }
    claims = []
    ks = summary["mean_k_saving"]
    claims.append({
        "claim": f"GreedTok needs {PAPER_K_SAVING:.0%} fewer tokens than BPE for the same tokens-per-word target "
                 "(mean of 1 - k_g/k_b)",
        "measured": "no target reached by both" if ks is None else f"{ks:.1%} fewer",
        "verdict": "n/a" if ks is None else _verdict(ks, PAPER_K_SAVING)})
    ts = summary["mean_tpw_saving_at_k_g"]
    claims.append({
        "claim": f"{PAPER_TPW_SAVING:.0%} (up to 5%) fewer tokens per word at equal k (mean of "
                 "1 - GreedTok(k_g)/BPE(k_g))",
        "measured": "no target reached" if ts is None
        else f"{ts:.1%} fewer on average, {summary['max_tpw_saving_at_k_g']:.1%} at most",
        "verdict": "n/a" if ts is None else _verdict(ts, PAPER_TPW_SAVING)})
    claims.append({
        "claim": f"d_inst >= {PAPER_D_INST} for large k (here: k_max/2 .. k_max)",
        "measured": f"min {summary['d_inst_min_upper_half']:.4f} over k >= {max(1, k_max // 2)}, "
                    f"{summary['d_inst_at_k_max']:.4f} at k = {k_max} (lowest {summary['d_inst_min']:.4f} at "
                    f"k = {summary['d_inst_argmin']})",
        "verdict": "yes" if summary["d_inst_min_upper_half"] >= PAPER_D_INST else "no"})
    summary["claims"] = claims
    return summary


def _verdict(measured: float, claimed: float) -> str:
    """"yes" within a relative 25 % of the claim or beyond it, "weaker" if GreedTok still wins, else "no"."""
    if measured >= 0.75 * claimed:
        return "yes" if measured <= 1.25 * claimed else "yes (stronger)"
    return "weaker" if measured > 0 else "no"


def _fmt(v) -> str:
    return "–" if v is None else f"{v:,}"


def _num(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def _pct(v, digits: int = 1) -> str:
    return "–" if v is None else f"{100 * v:.{digits}f} %"
