"""Encoding whole texts: the native batch path (split + encode without the GIL) against tiktoken.

For each corpus (en_brown, en_python_docs) and vocabulary (cl100k_base via ``Tokenizer.from_tiktoken``,
and a GreedTok vocabulary of --k ranked tokens trained on both corpora with the GPT-4 split, or
with ``--pattern``'s: gpt4-marks is what ``hf-greedtok train`` uses),
encoding the corpus's lines in MB/s of UTF-8 text, median of --repeat runs:

* cold: ``encode_batch_flat`` on a fresh tokenizer (empty word caches), 1 thread;
* warm: later calls of ``encode_batch_flat`` (one buffer of ids + offsets), on 1 and 2 threads
  (the ratio is the scaling; one untimed 2-thread call first warms the second thread's word
  cache), of ``encode_batch`` (a list of one array per line) and of ``encode_batch_arrow`` (one
  pyarrow ``list<int32>`` column);
* the per-word path: the same tokenizer splitting each line in Python and encoding its words in
  a second native call (what encode_batch did before the fused path);
* the whole text as one str (cl100k cover, warm), against tiktoken on the same str;
* the pre-tokenizer alone: the native GPT-4 split counting the words of the whole text
  (``_pretokenize.count_words``: no Python object and no offset kept per word), and ``regex.findall``;
* the anchor: tiktoken ``encode_ordinary`` (same cl100k ranks and pattern) on the whole text, and
  line by line in a Python loop.

With cl100k, cover ids are compared with tiktoken's own ids on every line (they must be equal).

    python benchmarks/bench_encode_text.py [--repeat 5] [--k 32000] [--pattern gpt4|gpt4-marks|...]
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import time

from common import CORPORA, REPO, machine

VOCAB = CORPORA.parent / "vocab"
CORPUS_NAMES = ("en_brown.txt", "en_python_docs.txt")


def seconds(fn, repeat: int) -> list[float]:
    """Wall seconds of each of ``repeat`` calls of fn: the call alone, its result freed after the
    clock stops (freeing is the caller's later cost, for every peer alike: 278,040 row arrays
    take about 6 ms, a list of 2.5M Python ints more)."""
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        out.append(time.perf_counter() - started)
        del result
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--k", type=int, default=32000)
    p.add_argument("--pattern", default="gpt4", help="the GreedTok vocabulary's split (cl100k keeps its own)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(p)
    native_table(p.parse_args())


def native_table(args: argparse.Namespace) -> None:
    """The table and lines described above, printed (``args``: see :func:`add_arguments`)."""
    sys.path.insert(0, str(REPO / "tests"))
    import regex
    import tiktoken
    from fuzz_paths import per_word_copy
    from tiktoken.load import load_tiktoken_bpe

    from hf_greedtok import ByteLevel, GreedTokTrainer, Tokenizer
    from hf_greedtok.pre_tokenizers import GPT4_PATTERN

    corpora = {name: (CORPORA / name).read_text(encoding="utf-8") for name in CORPUS_NAMES}
    cl100k = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    started = time.perf_counter()
    lines = [line for text in corpora.values() for line in text.splitlines(keepends=True)]
    greedtok = GreedTokTrainer(k=args.k, pre_tokenizer=ByteLevel(args.pattern),
                               show_progress=False).train_from_iterator(lines)
    train_s = time.perf_counter() - started
    tik = tiktoken.Encoding("cl100k_file", pat_str=GPT4_PATTERN, special_tokens={},
                            mergeable_ranks=load_tiktoken_bpe(str(VOCAB / "cl100k_base.tiktoken")))

    load = os.getloadavg()
    print(f"# Encoding text: {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; GreedTok k={args.k} ({args.pattern} split) trained in "
          f"{train_s:.0f} s; "
          f"median of {args.repeat}")
    print("| corpus | vocabulary | mode | cold MB/s | warm flat MB/s | 2 threads MB/s (x 1) | warm list MB/s (x flat) "
          "| Arrow MB/s (x flat) | per-word path MB/s | tiktoken whole text MB/s | tiktoken per line MB/s "
          "| warm flat / tiktoken whole |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, text in corpora.items():
        lines = text.splitlines(keepends=True)
        mb = len(text.encode("utf-8")) / 1e6
        tik_whole = mb / statistics.median(seconds(lambda: tik.encode_ordinary(text), args.repeat))
        tik_lines = mb / statistics.median(seconds(lambda: [tik.encode_ordinary(x) for x in lines], args.repeat))
        for vocab, tok in (("cl100k", cl100k), (f"GreedTok {args.k}", greedtok)):
            for mode in ("cover", "optimal"):
                fresh = pickle.loads(pickle.dumps(tok))
                cold = mb / seconds(lambda: fresh.encode_batch_flat(lines, mode=mode), 1)[0]
                warm = mb / statistics.median(seconds(lambda: fresh.encode_batch_flat(lines, mode=mode), args.repeat))
                fresh.encode_batch_flat(lines, mode=mode, num_threads=2)    # warms the second thread's cache
                two = mb / statistics.median(seconds(
                    lambda: fresh.encode_batch_flat(lines, mode=mode, num_threads=2), args.repeat))
                listed = mb / statistics.median(seconds(lambda: fresh.encode_batch(lines, mode=mode), args.repeat))
                arrow = mb / statistics.median(seconds(lambda: fresh.encode_batch_arrow(lines, mode=mode), args.repeat))
                slow = per_word_copy(tok)
                per_word = mb / statistics.median(seconds(lambda: slow.encode_batch(lines, mode=mode),
                                                          max(1, args.repeat // 2)))
                print(f"| {name} | {vocab} | {mode} | {cold:.1f} | {warm:.1f} | {two:.1f} ({two / warm:.2f}x) | "
                      f"{listed:.1f} ({listed / warm:.2f}x) | {arrow:.1f} ({arrow / warm:.2f}x) | {per_word:.1f} | "
                      f"{tik_whole:.1f} | {tik_lines:.1f} | {warm / tik_whole:.2f}x |")
        ours = [ids.tolist() for ids in cl100k.encode_batch(lines, mode="cover")]
        same = sum(a == b for a, b in zip(ours, tik.encode_ordinary_batch(lines, num_threads=1)))
        print(f"\n{name}: cl100k cover ids equal to tiktoken's on {same:,} of {len(lines):,} lines")
        whole = mb / statistics.median(seconds(lambda: cl100k.encode_batch_flat([text]), args.repeat))
        print(f"{name}: the whole text as one str, cl100k cover, warm, one thread: {whole:.0f} MB/s "
              f"({whole / tik_whole:.1f}x tiktoken on the same str)")
        # the pre-tokenizer alone, on the whole text (issue 32's 500 MB/s per thread)
        from hf_greedtok import _pretokenize
        words = _pretokenize.count_words(_pretokenize.PATTERN_GPT4, text)
        scanner = mb / statistics.median(seconds(lambda: _pretokenize.count_words(_pretokenize.PATTERN_GPT4, text),
                                                 args.repeat))
        findall = mb / seconds(lambda: regex.findall(GPT4_PATTERN, text), 1)[0]
        print(f"{name}: the GPT-4 split alone ({words:,} words, one thread): native scanner {scanner:.0f} MB/s, "
              f"regex.findall {findall:.1f} MB/s\n")


if __name__ == "__main__":
    main()
