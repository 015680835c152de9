"""Every installed encoder side by side on cl100k (issue 42): ours, gigatoken, tokie, fastokens,
bpe-openai, tiktoken and HF tokenizers, on lines and on whole documents, one and two threads.

Each peer is built from the same ``cl100k_base.tiktoken`` ranks (tokie and HF tokenizers from the
``tokenizer.json`` transformers' ``TikTokenConverter`` writes, with GPT-4's exact split), and its
ids are checked equal to tiktoken's ``encode_ordinary`` on every input before it is timed; a peer
whose ids differ is reported and not timed. A peer that is not installed is named and skipped
(``pip install gigatoken tokie fastokens bpe-openai``: the ``bench`` extra).

Inputs: the four English texts of other domains (``other_domains.py``: gcide, linux_docs,
fortunes, debian_handbook) and Chinese reviews (``zh_reviews.txt``), each as one document, a
fresh str object per call (a str caches its UTF-8 form after its first conversion, which would
flatter a second call); and their lines, 60,000 from the four English texts, as one batch.

Ours is timed as ``encode_batch_flat`` (ids and offsets in two arrays) on lines, the others as
their batch calls (lists of ids).

Threads: each measurement runs in its own process whose thread pools are set to the count
(``RAYON_NUM_THREADS``, ``RAYON_RS_NUM_THREADS``, ``OMP_NUM_THREADS``), and the APIs that take a
count get it (ours ``num_threads``, tiktoken's batch ``num_threads``). Speed is UTF-8 MB (10**6
bytes) per second, the best of ``--repeat`` calls after one warm-up call; the ratio column is
ours over the peer. The load average is printed before and after: two cores, so numbers taken
beside another job are not comparable.

    python benchmarks/bench_peers.py                      # documents and lines, 1 and 2 threads
    python benchmarks/bench_peers.py --threads 1 --repeat 3
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import machine
from other_domains import texts as other_domain_texts

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("HF_GREEDTOK_SHARED", HERE.parents[1] / "shared"))
VOCAB = SHARED / "vocab" / "cl100k_base.tiktoken"
PEERS = ("ours", "gigatoken", "tokie", "fastokens", "bpe-openai", "tiktoken", "HF tokenizers")
MODULES = {"gigatoken": "gigatoken", "tokie": "tokie", "fastokens": "fastokens", "bpe-openai": "bpe_openai",
           "tiktoken": "tiktoken", "HF tokenizers": "tokenizers"}


def inputs() -> dict[str, object]:
    """{name: document str, or list of lines}: the five documents and the English lines."""
    docs = {name: path.read_text(encoding="utf-8") for name, path in other_domain_texts().items()}
    docs["zh_reviews"] = (SHARED / "corpora" / "zh_reviews.txt").read_text(encoding="utf-8")
    lines = [line for name in ("gcide", "linux_docs", "fortunes", "debian_handbook")
             for line in docs[name].splitlines(keepends=True)][:60_000]
    return {**docs, "60,000 English lines": lines}


def gpt4_regex() -> str:
    from hf_greedtok.pre_tokenizers.patterns import GPT4
    return GPT4.regex


def build(peer: str, threads: int):
    """(encode one str -> ids, encode a list of str -> list of ids) of ``peer`` on cl100k."""
    if peer == "ours":
        from hf_greedtok import Tokenizer
        tok = Tokenizer.from_tiktoken(VOCAB)

        def one(text):
            return tok.encode_batch_flat([text], num_threads=threads)[0]

        def batch(texts):
            # timed as encode_batch_flat's output (ids and offsets), the batch API we offer for
            # speed; the rows are cut from it only for the check against tiktoken
            return tok.encode_batch_flat(texts, num_threads=threads)
        return one, batch
    if peer == "tiktoken":
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
        enc = tiktoken.Encoding("cl100k_file", pat_str=gpt4_regex(), mergeable_ranks=load_tiktoken_bpe(str(VOCAB)),
                                special_tokens={})
        if threads == 1:        # its batch call hands one thread a pool's overhead
            return enc.encode_ordinary, lambda texts: [enc.encode_ordinary(t) for t in texts]
        return enc.encode_ordinary, lambda texts: enc.encode_ordinary_batch(texts, num_threads=threads)
    if peer == "gigatoken":
        import gigatoken
        tok = gigatoken.Tokenizer.from_tiktoken(str(VOCAB))
        return tok.encode, tok.encode_batch
    if peer == "fastokens":
        import fastokens
        tok = fastokens.Tokenizer.from_tiktoken(str(VOCAB), encoding="cl100k_base")
        return (lambda text: tok.encode(text).ids), (lambda texts: [e.ids for e in tok.encode_batch(texts)])
    if peer == "bpe-openai":
        import bpe_openai
        enc = bpe_openai.get_encoding("cl100k_base")
        if threads == 1:
            return enc.encode_ordinary, lambda texts: [enc.encode_ordinary(t) for t in texts]
        return enc.encode_ordinary, enc.encode_ordinary_batch
    hf = hf_tokenizer()
    if peer == "tokie":
        import tempfile

        import tokie
        with tempfile.TemporaryDirectory() as tmp:        # from_json reads a file
            path = Path(tmp) / "tokenizer.json"
            hf.save(str(path))
            tok = tokie.Tokenizer.from_json(str(path))
        return (lambda text: tok.encode(text).ids), (lambda texts: [e.ids for e in tok.encode_batch(texts)])
    if peer == "HF tokenizers":
        return (lambda text: hf.encode(text).ids), (lambda texts: [e.ids for e in hf.encode_batch(texts)])
    raise ValueError(f"unknown peer {peer!r}")


def hf_tokenizer():
    """cl100k as an HF ``tokenizers.Tokenizer`` with GPT-4's exact split (TikTokenConverter's)."""
    from transformers.convert_slow_tokenizer import TikTokenConverter
    return TikTokenConverter(vocab_file=str(VOCAB), pattern=gpt4_regex()).converted()


def fresh(item):
    """A new str object (no cached UTF-8), or a list of them."""
    if isinstance(item, str):
        return (item + " ")[:-1]
    return [(line + " ")[:-1] for line in item]


def measure(peer: str, threads: int, repeat: int) -> dict:
    """In this process: {input: MB/s, or "ids differ"} of one peer at one thread count."""
    import tiktoken  # noqa: F401  (the reference, built once)
    reference_one, reference_batch = build("tiktoken", 1)
    one, batch = build(peer, threads)
    out = {}
    for name, item in inputs().items():
        encode, expected = (one, reference_one(item)) if isinstance(item, str) else \
            (batch, reference_batch(item))
        try:
            got = encode(fresh(item))
        except Exception as e:          # e.g. bpe-openai refuses a long document
            out[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:60]}"
            continue
        if peer == "ours" and isinstance(item, list):
            ids, offsets = got
            got = [ids[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
        same = [list(x) for x in got] == [list(x) for x in expected] if isinstance(item, list) else \
            list(got) == list(expected)
        if not same:
            out[name] = "ids differ"
            continue
        mb = (len(item.encode()) if isinstance(item, str) else sum(len(s.encode()) for s in item)) / 1e6
        best = float("inf")
        for _ in range(repeat):
            copy = fresh(item)
            started = time.perf_counter()
            encode(copy)
            best = min(best, time.perf_counter() - started)
        out[name] = mb / best
    return out


def run_child(peer: str, threads: int, repeat: int) -> dict:
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads), "RAYON_RS_NUM_THREADS": str(threads),
           "OMP_NUM_THREADS": str(threads), "TOKENIZERS_PARALLELISM": "true" if threads > 1 else "false"}
    proc = subprocess.run([sys.executable, __file__, "--child", peer, "--threads", str(threads), "--repeat",
                           str(repeat)], capture_output=True, text=True, env=env, cwd=HERE)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeat", type=int, default=5, help="timed calls per input (the best is kept)")
    p.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.threads[0], args.repeat)))
        return
    print(f"# Encoders side by side, cl100k: {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    installed = [peer for peer in args.peers if peer == "ours" or importlib.util.find_spec(MODULES[peer])]
    for peer in args.peers:
        if peer not in installed:
            print(f"{peer}: not installed, not measured")
    names = list(inputs())
    for threads in args.threads:
        results = {peer: run_child(peer, threads, args.repeat) for peer in installed}
        print(f"\n## {threads} thread{'s' if threads > 1 else ''} (MB/s; ours / peer in brackets)\n")
        print("| input | " + " | ".join(installed) + " |")
        print("|---|" + "---:|" * len(installed))
        for name in names:
            ours = results["ours"].get(name)
            cells = []
            for peer in installed:
                value = results[peer].get(name, results[peer].get("error", "?"))
                if not isinstance(value, float):
                    cells.append(str(value))
                elif peer == "ours" or not isinstance(ours, float):
                    cells.append(f"{value:,.0f}")
                else:
                    cells.append(f"{value:,.0f} ({ours / value:.2f}x)")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
