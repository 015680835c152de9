"""A GreedTok tokenizer as an HF ``tokenizers.Tokenizer`` (the backend of GreedTokTokenizerFast).

The backend is made of standard, serializable components:

* normalizer: ``normalizers.NFC`` (etc.) or none;
* pre-tokenizer: what the pre-tokenizer says it exports to (``hf_normalizers``,
  ``hf_pre_tokenizer``, ``hf_decoder`` of :class:`hf_greedtok.pre_tokenizers.PreTokenizer`): byte
  level = ``Split(regex, "isolated")`` + ``ByteLevel(use_regex=False)`` (the same words as
  :class:`hf_greedtok.ByteLevel`); Metaspace = normalizers ``Prepend("▁")`` and
  ``Replace(" ", "▁")``, then ``Metaspace(prepend_scheme="never")``;
* model: ``Unigram`` over the whole vocabulary in id order, every ordinary piece scored -1.0,
  so its Viterbi returns the fewest tokens with the longest last token on ties: exactly our
  ``optimal`` encoder (special and ``<0xNN>`` pieces score -1e6 so text never selects them;
  Metaspace keeps Unigram's byte fallback for characters outside the alphabet);
* decoder: ``ByteLevel``, or Llama's ``Replace`` + ``ByteFallback`` + ``Fuse`` + ``Strip``;
  post-processor: ``TemplateProcessing``.

``optimal`` mode is that file alone, pure Rust. ``cover`` mode (GreedTok Algorithm 4) cannot be
a ``tokenizers`` Model, so one custom step is appended to the pre-tokenizer:
:class:`GreedTokPreTokenizer` assigns the final tokens of every word with ``pretok.tokenize``
(byte offsets, one word id per word), and the Model never runs. Custom steps cannot be
serialized by ``tokenizers``; :func:`standard_json` writes the file with the step removed, and a
``copyreg`` reducer registered here makes such backends picklable, deep-copyable and hashable by
``datasets`` (rebuilt from that JSON and the ranked tokens).

Threads: a backend with a custom step must not be reconfigured (padding, truncation,
pre-tokenizer) by one thread while another encodes with it: tokenizers holds its read lock
while waiting for the GIL the step needs.
Every backend built here carries a lock (:func:`backend_lock`); GreedTokTokenizerFast takes it
around each call, which makes that deadlock impossible through the transformers API.
"""
from __future__ import annotations

import copyreg
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Sequence, Union

from tokenizers import AddedToken, Encoding, Token
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

from ..atomic import atomic_write_text
from ..core import Tokenizer
from ..formats.folder_files import GUARDED_VERSION
from ..models import MODES, Mode
from ..normalizers import UnicodeNormalizer
from ..pre_tokenizers import PreTokenizer, bytes_to_unicode

if TYPE_CHECKING:
    from ..indic.lookup import MorphLookup

PIECE_SCORE = -1.0
# Pieces text must never select (special tokens, <0xNN> byte fallback): Viterbi avoids them
# because a single-unit path always exists.
UNSELECTABLE_SCORE = -1e6
WORD_CACHE_LIMIT = 1 << 16     # words; about 25 MB of cached tokenizers.Token lists
WORD_CACHE_MAX_CHARS = 256     # longer words are rarely repeated, and one long line would stay

# byte-level display character -> the latin-1 character of the same byte value
_DISPLAY_TO_LATIN1 = str.maketrans({c: chr(b) for b, c in bytes_to_unicode().items()})


def _check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
    return mode  # type: ignore[return-value]


def _check_supported(tok: Tokenizer) -> None:
    if not tok.pre_tokenizer.exports_to_hf:
        raise ValueError(f"the {type(tok.pre_tokenizer).__name__} pre-tokenizer has no HF export; "
                         "only tokenizers trained by hf-greedtok (byte level or Metaspace) do")
    strings = tok.model._id_to_str
    if None in strings:
        raise ValueError(f"ids must be contiguous for an HF export, but id {strings.index(None)} of "
                         f"{len(strings)} is unused")
    if tok.model.vocab_size != len(strings):
        first: dict[str, int] = {}
        for i, s in enumerate(strings):
            if s in first:
                raise ValueError(f"token string {s!r} is both id {first[s]} and id {i}; an HF tokenizer "
                                 "needs distinct token strings")
            first[s] = i


def pure_optimal_problem(tok: Tokenizer) -> Optional[str]:
    """Why no standard ``tokenizer.json`` can encode exactly like ``tok``'s ``optimal`` mode on
    every text, or None when the pure Unigram file is exact (see :func:`standard_pre_tokenizer`)."""
    if tok.pre_tokenizer.lookup is not None:
        return "the morphology lookup is a custom pre-tokenizer step"
    single = [s for s in tok.model.special_tokens if len(s) == 1]
    if single:
        # A lone character is one Unigram piece: with special tokens disabled
        # (encode_special_tokens) it would still become the special id, not the text's tokens.
        return f"the special token {single[0]!r} is a single character"
    return None


# ---------------------------------------------------------------------- standard components

def unigram_vocab(tok: Tokenizer) -> list[tuple[str, float]]:
    """(piece, score) in id order: the Unigram model's vocabulary, length ``vocab_size``.

    Script-aware units: a singleton that attaches to the unit before it (a lone mark or vowel
    sign: the fallback for units never seen in training) scores below every path that keeps
    seen units whole. Replacing the token that ends inside a unit (at most L units, the longest
    ranked token) and the lone sign by whole units adds at most L pieces, so the score
    -(L + 2) per lone sign makes Viterbi use one only where the native encoders do: inside an
    unseen unit, after its longest seen prefix."""
    m = tok.model
    low = set(m.special_token_ids.values())
    scores = {}
    if m.unit_kind != "bytes":
        low.update(m.byte_fallback_ids)
    if m.splitter is not None:
        longest = max((len(m.splitter.split(t)) for t in m.ranked_tokens), default=1)
        fallback = -(longest + 2.0)
        scores = {m.token_to_id(u): fallback for u in m.alphabet if len(u) == 1 and m.splitter.attaches(u)}
    return [(s, UNSELECTABLE_SCORE if i in low else scores.get(i, PIECE_SCORE)) for i, s in enumerate(m._id_to_str)]


def standard_normalizer(pre: PreTokenizer, normalizer: Optional[UnicodeNormalizer] = None
                        ) -> Optional[normalizers.Normalizer]:
    """Unicode form, then the pre-tokenizer's own steps (:meth:`PreTokenizer.hf_normalizers`;
    Metaspace: "▁" for spaces and a "▁" always prepended)."""
    steps = [] if normalizer is None else [getattr(normalizers, normalizer.form)()]
    steps += pre.hf_normalizers()
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else normalizers.Sequence(steps)


def standard_pre_tokenizer(pre: PreTokenizer, alphabet: Optional[Iterable[str]] = None
                           ) -> pre_tokenizers.PreTokenizer:
    """The serializable pre-tokenizer giving the same words as ``pre``
    (:meth:`PreTokenizer.hf_pre_tokenizer`; its morphology lookup, if any, is the custom step
    :class:`MorphLookupPreTokenizer`). ``alphabet``: the model's singleton units, for the pure
    Unigram export, which isolates the characters outside them (Metaspace)."""
    return pre.hf_pre_tokenizer(alphabet)


def standard_decoder(pre: PreTokenizer, special_tokens: Sequence[str] = ()) -> decoders.Decoder:
    """The decoder inverting the pre-tokenizer (:meth:`PreTokenizer.hf_decoder`):
    ``decode(encode(x)) == x`` as for ``tok``. Metaspace's also drops the "▁" prepended to the
    text after each of ``special_tokens``.
    """
    return pre.hf_decoder(special_tokens)


def special_added_tokens(backend: HFTokenizer) -> list[str]:
    """Contents of the special added tokens of ``backend``, in id order."""
    added = backend.get_added_tokens_decoder()
    return [added[i].content for i in sorted(added) if added[i].special]


def refresh_decoder(backend: HFTokenizer, pre: PreTokenizer) -> None:
    """Rebuild ``backend``'s decoder for its current special tokens (after tokens were added,
    e.g. by transformers' ``add_special_tokens``), so text after a new special token decodes
    without an extra space."""
    if pre.decoder_follows_special_tokens:
        backend.decoder = standard_decoder(pre, special_added_tokens(backend))


def template_post_processor(bos: Optional[tuple[str, int]] = None,
                            eos: Optional[tuple[str, int]] = None) -> processors.TemplateProcessing:
    """``[BOS] $A [EOS]`` (pairs: ``[BOS] $A [EOS] [BOS] $B [EOS]``) with the given (token, id)."""
    b = f"{bos[0]}:0 " if bos else ""
    e = f" {eos[0]}:0" if eos else ""
    single = f"{b}$A:0{e}"
    pair = f"{single} {b.replace(':0', ':1')}$B:1{e.replace(':0', ':1')}"
    return processors.TemplateProcessing(single=single, pair=pair,
                                         special_tokens=[t for t in (bos, eos) if t])


def native_added_tokens(backend: HFTokenizer) -> Optional[dict[str, int]]:
    """A backend's added tokens (string -> id) for the native matcher of
    :meth:`hf_greedtok.Tokenizer.encode_batch_flat`, or None when one of them needs the backend
    (lstrip, rstrip, single-word, not special, or matched after a normalizer)."""
    normalizer = backend.normalizer is not None
    added = {}
    for i, t in backend.get_added_tokens_decoder().items():
        if t.lstrip or t.rstrip or t.single_word or not t.special or (t.normalized and normalizer):
            return None
        added[t.content] = i
    return added


@dataclass(frozen=True)
class Template:
    """What a post-processor puts around the sequences of one row: ``runs[k]`` special ids (with
    ``run_types[k]`` type ids) before sequence k and, last, after the last one; each sequence's
    tokens get ``content_types[k]``. One sequence: (prefix, suffix); a pair: (prefix, middle,
    suffix)."""

    runs: tuple[tuple[int, ...], ...]
    run_types: tuple[tuple[int, ...], ...]
    content_types: tuple[int, ...]

    @property
    def n_special(self) -> int:
        return sum(map(len, self.runs))

    @property
    def n_sequences(self) -> int:
        return len(self.content_types)


def template(post_processor, pair: bool, add_special_tokens: bool) -> Optional[Template]:
    """The special tokens ``post_processor`` (any ``tokenizers`` post-processor, or None) adds
    around one sequence or a pair, read from the backend's output on a two-token probe per
    sequence; None when it does more than wrap the sequences (then only the backend can apply
    it). Type ids included: without a template, a pair's second sequence has type 1."""
    probe = HFTokenizer(models.WordLevel({"a": 0, "b": 1}, unk_token="a"))
    probe.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if post_processor is not None:
        probe.post_processor = post_processor
    contents = ([0, 1], [1, 0]) if pair else ([0, 1],)
    out: Encoding = probe.encode("a b", "b a" if pair else None, add_special_tokens=add_special_tokens)
    ids, types, special = out.ids, out.type_ids, out.special_tokens_mask
    runs, run_types, content_types = [], [], []
    at = 0
    for content in contents:
        # the content is what the special-tokens mask leaves: each probe sequence, once, whole
        start = at
        while at < len(ids) and special[at]:
            at += 1
        if ids[at:at + 2] != content or special[at:at + 2] != [0, 0] or types[at] != types[at + 1]:
            return None
        runs.append(tuple(ids[start:at]))
        run_types.append(tuple(types[start:at]))
        content_types.append(types[at])
        at += 2
    if 0 in special[at:]:
        return None
    runs.append(tuple(ids[at:]))
    run_types.append(tuple(types[at:]))
    return Template(tuple(runs), tuple(run_types), tuple(content_types))


# ---------------------------------------------------------------------- the cover step

class _WordCache(dict):
    """word (as the HF pre-tokenizer shows it) -> list[tokenizers.Token]; misses are encoded.

    A dict subclass so that hits cost one C-level lookup when HF calls ``cache.__getitem__``.
    """

    def __init__(self, tok: Tokenizer, mode: Mode) -> None:
        super().__init__()
        m = tok.model
        self._encode = m.encoder.encode_word if m.splitter is None \
            else (lambda word, mode: m.encode_words([word], mode)[0].tolist())
        self._mode = mode
        self._byte_level = m.unit_kind == "bytes"
        self._values = m._id_to_str
        # UTF-8 length of each token in the HF pre-tokenizer's normalized string
        self._span = [0 if s is None else len(s.encode("utf-8")) for s in m._id_to_str]
        self._byte_ids = {} if self._byte_level else {i: b for b, i in enumerate(m.byte_fallback_ids)}

    def __missing__(self, word: str) -> list[Token]:
        if len(self) >= WORD_CACHE_LIMIT:
            self.clear()
        units = word.translate(_DISPLAY_TO_LATIN1).encode("latin-1") if self._byte_level else word
        ids = self._encode(units, self._mode)
        tokens = []
        pos = 0
        if self._byte_level:
            for i in ids:
                end = pos + self._span[i]
                tokens.append(Token(i, self._values[i], (pos, end)))
                pos = end
        else:
            pending = 0                 # byte-fallback tokens left in the current character
            for i in ids:
                b = self._byte_ids.get(i)
                if b is None:
                    end = pos + self._span[i]
                    tokens.append(Token(i, self._values[i], (pos, end)))
                    pos = end
                    continue
                if pending == 0:        # a lead byte: every byte token spans the whole character
                    width = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
                    pending = width
                tokens.append(Token(i, self._values[i], (pos, pos + width)))
                pending -= 1
                if pending == 0:
                    pos += width
        if len(word) <= WORD_CACHE_MAX_CHARS:
            self[word] = tokens
        return tokens


class GreedTokPreTokenizer:
    """Custom pre-tokenizer step that assigns GreedTok's tokens to every pre-tokenized word.

    Use it last in a ``pre_tokenizers.Sequence`` after the standard steps of
    :func:`standard_pre_tokenizer`, wrapped with ``PreTokenizer.custom``. Each word keeps one
    word id; token offsets are byte offsets in the word, as ``pretok.tokenize`` requires.

    Args:
        tok: the GreedTok tokenizer whose model encodes the words.
        mode: "cover" (GreedTok Algorithm 4) or "optimal" (minimum-token DP).

    Raises:
        ValueError: unknown mode.
    """

    def __init__(self, tok: Tokenizer, mode: Mode = "cover") -> None:
        self.mode = _check_mode(mode)
        self._cache = _WordCache(tok, self.mode)

    def pre_tokenize(self, pretok) -> None:
        pretok.tokenize(self._cache.__getitem__)


class MorphLookupPreTokenizer:
    """Custom pre-tokenizer step that splits words found in a morphology lookup table.

    Use it after the standard Metaspace split, wrapped with ``PreTokenizer.custom``: each word
    is cut with :meth:`hf_greedtok.indic.lookup.MorphLookup.split_word` (MorphTok Section 3.1.1),
    so segment boundaries become pre-token boundaries; nothing is inserted, so decoding
    restores the text exactly. Offsets stay those of the input.

    Args:
        lookup: the table.
        units: "chars", or "marks"/"vowels" (boundaries inside a unit are dropped).
        replacement: the Metaspace space character the words start with.
    """

    def __init__(self, lookup: "MorphLookup", units: str = "chars", replacement: str = "\u2581") -> None:
        self.lookup, self.units, self.replacement = lookup, units, replacement

    def _split(self, i: int, word):
        pieces = self.lookup.split_word(str(word), self.units, self.replacement)
        if len(pieces) == 1:
            return [word]
        out, pos = [], 0
        for piece in pieces:
            out.append(word[pos:pos + len(piece)])
            pos += len(piece)
        return out

    def pre_tokenize(self, pretok) -> None:
        pretok.split(self._split)


@dataclass
class _Attachment:
    """What a backend with custom steps needs to be serialized and rebuilt."""

    tokenizer: Optional[Tokenizer]          # the GreedTok model (None: a BPE backend with a lookup)
    mode: Optional[Mode]
    lock: threading.RLock
    lookup: Optional["MorphLookup"] = None
    units: str = "chars"
    standard: Optional[pre_tokenizers.PreTokenizer] = None   # set when custom steps are present


def build_backend(tok: Tokenizer, mode: Mode = "cover") -> HFTokenizer:
    """The ``tokenizers.Tokenizer`` that encodes like ``tok.encode(text, mode=mode)``.

    ``optimal`` gives a standard backend when one is exact (:func:`pure_optimal_problem`);
    ``cover``, and ``optimal`` otherwise, append :class:`GreedTokPreTokenizer`; a morphology
    lookup adds :class:`MorphLookupPreTokenizer` after the Metaspace split.
    No post-processor is set (transformers sets BOS/EOS); special tokens are added as special
    added tokens with their GreedTok ids.

    Raises:
        ValueError: unknown mode, or a tokenizer with no HF form (foreign pre-tokenizer,
            non-contiguous ids).
    """
    _check_mode(mode)
    _check_supported(tok)
    backend = HFTokenizer(models.Unigram(unigram_vocab(tok), unk_id=_unk_id(tok),
                                         byte_fallback=tok.model.unit_kind != "bytes"))
    backend.normalizer = standard_normalizer(tok.pre_tokenizer, tok.normalizer)
    pure = mode == "optimal" and pure_optimal_problem(tok) is None
    backend.pre_tokenizer = standard_pre_tokenizer(tok.pre_tokenizer, tok.model.alphabet if pure else None)
    backend.decoder = standard_decoder(tok.pre_tokenizer, tok.model.special_tokens)
    if tok.model.special_tokens:
        backend.add_special_tokens([AddedToken(s, special=True, normalized=False)
                                    for s in tok.model.special_tokens])
    return attach(backend, tok, mode)


def _unk_id(tok: Tokenizer) -> Optional[int]:
    # Unigram needs an unk id before byte fallback can replace unknown characters; the
    # fallback always succeeds (all 256 <0xNN> pieces exist), so this id is never emitted.
    return tok.model.byte_fallback_ids[0] if tok.model.unit_kind != "bytes" else None


def attach(backend: HFTokenizer, tok: Optional[Tokenizer], mode: Optional[Mode], *,
           lookup: Optional["MorphLookup"] = None, units: str = "chars") -> HFTokenizer:
    """Give ``backend`` (standard components) its custom steps and a lock; returns it.

    With ``tok``: GreedTok's encoder of ``mode`` (and ``tok``'s lookup, if any). Without:
    only ``lookup`` (a BPE backend with a morphology lookup, split by ``units``).
    """
    if tok is not None and tok.pre_tokenizer.lookup is not None:
        lookup, units = tok.pre_tokenizer.lookup, tok.pre_tokenizer.unit_kind
    standard = backend.pre_tokenizer
    steps = []
    if lookup is not None:
        replacement = getattr(standard, "replacement", "\u2581")
        steps.append(MorphLookupPreTokenizer(lookup, units, replacement))
    if tok is not None and (mode == "cover" or pure_optimal_problem(tok) is not None):
        steps.append(GreedTokPreTokenizer(tok, mode))
    if steps:
        backend.pre_tokenizer = pre_tokenizers.Sequence(
            [standard, *(pre_tokenizers.PreTokenizer.custom(step) for step in steps)])
    backend._greedtok = _Attachment(tok, mode, threading.RLock(), lookup, units, standard if steps else None)
    return backend


def attachment(backend: HFTokenizer) -> Optional[_Attachment]:
    """The state of a backend from :func:`build_backend`/:func:`attach` (tokenizer, mode, lock, lookup), or None."""
    return backend.__dict__.get("_greedtok")


def backend_lock(backend: HFTokenizer) -> threading.RLock:
    """The lock to hold while encoding with or reconfiguring ``backend``."""
    att = attachment(backend)
    if att is None:
        raise ValueError("not a backend built by hf_greedtok.hf.pipeline.build_backend or attach")
    return att.lock


def standard_json(backend: HFTokenizer) -> str:
    """``backend`` as tokenizer.json text, the custom steps (if any) left out.

    For GreedTok the result is a pure Unigram tokenizer: exactly the ``optimal`` encoder
    (without the morphology lookup, which has no standard component).
    """
    att = attachment(backend)
    if att is None or att.standard is None:
        return backend.to_str()
    with att.lock:
        custom = backend.pre_tokenizer
        backend.pre_tokenizer = att.standard
        try:
            return backend.to_str()
        finally:
            backend.pre_tokenizer = custom


_TOKENIZERS_VERSION = "1.0"


def folder_json(backend: HFTokenizer) -> str:
    """The ``tokenizer.json`` text of a saved folder.

    A backend made of standard components only (``optimal`` mode, CBPE) is written as is and
    loads anywhere with the same ids. A backend with custom steps (``cover`` mode, a lookup)
    has no standard equivalent: its standard part alone would be a *different* tokenizer, so
    its ``version`` is set to :data:`GUARDED_VERSION` and plain ``tokenizers`` (and transformers
    without this package, or a folder missing ``tokenizer_config.json``) refuse it with that
    message instead of silently encoding otherwise. :func:`backend_from_folder_json` reads both.
    """
    text = standard_json(backend)
    att = attachment(backend)
    if att is None or att.standard is None:
        return text
    data = json.loads(text)
    data["version"] = GUARDED_VERSION
    return json.dumps(data, ensure_ascii=False)


def backend_from_folder_json(text: str) -> HFTokenizer:
    """The standard backend stored by :func:`folder_json` (guarded or not), without custom steps.

    Raises:
        Exception: as ``tokenizers.Tokenizer.from_str`` for text that is not a tokenizer file.
    """
    data = json.loads(text)
    if isinstance(data, dict) and data.get("version") == GUARDED_VERSION:
        data["version"] = _TOKENIZERS_VERSION
        text = json.dumps(data, ensure_ascii=False)
    return HFTokenizer.from_str(text)


def _rebuild_backend(tokenizer_json: str, tok: Optional[Tokenizer], mode: Optional[Mode],
                     lookup: Optional["MorphLookup"] = None, units: str = "chars") -> HFTokenizer:
    return attach(HFTokenizer.from_str(tokenizer_json), tok, mode, lookup=lookup, units=units)


def _reduce_backend(backend: HFTokenizer):
    att = attachment(backend)
    if att is None:
        return backend.__reduce_ex__(2)
    return (_rebuild_backend, (standard_json(backend), att.tokenizer, att.mode, att.lookup, att.units))


# pickle, copy.deepcopy, dill (datasets' multiprocess) and datasets' fingerprint Hasher all
# consult copyreg's dispatch table; the Rust class cannot be subclassed or given __reduce__.
copyreg.pickle(HFTokenizer, _reduce_backend)


def export_optimal_tokenizer_json(tok: Tokenizer, path: Union[str, Path], *,
                                  bos_token: Optional[str] = None,
                                  eos_token: Optional[str] = None) -> Path:
    """Write a standard ``tokenizer.json`` that encodes exactly like ``tok`` in ``optimal`` mode.

    It loads with ``tokenizers.Tokenizer.from_file`` or ``AutoTokenizer`` with no custom code
    (Unigram, all scores equal; see the module docstring). ``bos_token``/``eos_token`` must be
    special tokens of ``tok``; they are added by a ``TemplateProcessing`` post-processor.
    The file is written atomically.

    Raises:
        ValueError: bos/eos not among the special tokens, a tokenizer no standard file can
            reproduce exactly (:func:`pure_optimal_problem`: a morphology lookup, a special token
            of one character), or a tokenizer with no HF form.
    """
    problem = pure_optimal_problem(tok)
    if problem is not None:
        raise ValueError(f"no pure tokenizer.json encodes exactly like this tokenizer: {problem}; "
                         "save it with GreedTokTokenizerFast instead")
    backend = build_backend(tok, "optimal")
    ids = tok.model.special_token_ids
    ends = []
    for name, t in (("bos_token", bos_token), ("eos_token", eos_token)):
        if t is not None and t not in ids:
            raise ValueError(f"{name} {t!r} is not a special token of this tokenizer "
                             f"(special tokens: {tok.model.special_tokens})")
        ends.append((t, ids[t]) if t is not None else None)
    backend.post_processor = template_post_processor(*ends)
    path = Path(path)
    atomic_write_text(path, json.dumps(json.loads(backend.to_str()), ensure_ascii=False, indent=2) + "\n")
    return path
