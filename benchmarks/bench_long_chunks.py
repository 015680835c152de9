"""Lines longer than the trainer's limit, cut instead of refused (issue 40, item 5): what the cut
costs held out.

The trainer keeps positions in a word as uint16, so a word or superword chunk has at most 65,535
singletons (bytes); longer ones are counted as pieces (:func:`hf_greedtok.word_counts.cut_word`:
a chunk at its gpt4-marks word ends, packed greedily; a word at 65,535 bytes on a character
boundary). This script makes two corpora of long lines and trains on each twice, as it is and with
its normal lines, through the command line (``hf-greedtok train``, a process each):

* ``en``: en_brown.txt without every 10th line; long: line ends replaced by spaces, one line per
  ~100 KB block (so a chunk runs until a digit or a run of punctuation: at most 6.6 KB here);
* ``en-letters``: the same lines with everything but letters and single spaces removed; long:
  as ``en``, so each long line is one chunk of ~100 KB (the reported case: a long paragraph
  with no digit, punctuation run or line end);
* ``zh``: zh_reviews.txt without every 10th line, with punctuation, symbols, digits and
  whitespace removed from each line; long: the lines run together, one line per ~100 KB block
  (a run of letters, one word under every split: each long line is one word).

For each corpus and kind (``--superwords`` and word level, gpt4-marks) it reports: whether
``train`` and ``count --superwords`` succeed, the chunks (words) longer than the limit and the
pieces they became, training time, and total tokens on held-out text encoded by the tokenizer
trained on the long lines against the one trained on the normal lines (the cut's cost). Held
out: the every-10th lines of the source and, for en, the first 20,000 lines of
en_shakespeare_milton.txt, each as they are ("as lines") and in the corpus's long form (the
same removal, joined into ~100 KB lines), which leaves out what line ends alone change.

    python benchmarks/bench_long_chunks.py                       # total vocabulary 32,768
    python benchmarks/bench_long_chunks.py --total 8192 --corpora en
    python benchmarks/bench_long_chunks.py --corpora en-letters --kinds superwords --piece-bytes 4096 1024 \\
        --workdir /tmp/long-chunks --reuse      # the cut at smaller sizes: training time
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import regex
from common import CORPORA, machine

from hf_greedtok import ByteLevel, Tokenizer
from hf_greedtok._trainer import MAX_WORD_UNITS
from hf_greedtok.word_counts import cut_word

BLOCK = 100_000            # bytes of a long line
CLI = [sys.executable, "-m", "hf_greedtok.cli"]


def lines_of(name: str) -> list[str]:
    return (CORPORA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def blocks(pieces: list[str], sep: str) -> list[str]:
    """``pieces`` joined with ``sep`` into lines of about BLOCK bytes, each ending in "\\n"."""
    out, cur, size = [], [], 0
    for p in pieces:
        cur.append(p)
        size += len(p.encode("utf-8")) + len(sep)
        if size >= BLOCK:
            out.append(sep.join(cur) + "\n")
            cur, size = [], 0
    if cur:
        out.append(sep.join(cur) + "\n")
    return out


def letters_only(line: str) -> str:
    """``line`` with everything but letters, marks and single spaces removed."""
    return " ".join(_NOT_LETTERS.sub("", line).split())


_NOT_LETTERS = regex.compile(r"[^\p{L}\p{M} ]+")
_NO_PUNCTUATION = regex.compile(r"[\p{P}\p{S}\p{N}\s]+")


# corpus: (source, the training lines' form, the separator that joins them into long lines)
CORPUS_FORMS = {
    "en": ("en_brown.txt", lambda ln: ln.rstrip("\n"), " "),
    "en-letters": ("en_brown.txt", letters_only, " "),
    "zh": ("zh_reviews.txt", lambda ln: _NO_PUNCTUATION.sub("", ln), ""),
}
OTHER_HELD_OUT = {"en": "en_shakespeare_milton.txt", "en-letters": "en_shakespeare_milton.txt"}


def forms(name: str, lines: list[str]) -> dict[str, list[str]]:
    """{"lines": ``lines`` in corpus ``name``'s form, one a line; "long": joined into ~BLOCK-byte lines}."""
    _, form, sep = CORPUS_FORMS[name]
    kept = [t for t in map(form, lines) if t]
    return {"lines": [t + "\n" for t in kept], "long": blocks(kept, sep)}


def make_corpora(workdir: Path, which: list[str]) -> dict:
    """{corpus: {"lines"/"long": training lines and "lines_path"/"long_path", "heldout": {name: lines}}}:
    every 10th line of the source held out; held-out texts as they are, and in the long form."""
    made = {}
    for name in which:
        source = lines_of(CORPUS_FORMS[name][0])
        c = forms(name, [ln for k, ln in enumerate(source) if k % 10])
        held = {f"{CORPUS_FORMS[name][0]} held-out lines": source[::10]}
        if name in OTHER_HELD_OUT:
            held[f"{OTHER_HELD_OUT[name]} (20,000 lines)"] = lines_of(OTHER_HELD_OUT[name])[:20_000]
        c["heldout"] = {}
        for h, lines in held.items():
            c["heldout"][h + ", as lines"] = lines
            c["heldout"][h + ", long form"] = forms(name, lines)["long"]
        for kind in ("lines", "long"):
            path = workdir / f"{name}_{kind}.txt"
            path.write_text("".join(c[kind]), encoding="utf-8")
            c[kind + "_path"] = path
        made[name] = c
    return made


def cut_stats(lines: list[str], split: str) -> dict:
    """Chunks (words) of ``split`` in ``lines``, those longer than the limit, their pieces."""
    pre = ByteLevel(split)
    total = long = pieces = long_bytes = 0
    longest = 0
    for line in lines:
        for w in pre.pre_tokenize(line):
            total += 1
            n = len(w.encode("utf-8"))
            longest = max(longest, n)
            if n > MAX_WORD_UNITS:
                long += 1
                long_bytes += n
                pieces += len(cut_word(w, pre))
    return {"words": total, "cut": long, "pieces": pieces, "cut_bytes": long_bytes, "longest": longest}


def run(cmd: list) -> tuple[int, float, str]:
    started = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    return p.returncode, time.perf_counter() - started, (p.stdout + p.stderr).strip().splitlines()[-1:]


def tokens(tok: Tokenizer, lines: list[str]) -> int:
    ids, offsets = tok.encode_batch_flat(lines)
    assert tok.decode(ids[offsets[0]:offsets[-1]].tolist()) == "".join(lines)      # lossless, cut or not
    return int(offsets[-1])


def cut_table(path: Path, table: Path, piece_bytes: int, split: str) -> int:
    """Write the words (chunks) of ``split`` in ``path`` as a parquet table, cut at ``piece_bytes``
    instead of the trainer's limit (:func:`cut_word` with ``limit``); returns its entries."""
    from hf_greedtok.formats.count_table import write_count_table
    from hf_greedtok.word_counts import count_words_in_files
    pre = ByteLevel(split)
    chunks = count_words_in_files([path], pre, show_progress=False)
    pieces: dict[str, int] = {}
    for chunk, n in chunks.items():
        for piece in cut_word(chunk, pre, piece_bytes):
            pieces[piece] = pieces.get(piece, 0) + n
    write_count_table(pieces, table)
    return len(pieces)


def train(workdir: Path, name: str, source, extra: list, total: int, reuse: bool) -> "Tokenizer | None":
    out = workdir / name
    if reuse and (out / "tokenizer.json").is_file():
        print(f"train {name}: reused {out}")
        return Tokenizer.load(out)
    rc, secs, last = run([*CLI, "train", source, *extra, "--total-vocab-size", total, "-o", out, "--overwrite",
                          "--quiet"])
    print(f"train {name}: exit {rc}, {secs:.1f} s, load {os.getloadavg()[0]:.1f} {'' if rc == 0 else last}")
    return Tokenizer.load(out) if rc == 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--total", type=int, default=32768, help="total vocabulary (every id)")
    ap.add_argument("--corpora", nargs="+", default=["en", "en-letters", "zh"], choices=list(CORPUS_FORMS))
    ap.add_argument("--kinds", nargs="+", default=["superwords", "word level"], choices=["superwords", "word level"])
    ap.add_argument("--piece-bytes", nargs="*", type=int, default=[],
                    help="also train on the long lines' chunks (words) cut at these sizes (a table, --counts)")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--reuse", action="store_true", help="reuse tokenizers already in --workdir")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="long-chunks-"))
    print(f"# {machine()}; load {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    made = make_corpora(workdir, args.corpora)
    kinds = {"superwords": ("superwords", ["--superwords"]), "word level": ("gpt4-marks", [])}
    for name, c in made.items():
        sizes = {k: c[k + "_path"].stat().st_size for k in ("lines", "long")}
        print(f"\n## {name}: {sizes['lines']:,} bytes; normal {len(c['lines']):,} lines, long {len(c['long']):,} lines "
              f"(longest {max(len(ln.encode()) for ln in c['long']):,} bytes)")
        for kind in args.kinds:
            split, extra = kinds[kind]
            stats = {v: cut_stats(c[v], split) for v in ("lines", "long")}
            print(f"\n### {kind}\n")
            for v in ("lines", "long"):
                s = stats[v]
                print(f"{v}: {s['words']:,} {'chunks' if extra else 'words'}, longest {s['longest']:,} bytes; "
                      f"{s['cut']:,} longer than {MAX_WORD_UNITS:,} ({s['cut_bytes']:,} bytes, "
                      f"{s['cut_bytes'] / max(1, sizes[v]):.1%} of the text) cut into {s['pieces']:,} pieces")
            toks = {v: train(workdir, f"{name}_{v}_{split}", c[v + "_path"], extra, args.total, args.reuse)
                    for v in ("lines", "long")}
            if extra:
                table = workdir / f"{name}_long.parquet"
                rc, secs, last = run([*CLI, "count", c["long_path"], "--superwords", "-o", table, "--overwrite",
                                      "--quiet"])
                if rc == 0:
                    import pyarrow.parquet as pq
                    words = pq.read_table(table).column("word").to_pylist()
                    print(f"count --superwords long: exit 0, {secs:.1f} s, {len(words):,} entries, longest "
                          f"{max(len(w.encode()) for w in words):,} bytes")
                else:
                    print(f"count --superwords long: exit {rc} {last}")
            for n in args.piece_bytes:
                table = workdir / f"{name}_long_cut{n}_{split}.parquet"
                entries = cut_table(c["long_path"], table, n, split)
                print(f"long lines' {'chunks' if extra else 'words'} cut at {n:,} bytes: {entries:,} entries")
                toks[f"long, cut at {n:,}"] = train(workdir, f"{name}_long_cut{n}_{split}", table,
                                                    [*extra, "--counts", "--no-prefix-space"], args.total,
                                                    args.reuse)
            if toks["lines"] is None:
                continue
            others = [v for v in toks if v != "lines" and toks[v] is not None]
            print("\n| held out | trained on normal lines | " + " | ".join(f"{v} (vs normal)" for v in others)
                  + " |\n|---|---:|" + "---:|" * len(others))
            for held, lines in c["heldout"].items():
                a = tokens(toks["lines"], lines)
                cells = [f"{b:,} ({b / a - 1:+.2%})" for b in (tokens(toks[v], lines) for v in others)]
                print(f"| {held} | {a:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
