"""Peak memory and time of one very long line through every encode path (issue 12, item 4).

The lines are single pre-tokenized words under the GPT-4 split, the worst case for memory:

* ``letters``: 50 MB of the letters of en_brown.txt (punctuation, digits and spaces removed);
* ``a``: 50 MB of the letter "a";
* ``spaces``: 5 MB of spaces (the issue's example: the old sort-based cover took 4.26 GB).

Each (path, line) runs in a fresh process that loads the tokenizer, builds the line, encodes it
once and reports its tokens, wall seconds and peak RSS (``ru_maxrss``) together with the RSS
before the line existed. Paths:

* ``native-*``: :meth:`hf_greedtok.Tokenizer.encode_batch` (int32 numpy ids) with a GreedTok
  vocabulary trained here (byte level, 2,000 learned tokens, on examples/data) and with
  cl100k_base (100k ranked tokens up to 128 bytes), cover and optimal;
* ``hf-*``: ``GreedTokTokenizerFast(line)["input_ids"]`` (cover: the custom pre-tokenizer step;
  optimal: the pure Unigram backend);
* ``tokenizer.json``: the exported optimal ``tokenizer.json`` through ``tokenizers`` alone;

and the anchors of the same run: HF ``tokenizers`` byte-level BPE trained on the same text to
the same vocabulary size (``hf-bpe``), and tiktoken's cl100k ``encode_ordinary``.

    python benchmarks/bench_long_line.py                      # every path, every line
    python benchmarks/bench_long_line.py --lines spaces --paths native-cl100k-cover
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CORPORA, REPO, machine

VOCAB = CORPORA.parent / "vocab" / "cl100k_base.tiktoken"
TRAIN_TEXT = REPO / "examples" / "data" / "devils_dictionary.txt"
LEARNED = 2000
LINES = ("letters", "a", "spaces")
PATHS = ("native-cover", "native-optimal", "native-cl100k-cover", "native-cl100k-optimal",
         "hf-cover", "hf-optimal", "tokenizer.json", "hf-bpe", "tiktoken-cl100k")


def make_line(kind: str) -> str:
    if kind == "spaces":
        return " " * 5_000_000
    if kind == "a":
        return "a" * 50_000_000
    import regex
    letters = "".join(regex.findall(r"\p{L}+", (CORPORA / "en_brown.txt").read_text(encoding="utf-8")))
    return (letters * (50_000_000 // len(letters) + 1))[:50_000_000]


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def build(folder: Path) -> None:
    """The trained GreedTok folders (cover, optimal), the exported tokenizer.json and HF BPE."""
    from tokenizers import decoders, models, pre_tokenizers, trainers
    from tokenizers import Tokenizer as HFTokenizer

    from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, export_optimal_tokenizer_json
    from hf_greedtok.hf.pipeline import standard_pre_tokenizer

    lines = TRAIN_TEXT.read_text(encoding="utf-8").splitlines()
    core = GreedTokTrainer(k=LEARNED, show_progress=False).train_from_iterator(lines)
    core.save(folder / "native")
    GreedTokTokenizerFast.from_greedtok(core, mode="cover").save_pretrained(folder / "hf-cover")
    GreedTokTokenizerFast.from_greedtok(core, mode="optimal").save_pretrained(folder / "hf-optimal")
    export_optimal_tokenizer_json(core, folder / "optimal.json")
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = standard_pre_tokenizer(core.pre_tokenizer)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(lines, trainer=trainers.BpeTrainer(
        vocab_size=core.vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bpe.save(str(folder / "bpe.json"))


def worker(path: str, kind: str, folder: Path) -> dict:
    """Load the path's tokenizer, build the line, encode it once; runs in its own process."""
    if path.startswith("native"):
        from hf_greedtok import Tokenizer
        tok = Tokenizer.from_tiktoken(VOCAB) if "cl100k" in path else Tokenizer.load(folder / "native")
        mode = path.rsplit("-", 1)[1]
        encode = lambda s: tok.encode_batch([s], mode=mode)[0]          # noqa: E731
    elif path.startswith("hf-") and path != "hf-bpe":
        import hf_greedtok  # noqa: F401  (registers the class with AutoTokenizer)
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained(folder / path)
        encode = lambda s: tok(s)["input_ids"]                            # noqa: E731
    elif path in ("tokenizer.json", "hf-bpe"):
        from tokenizers import Tokenizer as HFTokenizer
        tok = HFTokenizer.from_file(str(folder / ("optimal.json" if path == "tokenizer.json" else "bpe.json")))
        encode = lambda s: tok.encode(s).ids                              # noqa: E731
    else:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe

        from hf_greedtok.pre_tokenizers import GPT4_PATTERN
        enc = tiktoken.Encoding("cl100k_base", pat_str=GPT4_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(VOCAB)),
                                special_tokens={})
        encode = enc.encode_ordinary
    before = rss_mb()
    line = make_line(kind)
    started = time.perf_counter()
    ids = encode(line)
    seconds = time.perf_counter() - started
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"tokens": len(ids), "seconds": seconds, "peak_mb": peak, "loaded_mb": before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", nargs="+", choices=LINES, default=list(LINES))
    parser.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS))
    parser.add_argument("--worker", nargs=3, metavar=("PATH", "LINE", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        path, kind, folder = args.worker
        print(json.dumps(worker(path, kind, Path(folder))))
        return
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        print(f"\n| line | path | tokens | seconds | peak RSS MB | RSS before the line MB | peak / hf-bpe |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for kind in args.lines:
            rows = {}
            for path in args.paths:
                out = subprocess.run([sys.executable, __file__, "--worker", path, kind, tmp],
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    rows[path] = {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"rc {out.returncode}"}
                else:
                    rows[path] = json.loads(out.stdout.strip().splitlines()[-1])
            anchor = rows.get("hf-bpe", {}).get("peak_mb")
            for path, r in rows.items():
                if "error" in r:
                    print(f"| {kind} | {path} | failed: {r['error']} | | | | |")
                    continue
                ratio = f"{r['peak_mb'] / anchor:.2f}" if anchor else "n/a"
                print(f"| {kind} | {path} | {r['tokens']:,} | {r['seconds']:.1f} | {r['peak_mb']:,.0f} | "
                      f"{r['loaded_mb']:,.0f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
