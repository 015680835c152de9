"""Every encode path of hf-greedtok, built once from real text, and the fuzz text strategy.

Used by tests/behaviour/test_fuzz.py (issue 12: "a fuzz suite ... through every encode path"). Run as a
script it is a survey: it drives N generated strings through every path and check, does not stop
at the first failure, and prints per path and check how many strings failed, with the shortest
failing ones:

    python tests/fuzz_paths.py --examples 3000 [--json out.json] [--only NAME-PREFIX ...]

Paths (``Encoder``; names are what tests are parametrized with):

* native ``hf_greedtok.Tokenizer`` (``native-<units>-<mode>``), cover and optimal, units bytes
  (ByteLevel), chars (Metaspace), marks and vowels (Metaspace units, NFC), trained on mixed real
  text (English, Hindi, Chinese, Python, names in ten scripts); ``chars.hi`` and ``marks.hi`` are
  trained on Hindi only, so ASCII is outside their alphabet (byte fallback); ``-nospecial``
  variants encode with ``allow_special=False``;
* ``GreedTokTokenizerFast`` built from it (``fast-...``; ``-nospecial``: ``split_special_tokens``)
  and the same after ``save_pretrained`` + ``AutoTokenizer`` (``auto-...``);
* pure tokenizer.json files (``tokenizers.Tokenizer.from_file``): the one ``save_pretrained``
  writes in an optimal folder (``folderjson-<units>``) and ``export_optimal_tokenizer_json``
  (``export-<units>``, ``-nospecial``: ``encode_special_tokens``) must encode like native optimal;
  the one in a cover folder (``folderjson-<units>-cover``) and in lookup folders like the folder,
  or refuse to load (:func:`refusal_problem` lists the accepted refusals);
* folders written by ``hf-greedtok train``: BPE/CBPE (``cbpe-marks``, ``cbpe-vowels``,
  ``bpe-chars``, ``bpe-bytes``; ``-file`` = its tokenizer.json, ``-auto`` = AutoTokenizer),
  GreedTok with train's byte-level defaults (``greedtok-bytes``: the gpt4-marks split, optimal)
  and with ``--superwords`` (``greedtok-superwords``: tokens spanning words, optimal;
  ``greedtok-superwords-digits``: ``--digits-in-chunks``)
  and lookup folders (``lookup-greedtok-marks-*``, ``lookup-cbpe-marks-*``);
* foreign vocabularies: cl100k_base via ``Tokenizer.from_tiktoken`` and a byte-level HF BPE
  tokenizer.json trained here via ``Tokenizer.from_hf_bpe`` (cover, optimal), and
  ``GreedTokTokenizerFast`` over cl100k_base.

Expected text: ``decode(encode(x))`` is x with lone surrogates as U+FFFD (the documented policy),
the tokenizer's normalizer applied to the text between special tokens (special tokens are matched
in the raw text, before normalization), and, for Metaspace tokenizers, every U+2581 shown as a
space (the one documented exception). Paths that must encode like a native tokenizer expect what
that native tokenizer expects; the BPE/CBPE folders, which have no native twin, expect the Rust
normalizer of their tokenizer.json.

The pure ``tokenizers.Tokenizer`` objects are given text with lone surrogates already replaced:
tokenizers' Python binding rejects such a ``str`` before any of our code runs. Every other path,
transformers tokenizers included, gets the raw text.
"""
from __future__ import annotations

import argparse
import functools
import itertools
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

import regex
from hypothesis import strategies as st

from corpora import CORPORA, VOCAB


# '<｜fim▁begin｜>' (DeepSeek's style) carries a U+2581 and full-width bars into the special tokens.
SPECIALS = ("<|endoftext|>", "<pad>", "<\uff5cfim\u2581begin\uff5c>")
K = 300                         # learned tokens / merges: small vocabularies build in seconds
# Lookup folders learn more: with 300 merges CBPE never merges across a lookup boundary, so the
# lookup would change no id and a tokenizer.json that ignores it could not be caught.
LOOKUP_K = 3000
# ".hi": trained on Hindi lines only, so ASCII (and '<0x41>') is outside the alphabet: byte fallback
UNITS = ("bytes", "chars", "marks", "vowels", "chars.hi", "marks.hi")
MODES = ("cover", "optimal")
METASPACE = "\u2581"
# (file, lines for training, lines kept as fuzz fragments); fragments come after the training lines
CORPUS_LINES = (("en_brown.txt", 1000, 300), ("hi_devdas.txt", 1500, 300), ("zh_reviews.txt", 300, 200),
                ("code_python_stdlib.txt", 1000, 300))
ISO_LANGUAGES = ("ar", "he", "fa", "ur", "ta", "pa", "am", "ka", "th", "ko")   # RTL and other scripts
FRAGMENT_MAX_CHARS = 160


def corpus_path(name: str) -> Path:
    """A real corpus file; FileNotFoundError names it (tests turn that into a skip)."""
    path = CORPORA / name
    if not path.is_file():
        raise FileNotFoundError(f"real corpus {path} not available (set HF_GREEDTOK_SHARED)")
    return path


# ---------------------------------------------------------------------- text

@functools.lru_cache(maxsize=None)
def real_lines() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(training lines, fuzz fragment lines), from the real corpora, disjoint, deterministic."""
    train, fragments = [], []
    for name, n_train, n_frag in CORPUS_LINES:
        with open(corpus_path(name), encoding="utf-8") as f:
            lines = [line for line in itertools.islice(f, n_train + 4 * n_frag) if line.strip()]
        train += lines[:n_train]
        fragments += [line.rstrip("\n")[:FRAGMENT_MAX_CHARS] for line in lines[n_train::4][:n_frag]]
    with open(corpus_path("multi_isocodes_parallel.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    by_lang = defaultdict(list)
    for row in rows[1:]:
        if row[0] in ISO_LANGUAGES:
            by_lang[row[0]].append(row[3])
    for lang in ISO_LANGUAGES:
        names = by_lang[lang]
        train += [" ".join(names[i:i + 8]) + "\n" for i in range(0, min(len(names), 400), 8)]
        fragments += names[400:440]
    return tuple(train), tuple(fragments)


def devanagari_words() -> list[str]:
    words = {w for line in real_lines()[1] for w in line.split() if regex.search(r"\p{Devanagari}", w)}
    return sorted(words)


@functools.lru_cache(maxsize=None)
def lookup_words(step: int = 40) -> tuple[str, ...]:
    """Words the morphology lookup splits between two "marks" units (every ``step``-th such row),
    so that lookup folders really cut them: a boundary inside a unit is dropped."""
    from hf_greedtok.indic.units import starts_with_mark
    words = []
    with open(corpus_path("hi_morph_segments.tsv"), encoding="utf-8") as f:
        for line in f:
            word, _, segments = line.rstrip("\n").partition("\t")
            if "|" in segments and not any(starts_with_mark(p) for p in segments.split("|")[1:]):
                words.append(word)
    return tuple(words[::step])


def _with_joiners(word: str, positions: list[int], joiners: list[str]) -> str:
    """``word`` with ZWJ/ZWNJ inserted after the given characters (after viramas when possible)."""
    chars = list(word)
    viramas = [i for i, c in enumerate(chars) if c == "\u094d"]
    for p, j in zip(positions, joiners):
        where = viramas[p % len(viramas)] if viramas else p % (len(chars) + 1)
        chars.insert(where + 1, j)
    return "".join(chars)


FRAGMENTS = (
    # control characters, line ends, spaces, U+2581
    "\x00", "a\x00b", "\r\n", "\r", "\n", "\n\n", "\t", "\t\t", " ", "  ", "    ", " \n ", "\u00a0", "\u3000",
    "\u2581", "\u2581\u2581", " \u2581", "\u2581 ", "\ufeff", "\u200b", "\u2028", "\u2029", "\x85", "\x7f",
    # emoji: ZWJ sequences, variation selectors, skin tones, flags
    "\U0001f469\u200d\U0001f469\u200d\U0001f467", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f44d\U0001f3fd", "\U0001f1ee\U0001f1f3", "\u2764\ufe0f",
    # combining marks: composed by NFC, stacked, leading, and the marks that compose '<' and '>'
    "e\u0301", "e\u0301\u0308", "a\u0308\u0301", "\u0301", "\u0308\u0301\u0301", "o\u0323\u0302",
    "\u0338", "<\u0338", ">\u0338", "=\u0338", "\u1100\u1161\u11a8",
    # right to left
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
    "\u0627\u0644\u0633\u064e\u0651\u0644\u064e\u0627\u0645\u064f",
    "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd \u05e2\u05d5\u05dc\u05dd", "\u200f", "\u200e", "\u202e", "\u2067",
    # Devanagari: ZWJ/ZWNJ after virama, nukta (precomposed and not), lone signs
    "\u0915\u094d\u200d\u0937", "\u0915\u094d\u200c\u0937", "\u091c\u093c", "\u095b", "\u0915\u093c\u093e",
    "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f", "\u0930\u094d\u200d", "\u093e", "\u094d\u200c",
    "\u0939\u093f\u0928\u094d\u0926\u0940", "\u0905\u0902", "\u0928\u093c\u0940",
    # marks whose canonical combining class differs between Unicode versions (Rust vs Python NFC)
    "\u08d3", "\u089f", "\u0899", "a\u08d3", "\u0627\u08d3\u0650", "\u0628\u0899\u064e", "\u07fd",
    "\u0c15\u0c3c", "\u1abf", "\u1dfa", "\U00010f46",
    # byte-fallback lookalikes and other tokens of other tokenizers
    "<0x41>", "<0x0A>", "<0xFF>", "<0x00>", "<0xE0><0xA4>", "<0x", "0x41>", "<0x41", "<unk>", "<s>", "</s>",
    "<|im_start|>", "\u0120the", "\u010a",
)


# Strings that broke a path once (issue 12), run first in every profile, before generated ones.
REGRESSIONS = (
    "",
    "<pad>0", "x<|endoftext|> y",               # item 5: a Metaspace segment after a special token
    "<0x41>", "<0x00>", "<pad>",                # item 6: byte-fallback and special pieces chosen from text
    "\u08ca\u0316", "a\u08d3\u0301", "\u0628\u064e\u0899",   # item 10: Rust and Python NFC differ
    "\ud800", "a\udc00b",                       # item 10: lone surrogates are U+FFFD everywhere
    "<pad>\u0338", "e<pad>\u0301",               # NFC must not reach across a special token
    "\u091a\u0940\u0930\u0924\u0940",          # चीरती, which hi_morph_segments.tsv splits as चीर|ती
)


def special_fragments(specials: Sequence[str] = SPECIALS) -> list[str]:
    """Each special token alone, glued to words and spaces, doubled, and cut short."""
    out = []
    for s in specials:
        out += [s, "x" + s, s + "x", " " + s + " ", s + s, s[:-1], s[1:], s + "\u0338",
                "\u0915" + s + "\u093e", "e" + s + "\u0301"]
    return out


def fuzz_text(max_pieces: int = 8) -> st.SearchStrategy[str]:
    """Arbitrary Unicode (lone surrogates included) mixed with the hard fragments above."""
    lines = real_lines()[1]
    words = devanagari_words()
    any_char = st.characters()                                   # every code point, surrogates too
    surrogate = st.integers(0xD800, 0xDFFF).map(chr)
    byte_token = st.integers(0, 255).map(lambda b: f"<0x{b:02X}>")
    joined = st.builds(_with_joiners, st.sampled_from(words), st.lists(st.integers(0, 50), min_size=1, max_size=3),
                       st.lists(st.sampled_from(["\u200d", "\u200c"]), min_size=1, max_size=3))
    piece = st.one_of(
        st.text(any_char, max_size=12),
        st.text(any_char, max_size=4),
        surrogate,
        st.sampled_from(FRAGMENTS),
        st.sampled_from(FRAGMENTS),
        st.sampled_from(special_fragments()),
        byte_token,
        joined,
        st.sampled_from(lookup_words()),
        st.sampled_from(lines),
        st.sampled_from(lines).map(lambda s: s[:20]),
    )
    return st.lists(piece, max_size=max_pieces).map("".join)


# ---------------------------------------------------------------------- expected text

def _no_surrogates(text: str) -> str:
    from hf_greedtok.pre_tokenizers import replace_surrogates
    return replace_surrogates(text)


@functools.lru_cache(maxsize=None)
def _special_split(specials: tuple[str, ...]) -> Optional["regex.Pattern[str]"]:
    if not specials:
        return None
    return regex.compile("(" + "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")")


def expected_text(text: str, *, specials: Sequence[str], normalize: Optional[Callable[[str], str]],
                  metaspace: Optional[str]) -> str:
    """What ``decode(encode(text))`` must give (see the module docstring)."""
    text = _no_surrogates(text)
    split = _special_split(tuple(specials))
    parts = split.split(text) if split is not None else [text]
    if normalize is not None:
        parts = [p if k % 2 else normalize(p) for k, p in enumerate(parts)]
    text = "".join(parts)
    return text.replace(metaspace, " ") if metaspace else text


def rust_normalizer(form: Optional[str]) -> Optional[Callable[[str], str]]:
    """The ``tokenizers`` (Rust) implementation of a Unicode normal form, or None."""
    if form is None:
        return None
    from tokenizers import normalizers
    return getattr(normalizers, form)().normalize_str


# ---------------------------------------------------------------------- paths

class Encoder:
    """One encode path: ``encode(text) -> ids``, ``decode(ids, skip_special) -> text``, the text
    ``expected`` back, and the number of ids. Not a dataclass: hypothesis prints failing
    examples' arguments field by field, and the name is all a reader needs."""

    def __init__(self, name: str, encode: Callable[[str], list[int]], decode: Callable[[Sequence[int], bool], str],
                 expected: Callable[[str], str], vocab_size: int) -> None:
        self.name, self.encode, self.decode, self.expected, self.vocab_size = name, encode, decode, expected, vocab_size

    def __repr__(self) -> str:
        return f"<{self.name}>"


@dataclass(frozen=True)
class Refused:
    """A path whose builder refused with a documented error (e.g. an export that cannot be exact)."""

    name: str
    error: BaseException


@dataclass(frozen=True)
class Pair:
    """Two paths that must give the same ids (and decode them the same)."""

    name: str
    reference: str
    other: str


ENCODER_NAMES: list[str] = []
PAIRS: list[Pair] = []
for _u, _m in itertools.product(UNITS, MODES):
    ENCODER_NAMES += [f"native-{_u}-{_m}", f"native-{_u}-{_m}-nospecial", f"fast-{_u}-{_m}",
                      f"fast-{_u}-{_m}-nospecial", f"auto-{_u}-{_m}"]
    PAIRS += [Pair(f"fast-{_u}-{_m}", f"native-{_u}-{_m}", f"fast-{_u}-{_m}"),
              Pair(f"fast-{_u}-{_m}-nospecial", f"native-{_u}-{_m}-nospecial", f"fast-{_u}-{_m}-nospecial"),
              Pair(f"auto-{_u}-{_m}", f"native-{_u}-{_m}", f"auto-{_u}-{_m}")]
for _u in UNITS:
    ENCODER_NAMES += [f"folderjson-{_u}", f"folderjson-{_u}-cover", f"export-{_u}", f"export-{_u}-nospecial"]
    PAIRS += [Pair(f"folderjson-{_u}", f"native-{_u}-optimal", f"folderjson-{_u}"),
              Pair(f"folderjson-{_u}-cover", f"native-{_u}-cover", f"folderjson-{_u}-cover"),
              Pair(f"export-{_u}", f"native-{_u}-optimal", f"export-{_u}"),
              Pair(f"export-{_u}-nospecial", f"native-{_u}-optimal-nospecial", f"export-{_u}-nospecial")]
CLI_FOLDERS = {          # name -> `hf-greedtok train` arguments besides input, -k, -o and specials
    "cbpe-marks": ["--algorithm", "cbpe", "--units", "marks"],
    "cbpe-vowels": ["--algorithm", "cbpe", "--units", "vowels"],
    "bpe-chars": ["--algorithm", "bpe", "--units", "chars"],
    "bpe-bytes": ["--algorithm", "bpe", "--units", "bytes"],
    "lookup-cbpe-marks": ["--algorithm", "cbpe", "--units", "marks", "--lookup", "LOOKUP"],
    # --mode cover: these pairs check the lookup folder's cover step (train saves optimal by
    # default; a saved folder's optimal encoder is fuzzed through the auto-<units>-optimal paths)
    "lookup-greedtok-marks": ["--algorithm", "greedtok", "--units", "marks", "--lookup", "LOOKUP", "--mode", "cover"],
    # train's defaults at byte level: the gpt4-marks split (native scanner in the fast path, the
    # Rust regex in tokenizer.json) and the optimal encoder (tokenizers' Unigram in the file)
    "greedtok-bytes": ["--algorithm", "greedtok", "--units", "bytes"],
    # superword GreedTok (issue 31): chunks that span words, the superwords scanner in the fast
    # path, Oniguruma's Split and Unigram in tokenizer.json
    "greedtok-superwords": ["--algorithm", "greedtok", "--units", "bytes", "--superwords"],
    "greedtok-superwords-digits": ["--algorithm", "greedtok", "--units", "bytes", "--superwords",
                                   "--digits-in-chunks"],
}
for _f in ("cbpe-marks", "cbpe-vowels", "bpe-chars", "bpe-bytes", "lookup-cbpe-marks", "greedtok-bytes",
           "greedtok-superwords", "greedtok-superwords-digits"):
    ENCODER_NAMES += [f"{_f}-file", f"{_f}-auto"]
PAIRS += [Pair(f"{_f}-auto", f"{_f}-file", f"{_f}-auto") for _f in ("cbpe-marks", "cbpe-vowels", "bpe-chars",
                                                                     "bpe-bytes", "greedtok-bytes",
                                                                     "greedtok-superwords",
                                                                     "greedtok-superwords-digits")]
ENCODER_NAMES += ["lookup-greedtok-marks-cover", "lookup-greedtok-marks-optimal", "lookup-greedtok-marks-auto",
                  "lookup-greedtok-marks-file"]
PAIRS += [Pair("lookup-greedtok-marks-auto", "lookup-greedtok-marks-cover", "lookup-greedtok-marks-auto"),
          Pair("lookup-greedtok-marks-file", "lookup-greedtok-marks-cover", "lookup-greedtok-marks-file"),
          Pair("lookup-cbpe-marks-file", "lookup-cbpe-marks-auto", "lookup-cbpe-marks-file")]
ENCODER_NAMES += ["tiktoken-cover", "tiktoken-optimal", "fast-tiktoken-cover", "fast-tiktoken-optimal",
                  "hfbpe-cover", "hfbpe-optimal"]
PAIRS += [Pair(f"fast-tiktoken-{_m}", f"tiktoken-{_m}", f"fast-tiktoken-{_m}") for _m in MODES]
# The fused batch path (split + encode without the GIL) against the same tokenizer splitting in
# Python and encoding word by word: same ids (issue 14).
ENCODER_NAMES += [f"perword-{_v}-{_m}" for _v in ("bytes", "tiktoken") for _m in MODES]
PAIRS += [Pair(f"fused-bytes-{_m}", f"perword-bytes-{_m}", f"native-bytes-{_m}") for _m in MODES]
PAIRS += [Pair(f"fused-tiktoken-{_m}", f"perword-tiktoken-{_m}", f"tiktoken-{_m}") for _m in MODES]
# tokenizer.json files of lookup folders, and the folder they must encode like (or refuse to load)
LOOKUP_FILES = [p for p in PAIRS if p.other.startswith("lookup-") and p.other.endswith("-file")]
# Paths whose own vocabulary has a BPE encoder: optimal must never use more tokens than it.
BPE_BASELINES = ("tiktoken-optimal", "hfbpe-optimal")


class Registry:
    """Builds each path on first use (and each tokenizer it needs once), under ``workdir``."""

    def __init__(self, workdir: Union[str, Path]) -> None:
        self.workdir = Path(workdir)
        self._cache: dict[str, Union[Encoder, Refused]] = {}

    # ------------------------------------------------------------------ shared inputs

    @functools.cached_property
    def corpus(self) -> Path:
        path = self.workdir / "corpus.txt"
        path.write_text("".join(real_lines()[0]), encoding="utf-8")
        return path

    @functools.cached_property
    def corpus_hi(self) -> Path:
        path = self.workdir / "corpus_hi.txt"
        path.write_text("".join(line for line in real_lines()[0] if regex.search(r"\p{Devanagari}", line)
                                and not regex.search(r"[A-Za-z<>]", line)), encoding="utf-8")
        return path

    @functools.lru_cache(maxsize=None)
    def native(self, units: str, lookup: bool = False):
        """A GreedTok tokenizer trained on the corpus (cover mode by default); "<units>.hi" on Hindi only."""
        import hf_greedtok as hg
        if lookup:
            return hg.Tokenizer.load(self.cli_folder("lookup-greedtok-marks"))
        units, _, corpus = units.partition(".")
        pre = hg.ByteLevel() if units == "bytes" else hg.Metaspace(units=units)
        trainer = hg.GreedTokTrainer(k=K, special_tokens=SPECIALS, pre_tokenizer=pre,
                                     normalizer="NFC" if units in ("marks", "vowels") else None,
                                     show_progress=False)
        tok = trainer.train([self.corpus_hi if corpus == "hi" else self.corpus], num_proc=1)
        assert corpus != "hi" or "<" not in tok.model.alphabet, "the Hindi-only alphabet must miss '<'"
        return tok

    @functools.lru_cache(maxsize=None)
    def fast(self, units: str, mode: str):
        import hf_greedtok as hg
        return hg.GreedTokTokenizerFast(greedtok=self.native(units), mode=mode)

    @functools.lru_cache(maxsize=None)
    def saved(self, units: str, mode: str) -> Path:
        folder = self.workdir / f"saved-{units}-{mode}"
        self.fast(units, mode).save_pretrained(folder)
        return folder

    @functools.lru_cache(maxsize=None)
    def cli_folder(self, name: str) -> Path:
        from hf_greedtok.cli import main
        folder = self.workdir / name
        k = LOOKUP_K if name.startswith("lookup-") else K
        args = [str(self.corpus), "-k", str(k), "-o", str(folder), "--quiet", "--num-proc", "1"]
        args += [a if a != "LOOKUP" else str(corpus_path("hi_morph_segments.tsv")) for a in CLI_FOLDERS[name]]
        for s in SPECIALS:
            args += ["--special-token", s]
        rc = main(["train", *args])
        if rc != 0:
            raise RuntimeError(f"hf-greedtok train {' '.join(args)} exited {rc}")
        return folder

    @functools.cached_property
    def tiktoken(self):
        import hf_greedtok as hg
        return hg.Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")

    @functools.cached_property
    def hf_bpe_json(self) -> Path:
        """A byte-level (GPT-2 style) HF BPE tokenizer.json trained on the corpus, with specials."""
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=256 + K + len(SPECIALS), special_tokens=list(SPECIALS),
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
        tok.train([str(self.corpus)], trainer)
        path = self.workdir / "hf_bpe.json"
        tok.save(str(path))
        return path

    # ------------------------------------------------------------------ encoders

    def get(self, name: str) -> Union[Encoder, Refused]:
        if name not in self._cache:
            self._cache[name] = self._build(name)
        return self._cache[name]

    def _build(self, name: str) -> Union[Encoder, Refused]:
        parts = name.split("-")
        nospecial = parts[-1] == "nospecial"
        if nospecial:
            parts = parts[:-1]
        kind = parts[0]
        if kind == "native":
            return native_encoder(name, self.native(parts[1]), parts[2], allow_special=not nospecial)
        if kind == "fast" and parts[1] == "tiktoken":
            import hf_greedtok as hg
            hf = hg.GreedTokTokenizerFast(greedtok=self.tiktoken, mode=parts[2])
            return transformers_encoder(name, hf, self.get(f"tiktoken-{parts[2]}").expected)
        if kind in ("fast", "auto"):
            units, mode = parts[1], parts[2]
            reference = self.get(f"native-{units}-{mode}" + ("-nospecial" if nospecial else ""))
            if kind == "fast":
                hf = self.fast(units, mode)
            else:
                import hf_greedtok  # noqa: F401  (registers GreedTokTokenizerFast with AutoTokenizer)
                from transformers import AutoTokenizer
                hf = AutoTokenizer.from_pretrained(str(self.saved(units, mode)))
            return transformers_encoder(name, hf, reference.expected, split_special=nospecial)
        if kind in ("folderjson", "export"):
            units = parts[1]
            folder_mode = parts[2] if len(parts) > 2 else "optimal"
            reference = self.get(f"native-{units}-{folder_mode}" + ("-nospecial" if nospecial else ""))
            if kind == "folderjson":
                path = self.saved(units, folder_mode) / "tokenizer.json"
                if not path.is_file():
                    return Refused(name, FileNotFoundError(f"save_pretrained wrote no {path.name}"))
            else:
                from hf_greedtok import export_optimal_tokenizer_json
                path = self.workdir / f"export-{units}.json"
                if not path.is_file():
                    try:
                        export_optimal_tokenizer_json(self.native(units), path)
                    except ValueError as e:
                        return Refused(name, e)
            return backend_encoder(name, path, reference.expected, encode_special=nospecial)
        if kind == "tiktoken":
            return native_encoder(name, self.tiktoken, parts[1])
        if kind == "perword":
            tok = self.tiktoken if parts[1] == "tiktoken" else self.native(parts[1])
            return native_encoder(name, per_word_copy(tok), parts[2])
        if kind == "hfbpe":
            import hf_greedtok as hg
            return native_encoder(name, hg.Tokenizer.from_hf_bpe(self.hf_bpe_json), parts[1])
        if name.startswith("lookup-greedtok-marks-") and parts[-1] in MODES:
            return native_encoder(name, self.native("marks", lookup=True), parts[-1])
        folder_name, how = "-".join(parts[:-1]), parts[-1]
        folder = self.cli_folder(folder_name)
        if folder_name == "lookup-greedtok-marks":
            native = self.get("lookup-greedtok-marks-cover")
            expected = native.expected
        else:
            units = CLI_FOLDERS[folder_name][CLI_FOLDERS[folder_name].index("--units") + 1]
            form = None if units in ("bytes", "chars") else "NFC"     # the CLI's default normalizers
            expected = functools.partial(expected_text, specials=SPECIALS, normalize=rust_normalizer(form),
                                         metaspace=None if units == "bytes" else METASPACE)
        if how == "file":
            return backend_encoder(name, folder / "tokenizer.json", expected)
        import hf_greedtok  # noqa: F401
        from transformers import AutoTokenizer
        hf = AutoTokenizer.from_pretrained(str(folder))
        # A plain BPE/CBPE folder loads as transformers' own class: no code of ours runs, and
        # tokenizers rejects a str with lone surrogates (TypeError; the README's documented
        # exception, checked by test_plain_folders_reject_lone_surrogates_loudly).
        plain = not folder_name.startswith("lookup-")
        return transformers_encoder(name, hf, expected, clean=_no_surrogates if plain else None)


def per_word_copy(tok):
    """A copy of ``tok`` that splits each text in Python (``pre_tokenizer.pre_tokenize``) and
    encodes the words in a second native call: the path before the fused batch path, which
    ``tok`` takes for the patterns the native pre-tokenizer has."""
    import pickle
    copy = pickle.loads(pickle.dumps(tok))
    copy._native_pattern = -1
    return copy


def native_encoder(name: str, tok, mode: str, allow_special: bool = True) -> Encoder:
    from hf_greedtok import Metaspace
    pre = tok.pre_tokenizer
    expected = functools.partial(
        expected_text, specials=tok.model.special_tokens if allow_special else (), normalize=tok.normalizer,
        metaspace=pre.replacement if isinstance(pre, Metaspace) else None)
    return Encoder(name, lambda x: tok.encode(x, mode=mode, allow_special=allow_special),
                   lambda ids, skip: tok.decode(ids, skip_special_tokens=skip), expected, tok.vocab_size)


def transformers_encoder(name: str, hf, expected: Callable[[str], str], split_special: bool = False,
                         clean: Optional[Callable[[str], str]] = None) -> Encoder:
    def encode(x: str) -> list[int]:
        x = clean(x) if clean is not None else x
        return hf(x, add_special_tokens=False, split_special_tokens=split_special)["input_ids"]

    return Encoder(name, encode, lambda ids, skip: hf.decode(ids, skip_special_tokens=skip), expected, len(hf))


def backend_encoder(name: str, path: Path, expected: Callable[[str], str],
                    encode_special: bool = False) -> Union[Encoder, Refused]:
    from tokenizers import Tokenizer as HFTokenizer
    try:
        backend = HFTokenizer.from_file(str(path))
    except Exception as e:      # noqa: BLE001  (tokenizers raises a bare Exception; see accepted_refusal)
        return Refused(name, e)
    backend.encode_special_tokens = encode_special
    return Encoder(name, lambda x: backend.encode(_no_surrogates(x), add_special_tokens=False).ids,
                   lambda ids, skip: backend.decode(ids, skip_special_tokens=skip), expected,
                   backend.get_vocab_size(with_added_tokens=True))


# ---------------------------------------------------------------------- refusals

def refusal_problem(registry: "Registry", refused: Refused) -> Optional[str]:
    """None if ``refused`` is an accepted refusal, else what is wrong with it.

    Issue 12, item 6: a pure tokenizer.json must encode exactly like the encoder it stands for
    or refuse. Accepted:

    * ``export_optimal_tokenizer_json`` raising ValueError that names the unit kind of a Metaspace
      tokenizer (byte level exports exactly), and then no tokenizer.json in that unit kind's folders;
    * a folder's tokenizer.json that ``tokenizers`` refuses to load with a message naming
      hf-greedtok (a guarded file), where the file alone could not encode like the folder: cover
      mode folders (``folderjson-<units>-cover``) and lookup folders (``lookup-*-file``).
    """
    name, error = refused.name, refused.error
    parts = name.split("-")
    guarded = name.startswith("lookup-") or (parts[0] == "folderjson" and parts[-1] == "cover")
    if guarded and "hf-greedtok" in str(error):
        return None
    if parts[0] not in ("export", "folderjson"):
        return f"{name} has no refusal to accept: {type(error).__name__}: {error}"
    units = parts[1].partition(".")[0]
    export = registry.get(f"export-{parts[1]}")
    if not isinstance(export, Refused):
        return f"{name}: {type(error).__name__}: {error}, although export_optimal_tokenizer_json exported"
    if units == "bytes":
        return f"byte-level export refused: {export.error}"
    if not (isinstance(export.error, ValueError) and units in str(export.error)):
        return (f"export_optimal_tokenizer_json refused without naming the unit kind {units!r}: "
                f"{type(export.error).__name__}: {export.error}")
    return None


# ---------------------------------------------------------------------- checks

def _where(a: str, b: str) -> str:
    """The first difference of two strings, escaped: RTL text and combining marks print misleadingly."""
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at {i}: {ascii(a[i:i + 12])} vs {ascii(b[i:i + 12])}"


def check_round_trip(enc: Encoder, text: str) -> None:
    """ids are ints in range and ``decode(encode(text)) == expected(text)``."""
    ids = enc.encode(text)
    bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < enc.vocab_size]
    assert not bad, f"{enc.name}: ids {bad[:5]} outside [0, {enc.vocab_size}) for {text!r}"
    decoded = enc.decode(ids, False)
    want = enc.expected(text)
    assert decoded == want, (f"{enc.name}: decode(encode(x)) != expected\n  x        = {text!r}\n"
                             f"  ids      = {ids}\n  decoded  = {decoded!r}\n  expected = {want!r}\n  {_where(decoded, want)}")


def check_same_ids(ref: Encoder, other: Encoder, text: str) -> None:
    """Same ids, and ``other`` decodes the reference's ids as the reference does (specials kept and skipped)."""
    a, b = ref.encode(text), other.encode(text)
    assert a == b, (f"{other.name} ids != {ref.name} ids\n  x = {text!r}\n  x = {ascii(text)}\n  {ref.name}: {a}\n"
                    f"  {other.name}: {b}")
    for skip in (False, True):
        da, db = ref.decode(a, skip), other.decode(a, skip)
        assert da == db, (f"{other.name}.decode != {ref.name}.decode (skip_special_tokens={skip})\n"
                          f"  x = {text!r}\n  ids = {a}\n  {ref.name}: {da!r}\n  {other.name}: {db!r}\n  {_where(da, db)}")


def check_not_longer_than_bpe(enc: Encoder, bpe_encode: Callable[[str], list[int]], text: str) -> None:
    """Optimal segmentation over a BPE vocabulary never uses more tokens than that BPE."""
    ours, theirs = enc.encode(text), bpe_encode(text)
    assert len(ours) <= len(theirs), (f"{enc.name}: {len(ours)} tokens > {len(theirs)} of the vocabulary's own "
                                      f"BPE for {text!r}\n  ours: {ours}\n  BPE:  {theirs}")


def bpe_baseline(registry: Registry, name: str) -> Callable[[str], list[int]]:
    """The BPE encoder of the vocabulary behind ``name`` (tiktoken's, or HF's own BPE)."""
    if name.startswith("tiktoken"):
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
        from hf_greedtok.pre_tokenizers import GPT4_PATTERN
        enc = tiktoken.Encoding("cl100k_base_file", pat_str=GPT4_PATTERN,
                                mergeable_ranks=load_tiktoken_bpe(str(VOCAB / "cl100k_base.tiktoken")),
                                special_tokens={})
        return lambda x: enc.encode_ordinary(_no_surrogates(x))
    from tokenizers import Tokenizer as HFTokenizer
    backend = HFTokenizer.from_file(str(registry.hf_bpe_json))
    return lambda x: backend.encode(_no_surrogates(x), add_special_tokens=False).ids


# ---------------------------------------------------------------------- survey

def collect_failures(registry: Registry, n: int, prefixes: Sequence[str] = (), seed: int = 0
                     ) -> tuple[int, dict[str, list[tuple[str, str]]]]:
    """Every check of the suite on ``n`` generated strings, without stopping or shrinking.

    Returns (strings generated, {check name: [(text, failure message), ...]}); an exception
    raised by a path counts as a failure with its type and message.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    def want(name: str) -> bool:
        return not prefixes or any(name.startswith(p) for p in prefixes)

    encoders = {name: registry.get(name) for name in ENCODER_NAMES if want(name)}
    usable = {name: enc for name, enc in encoders.items() if isinstance(enc, Encoder)}
    pairs = [p for p in PAIRS if want(p.name) and p.reference in usable and p.other in usable]
    baselines = {name: bpe_baseline(registry, name) for name in BPE_BASELINES if name in usable}
    failures: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name, enc in encoders.items():
        if isinstance(enc, Refused):
            problem = refusal_problem(registry, enc)
            if problem is None:
                print(f"{name}: accepted refusal: {type(enc.error).__name__}: {enc.error}")
            else:
                failures[f"refused {name}"].append(("", problem))
    seen = [0]

    def run(check: str, fn, *args) -> None:
        try:
            fn(*args)
        except Exception as e:         # noqa: BLE001  (an exception is a failure to count, too)
            message = str(e) if isinstance(e, AssertionError) else f"{type(e).__name__}: {e}"
            failures[check].append((args[-1], message))

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fuzz_text())
    def drive(text: str) -> None:
        seen[0] += 1
        for name, enc in usable.items():
            run(f"round-trip {name}", check_round_trip, enc, text)
        for p in pairs:
            run(f"same-ids {p.name}", check_same_ids, usable[p.reference], usable[p.other], text)
        for name, bpe in baselines.items():
            run(f"not-longer-than-bpe {name}", check_not_longer_than_bpe, usable[name], bpe, text)

    hypothesis_seed(seed)(drive)()
    for name, enc in usable.items():
        run(f"empty {name}", lambda e, text: _check_empty(e), enc, "")
    return seen[0], dict(failures)


def _check_empty(enc: Encoder) -> None:
    ids = enc.encode("")
    assert ids == [], f"{enc.name}: '' encodes to {ids}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description="Count fuzz failures per encode path and check (no shrinking).")
    p.add_argument("--examples", type=int, default=1000, help="generated strings (default %(default)s)")
    p.add_argument("--only", nargs="*", default=[], help="path name prefixes (default: every path)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="write every failure here as {check: [[text, message], ...]}")
    args = p.parse_args(argv)
    registry = Registry(tempfile.mkdtemp(prefix="hf-greedtok-fuzz-"))
    n, failures = collect_failures(registry, args.examples, args.only, args.seed)
    print(f"{n} generated strings; {len(failures)} checks with failures")
    for check, fails in sorted(failures.items()):
        print(f"\n{check}: {len(fails)} failed; shortest:")
        for _, message in sorted(fails, key=lambda f: (len(f[0]), f[0]))[:3]:
            print("    " + message.replace("\n", "\n    "))
    if args.json:
        args.json.write_text(json.dumps({"examples": n, "failures": failures}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
