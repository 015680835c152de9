"""Hindi report: BPE, CBPE, Lookup+BPE, Lookup+CBPE, GreedTok and script-aware GreedTok.

Trains on ``hi_news_wordcounts.tsv`` (word counts), evaluates on ``hi_devdas.txt`` (running
text), with a morphology lookup and a gold segmentation made from ``hi_morph_segments.tsv``: a
word goes to the gold part when sha256(word) % 10 == 0 (about 10 %, all rows of a word together),
everything else to the lookup, so no gold word is in the lookup. Every variant is trained with
``hf-greedtok train`` (in-process) and NFC, at equal learned tokens (K merges = K GreedTok
tokens) and at equal final vocabulary size, then scored by ``evaluate_texts``.

"CBPE (base+sign alphabet)" measures what an alphabet closed under single signs costs (issue 19
item 1): its training table also holds, once each, every letter + one combining mark of each
script of the training words (Devanagari: 80 letters x 34 signs), so those units are in its
alphabet whether or not the corpus has them.

    python benchmarks/bench_indic.py --sizes 2000 4000 8000 --totals 4000 8000 16000
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
import unicodedata
from pathlib import Path

from common import CORPORA, machine

import hf_greedtok  # noqa: F401  (registers the tokenizer classes with AutoTokenizer)
from hf_greedtok.cli import main as cli
from hf_greedtok.experiments.evaluation import evaluate_texts
from hf_greedtok.indic.lookup import MorphLookup
from hf_greedtok.pre_tokenizers import Metaspace
from hf_greedtok.indic.units import starts_with_mark
from hf_greedtok.formats.count_table import iter_count_tables
from transformers import AutoTokenizer

VARIANTS = [  # name, algorithm, units, lookup
    ("BPE", "bpe", "chars", False),
    ("CBPE", "cbpe", "marks", False),
    ("CBPE (vowels)", "cbpe", "vowels", False),
    ("Lookup+BPE", "bpe", "chars", True),
    ("Lookup+CBPE", "cbpe", "marks", True),
    ("GreedTok", "greedtok", "chars", False),
    ("GreedTok (marks)", "greedtok", "marks", False),
    ("Lookup+GreedTok (marks)", "greedtok", "marks", True),
    ("CBPE (base+sign alphabet)", "cbpe", "marks", False),
]
CLOSED_ALPHABET = "CBPE (base+sign alphabet)"


def with_base_sign_units(train: Path, folder: Path) -> Path:
    """``train`` (a word<TAB>count table) plus one row, count 1, for every letter (Lo) + one
    combining mark (Mn, Mc) of each script its letters belong to (the script: the first word of
    the Unicode character name, e.g. DEVANAGARI)."""
    scripts = {unicodedata.name(c, "").split(" ")[0] for _, _, w, _ in iter_count_tables([train])
               for c in w if unicodedata.category(c) == "Lo"}
    chars = [chr(c) for c in range(0x10000) if unicodedata.name(chr(c), "").split(" ")[0] in scripts]
    letters = [c for c in chars if unicodedata.category(c) == "Lo"]
    marks = [c for c in chars if unicodedata.category(c) in ("Mn", "Mc")]
    out = folder / "closed_alphabet.tsv"
    with open(out, "w", encoding="utf-8") as f:
        f.write(train.read_text(encoding="utf-8"))
        f.writelines(f"{b}{m}\t1\n" for b in letters for m in marks)
    return out


def split_morph_table(source: Path, folder: Path) -> tuple[Path, Path]:
    lookup, gold = folder / "lookup.tsv", folder / "gold.tsv"
    with open(source, encoding="utf-8") as f, open(lookup, "w", encoding="utf-8") as lk, \
            open(gold, "w", encoding="utf-8") as gd:
        for line in f:
            word = line.split("\t", 1)[0]
            (gd if int(hashlib.sha256(word.encode("utf-8")).hexdigest(), 16) % 10 == 0 else lk).write(line)
    return lookup, gold


def seen_unit_lines(train: Path, text: Path, folder: Path) -> tuple[Path, int, int]:
    """The lines of ``text`` whose "marks" units with a combining mark (after NFC) all occur in
    the training words (new punctuation or digits do not matter for mark-initial tokens)."""
    pre = Metaspace(units="marks")
    seen = {u for _, _, w, _ in iter_count_tables([train])
            for piece in pre.pre_tokenize(unicodedata.normalize("NFC", w)) for u in pre.word_units(piece)}
    lines = [ln for ln in text.read_text(encoding="utf-8").splitlines() if ln.strip()]
    keep = [ln for ln in lines
            if all(u in seen for piece in pre.pre_tokenize(unicodedata.normalize("NFC", ln))
                   for u in pre.word_units(piece) if len(u) > 1 or starts_with_mark(u))]
    out = folder / "seen_units.txt"
    out.write_text("\n".join(keep) + "\n", encoding="utf-8")
    return out, len(keep), len(lines)


def run(variant, size_flag: str, size: int, train: Path, text: Path, seen: Path, lookup: Path,
        gold: MorphLookup, folder: Path) -> dict:
    name, algorithm, units, use_lookup = variant
    out = folder / f"{algorithm}-{units}-{int(use_lookup)}-{size_flag}-{size}-{name == CLOSED_ALPHABET}"
    if name == CLOSED_ALPHABET:
        train = with_base_sign_units(train, folder)
    args = ["train", str(train), "--counts", "--algorithm", algorithm, "--units", units,
            size_flag, str(size), "--normalizer", "NFC", "--output", str(out), "--quiet", "--overwrite"]
    if use_lookup:
        args += ["--lookup", str(lookup)]
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()) as err:
        code = cli(args)
    if code != 0 and name == CLOSED_ALPHABET and "leaves no merges" in err.getvalue():
        print(f"{name} at {size_flag} {size}: {err.getvalue().strip()}")     # the alphabet alone is larger
        return None
    if code != 0:
        raise SystemExit(f"training failed: {' '.join(args)}\n{err.getvalue()}")
    backend = AutoTokenizer.from_pretrained(str(out)).backend_tokenizer
    r = evaluate_texts(backend, [text], gold=gold)
    r_seen = evaluate_texts(backend, [seen])
    return {"variant": name, "size_flag": size_flag, "size": size, "vocab_size": r["vocab_size"],
            "fertility": r["fertility"], "pcw": r["proportion_continued_words"],
            "mark_initial": r["mark_initial_tokens"], "mark_initial_share": r["mark_initial_share"],
            "dv_tokens": r["dependent_vowel_tokens"], "mark_initial_seen": r_seen["mark_initial_tokens"],
            "avoidable": r["avoidable_mark_initial_tokens"], "mid_character": r["mid_character_tokens"],
            "boundary_precision": r["boundary_precision"], "boundary_recall": r["boundary_recall"],
            "boundary_f1": r["boundary_f1"], "renyi": r["renyi_efficiency"], "trained": said.getvalue().strip()}


def table(rows: list[dict], size_flag: str) -> str:
    head = ("| size | variant | vocab | fertility | PCW | mark-initial | (seen-unit lines) | avoidable | DV tokens | "
            "mid-character | boundary P | R | F1 | Rényi 2.5 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        if r["size_flag"] != size_flag:
            continue
        lines.append(f"| {r['size']} | {r['variant']} | {r['vocab_size']} | {r['fertility']:.4f} | {r['pcw']:.3f} | "
                     f"{r['mark_initial']} ({100 * r['mark_initial_share']:.2f} %) | {r['mark_initial_seen']} | "
                     f"{r['avoidable']} | {r['dv_tokens']} | {r['mid_character']} | {r['boundary_precision']:.3f} | {r['boundary_recall']:.3f} | "
                     f"{r['boundary_f1']:.3f} | {r['renyi']:.4f} |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000], help="equal learned tokens K")
    p.add_argument("--totals", type=int, nargs="+", default=[4000, 8000, 16000], help="equal final vocab size")
    p.add_argument("--json", type=Path, help="also write the rows as JSON")
    p.add_argument("--only", nargs="+", choices=[v[0] for v in VARIANTS], help="run these variants only")
    args = p.parse_args()
    train, text = CORPORA / "hi_news_wordcounts.tsv", CORPORA / "hi_devdas.txt"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        lookup, gold_path = split_morph_table(CORPORA / "hi_morph_segments.tsv", folder)
        gold = MorphLookup.load(gold_path)
        seen, n_seen, n_lines = seen_unit_lines(train, text, folder)
        print(machine())
        print(f"gold: {len(gold)} words ({gold.stats['split_entries']} with a boundary); lookup: "
              f"{MorphLookup.load(lookup).stats['entries']} words; {n_seen} of {n_lines} evaluation lines "
              "have only units seen in training")
        for size_flag, sizes in (("--vocab-size", args.sizes), ("--total-vocab-size", args.totals)):
            for size in sizes:
                for v in VARIANTS:
                    if args.only and v[0] not in args.only:
                        continue
                    row = run(v, size_flag, size, train, text, seen, lookup, gold, folder)
                    if row is not None:
                        rows.append(row)
                        print(json.dumps({k: v for k, v in row.items() if k != "trained"}), file=sys.stderr)
    print("\nEqual learned tokens (K = BPE/CBPE merges = GreedTok k):\n")
    print(table(rows, "--vocab-size"))
    print("\nEqual final vocabulary size (every id):\n")
    print(table(rows, "--total-vocab-size"))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
