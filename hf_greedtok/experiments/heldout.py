"""Compression in sample and out of sample: GreedTok and its peers at one total vocabulary.

Issue 17: the GreedTok paper counts tokens on the training corpus; a user choosing a tokenizer
counts them on text the tokenizer never saw. :func:`train_peers` trains, on the same training
lines and at the same total vocabulary, HF BPE (the reference), HF Unigram, GreedTok, GreedWMC
and SentencePiece BPE and Unigram (lossless and with their defaults); :func:`measure` encodes
every text with every peer and :class:`HeldOutComparison` reports, per text and peer:

* total tokens, tokens per word (whitespace-separated words of the text, the same denominator
  for every peer), bytes per token (UTF-8 bytes of the text), the ratio of tokens to HF BPE's;
* the round-trip rate: the share of the text's lines with decode(encode(line)) == line.

Texts are lines without their line ends; empty lines are skipped (every peer encodes them to
nothing). A second table, "equal pre-tokenization", trains SentencePiece on the words of the
same byte-level split the others use, so that only the trainer differs.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Union

import numpy as np

from ..core import Tokenizer
from ..pre_tokenizers import ByteLevel
from .peers import (SP_EQUAL_SPLIT, SP_LOSSLESS, GreedTokPeer, HFPeer, Peer, SentencePiecePeer, train_hf_unigram,
                    train_sentencepiece)

REFERENCE = "HF BPE"
IN_SAMPLE = "in sample"
OUT_OF_SAMPLE = "out of sample"


@dataclass
class HeldOutComparison:
    """Every peer measured on every text.

    Attributes:
        texts: one dict per text: ``name``, ``kind`` ("in sample" or "out of sample"), ``lines``
            (non-empty lines measured), ``words`` (whitespace words), ``bytes`` (UTF-8).
        peers: {table name: [peer descriptions]}, tables "main" (each peer's own pre-tokenization)
            and "equal" (all on the same byte-level split).
        rows: one dict per (table, peer, text): ``tokens``, ``tokens_per_word``,
            ``bytes_per_token``, ``ratio_to_reference`` (tokens / HF BPE's tokens on the text),
            ``round_trip`` (share of lines decoded to themselves), ``round_trip_lines``.
        settings: vocabulary size, split, timings.
    """

    texts: list[dict]
    peers: dict[str, list[dict]]
    rows: list[dict]
    settings: dict = field(default_factory=dict)

    def row(self, table: str, peer: str, text: str) -> dict:
        """The row of ``peer`` on ``text`` in ``table``; KeyError if there is none."""
        for r in self.rows:
            if (r["table"], r["peer"], r["text"]) == (table, peer, text):
                return r
        raise KeyError((table, peer, text))

    def to_dict(self) -> dict:
        """JSON-ready: settings, texts, peers and rows."""
        return {"settings": self.settings, "texts": self.texts, "peers": self.peers, "rows": self.rows}

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def to_markdown(self) -> str:
        """The held-out sections of report.md."""
        st = self.settings
        lines = [
            f"## In sample and out of sample at total vocabulary {st['vocab_size']:,}", "",
            f"Trained on {st['training']}. Every peer has at most {st['vocab_size']:,} ids in total "
            "(singletons, byte fallback and special pieces included; the exact count is listed). "
            "Texts are lines without their line ends, empty lines skipped; tokens per word = tokens / "
            "whitespace-separated words; bytes per token = UTF-8 bytes / tokens; vs HF BPE = tokens / "
            "HF BPE's tokens - 1 (negative: fewer tokens than BPE); round trip = share of lines with "
            "decode(encode(line)) == line.", "",
            "| text | kind | lines | words | bytes |", "|---|---|---:|---:|---:|",
        ]
        lines += [f"| {t['name']} | {t['kind']} | {t['lines']:,} | {t['words']:,} | {t['bytes']:,} |"
                  for t in self.texts]
        for table, title in (("main", "Each peer with its own pre-tokenization"),
                             ("equal", f"Equal pre-tokenization ({st['split']} for every peer: only the "
                                       "trainer differs)")):
            if not self.peers.get(table):
                continue
            lines += ["", f"### {title}", "",
                      "| peer | trainer | pre-tokenization | normalization | vocab | "
                      + " | ".join(f"round trip {t['name']}" for t in self.texts) + " |",
                      "|---|---|---|---|---:|" + "---:|" * len(self.texts)]
            for p in self.peers[table]:
                trips = [self.row(table, p["name"], t["name"])["round_trip"] for t in self.texts]
                lines.append(f"| {p['name']} | {p['trainer']} | {p['pre_tokenization']} | {p['normalization']} "
                             f"| {p['vocab_size']:,} | " + " | ".join(_pct(v, 2) for v in trips) + " |")
            lines += ["", "Tokens vs HF BPE:", "",
                      "| peer | " + " | ".join(f"{t['name']} ({t['kind']})" for t in self.texts) + " |",
                      "|---|" + "---:|" * len(self.texts)]
            for p in self.peers[table]:
                cells = [self.row(table, p["name"], t["name"])["ratio_to_reference"] - 1 for t in self.texts]
                lines.append(f"| {p['name']} | " + " | ".join(_signed(c) for c in cells) + " |")
            for t in self.texts:
                lines += ["", f"{t['name']} ({t['kind']}):", "",
                          "| peer | tokens | tokens per word | bytes per token | vs HF BPE | round trip |",
                          "|---|---:|---:|---:|---:|---:|"]
                for p in self.peers[table]:
                    r = self.row(table, p["name"], t["name"])
                    lines.append(f"| {p['name']} | {r['tokens']:,} | {r['tokens_per_word']:.4f} "
                                 f"| {r['bytes_per_token']:.4f} | {_signed(r['ratio_to_reference'] - 1)} "
                                 f"| {_pct(r['round_trip'], 2)} |")
        if st.get("seconds"):
            lines += ["", "Timings (s): " + ", ".join(f"{k} {v}" for k, v in st["seconds"].items())]
        return "\n".join(lines) + "\n"


def _pct(v: float, digits: int = 1) -> str:
    return f"{100 * v:.{digits}f} %"


def _signed(v: float) -> str:
    return f"{100 * v:+.2f} %"


def train_peers(train_lines: Sequence[str], word_counts: Mapping[str, int], vocab_size: int, pattern: str, *,
                greedtok: Tokenizer, wmc: Tokenizer, bpe, sentencepiece: Union[bool, Mapping[str, list[Peer]]] = True,
                num_threads: int = 1, show_progress: bool = False,
                seconds: Optional[dict] = None) -> dict[str, list[Peer]]:
    """The peers of both tables, all trained on ``train_lines`` at ``vocab_size`` total ids.

    Args:
        train_lines: the training text, one line per item, without line ends.
        word_counts: ``train_lines`` pre-tokenized by ``ByteLevel(pattern)``, as GreedTok was trained.
        greedtok, wmc, bpe: GreedTok and GreedWMC tokenizers and the HF BPE ``tokenizers`` backend,
            already trained on ``word_counts`` (``compare_word_counts`` trains them) at ``vocab_size``.
        sentencepiece: include the SentencePiece peers (needs the ``sentencepiece`` package): True
            trains them here, a mapping is :func:`sentencepiece_peers`' result, trained before.
        seconds: if given, training times are added to it by peer name.

    Returns:
        {"main": peers with their own pre-tokenization, "equal": peers on ``ByteLevel(pattern)``};
        HF BPE first in both (the reference). Peers shared by both tables are the same objects.

    Raises:
        ImportError: ``sentencepiece`` is true but the package is missing.
        ValueError: SentencePiece refuses the settings (e.g. a vocabulary too large for the text).
    """
    seconds = {} if seconds is None else seconds
    byte_split = ByteLevel(pattern).label
    bpe_peer = HFPeer(REFERENCE, "tokenizers BpeTrainer", bpe, byte_split)
    started = time.perf_counter()
    unigram = HFPeer("HF Unigram", "tokenizers UnigramTrainer",
                     train_hf_unigram((line for line in train_lines if line), vocab_size, bpe,
                                      show_progress=show_progress), byte_split)
    seconds["HF Unigram"] = round(time.perf_counter() - started, 2)
    shared = [bpe_peer, unigram,
              GreedTokPeer("GreedTok (cover)", "GreedTok", greedtok, "cover", num_threads),
              GreedTokPeer("GreedTok (optimal)", "GreedTok, optimal encoder", greedtok, "optimal", num_threads),
              GreedTokPeer("GreedWMC (cover)", "GreedWMC", wmc, "cover", num_threads)]
    if sentencepiece is True:
        sentencepiece = sentencepiece_peers(train_lines, word_counts, vocab_size, pattern, num_threads=num_threads,
                                            seconds=seconds)
    extra = sentencepiece or {}
    return {"main": shared + list(extra.get("main", [])), "equal": shared + list(extra.get("equal", []))}


def sentencepiece_peers(train_lines: Sequence[str], word_counts: Mapping[str, int], vocab_size: int, pattern: str,
                        *, num_threads: int = 1, seconds: Optional[dict] = None) -> dict[str, list[Peer]]:
    """SentencePiece BPE and Unigram at ``vocab_size`` total pieces, byte fallback: lossless and with
    their defaults ({"main": ...}), and on the words of ``ByteLevel(pattern)`` ({"equal": ...}).

    Args: as :func:`train_peers`.

    Raises:
        ImportError: the ``sentencepiece`` package is missing.
        ValueError: SentencePiece refuses the settings (e.g. a vocabulary too large for the text).
    """
    seconds = {} if seconds is None else seconds
    split = ByteLevel(pattern)
    byte_split = split.label
    ws = "SentencePiece whitespace (▁, dummy prefix), byte fallback"
    main, equal = [], []
    for model_type in ("bpe", "unigram"):
        label = f"SentencePiece {'BPE' if model_type == 'bpe' else 'Unigram'}"
        started = time.perf_counter()
        sp = train_sentencepiece(train_lines, vocab_size, model_type, SP_LOSSLESS, num_threads=num_threads)
        main.append(SentencePiecePeer(f"{label} lossless", f"sentencepiece {model_type}", sp, ws, "none (identity)"))
        sp = train_sentencepiece(train_lines, vocab_size, model_type, {}, num_threads=num_threads)
        main.append(SentencePiecePeer(f"{label} defaults", f"sentencepiece {model_type}", sp,
                                      ws + ", extra whitespace removed", "nmt_nfkc (NFKC and more)"))
        sp = train_sentencepiece(train_lines, vocab_size, model_type, SP_EQUAL_SPLIT, split=split,
                                 word_counts=word_counts, num_threads=num_threads)
        equal.append(SentencePiecePeer(f"{label} (same split)", f"sentencepiece {model_type}", sp, byte_split,
                                       "none (identity)", split=split))
        seconds[label] = round(time.perf_counter() - started, 2)
    return {"main": main, "equal": equal}


def measure(peers: Mapping[str, Sequence[Peer]], texts: Sequence[tuple[str, str, Sequence[str]]], *,
            settings: Optional[dict] = None) -> HeldOutComparison:
    """Encode every text with every peer (each peer once per text, even if in both tables).

    Args:
        peers: {table: peers}, each table holding a peer named :data:`REFERENCE` (HF BPE).
        texts: (name, kind, lines) with kind "in sample" or "out of sample"; lines without ends.
        settings: echoed in the report; ``vocab_size`` (default: the largest peer's), ``training``
            (what was trained on) and ``split`` (default: HF BPE's pre-tokenization) head it.

    Raises:
        ValueError: a table without the reference peer, or a text with no words.
    """
    texts_out, rows, cache = [], [], {}
    for name, kind, all_lines in texts:
        lines = [line for line in all_lines if line]
        words = sum(len(line.split()) for line in lines)
        n_bytes = sum(len(line.encode("utf-8", "surrogatepass")) for line in lines)
        if not words:
            raise ValueError(f"{name}: no words to measure")
        texts_out.append({"name": name, "kind": kind, "lines": len(lines), "words": words, "bytes": n_bytes})
        for table, group in peers.items():
            by_name = {p.name: p for p in group}
            if REFERENCE not in by_name:
                raise ValueError(f"table {table!r} has no {REFERENCE} peer")
            results = {}
            for p in group:
                if id(p) not in cache:
                    counts, ok = p.measure(lines)
                    cache[id(p)] = (int(counts.sum()), int(ok.sum()))
                results[p.name] = cache[id(p)]
            reference = results[REFERENCE][0]
            for p in group:
                tokens, trips = results[p.name]
                rows.append({"table": table, "peer": p.name, "text": name, "kind": kind, "tokens": tokens,
                             "tokens_per_word": tokens / words, "bytes_per_token": n_bytes / max(tokens, 1),
                             "ratio_to_reference": tokens / reference, "round_trip": trips / max(len(lines), 1),
                             "round_trip_lines": trips})
        cache.clear()
    everyone = [p for g in peers.values() for p in g]
    settings = {"vocab_size": max(p.vocab_size for p in everyone), "training": "the training text",
                "split": next(p.pre_tokenization for p in everyone if p.name == REFERENCE), **(settings or {})}
    return HeldOutComparison(texts=texts_out, peers={t: [p.describe() for p in g] for t, g in peers.items()},
                             rows=rows, settings=settings)
