"""Cut the tests' own corpora and vocabularies (tests/data/corpora, tests/data/vocab) from the shared
data, so that a clone of the repository runs its tests alone.

Each cut is a prefix of whole lines (or rows) of a file of the shared data, or the whole file;
the parallel names keep the five languages the TSR tests sample and the first rows of every other
language. What each cut is, its source and licence: tests/data/README.md. Run from anywhere:

    python tests/data/make_test_data.py                # from $HF_GREEDTOK_SHARED, else ../shared
    python tests/data/make_test_data.py --check        # exit 1 if a shipped file differs from its cut
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable

DATA = Path(__file__).resolve().parent
REPO = DATA.parents[1]

# The languages tests/experiments/test_tsr.py and tests/outputs/test_output_kinds.py take whole.
TSR_LANGUAGES = ("br", "fr", "ta", "zh_CN", "ru")
OTHER_LANGUAGE_ROWS = 40


def first_lines(n: int) -> Callable[[bytes], bytes]:
    def cut(data: bytes) -> bytes:
        return b"".join(data.splitlines(keepends=True)[:n])
    return cut


def whole(data: bytes) -> bytes:
    return data


def parallel_rows(data: bytes) -> bytes:
    """The header, every row of TSR_LANGUAGES, and the first OTHER_LANGUAGE_ROWS rows of each other
    language (every script of the file stays)."""
    lines = data.splitlines(keepends=True)
    seen: Counter = Counter()
    kept = [lines[0]]
    for line in lines[1:]:
        lang = line.split(b"\t", 1)[0].decode("utf-8")
        seen[lang] += 1
        if lang in TSR_LANGUAGES or seen[lang] <= OTHER_LANGUAGE_ROWS:
            kept.append(line)
    return b"".join(kept)


# file -> (folder of the shared data, the cut)
CUTS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "en_brown.txt": ("corpora", first_lines(20_000)),
    "en_python_docs.txt": ("corpora", first_lines(10_000)),
    "en_shakespeare_milton.txt": ("corpora", first_lines(20_000)),
    "code_python_stdlib.txt": ("corpora", first_lines(12_000)),
    "zh_reviews.txt": ("corpora", first_lines(2_000)),
    "hi_devdas.txt": ("corpora", whole),
    "hi_news_wordcounts.tsv": ("corpora", whole),
    "hi_morph_segments.tsv": ("corpora", whole),
    "en_wiki2012_wordcounts.tsv": ("corpora", first_lines(30_000)),
    "zh_jieba_wordcounts.tsv": ("corpora", first_lines(8_000)),
    "multi_isocodes_parallel.tsv": ("corpora", parallel_rows),
    "cl100k_base.tiktoken": ("vocab", whole),
    "r50k_base.tiktoken": ("vocab", whole),
}


def shared_folder() -> Path:
    return Path(os.environ.get("HF_GREEDTOK_SHARED", REPO.parent / "shared"))


def write_cuts(shared: Path, out: Path) -> list[Path]:
    """Write every cut under out/corpora and out/vocab; returns their paths.

    Raises:
        FileNotFoundError: a source file is missing from ``shared``.
    """
    written = []
    for name, (folder, cut) in CUTS.items():
        source = shared / folder / name
        if not source.is_file():
            raise FileNotFoundError(f"{source}: the shared data has no {folder}/{name} (set HF_GREEDTOK_SHARED)")
        target = out / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(cut(source.read_bytes()))
        written.append(target)
    return written


def differences(shared: Path) -> list[str]:
    """The shipped files that differ from what their cut gives today (empty when all agree)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = write_cuts(shared, Path(tmp))
        return [f"{p.parent.name}/{p.name}" for p in fresh
                if (DATA / p.parent.name / p.name).read_bytes() != p.read_bytes()]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="compare the shipped files with fresh cuts instead of writing")
    args = p.parse_args()
    shared = shared_folder()
    try:
        if args.check:
            bad = differences(shared)
            print("\n".join(f"{name}: differs from its cut" for name in bad) or "every shipped file equals its cut")
            return 1 if bad else 0
        for path in write_cuts(shared, DATA):
            print(f"{path.relative_to(REPO)}: {path.stat().st_size:,} bytes")
    except FileNotFoundError as e:
        print(f"make_test_data.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
