"""A scale corpus for benchmarks, not for CI (issue 41 item 3): seeded, deterministic English text
of any size up to gigabytes, with the chunk statistics of real English text.

Source: the three English corpora of ../shared/corpora (``SOURCES``: Brown, Shakespeare and
Milton, the Python docs; 23.5 MB) and nothing else, so a corpus is rebuilt offline, byte for byte
for a seed and numpy version.

Method: a Markov chain of order ``WORD_ORDER`` over the lines' pieces (``ByteLevel("gpt4-marks")``
words: letters with their leading space, digit groups, punctuation, whitespace), a line per
sequence, so capitals, digits, punctuation and line lengths come from real lines; a letter word
seen once in the sources is a class (with or without its leading space) whose every use is spelled
anew by a Markov chain of order ``SPELLING_ORDER`` over the characters of those words, so the text
keeps meeting new words as real text does (without it the words stop at the sources' 136K).
Lines are sampled ``LINES_PER_BATCH`` at a time, vectorised, from one numpy stream (PCG64,
``--seed``); every size is a prefix of that one stream cut at a line end, so the 25 MB file is the
first 25 MB of the 1000 MB one. MB here is 10^6 bytes.

Realism is measured on superword chunks (``ByteLevel("superwords")``: runs of words and single
punctuation within a line, cut by digits, punctuation runs and line ends) and words
(``ByteLevel("gpt4-marks")``), line by line, against 50 MB of real English from Debian packages
(``--reference``): the whole English text of ``REFERENCE_PACKAGES``, extracted as
other_domains.py does (dict-gcide 39.69 MB, linux-doc-6.1 without its translations 21.31 MB,
fortunes 2.45 MB, debian-handbook 1.20 MB), interleaved in ~16 KB blocks in proportion to their
sizes (every prefix is the same mix) and cut at 50 MB (the first 77% of each). Measured (seed 41;
chunks and words: distinct ones per MB; once: share of distinct chunks seen once; chunk B: mean
bytes per chunk):

    text                  MB  chunks/MB   once  words/MB  chunk B
    real (Debian)         25     21,087  0.934     9,308    12.22
    real (Debian)         50     20,652  0.934     7,529    12.08
    generated             25     19,696  0.941     5,010    17.32
    generated             50     18,897  0.941     3,367    17.33    (-8.5%, +0.7% of real)
    generated            100     18,167  0.943     2,404    17.30
    generated            250     17,265  0.946     1,736    17.30

Not matched: chunks are longer (the sources' Brown has a sentence a line) and distinct words fewer
(the real mix's dictionary pronunciations and kernel identifiers are many; the generator's new words
arrive at its sources' rate, ~1.9K per MB). 1000 MB take ~2.2 min on one core.

The large reference (``--reference-large``; does a tokenizer trained on more real text compress
held-out text no worse than one trained on 25 MB of it?): ``reference_english_large.txt``, the
English text of the 72 packages of ``debian_english.SOURCES``, 358.96 MB: dictionaries, the King
James Bible, fortunes, the Linux docs, Debian's manuals, man pages, info and HTML manuals of big
projects and TeX Live's PDF manuals (no Python documentation, Brown, Shakespeare or Milton). Each
package is taken to text as debian_english.py says (markup stripped; lines mostly of non-letters
or of other scripts dropped; a line kept once over all packages) and its blocks interleaved in
proportion to the sizes as above, so every prefix is the same mix. Building takes ~20 min on two
cores (12 of them for the PDFs; ``apt-get install poppler-utils`` first), ~2.3 GB of ``.deb``
files (``--debs DIR`` keeps them for the next build). MB of text kept per package, in build order
(a later package keeps only lines no earlier one had):

    package                    kind        MB    package                       kind      MB
    dict-gcide                 dictd    33.49    cppreference-doc-en-html      html    4.61
    dict-wn                    dictd    18.69    qtbase5-doc-html              html    9.48
    dict-foldoc                dictd     5.15    erlang-doc                    html    7.86
    dict-jargon                dictd     1.33    ghc-doc                       html    8.40
    dict-devil                 dictd     0.38    racket-doc                    html    9.79
    bible-kjv-text             kjv       4.13    libboost1.81-doc              html    3.84
    fortunes                   fortune   2.30    llvm-15-doc                   html    3.67
    fortunes-bofh-excuses      fortune   0.03    cmake-doc                     html    2.31
    linux-doc-6.1              text     17.78    apache2-doc                   html    1.95
    debian-handbook            html      1.01    octave-doc                    html    1.78
    debian-reference-en        html      0.46    maxima-doc                    html    1.27
    developers-reference       html      0.28    sqlite3-doc                   html    4.35
    debian-policy              html      0.50    db5.3-doc                     html    2.78
    maint-guide                html      0.13    fp-docs-3.2.2                 html    4.78
    debmake-doc                html      0.17    csound-doc                    html    1.87
    debian-history             html      0.06    grass-doc                     html    1.94
    installation-guide-amd64   html      0.32    freedombox-doc-en             html    0.35
    manpages                   man       2.82    nodejs-doc                    html    1.64
    manpages-dev               man       9.68    exim4-doc-html                html    1.66
    freebsd-manpages           man       4.78    postfix-doc                   html    1.15
    perl-doc                   man      13.62    bind9-doc                     html    0.97
    libssl-doc                 man       4.71    zsh-doc                       html    1.35
    libx11-doc                 man       3.88    abs-guide                     html    0.44
    tcl8.6-doc                 man       4.74    gettext-doc                   html    0.55
    bash-doc                   info      0.51    gnome-user-docs               xml     0.37
    autoconf-doc               info      0.99    mate-user-guide               xml     0.24
    gnu-standards              info      0.33    texlive-latex-base-doc        pdf     9.76
    vim-runtime                text      8.19    texlive-latex-recommended-doc pdf     7.83
    git-doc                    text      2.14    texlive-latex-extra-doc       pdf    41.90
    ada-reference-manual-2020  text      4.89    texlive-pictures-doc          pdf    12.46
    postgresql-doc-15          html      5.42    texlive-science-doc           pdf     6.20
    libreoffice-help-en-us     html      3.14    texlive-publishers-doc        pdf     7.78
    gimp-help-en               html      1.51    texlive-pstricks-doc          pdf     2.53
    lilypond-doc-html          html      2.57    texlive-fonts-extra-doc       pdf     2.30
    rust-doc                   html      5.41    texlive-metapost-doc          pdf     1.54
    openjdk-17-doc             html     18.71    texlive-humanities-doc        pdf     3.03

Measured as above: 25 MB 21,050 chunks/MB, once 0.930, 8,303 words/MB, 19.43 B per chunk; 50 MB
20,572, 0.932, 6,588, 19.55; 250 MB 19,793, 0.927, 4,163, 19.41; all 358.96 MB 19,457, 0.927,
3,710, 19.66 (chunks are longer than the 50 MB reference's: HTML and man paragraphs are a line).

Usage (from the repo root):

    python benchmarks/scale_corpus.py --mb 25 100 250 1000      # benchmarks/.cache/scale/english_<N>MB.txt
    python benchmarks/scale_corpus.py --reference               # the real 50 MB (apt-get download)
    python benchmarks/scale_corpus.py --reference-large [--debs DIR]    # the real 359 MB, ditto
    python benchmarks/scale_corpus.py --stats FILE... [--at 25 50 100]

Other benchmarks call :func:`corpus` (``corpus(100)`` is the path of the 100 MB file, built if
missing).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

import debian_english
import numpy as np
import other_domains
import regex
from common import CORPORA

from hf_greedtok.pre_tokenizers import ByteLevel

CACHE = Path(__file__).resolve().parent / ".cache" / "scale"
SOURCES = ("en_brown.txt", "en_shakespeare_milton.txt", "en_python_docs.txt")
SEED = 41
MB = 1_000_000                 # bytes
WORD_ORDER = 2                 # pieces of context of the next piece
SPELLING_ORDER = 3             # characters of context of the next character of a new word
# a context of WORD_ORDER pieces seen fewer times is cut to its last piece: rare contexts have one
# or two continuations and would copy their source line (tuned, at 50 MB: 1 (no backoff) -16% distinct
# chunks/MB against real text, 3 -11%, 10 -8.5%, 50 -6.2%, order 1 -2.6% but word salad)
BACKOFF_BELOW = 10
LINES_PER_BATCH = 200_000      # lines sampled together (~8 MB of text)
REFERENCE_MB = 50
REFERENCE_BLOCK = 16_384       # bytes of one source between turns of the interleave
# other_domains' text name -> its Debian package
REFERENCE_PACKAGES = other_domains.PACKAGES
REFERENCE_LARGE_MAX_MB = 1000  # the large reference is all its sources' text, cut here if more

END, START = 0, 1              # symbols of every chain: end of sequence, padding before its start
_CHUNKS = ByteLevel("superwords")
_WORDS = ByteLevel("gpt4-marks")
_LETTER_WORD = regex.compile(r" ?[\p{L}\p{M}]+")


@dataclass(frozen=True)
class MarkovChain:
    """A Markov chain over symbols (ints; :data:`END`, :data:`START` and >= 2 for the rest) whose
    states are the last ``order`` symbols seen, counted from sequences; it samples many sequences
    at once. Arrays by edge (a state and the symbol after it) are grouped by state."""

    symbol: np.ndarray      # per edge: the symbol it emits
    target: np.ndarray      # per edge: the state after it (the start state after END)
    cumulative: np.ndarray  # per edge: the count of this edge and all edges before it
    low: np.ndarray         # per state: the cumulative count before its first edge
    weight: np.ndarray      # per state: the total count of its edges
    start: int              # the state of ``order`` START symbols

    @classmethod
    def fit(cls, sequences: Iterable[list[int]], order: int, backoff_below: int = 1) -> "MarkovChain":
        """The chain of ``order`` (>= 1) counted from ``sequences`` (symbols >= 2, END excluded),
        whose contexts seen fewer than ``backoff_below`` times are cut to their last ``order - 1``
        symbols (a state then still fixes the state after each symbol)."""
        flat = np.fromiter((s for seq in sequences for s in ([START] * order + seq + [END])), dtype=np.int64)
        at = np.flatnonzero(flat != START)          # positions of the emitted symbols
        context = np.zeros(at.size, dtype=np.int64)
        for back in range(1, order + 1):             # ids of the last 1, 2, ... symbols
            shorter = context
            _, context, seen = np.unique((flat[at - back] << 32) | shorter, return_inverse=True, return_counts=True)
        full = seen[context] >= backoff_below
        _, state = np.unique(np.where(full, (context << 1) | 1, shorter << 1), return_inverse=True)
        edges, edge_of, counts = np.unique((state << 32) | flat[at], return_inverse=True, return_counts=True)
        state_of_position = np.empty(flat.size, dtype=np.int64)
        state_of_position[at] = state
        start = int(state_of_position[order])
        # an edge leads to the state of the next position (the same for every occurrence)
        target = np.full(edges.size, start, dtype=np.int64)
        going = flat[at] != END
        target[edge_of[going]] = state_of_position[at[going] + 1]
        cumulative = np.cumsum(counts)
        first = np.searchsorted(edges >> 32, np.arange(state.max() + 1))
        low = np.where(first > 0, cumulative[first - 1], 0)
        weight = np.append(low[1:], cumulative[-1]) - low
        return cls(symbol=edges & 0xFFFFFFFF, target=target, cumulative=cumulative, low=low,
                   weight=weight, start=start)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` sequences drawn together: their symbols end to end, each closed by END."""
        owner = np.arange(n)
        state = np.full(n, self.start)
        owners, symbols = [], []
        while owner.size:
            drawn = self.low[state] + rng.integers(0, self.weight[state])
            edge = np.searchsorted(self.cumulative, drawn, side="right")
            symbol = self.symbol[edge]
            owners.append(owner)
            symbols.append(symbol)
            going = symbol != END
            owner, state = owner[going], self.target[edge[going]]
        if not owners:
            return np.empty(0, dtype=np.int64)
        # a stable sort keeps each sequence's symbols in the order they were drawn
        order = np.argsort(np.concatenate(owners), kind="stable")
        return np.concatenate(symbols)[order]


@dataclass(frozen=True)
class EnglishModel:
    """Lines of pieces (:class:`MarkovChain` of :data:`WORD_ORDER`) whose rare letter words are
    spelled anew (:class:`MarkovChain` of :data:`SPELLING_ORDER` over characters)."""

    pieces: list[bytes]     # piece symbol -> its UTF-8 (END -> "\n"; the new-word classes -> "")
    lines: MarkovChain
    characters: list[str]   # character symbol -> the character (END -> "\n", never in a word)
    spelling: MarkovChain

    NEW_WORD = 2            # piece symbol of a new word after no space
    NEW_SPACED_WORD = 3     # piece symbol of a new word after a space

    @classmethod
    def fit(cls, lines: list[str]) -> "EnglishModel":
        """The model of ``lines`` (without their line ends)."""
        split = [_WORDS.pre_tokenize(line) for line in lines]
        seen = Counter(piece for pieces in split for piece in pieces)
        # Good-Turing: the words seen once estimate the chance that the next word is new
        rare = {p for p, n in seen.items() if n == 1 and _LETTER_WORD.fullmatch(p)}
        symbol_of = {"\n": END, "": START}
        symbol_of.update({p: i for i, p in enumerate(sorted(seen.keys() - rare), start=4)})
        spaced = {True: cls.NEW_SPACED_WORD, False: cls.NEW_WORD}
        sequences = [[spaced[p[0] == " "] if p in rare else symbol_of[p] for p in pieces] for pieces in split]
        pieces = [b""] * (len(symbol_of) + 2)
        for p, i in symbol_of.items():
            pieces[i] = p.encode("utf-8")
        letters = sorted({c for word in rare for c in word.lstrip(" ")})
        character_of = {c: i for i, c in enumerate(letters, start=2)}
        words = [[character_of[c] for c in word.lstrip(" ")] for word in sorted(rare)]
        return cls(pieces=pieces, lines=MarkovChain.fit(sequences, WORD_ORDER, BACKOFF_BELOW),
                   characters=["\n", ""] + letters, spelling=MarkovChain.fit(words, SPELLING_ORDER))

    def sample(self, n: int, rng: np.random.Generator) -> bytes:
        """``n`` lines drawn together, as UTF-8, each ending in "\\n"."""
        symbols = self.lines.sample(n, rng)
        new = np.flatnonzero((symbols == self.NEW_WORD) | (symbols == self.NEW_SPACED_WORD))
        spelled = "".join(map(self.characters.__getitem__, self.spelling.sample(new.size, rng).tolist()))
        spaces = np.where(symbols[new] == self.NEW_SPACED_WORD, " ", "")
        words = [(space + word).encode("utf-8") for space, word in zip(spaces.tolist(), spelled.split("\n"))]
        # each new word becomes a symbol of its own past the pieces, so one join decodes the lines
        symbols[new] = len(self.pieces) + np.arange(new.size)
        return b"".join(map((self.pieces + words).__getitem__, symbols.tolist()))


def source_lines() -> list[str]:
    """The lines of :data:`SOURCES`, in order, without their line ends."""
    return [line for name in SOURCES for line in (CORPORA / name).read_text(encoding="utf-8").split("\n")[:-1]]


def stream(seed: int = SEED) -> Iterator[bytes]:
    """The endless corpus of ``seed``, in blocks of :data:`LINES_PER_BATCH` whole lines."""
    model = EnglishModel.fit(source_lines())
    rng = np.random.default_rng(seed)
    while True:
        yield model.sample(LINES_PER_BATCH, rng)


def corpus_path(mb: int, seed: int = SEED) -> Path:
    """Where the corpus of ``mb`` MB of ``seed`` is cached."""
    return CACHE / (f"english_{mb}MB.txt" if seed == SEED else f"english_{mb}MB_seed{seed}.txt")


def generate(sizes_mb: Iterable[int], seed: int = SEED) -> list[Path]:
    """Write the corpora of ``sizes_mb`` MB that are not cached yet, as prefixes of one stream,
    each cut at the last line end at or before its size; their paths, in the order asked."""
    paths = {mb: corpus_path(mb, seed) for mb in sizes_mb}
    todo = sorted(mb for mb, path in paths.items() if not path.is_file())
    if todo:
        CACHE.mkdir(parents=True, exist_ok=True)
        _write_prefixes({mb: paths[mb] for mb in todo}, stream(seed))
    return list(paths.values())


def _write_prefixes(paths: dict[int, Path], blocks: Iterator[bytes]) -> None:
    """Write to each path of ``paths`` (MB -> path) the first MB of ``blocks`` cut at the last line
    end, atomically: to a temp file beside it, then ``os.replace``."""
    open_files = {mb: tempfile.NamedTemporaryFile(dir=CACHE, prefix=path.name, delete=False)
                  for mb, path in paths.items()}
    written = 0
    try:
        while open_files:
            block = next(blocks)
            for mb in sorted(open_files):
                room = mb * MB - written
                if room >= len(block):
                    open_files[mb].write(block)
                    continue
                f = open_files.pop(mb)
                f.write(block[:block.rfind(b"\n", 0, room) + 1])
                f.close()
                os.chmod(f.name, 0o644)     # tempfile's own files are private
                os.replace(f.name, paths[mb])
            written += len(block)
    finally:
        for f in open_files.values():
            f.close()
            os.unlink(f.name)


def corpus(mb: int, seed: int = SEED) -> Path:
    """The path of the corpus of ``mb`` MB of ``seed``, generated first if missing."""
    return generate([mb], seed)[0]


# --- the real reference, from Debian packages ---------------------------------------------------

def reference_path() -> Path:
    """Where the real reference is cached."""
    return CACHE / f"reference_english_{REFERENCE_MB}MB.txt"


def _package_lines(name: str, root: Path) -> list[str]:
    """The non-empty lines of text ``name`` unpacked at ``root``: other_domains' extraction, less
    the kernel documentation's translations (Chinese, Japanese, Korean, Italian)."""
    if name != "linux_docs":
        return other_domains._source_lines(name, root)
    docs = root / "usr" / "share" / "doc" / "linux-doc-6.1" / "Documentation"
    files = sorted(f for f in docs.rglob("*.rst*") if "translations" not in f.relative_to(docs).parts)
    text = "\n".join(other_domains._read(f) for f in files)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _blocks(lines: list[str]) -> list[bytes]:
    """``lines`` as UTF-8 blocks of about :data:`REFERENCE_BLOCK` bytes, each of whole lines."""
    data = ("\n".join(lines) + "\n").encode("utf-8")
    out, pos = [], 0
    while pos < len(data):
        end = data.find(b"\n", pos + REFERENCE_BLOCK) + 1 or len(data)
        out.append(data[pos:end])
        pos = end
    return out


def build_reference() -> dict[str, float]:
    """Write :func:`reference_path` from :data:`REFERENCE_PACKAGES` (downloaded): each source's
    blocks at their relative place in it (so every prefix is the same mix), cut at REFERENCE_MB;
    MB of each source's whole text.

    Raises:
        subprocess.CalledProcessError: ``apt-get download`` or ``dpkg-deb`` failed (no network?).
    """
    placed: list[tuple[float, int, bytes]] = []
    sizes: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rank, (name, package) in enumerate(REFERENCE_PACKAGES.items()):
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True, capture_output=True)
            root = Path(tmp) / package
            subprocess.run(["dpkg-deb", "-x", str(next(Path(tmp).glob(f"{package}_*.deb"))), str(root)], check=True)
            blocks = _blocks(_package_lines(name, root))
            sizes[name] = sum(map(len, blocks)) / MB
            done = 0
            for block in blocks:
                placed.append((done / (sizes[name] * MB), rank, block))
                done += len(block)
    CACHE.mkdir(parents=True, exist_ok=True)
    _write_prefixes({REFERENCE_MB: reference_path()}, (block for _, _, block in sorted(placed)))
    return sizes


def reference_large_path() -> Path:
    """Where the large real reference is cached."""
    return CACHE / "reference_english_large.txt"


def _unpacked(packages: Iterable[str], debs: Path, into: Path) -> dict[str, Path]:
    """``packages`` unpacked under ``into`` (package -> root), their ``.deb`` files downloaded into
    ``debs`` with ``apt-get download`` unless there already."""
    roots = {}
    for package in packages:
        if not list(debs.glob(f"{package}_*.deb")):
            subprocess.run(["apt-get", "download", package], cwd=debs, check=True, capture_output=True)
        roots[package] = into / package
        roots[package].mkdir(parents=True)
        deb = max(debs.glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(roots[package])], check=True)
    return roots


def build_reference_large(debs: Optional[Path] = None, verbose: bool = True) -> dict[str, float]:
    """Write :func:`reference_large_path` from :data:`debian_english.SOURCES` (downloaded into
    ``debs``, kept there, or into a temporary folder): each source's kept lines (new ones only:
    a line kept by an earlier source is not kept again) as ~16 KB blocks at their relative place in
    it, as :func:`build_reference` does, cut at REFERENCE_LARGE_MAX_MB; MB of each source's text.

    Raises:
        subprocess.CalledProcessError: ``apt-get download`` or ``dpkg-deb`` failed (no network?).
    """
    placed: list[tuple[float, int, bytes]] = []
    sizes: dict[str, float] = {}
    seen: set[int] = set()
    with tempfile.TemporaryDirectory(prefix="reference-large-") as tmp:
        debs = debs or Path(tmp) / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        for rank, source in enumerate(debian_english.SOURCES):
            started = time.perf_counter()
            unpack = Path(tmp) / "root"
            roots = _unpacked((source.package, *source.extra_packages), debs, unpack)
            lines = []
            for line in debian_english.source_lines(source, roots[source.package], roots):
                key = hash(line)
                if key not in seen:
                    seen.add(key)
                    lines.append(line)
            shutil.rmtree(unpack)
            blocks = _blocks(lines) if lines else []
            sizes[source.package] = sum(map(len, blocks)) / MB
            done = 0
            for block in blocks:
                placed.append((done / (sizes[source.package] * MB), rank, block))
                done += len(block)
            if verbose:
                print(f"{source.package:30s} {source.kind:7s} {sizes[source.package]:8.2f} MB "
                      f"{time.perf_counter() - started:6.1f} s", flush=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    ordered = (block for _, _, block in sorted(placed))
    if sum(sizes.values()) > REFERENCE_LARGE_MAX_MB:
        _write_prefixes({REFERENCE_LARGE_MAX_MB: reference_large_path()}, ordered)
    else:
        with tempfile.NamedTemporaryFile(dir=CACHE, prefix=reference_large_path().name, delete=False) as f:
            f.writelines(ordered)
        os.chmod(f.name, 0o644)
        os.replace(f.name, reference_large_path())
    return sizes


# --- statistics ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stats:
    """Statistics of a text: its size and, per MB, its distinct chunks and words."""

    mb: float                   # size, MB
    chunks_per_mb: float        # distinct superword chunks per MB
    once: float                 # share of the distinct chunks seen exactly once
    words_per_mb: float         # distinct gpt4-marks words per MB
    chunk_bytes: float          # mean bytes of a chunk (over occurrences)


def measure(path: Path, mb: Optional[float] = None) -> Stats:
    """The :class:`Stats` of ``path``, or of its first ``mb`` MB cut at a line end."""
    with path.open("rb") as f:
        data = f.read(int(mb * MB) if mb else -1)
    if mb and len(data) == int(mb * MB):
        data = data[:data.rfind(b"\n") + 1]
    chunks: Counter[str] = Counter()
    words: set[str] = set()
    for line in data.decode("utf-8").splitlines(keepends=True):
        chunks.update(_CHUNKS.pre_tokenize(line))
        words.update(_WORDS.pre_tokenize(line))
    size = len(data) / MB
    return Stats(mb=size, chunks_per_mb=len(chunks) / size,
                 once=sum(n == 1 for n in chunks.values()) / len(chunks),
                 words_per_mb=len(words) / size, chunk_bytes=len(data) / sum(chunks.values()))


def _print_stats(paths: list[Path], at: list[float]) -> None:
    print(f"{'file':34s} {'MB':>7s} {'chunks/MB':>10s} {'once':>6s} {'words/MB':>9s} {'chunk B':>8s}")
    for path in paths:
        for mb in at or [None]:
            s = measure(path, mb)
            print(f"{path.name:34s} {s.mb:7.2f} {s.chunks_per_mb:10,.0f} {s.once:6.3f} "
                  f"{s.words_per_mb:9,.0f} {s.chunk_bytes:8.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, nargs="+", default=[25, 100, 250, 1000],
                        help="sizes to write to benchmarks/.cache/scale/, MB (default: 25 100 250 1000)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the stream's seed (default {SEED})")
    parser.add_argument("--reference", action="store_true",
                        help=f"write the real {REFERENCE_MB} MB reference from Debian packages instead")
    parser.add_argument("--reference-large", action="store_true",
                        help="write the large real reference (debian_english.SOURCES, all their text up to "
                             f"{REFERENCE_LARGE_MAX_MB} MB) to {reference_large_path().relative_to(CACHE.parents[1])}")
    parser.add_argument("--debs", type=Path, metavar="DIR",
                        help="with --reference-large: keep the .deb files in DIR and reuse those there")
    parser.add_argument("--stats", type=Path, nargs="+", metavar="FILE", help="print statistics of FILEs instead")
    parser.add_argument("--at", type=float, nargs="+", default=[], metavar="MB",
                        help="with --stats: of each FILE's first MB (default: all of it)")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.stats:
        _print_stats(args.stats, args.at)
    elif args.reference_large:
        sizes = build_reference_large(args.debs)
        print(f"{'total':38s} {sum(sizes.values()):8.2f} MB")
        print(reference_large_path())
    elif args.reference:
        for name, size in build_reference().items():
            print(f"{name:18s} {REFERENCE_PACKAGES[name]:16s} {size:6.2f} MB")
        print(reference_path())
    else:
        for path in generate(args.mb, args.seed):
            print(f"{path.stat().st_size / MB:9.2f} MB  {path}")
    print(f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
