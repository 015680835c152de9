"""Preprocess a dataset with a GreedTok tokenizer and save (or push) the tokenizer.

Run after the README's first command (which writes ``devil-tokenizer/``):

    python examples/datasets_map_and_push.py devil-tokenizer
    python examples/datasets_map_and_push.py devil-tokenizer --push-to your-name/devil-greedtok   # needs a token

What it shows:
* ``AutoTokenizer.from_pretrained`` returns ``GreedTokTokenizerFast`` once hf_greedtok is imported;
* ``Dataset.map(..., batched=True, num_proc=2)`` with the tokenizer in a closure: the tokenizer
  pickles, its fingerprint is deterministic, so the second identical call loads from the cache;
* the Arrow recipe (no truncation or padding): ``ds.with_format("arrow").map(encoder.map_batch,
  ...)`` with a :class:`~hf_greedtok.hf.folder_encoder.FolderEncoder` writes the ids without a
  Python list per text, the same rows as ``tok(batch["text"])``;
* ``save_pretrained`` writes tokenizer.json (standard, optimal mode), greedtok.json (ranked
  tokens), tokenizer_config.json (auto_map) and tokenization_greedtok.py; ``push_to_hub``
  uploads exactly those files, and others load them with
  ``AutoTokenizer.from_pretrained(repo, trust_remote_code=True)`` or after ``import hf_greedtok``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import datasets
from transformers import AutoTokenizer

import hf_greedtok  # noqa: F401  (registers GreedTokTokenizerFast with AutoTokenizer)

HERE = Path(__file__).resolve().parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("tokenizer", help="a folder written by `hf-greedtok train --output DIR`")
    p.add_argument("--text", default=str(HERE / "data" / "devils_dictionary.txt"))
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--work-dir", default="greedtok-example-output")
    p.add_argument("--push-to", metavar="REPO_ID", help="also push the tokenizer to this hub repository")
    args = p.parse_args()

    tok = AutoTokenizer.from_pretrained(args.tokenizer)
    print(f"loaded {type(tok).__name__} (mode={tok.mode}, vocab size {len(tok)})")

    work = Path(args.work_dir)
    lines = [line for line in Path(args.text).read_text(encoding="utf-8").splitlines() if line.strip()]
    datasets.Dataset.from_dict({"text": lines}).save_to_disk(str(work / "raw"))
    ds = datasets.load_from_disk(str(work / "raw"))       # file-backed, so map results are cached

    def tokenize(batch):
        return tok(batch["text"], truncation=True, max_length=args.max_length)

    for attempt in ("first run", "second run (from the cache)"):
        started = time.perf_counter()
        out = ds.map(tokenize, batched=True, num_proc=2, remove_columns=["text"])
        print(f"{attempt}: {time.perf_counter() - started:.2f} s, fingerprint {out._fingerprint}")
    print("first example:", tok.convert_ids_to_tokens(out[0]["input_ids"])[:12])

    from hf_greedtok.hf.folder_encoder import FolderEncoder
    encoder = FolderEncoder.from_tokenizer(tok, attention_mask=True)
    started = time.perf_counter()
    arrow = ds.with_format("arrow").map(encoder.map_batch, batched=True, with_indices=True, num_proc=2,
                                        remove_columns=["text"]).with_format(None)
    took = time.perf_counter() - started
    same = arrow["input_ids"] == ds.map(lambda b: tok(b["text"]), batched=True)["input_ids"]
    print(f"Arrow recipe (whole texts): {took:.2f} s, the ids of tok(batch): {same}")

    tok.save_pretrained(work / "tokenizer")
    print("saved:", ", ".join(sorted(p.name for p in (work / "tokenizer").iterdir())))
    if args.push_to:
        tok.push_to_hub(args.push_to)
        print(f"pushed to {args.push_to}")


if __name__ == "__main__":
    main()
