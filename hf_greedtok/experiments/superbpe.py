"""A SuperBPE-style two-stage BPE peer, built from stock HF ``tokenizers``.

SuperBPE (Liu et al., "SuperBPE: Space Travel for Language Models", COLM 2025, arXiv 2503.13423;
the method is the paper's pretokenization curriculum, code at github.com/PythonNut/superbpe)
learns a byte-level BPE vocabulary in two stages:

1. ordinary BPE with regex pre-tokenization, up to a transition point: subword tokens;
2. BPE *resumed* from those merges on the "chunks" of a second, much coarser pre-tokenizer
   (:data:`SUPERBPE_STAGE2_PATTERN`, in "isolated" mode: its matches stand alone and everything
   between two matches is one chunk, several words, their spaces and even line ends), so the new
   merges may join tokens across words: superword tokens ("ĠofĠthe").

SuperBPE trains stage 2 with a fork of ``tokenizers`` (``alisawuffles/tokenizers-superbpe``,
``BpeTrainer::do_train_extend``) because the stock ``BpeTrainer`` cannot resume from merges. This
module emulates stage 2 with stock tools: every chunk is first encoded by the stage-1 model, its
stage-1 ids are written as one private-use character each (id ``i`` -> ``chr(0xF0000 + i)``,
plane 15, room for 65,534 ids), and a second, stock ``BpeTrainer`` learns BPE over those symbol
strings (one word per chunk, no pre-tokenizer, no normalizer, the ``256 + t`` stage-1 ids as its
alphabet). Its merges are pairs of stage-1 tokens or of earlier stage-2 tokens, counted over the
chunks with their frequencies, the most frequent first, ties to the lowest ids (the alphabet's
ids follow the stage-1 ids, since ``BpeTrainer`` numbers characters by code point): the merges
the fork learns after replaying the stage-1 merges on the same chunks.

How a chunk gets its stage-1 ids (``stage1_scope``):

* ``"chunks"`` (the default, SuperBPE's own): the stage-1 merges are applied, by rank, to the
  whole chunk as one byte string, as the fork replays them (step 5 of ``do_train_extend``) and as
  SuperBPE's saved tokenizers encode (``Split`` on the stage-2 regex, then one BPE holding all
  merges, per chunk). The peer's ids are then exactly those of that tokenizer (tests check it).
* ``"words"``: the chunk is cut into its GPT-4 words and each word is encoded by the stage-1 BPE.
  With no stage-2 merge this is exactly stage-1 BPE, line by line (wherever no GPT-4 word
  straddles two chunks; ``" \\r\\n"`` does, as ``" "`` before a line break is a chunk of its own).

The two differ because stage-1 tokens never *come from* text spanning two GPT-4 words, yet applied
to a chunk a stage-1 merge can join the end of one word to the start of the next when the joined
bytes form one word elsewhere: " 'tis" is the GPT-4 words " '" and "tis", but "'t" is a stage-1
token (from "don't"), so SuperBPE's stage 1 reads " ", "'t", "is"; likewise " (self" may become
" ", "(self" in code (a word in "(self)"). Measured with t = 16,384 stage-1 merges, each corpus of
``../shared`` on itself: "chunks" changes the stage-1 ids of 0.009 % (Brown), 0.02 % (Python docs),
0.08 % (CPython sources, Chinese reviews), 0.8 % (Shakespeare and Milton) and 0 % (Hindi) of chunk
occurrences, and stage-1 token totals by at most 0.005 %.

Beyond the stage-1 split (GPT-4's here; SuperBPE's release uses its own regex, an o200k-like one
without contractions, see :func:`train_superbpe_style`), what the emulation does not reproduce:

* the fork skips any stage-2 merge whose token would contain ``":Ġ"`` (a colon then a space) or
  more than four words (commit a27d8bf, "limit to 4-word tokens and special case colon"; the
  released tokenizers are named ``..._mw4_colon``). The stock trainer cannot skip merges; this
  peer learns them.
* the fork keeps one id per byte string: a stage-2 merge whose bytes equal an existing token's
  (a different split of the same bytes) reuses that id, and stage-1 merges may then apply to it.
  Here tokens are symbol strings, so such a merge makes a new id with the same bytes
  (:attr:`SuperBPEPeer.duplicate_tokens` counts them), and stage-1 merges never apply to a
  stage-2 token.
* the fork drops an inherited merge whose pair no longer occurs in the stage-2 chunks; here every
  stage-1 id stays.
* SuperBPE splits with ``tokenizers``' ``Split`` (Oniguruma), :func:`superbpe_chunks` with
  ``regex``, which knows a newer Unicode: 17,144 code points are letters and 336 are digits for
  ``regex`` but not for Oniguruma (all unassigned in Python 3.11's Unicode 14.0; e.g. U+3D000),
  and there the chunks differ; on assigned characters they are the same (tests check it). The GPT-4 split
  (hf_greedtok's native scanner for "words", ``tokenizers``' ``Split`` for training stage 1) has
  the same edge.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

import regex

from ..pre_tokenizers import ByteLevel
from ..pre_tokenizers.patterns import GPT4, SUPERBPE_STAGE2_PATTERN  # noqa: F401 (re-exported)
from .peers import Peer

__all__ = ["SUPERBPE_STAGE2_PATTERN", "SuperBPEPeer", "superbpe_chunks", "train_superbpe_style"]

_STAGE2_REGEX = regex.compile(SUPERBPE_STAGE2_PATTERN)
_STAGE1_SPLIT = GPT4.name
_BYTES = 256
_SYMBOL_BASE = 0xF0000                  # plane 15, Supplementary Private Use Area-A
_MAX_STAGE1_IDS = 0xFFFFE - _SYMBOL_BASE   # U+F0000..U+FFFFD: 65,534 characters
_SCOPES = ("words", "chunks")


def superbpe_chunks(line: str) -> list[str]:
    """The stage-2 chunks of ``line``: the matches of :data:`SUPERBPE_STAGE2_PATTERN` and the
    non-empty stretches between them, in order ("isolated"); their concatenation is ``line``.

    Example:
        >>> superbpe_chunks("By the way, it costs 1234 dollars...  ok")
        ['By the way, it costs ', '123', '4', ' dollars', '...', ' ', ' ok']
    """
    chunks, at = [], 0
    for m in _STAGE2_REGEX.finditer(line):
        if m.start() > at:
            chunks.append(line[at:m.start()])
        chunks.append(m.group())
        at = m.end()
    if at < len(line):
        chunks.append(line[at:])
    return chunks


_SYMBOLS = [chr(_SYMBOL_BASE + i) for i in range(_MAX_STAGE1_IDS)]


def _symbols(ids: Sequence[int]) -> str:
    """Stage-1 ids as one private-use character each."""
    return "".join(map(_SYMBOLS.__getitem__, ids))


class _Stage1:
    """Chunks -> stage-1 ids as symbol strings (:func:`_symbols`), ``scope`` "words" or "chunks"."""

    def __init__(self, stage1, scope: str) -> None:
        from tokenizers import Tokenizer as HFTokenizer
        from tokenizers import pre_tokenizers
        self.scope = scope
        self.split = ByteLevel(_STAGE1_SPLIT)
        # the stage-1 BPE model with no regex split: encodes its input (a word or a chunk) whole
        self.whole = HFTokenizer(stage1.model)
        self.whole.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False,
                                                           use_regex=False)

    def _encode(self, texts: list[str]) -> list[str]:
        if not texts:
            return []
        return [_symbols(e.ids) for e in self.whole.encode_batch(texts, add_special_tokens=False)]

    def symbols(self, chunks: Sequence[str]) -> list[str]:
        """One symbol string per chunk (in order), each chunk's stage-1 ids."""
        if self.scope == "chunks":
            unique = list(dict.fromkeys(chunks))
            table = dict(zip(unique, self._encode(unique)))
            return [table[c] for c in chunks]
        words = [self.split.pre_tokenize(c) for c in chunks]
        unique = list(dict.fromkeys(w for ws in words for w in ws))
        table = dict(zip(unique, self._encode(unique)))
        return ["".join([table[w] for w in ws]) for ws in words]


class SuperBPEPeer(Peer):
    """A two-stage SuperBPE-style BPE (see the module docstring), as ``compare`` measures it.

    A line is split into stage-2 chunks (:func:`superbpe_chunks`); each chunk gets its stage-1 ids
    (GPT-4 words encoded by the stage-1 BPE, or the whole chunk: ``stage1_scope``), written as a
    symbol string, which the stage-2 BPE encodes; a line's tokens are its chunks' stage-2 ids, in
    order. Decoding maps stage-2 ids back to their symbol strings, then to stage-1 ids, which the
    stage-1 tokenizer decodes (byte level: every Unicode string round-trips).

    Attributes:
        stage1: the stage-1 ``tokenizers.Tokenizer``: BPE on GPT-4 words, byte level, with its
            GPT-4 split pre-tokenizer and byte-level decoder (plain BPE of ``256 + transition`` ids).
        stage2: the stage-2 ``tokenizers.Tokenizer``: BPE over symbol strings, no pre-tokenizer
            and no normalizer; its ids are this peer's ids.
        transition: stage-1 learned merges t (stage-1 ids - 256): the transition point (SuperBPE's
            ``num_inherit_merges``; the paper states t as a vocabulary size, 256 + t here).
        stage1_scope: "words" or "chunks" (how a chunk gets its stage-1 ids).
        duplicate_tokens: stage-2 ids whose bytes equal those of a lower id (SuperBPE's fork
            would have reused that id; see the module docstring).
        vocab_size: total ids of the stage-2 model: 256 + t stage-1 ids + the stage-2 merges'
            tokens (fewer than asked only when the training text runs out of pairs).
    """

    def __init__(self, stage1, stage2, *, stage1_scope: str = "chunks", transition_requested: Optional[int] = None,
                 vocab_size_requested: Optional[int] = None) -> None:
        if stage1_scope not in _SCOPES:
            raise ValueError(f"stage1_scope must be one of {_SCOPES}, got {stage1_scope!r}")
        n1, n2 = stage1.get_vocab_size(with_added_tokens=True), stage2.get_vocab_size(with_added_tokens=True)
        self.stage1, self.stage2, self.stage1_scope = stage1, stage2, stage1_scope
        self.transition = n1 - _BYTES
        self._stage1 = _Stage1(stage1, stage1_scope)
        inverse = {i: s for s, i in stage2.get_vocab(with_added_tokens=True).items()}
        # stage-2 id -> its stage-1 ids
        self._parts = [[ord(c) - _SYMBOL_BASE for c in inverse[i]] for i in range(n2)]
        stage1_bytes = {i: ByteLevel.str_to_token(s) for s, i in stage1.get_vocab(with_added_tokens=True).items()}
        self._bytes = [b"".join(stage1_bytes[j] for j in parts) for parts in self._parts]
        self.duplicate_tokens = len(self._bytes) - len(set(self._bytes))
        trainer = (f"tokenizers BpeTrainer, two stages: {self.transition:,} merges on GPT-4 words (stage 1, "
                   f"transition t = {self.transition:,}), then {n2 - n1:,} on SuperBPE's stage-2 chunks over "
                   f"stage-1 tokens (stage 2, {'whole chunks' if stage1_scope == 'chunks' else 'words'} "
                   f"encoded by stage 1)")
        if transition_requested is not None and transition_requested != self.transition:
            trainer += f"; {transition_requested:,} stage-1 merges asked, the text gave {self.transition:,}"
        if vocab_size_requested is not None and vocab_size_requested != n2:
            trainer += f"; {vocab_size_requested:,} ids asked, the text gave {n2:,} (it ran out of pairs)"
        super().__init__("SuperBPE-style BPE", trainer, "GPT-4 split, then SuperBPE's stage-2 chunks", "none", n2)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of stage-2 id ``token_id`` (IndexError outside ``range(vocab_size)``)."""
        return self._bytes[token_id]

    def stage1_ids(self, token_id: int) -> list[int]:
        """The stage-1 ids that stage-2 id ``token_id`` joins (one id for a stage-1 token)."""
        return list(self._parts[token_id])

    def encode(self, lines: Sequence[str]) -> list[list[int]]:
        """Stage-2 ids of each line (list[n] of int lists), all chunks of all lines in one batch
        per stage. Lines are whole strings (a line end, if present, is text like any other)."""
        chunked = [superbpe_chunks(line) for line in lines]
        flat = [c for cs in chunked for c in cs]
        symbols = self._stage1.symbols(flat)
        unique = list(dict.fromkeys(symbols))
        if unique:
            encoded = self.stage2.encode_batch(unique, add_special_tokens=False)
            table = {s: e.ids for s, e in zip(unique, encoded)}
        else:
            table = {}
        out, at = [], 0
        for cs in chunked:
            ids: list[int] = []
            for s in symbols[at:at + len(cs)]:
                ids.extend(table[s])
            out.append(ids)
            at += len(cs)
        return out

    def decode(self, ids: Sequence[int]) -> str:
        """The text of stage-2 ``ids``: their stage-1 ids decoded by the stage-1 tokenizer (bytes
        that are not whole UTF-8 become U+FFFD)."""
        return self.stage1.decode([j for i in ids for j in self._parts[i]], skip_special_tokens=False)

    def _measure_batch(self, lines):
        ids = self.encode(lines)
        decoded = self.stage1.decode_batch([[j for i in x for j in self._parts[i]] for x in ids],
                                           skip_special_tokens=False)
        return [len(x) for x in ids], [d == line for d, line in zip(decoded, lines)]


def _check_sizes(vocab_size: int, transition: int) -> None:
    for name, value in (("vocab_size", vocab_size), ("transition", transition)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if transition < 0:
        raise ValueError(f"transition (stage-1 merges) must be >= 0, got {transition}")
    if _BYTES + transition > vocab_size:
        raise ValueError(f"256 + transition ({_BYTES + transition:,}) must not exceed vocab_size ({vocab_size:,}): "
                         "stage 1 would already hold more ids than the whole vocabulary")
    if _BYTES + transition > _MAX_STAGE1_IDS:
        raise ValueError(f"256 + transition ({_BYTES + transition:,}) is more stage-1 ids than the "
                         f"{_MAX_STAGE1_IDS:,} private-use symbols stage 2 writes them with")


def train_superbpe_style(lines: Sequence[str], vocab_size: int, transition: int, *, stage1_scope: str = "chunks",
                         show_progress: bool = False) -> SuperBPEPeer:
    """Train a SuperBPE-style two-stage BPE of ``vocab_size`` total ids on ``lines``.

    Stage 1: ``tokenizers`` BPE, byte level, split by GPT-4's regex
    (``standard_pre_tokenizer(ByteLevel("gpt4"))``, ``decoders.ByteLevel()``), ``BpeTrainer(vocab_size=
    256 + transition, initial_alphabet=ByteLevel.alphabet())`` on the lines. Stage 2: every line is
    split into SuperBPE's stage-2 chunks (:func:`superbpe_chunks`), which are counted; each distinct
    chunk becomes the symbol string of its stage-1 ids (``stage1_scope``, see the module
    docstring), and a stock ``BpeTrainer(vocab_size=vocab_size)`` with the ``256 + transition``
    stage-1 symbols as ``initial_alphabet`` (no ``limit_alphabet``, no ``max_token_length``) learns
    ``vocab_size - 256 - transition`` merges over them, each chunk one word with its count (fed as
    that many copies; a one-symbol chunk holds no pair and is not fed).

    This is SuperBPE's stage 2 (``scripts/extend_tokenizer.sh``: inherit the first t merges, then
    train on with the stage-2 regex over the same text) up to the differences the module docstring
    lists. SuperBPE's own stage 1 (``scripts/train_tokenizer.sh``) splits by its regex
    ``[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|...``
    (o200k-like: case-aware letter runs, marks kept in words, no contractions), not GPT-4's; this
    peer uses GPT-4's split, as the other peers of ``compare`` do, so only the stage-2 curriculum
    differs from HF BPE. SuperBPE trains on files, which ``tokenizers`` reads line by line with
    each line's end kept, so there a line's last chunk usually ends in its "\\n" and stage 2 can
    learn superwords ending in a line break; the lines here come without ends (as every peer of
    ``compare`` gets them), so no chunk holds one unless a line does.

    Args:
        lines: training text, one line per item (line ends, if kept, are text).
        vocab_size: total ids of the result (all 256 bytes included).
        transition: t, the stage-1 learned merges (SuperBPE's ``num_inherit_merges``, which
            ``head -n`` takes from merges.txt with its "#version" line, so one merge fewer; the
            paper's transition point is the vocabulary size, 256 + t). ``256 + transition ==
            vocab_size`` learns no stage-2 merge: plain BPE (exactly so with ``stage1_scope="words"``).
        stage1_scope: "chunks" (stage-1 merges applied to the whole chunk, as SuperBPE's code
            does) or "words" (a chunk's stage-1 ids are its GPT-4 words encoded one by one: exactly
            plain BPE when no stage-2 merge is learned).
        show_progress: the trainers' progress bars.

    Returns:
        The peer; its ``vocab_size`` is the stage-2 model's id count, ``vocab_size`` unless the
        text runs out of pairs first (then smaller, and its ``trainer`` says so).

    Raises:
        ValueError: ``transition < 0``, ``256 + transition > vocab_size``, more than 65,534
            stage-1 ids (the private-use symbols), or an unknown ``stage1_scope``.
        TypeError: ``vocab_size`` or ``transition`` is not an int.
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from ..hf.pipeline import standard_pre_tokenizer
    _check_sizes(vocab_size, transition)
    if stage1_scope not in _SCOPES:
        raise ValueError(f"stage1_scope must be one of {_SCOPES}, got {stage1_scope!r}")

    stage1 = HFTokenizer(models.BPE())
    stage1.pre_tokenizer = standard_pre_tokenizer(ByteLevel(_STAGE1_SPLIT))
    stage1.decoder = decoders.ByteLevel()
    stage1.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=_BYTES + transition, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=show_progress), length=len(lines))
    n1 = stage1.get_vocab_size(with_added_tokens=True)

    counts = Counter(c for line in lines for c in superbpe_chunks(line))
    chunks = list(counts)
    symbols = _Stage1(stage1, stage1_scope).symbols(chunks)

    def texts():
        for s, c in zip(symbols, counts.values()):
            if len(s) > 1:
                for _ in range(c):
                    yield s

    stage2 = HFTokenizer(models.BPE())       # no normalizer, no pre-tokenizer: one symbol string, one word
    stage2_trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=show_progress,
                                         initial_alphabet=_SYMBOLS[:n1])
    # the defaults, relied on: every stage-1 symbol is kept, and tokens may be of any length
    assert stage2_trainer.limit_alphabet is None and stage2_trainer.max_token_length is None
    stage2.train_from_iterator(texts() if vocab_size > n1 else iter(()), stage2_trainer)
    return SuperBPEPeer(stage1, stage2, stage1_scope=stage1_scope, transition_requested=transition,
                        vocab_size_requested=vocab_size)
