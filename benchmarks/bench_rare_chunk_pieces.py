"""An alternative to thinning rare chunks, measured and not adopted (issue 53, item 3): rare chunks
cut into pieces at their rare word pairs, as fastboundlessbpe cuts pre-tokens into frequent
word n-grams, so that the pieces repeat and more of the corpus fits stage 2's budget.

Past the chunk budget, stage 2 trains on the threshold sample of the chunks (rate m:
:mod:`hf_greedtok.trainers.chunk_sample`). Here, before the sample is drawn, each chunk seen fewer
than m times is cut between two adjacent words (the word split of stage 1) wherever that pair of
words is seen fewer than ``pair_factor`` x m times in the whole table (and, with ``max_words``,
after every ``max_words`` words); the pieces are counted with the chunk's count, the frequent
chunks kept whole, and the budget's threshold sample drawn from that table. Stage 1 keeps the
words of the uncut chunks. A prototype in Python (a dict and a Counter of the whole table), for
the held-out tokens only: its time and memory are not the trainer's.

Each run trains ``GreedTokSuperwordTrainer(vocab_size=32768)`` in this process on the first
``--mb`` MB of ``FILE`` (the large real reference of ``scale_corpus.py --reference-large``), saves
the folder and counts the tokens its default encoder gives the held-out text of
``bench_superword_scale.py --real`` (every 5th line of the three shared English corpora). Compare
with ``bench_superword_scale.py --real --mb 250 --budgets 20 0 --reference-file FILE``.

    python benchmarks/bench_rare_chunk_pieces.py benchmarks/.cache/scale/reference_english_large.txt \\
        --mb 250 --variants '[{"pair_factor": 1, "chunk_budget_mb": 20}]'
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path

from bench_superword_scale import real_held_out, real_prefix

from hf_greedtok import Tokenizer
from hf_greedtok._chunk_table import ChunkTable
from hf_greedtok.trainers.chunk_sample import sample_chunks
from hf_greedtok.trainers.superwords import GreedTokSuperwordTrainer


class PieceTrainer(GreedTokSuperwordTrainer):
    """Superword GreedTok whose stage 2 samples rare chunks' pieces instead of the chunks."""

    def __init__(self, *args, pair_factor: float, max_words: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pair_factor, self.max_words = pair_factor, max_words
        self.stats: dict = {}

    def _reduce_table(self, table: ChunkTable, source: str) -> tuple:
        words = self._words_table(table)
        first = sample_chunks(table, self.chunk_budget_mb)
        if first.rate == 1:
            return words, first
        m, split, counts = first.rate, self.word_pre_tokenizer.pre_tokenize, table.to_dict()
        pairs: Counter = Counter()
        for chunk, c in counts.items():
            ws = split(chunk)
            for a, b in pairwise(ws):
                pairs[a, b] += c
        pieces: Counter = Counter()
        for chunk, c in counts.items():
            if c >= m:
                pieces[chunk] += c
                continue
            ws = split(chunk)
            piece = [ws[0]]
            for a, b in pairwise(ws):
                if pairs[a, b] < self.pair_factor * m or (self.max_words and len(piece) >= self.max_words):
                    pieces["".join(piece)] += c
                    piece = []
                piece.append(b)
            pieces["".join(piece)] += c
        cut = ChunkTable()
        cut.add_counts(pieces)
        sample = sample_chunks(cut, self.chunk_budget_mb)
        self.stats = {"rate_whole": round(m, 2), "distinct_mb": round(table.distinct_bytes / 1e6, 1),
                      "pieces_mb": round(cut.distinct_bytes / 1e6, 1), "rate_pieces": round(sample.rate, 2)}
        return words, sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--mb", type=float, default=250)
    parser.add_argument("--variants", default='[{"pair_factor": 1}]', help="JSON list of PieceTrainer keywords")
    args = parser.parse_args()
    held_out = real_held_out()
    with tempfile.TemporaryDirectory(prefix="pieces-") as tmp:
        path = real_prefix(args.mb, Path(tmp), args.file)
        for variant in json.loads(args.variants):
            load, started = os.getloadavg()[0], time.perf_counter()
            trainer = PieceTrainer(vocab_size=32768, show_progress=False, **variant)
            trainer.train([str(path)]).save(str(Path(tmp) / "tok"))
            seconds = time.perf_counter() - started
            tok = Tokenizer.load(Path(tmp) / "tok")
            tokens = sum(len(ids) for lines in held_out.values() for ids in tok.encode_batch(lines))
            shutil.rmtree(Path(tmp) / "tok")
            print(json.dumps({"variant": variant, "heldout_tokens": tokens, "train_s": round(seconds, 1),
                              "load_before": round(load, 2), **trainer.stats}), flush=True)


if __name__ == "__main__":
    main()
