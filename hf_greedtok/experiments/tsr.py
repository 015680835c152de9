"""The token-saving ratio (TSR) and the tokenization tax per language, for any vocabulary.

* TSR (the optimal-segmentation paper, "When Every Token Counts", LoResLM @ COLING 2025,
  Section 4): 1 - tokens with minimum-token segmentation / tokens with the vocabulary's own
  encoder, over the same pre-tokenized words; how much a language would save if the same
  vocabulary were used optimally.
* Tax: tokens a language needs with the vocabulary's own encoder / tokens of the English
  originals of the same strings; how many more tokens a language pays than English for the
  same content (the "tokenization tax" of the multilingual tokenization literature).

Input: a parallel table (``lang<TAB>domain<TAB>english<TAB>translation`` with that header, as
../shared/corpora/multi_isocodes_parallel.tsv) or plain text per language. Languages are
compared only on the strings they share with English: every row pairs a translation with its
English original. Plain texts have no originals, so their tax is measured against an ``en``
text when one is given (the same content is then assumed, and stated).

Example:
    >>> from hf_greedtok.vocabularies import load_vocabulary
    >>> report = tsr_report([load_vocabulary("cl100k_base.tiktoken")],       # doctest: +SKIP
    ...                     read_parallel("multi_isocodes_parallel.tsv"))
    >>> print(report.to_markdown())                                          # doctest: +SKIP
"""
from __future__ import annotations

import csv
import json
import os
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

import numpy as np

from ..errors import CorpusError
from ..pre_tokenizers.patterns import split_name
from ..unicode_scripts import dominant_script
from ..vocabularies import Vocabulary

ENGLISH = "en"
PARALLEL_COLUMNS = ("lang", "domain", "english", "translation")


@dataclass
class ParallelText:
    """Strings per language, each with its English original (None for plain texts).

    Attributes:
        languages: language codes, in the order first seen.
        texts: one list of strings per language.
        originals: one list of English originals per language, aligned with ``texts``; None for
            a language given as plain text.
        source: where the strings come from, for reports.
        without_strings: languages of the table none of whose rows has both a translation and
            an English original (reported, never measured).
    """
    languages: list[str]
    texts: dict[str, list[str]]
    originals: dict[str, Optional[list[str]]]
    source: str
    without_strings: list[str] = field(default_factory=list)


def read_parallel(path: Union[str, os.PathLike]) -> ParallelText:
    """Read a ``lang<TAB>domain<TAB>english<TAB>translation`` table (header first, UTF-8).

    Rows whose language is ``en`` are taken as English originals; empty translations are skipped.

    Raises:
        CorpusError: unreadable file, a missing column, or a row with the wrong number of fields
            (the file and line are named).
    """
    path = Path(path)
    texts: dict[str, list[str]] = {}
    originals: dict[str, Optional[list[str]]] = {}
    seen: dict[str, None] = {}
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(rows, None)
            if header is None:
                raise CorpusError(str(path), None, "empty file: expected the header " + "\\t".join(PARALLEL_COLUMNS))
            missing = [c for c in PARALLEL_COLUMNS if c not in header]
            if missing:
                raise CorpusError(str(path), 1, f"header lacks {', '.join(missing)} (has {', '.join(header)})")
            lang_col, en_col, tr_col = (header.index(c) for c in ("lang", "english", "translation"))
            for row in rows:
                if len(row) != len(header):
                    raise CorpusError(str(path), rows.line_num, f"{len(row)} tab-separated fields, "
                                                                f"expected {len(header)}")
                lang, english, translation = row[lang_col], row[en_col], row[tr_col]
                if not lang:
                    raise CorpusError(str(path), rows.line_num, "empty language code")
                seen[lang] = None
                if not translation or not english:
                    continue
                texts.setdefault(lang, []).append(translation)
                originals.setdefault(lang, []).append(english)
    except UnicodeDecodeError as e:
        raise CorpusError(str(path), None, f"not UTF-8 ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise CorpusError(str(path), None, e.strerror or str(e)) from None
    if not texts:
        raise CorpusError(str(path), None, "no rows with a translation")
    return ParallelText(list(texts), texts, originals, str(path), [lang for lang in seen if lang not in texts])


def read_texts(named: Mapping[str, Union[str, os.PathLike]]) -> ParallelText:
    """Plain text per language (``{"fr": "fr.txt", ...}``): each non-blank line is a string.

    Raises:
        CorpusError: an unreadable or empty file (named).
    """
    texts: dict[str, list[str]] = {}
    for lang, path in named.items():
        try:
            lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        except UnicodeDecodeError as e:
            raise CorpusError(str(path), None, f"not UTF-8 ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise CorpusError(str(path), None, e.strerror or str(e)) from None
        if not lines:
            raise CorpusError(str(path), None, f"no text for language {lang}")
        texts[lang] = lines
    return ParallelText(list(texts), texts, {lang: None for lang in texts}, ", ".join(map(str, named.values())))


@dataclass
class TsrReport:
    """Per vocabulary and language: strings, UTF-8 bytes, tokens (own encoder, optimal), TSR,
    tax and bytes per token.

    Attributes:
        vocabularies: per vocabulary, {"name", "kind", "size", "own_encoder", "pattern"}.
        rows: one dict per (vocabulary, language), keys ``vocabulary``, ``language``, ``script``,
            ``strings``, ``bytes``, ``tokens_own``, ``tokens_optimal``, ``tsr`` (1 - optimal /
            own), ``english_tokens_own`` (of the originals of the same strings; None without
            originals), ``tax`` (tokens_own / english_tokens_own, None if unknown),
            ``bytes_per_token`` (own encoder).
        settings: the source and how tax was measured.
    """
    vocabularies: list[dict]
    rows: list[dict]
    settings: dict = field(default_factory=dict)

    def of(self, vocabulary: str) -> list[dict]:
        """The rows of one vocabulary, highest TSR first."""
        return sorted((r for r in self.rows if r["vocabulary"] == vocabulary), key=lambda r: (-r["tsr"], r["language"]))

    def summary(self, vocabulary: str) -> dict:
        """Median, highest and zero TSRs, and the tax range (English excluded) of one vocabulary."""
        rows = self.of(vocabulary)
        taxed = sorted((r for r in rows if r["tax"] is not None and r["language"] != ENGLISH), key=lambda r: r["tax"])
        return {
            "languages": len(rows),
            "median_tsr": statistics.median(r["tsr"] for r in rows),
            "highest_tsr": [(r["language"], r["tsr"]) for r in rows[:3]],
            "zero_tsr": [r["language"] for r in rows if r["tokens_optimal"] == r["tokens_own"]],
            "lowest_tax": (taxed[0]["language"], taxed[0]["tax"]) if taxed else None,
            "highest_tax": (taxed[-1]["language"], taxed[-1]["tax"]) if taxed else None,
        }

    def to_json(self) -> str:
        return json.dumps({"settings": self.settings, "vocabularies": self.vocabularies, "rows": self.rows,
                           "summaries": {v["name"]: self.summary(v["name"]) for v in self.vocabularies}},
                          indent=1, ensure_ascii=False)

    def to_markdown(self) -> str:
        out = ["# Token-saving ratio and tokenization tax per language", "",
               f"Source: {self.settings.get('source')}. TSR = 1 - tokens with optimal segmentation / tokens "
               "with the vocabulary's own encoder (same words); tax = tokens / tokens of the English originals "
               f"of the same strings ({self.settings.get('tax')}).", ""]
        left_out, empty = self.settings.get("left_out"), self.settings.get("without_strings")
        if left_out:
            out += [f"Left out with fewer than {self.settings['min_strings']} strings: {', '.join(left_out)}.", ""]
        if empty:
            out += [f"Without any string shared with English (not measured): {', '.join(empty)}.", ""]
        blank = self.settings.get("map_countries_without_a_measured_main_language")
        if blank is not None:
            out += [f"World maps: each country coloured by its main language (CLDR's largest population share); "
                    f"{len(blank)} territories whose main language was not measured stay blank.", ""]
        if self.settings.get("world_map"):
            out += [f"World map {self.settings['world_map']}.", ""]
        for v in self.vocabularies:
            s = self.summary(v["name"])
            out += [f"## {v['name']} ({v['kind']}, {v['size']:,} ids; own encoder: {v['own_encoder']}; "
                    f"split: {v['pattern']})", "",
                    f"{s['languages']} languages; median TSR {100 * s['median_tsr']:.2f}%; highest "
                    + ", ".join(f"{lang} {100 * t:.2f}%" for lang, t in s["highest_tsr"])
                    + f"; TSR 0.00% (optimal finds nothing to save): {', '.join(s['zero_tsr']) or 'none'}"
                    + (f"; tax from {s['lowest_tax'][1]:.2f}x ({s['lowest_tax'][0]}) to {s['highest_tax'][1]:.2f}x "
                       f"({s['highest_tax'][0]})" if s["lowest_tax"] else "") + ".", "",
                    "| language | script | strings | bytes | tokens (own) | tokens (optimal) | TSR | tax | bytes/token |",
                    "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
            for r in self.of(v["name"]):
                tax = "" if r["tax"] is None else f"{r['tax']:.2f}x"
                out.append(f"| {r['language']} | {r['script']} | {r['strings']:,} | {r['bytes']:,} | {r['tokens_own']:,} "
                           f"| {r['tokens_optimal']:,} | {100 * r['tsr']:.2f}% | {tax} | {r['bytes_per_token']:.2f} |")
            out.append("")
        return "\n".join(out)


def tsr_report(vocabularies: Sequence[Vocabulary], text: ParallelText, *,
               min_strings: int = 1) -> TsrReport:
    """TSR and tax of every language of ``text`` with every vocabulary.

    Each vocabulary encodes all strings (and the distinct English originals) in one batch per
    encoder (native batch encoders; tiktoken's or tokenizers' for BPE's own encoding), and the
    per-language totals are sums over the strings (numpy, no per-string Python loop).

    Args:
        vocabularies: from :func:`hf_greedtok.vocabularies.load_vocabulary`.
        text: from :func:`read_parallel` or :func:`read_texts`.
        min_strings: languages with fewer strings are left out (and listed in ``settings``).

    Raises:
        ValueError: no vocabulary, or no language with ``min_strings`` strings.
    """
    if not vocabularies:
        raise ValueError("no vocabulary given")
    langs = [lang for lang in text.languages if len(text.texts[lang]) >= min_strings]
    if not langs:
        raise ValueError(f"no language has {min_strings} strings or more")
    flat = [s for lang in langs for s in text.texts[lang]]
    lang_of = np.repeat(np.arange(len(langs)), [len(text.texts[lang]) for lang in langs])
    english = list(dict.fromkeys(o for lang in langs for o in (text.originals[lang] or ())))
    en_index = {s: i for i, s in enumerate(english)}
    with_originals = np.array([text.originals[lang] is not None for lang in langs])
    # the English original of every string that has one, in the order of ``flat``
    original_of = np.array([en_index[o] for lang in langs for o in (text.originals[lang] or ())], dtype=np.int64)
    has_original = np.repeat(with_originals, [len(text.texts[lang]) for lang in langs])
    utf8 = np.fromiter((len(s.encode("utf-8")) for s in flat), dtype=np.int64, count=len(flat))
    scripts = {lang: dominant_script(text.texts[lang]) for lang in langs}
    plain_english = ENGLISH in langs and text.originals[ENGLISH] is None
    report = TsrReport([], [], {"source": text.source, "min_strings": min_strings,
                                "left_out": sorted(set(text.languages) - set(langs)),
                                "without_strings": list(text.without_strings),
                                "tax": "each row's own English original" if len(english) else
                                ("the en text, assumed to carry the same content" if plain_english
                                 else "not measured: no English originals and no en text")})
    n = len(langs)
    for vocab in vocabularies:
        report.vocabularies.append({"name": vocab.name, "kind": vocab.kind, "size": vocab.size,
                                    "own_encoder": vocab.own_encoder, "pattern": _pattern_name(vocab)})
        own, optimal = vocab.own_counts(flat + english), vocab.optimal_counts(flat + english)
        own_t, opt_t = own[:len(flat)], optimal[:len(flat)]
        own_lang = np.bincount(lang_of, weights=own_t, minlength=n).astype(np.int64)
        opt_lang = np.bincount(lang_of, weights=opt_t, minlength=n).astype(np.int64)
        bytes_lang = np.bincount(lang_of, weights=utf8, minlength=n).astype(np.int64)
        en_tokens = own[len(flat):]
        en_lang = np.bincount(lang_of[has_original], weights=en_tokens[original_of], minlength=n).astype(np.int64)
        plain_en_total = int(own_lang[langs.index(ENGLISH)]) if plain_english else None
        for i, lang in enumerate(langs):
            if with_originals[i]:
                en_total = int(en_lang[i])
            else:
                en_total = plain_en_total
            own_total, opt_total = int(own_lang[i]), int(opt_lang[i])
            report.rows.append({
                "vocabulary": vocab.name, "language": lang, "script": scripts[lang],
                "strings": len(text.texts[lang]), "bytes": int(bytes_lang[i]),
                "tokens_own": own_total, "tokens_optimal": opt_total,
                "tsr": 1.0 - opt_total / own_total if own_total else 0.0,
                "english_tokens_own": en_total,
                "tax": own_total / en_total if en_total else None,
                "bytes_per_token": int(bytes_lang[i]) / own_total if own_total else 0.0})
        if len(english) and ENGLISH not in langs:
            # English itself, on its distinct originals: the row every tax is measured against
            own_en, opt_en = int(en_tokens.sum()), int(optimal[len(flat):].sum())
            en_bytes = sum(len(s.encode("utf-8")) for s in english)
            report.rows.append({
                "vocabulary": vocab.name, "language": ENGLISH, "script": dominant_script(english),
                "strings": len(english), "bytes": en_bytes, "tokens_own": own_en, "tokens_optimal": opt_en,
                "tsr": 1.0 - opt_en / own_en if own_en else 0.0, "english_tokens_own": own_en,
                "tax": 1.0 if own_en else None, "bytes_per_token": en_bytes / own_en if own_en else 0.0})
    return report


def _pattern_name(vocab: Vocabulary) -> str:
    """The split's name ("gpt4", "o200k", ...), the file's own pre-tokenizer, or the regex."""
    pre = vocab.native.pre_tokenizer
    pattern = getattr(pre, "pattern", None)
    if pattern is None:
        return f"{type(pre).__name__} (the file's own)"
    return split_name(pattern) or pattern


def file_part(name: str) -> str:
    """``name`` made safe for a file name (plots are named after their vocabulary)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
