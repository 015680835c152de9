"""The tokenizer pipeline: normalizer -> pre-tokenizer -> model (cover | optimal) -> decoder.

Example:
    >>> from hf_greedtok import Tokenizer
    >>> tok = Tokenizer.load("devil-tokenizer")             # doctest: +SKIP
    >>> ids = tok.encode("The cynic is a blackguard.")       # doctest: +SKIP
    >>> tok.decode(ids)                                      # doctest: +SKIP
    'The cynic is a blackguard.'
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from ._rows import views as _row_views
from .decoders import MetaspaceDecoder
from .errors import AddedTokensWarning, GreedTokFileError, InvalidSpec
from .formats import folder_files, greedtok_json
from .formats.arrow_rows import list_array
from .models import MODES, GreedTokModel, Mode
from .normalizers import UnicodeNormalizer, check_normalizer, normalizer_from_name
from .pre_tokenizers import ByteLevel, PreTokenizer, check_pre_tokenizer, pre_tokenizer_from_dict
from .special_tokens import special_token_regex

if TYPE_CHECKING:
    import pyarrow as pa
    import regex


class Tokenizer:
    """A GreedTok tokenizer: the same pre-tokenization at training and encoding time.

    Args:
        model: the ranked vocabulary and its encoders.
        pre_tokenizer: :class:`ByteLevel` or :class:`Metaspace`; its unit kind must match
            the model's.
        normalizer: optional Unicode normalization (then ``decode(encode(x))`` is the
            normalized ``x``).
        mode: default encoder, "cover" (GreedTok Algorithm 4, what the trainer optimised)
            or "optimal" (fewest tokens for the same vocabulary).
        training_info: what the trainer recorded (objective, k, options), saved with the file.
        cache_words: frequent words of the training text (the trainer keeps up to 16,384),
            saved with the file; loading a file (or unpickling, as ``datasets.map`` workers do)
            encodes them into the native word cache, so a fresh process's first batch finds
            its common words cached.

    Raises:
        ValueError: unknown mode, or pre-tokenizer and model disagree on the singletons.
        TypeError: a pre-tokenizer or normalizer of another library (use :class:`ByteLevel`,
            :class:`Metaspace`, :class:`UnicodeNormalizer`).
    """

    def __init__(self, model: GreedTokModel, pre_tokenizer: PreTokenizer, *,
                 normalizer: Optional[UnicodeNormalizer] = None, mode: Mode = "cover",
                 training_info: Optional[dict] = None, cache_words: Sequence[str] = ()) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        pre_tokenizer = check_pre_tokenizer(pre_tokenizer, "Tokenizer")
        normalizer = check_normalizer(normalizer, "Tokenizer")
        if pre_tokenizer.unit_kind != model.unit_kind:
            raise ValueError(f"pre-tokenizer has {pre_tokenizer.unit_kind} singletons but the "
                             f"model has {model.unit_kind}")
        self.model = model
        self.pre_tokenizer = pre_tokenizer
        self.normalizer = normalizer
        self.mode: Mode = mode
        self.training_info = dict(training_info or {})
        self.cache_words: tuple[str, ...] = tuple(cache_words)
        self._special_split = special_token_regex(model.special_tokens)
        # the native batch path: split and encode without the GIL (the splits with a native scanner)
        self._native_pattern = pre_tokenizer.native_pattern

    # ------------------------------------------------------------------ encoding

    def pre_tokenize(self, text: str) -> list[str]:
        """Normalize and split ``text`` into words (no special-token handling)."""
        if self.normalizer is not None:
            text = self.normalizer(text)
        return self.pre_tokenizer.pre_tokenize(text)

    def _special_matcher(self, allow_special: bool, added_tokens: Optional[Mapping[str, int]]
                         ) -> tuple[Optional["regex.Pattern[str]"], Mapping[str, int]]:
        """The special-token splitter of one call and the ids of what it finds."""
        if not allow_special:
            return None, {}
        if added_tokens is None:
            return self._special_split, self.model.special_token_ids
        return _added_token_regex(frozenset(added_tokens)), added_tokens

    def _segments(self, text: str, special: Optional["regex.Pattern[str]"],
                  ids: Mapping[str, int]) -> list[Union[str, int]]:
        """Words of text, with the special tokens ``special`` finds replaced by their ids."""
        if special is None:
            return list(self.pre_tokenize(text))
        out: list[Union[str, int]] = []
        for k, part in enumerate(special.split(text)):
            if k % 2:
                out.append(ids[part])
            elif part:
                out.extend(self.pre_tokenize(part))
        return out

    def encode(self, text: str, *, mode: Optional[Mode] = None, allow_special: bool = True) -> list[int]:
        """Token ids of ``text``.

        Args:
            text: any string; lone surrogates are encoded as U+FFFD.
            mode: "cover" or "optimal"; defaults to ``self.mode``.
            allow_special: if true (HF's default), special token strings in the text become
                their ids; if false they are encoded as ordinary text.

        Raises:
            ValueError: unknown mode.
        """
        return self.encode_batch([text], mode=mode, allow_special=allow_special)[0].tolist()

    def encode_batch(self, texts: Sequence[str], *, mode: Optional[Mode] = None,
                     allow_special: bool = True, num_threads: int = 1) -> list[np.ndarray]:
        """Token ids of each text as int32 arrays (views of one buffer: :meth:`encode_batch_flat`).

        Raises:
            ValueError: unknown mode. TypeError: a text is not str.
        """
        ids, offsets = self.encode_batch_flat(texts, mode=mode, allow_special=allow_special,
                                              num_threads=num_threads)
        return _row_views(ids, offsets)

    def encode_batch_arrow(self, texts: Sequence[str], *, mode: Optional[Mode] = None,
                           allow_special: bool = True, num_threads: int = 1) -> "pa.ListArray":
        """Token ids of each text as one ``pyarrow.ListArray`` (``list<int32>``, a row per text):
        :meth:`encode_batch_flat`'s ids buffer is the list's values, not copied, and no Python
        object is made per token or per text. The column type ``datasets`` writes for
        ``input_ids``: return it from a ``Dataset.map(..., batched=True)`` function on Arrow
        batches (``ds.with_format("arrow")``) to write ids without Python lists.

        Example:
            >>> tok.encode_batch_arrow(["The cynic", "is"]).to_pylist()    # doctest: +SKIP

        Raises:
            ValueError: unknown mode, or more than 2**31 - 1 ids in the batch (an Arrow list
                column's limit: encode smaller batches). TypeError: a text is not str.
            ImportError: pyarrow is not installed (it comes with ``datasets``).
        """
        ids, offsets = self.encode_batch_flat(texts, mode=mode, allow_special=allow_special,
                                              num_threads=num_threads)
        return list_array(ids, offsets)

    def encode_batch_flat(self, texts: Sequence[str], *, mode: Optional[Mode] = None,
                          allow_special: bool = True, num_threads: int = 1,
                          added_tokens: Optional[Mapping[str, int]] = None) -> tuple[np.ndarray, np.ndarray]:
        """Token ids of a batch in one buffer: (ids int32[T], offsets int64[len(texts) + 1]), text
        t's ids being ``ids[offsets[t]:offsets[t+1]]``; the fastest way to encode many texts.

        With a byte-level pattern we ship (gpt4/cl100k, gpt2/r50k, o200k, whitespace, gpt4-marks,
        superwords, superwords-digits: :data:`~hf_greedtok.pre_tokenizers.patterns.SPLITS`) each text is split and
        encoded natively without the GIL, from its first character to its last id, on
        ``num_threads`` threads (slices of about equal characters, a text longer than a thread's
        share and than 1 MB cut into spans right after a line feed between two non-spaces; the
        ids do not depend on the thread count). Other pre-tokenizers split in Python and encode
        the words natively.

        ``added_tokens`` (string -> id) replaces the model's special tokens as what is matched in
        the text, before normalizing and leftmost-longest, as HF's special added tokens are
        (GreedTokTokenizerFast passes its backend's, which may include tokens added after
        training); ``allow_special=False`` matches none.

        Example:
            >>> ids, offsets = tok.encode_batch_flat(["The cynic", "is a blackguard."])  # doctest: +SKIP
            >>> ids[offsets[1]:offsets[2]]                                              # doctest: +SKIP

        Raises:
            ValueError: unknown mode. TypeError: a text is not str.
            MemoryError: the native buffers could not be allocated.
        """
        mode = mode or self.mode
        texts = texts if isinstance(texts, (list, tuple)) else list(texts)
        special, special_ids = self._special_matcher(allow_special, added_tokens)
        if self._native_pattern >= 0:       # checks the types natively, with the same message
            return self._encode_flat_native(texts, mode, special, special_ids, num_threads)
        _check_texts(texts)
        segments: list[Union[str, int]] = []
        bounds = [0]
        for text in texts:
            segments.extend(self._segments(text, special, special_ids))
            bounds.append(len(segments))
        specials = any(isinstance(s, int) for s in segments)
        words = ["" if isinstance(s, int) else s for s in segments] if specials else segments
        ids, offsets = self.model.encode_words(words, mode, num_threads)
        if specials:
            ids, offsets = _splice_specials(ids, offsets, segments)
        return ids, offsets[bounds]

    def _encode_flat_native(self, texts: Sequence[str], mode: Mode, special: Optional["regex.Pattern[str]"],
                            special_ids: Mapping[str, int], num_threads: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`encode_batch_flat` through the native splitter: the same ids as splitting in
        Python. Python runs per text (normalizer, special-token search), never per word."""
        norm = self.normalizer
        # One search over the joined batch: no match there means none in any text (a match
        # across a joint only sends the batch through the per-text split below).
        if special is not None:
            try:
                joined = "\x00".join(texts)
            except TypeError:
                _check_texts(texts)
                raise
        if special is None or not special.search(joined):
            if norm is not None:
                _check_texts(texts)
                texts = [norm(t) for t in texts]
            return self.model.encode_texts(texts, self._native_pattern, mode, num_threads)
        # Texts holding special tokens: encode the runs between them, then put the specials' ids
        # in. As in _segments, specials are found in the text as given and each run is normalized
        # on its own (NFKC must not turn a full-width look-alike into a special token).
        pieces: list[str] = []
        plans: list[list[Union[int, str]]] = []      # per text: piece indices (int) and specials (str)
        for text in texts:
            plan: list[Union[int, str]] = []
            for k, part in enumerate(special.split(text)):
                if k % 2:
                    plan.append(part)
                elif part:
                    plan.append(len(pieces))
                    pieces.append(norm(part) if norm is not None else part)
            plans.append(plan)
        ids, offsets = self.model.encode_texts(pieces, self._native_pattern, mode, num_threads)
        parts, lengths = [], []
        for plan in plans:
            n = 0
            for p in plan:
                part = ids[offsets[p]:offsets[p + 1]] if isinstance(p, int) \
                    else np.array([special_ids[p]], dtype=np.int32)
                parts.append(part)
                n += len(part)
            lengths.append(n)
        flat = np.concatenate(parts) if parts else ids[:0]
        bounds = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=bounds[1:])
        return flat, bounds

    def encode_words(self, words: Sequence[str], *, mode: Optional[Mode] = None,
                     num_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Encode already pre-tokenized words: (ids int32[T], offsets int64[len(words) + 1])."""
        return self.model.encode_words(words, mode or self.mode, num_threads)

    def tokenize(self, text: str, *, mode: Optional[Mode] = None) -> list[str]:
        """Token strings of ``text`` (byte level shows bytes as in HF: "Ġthe")."""
        return [self.model.id_to_token(i) for i in self.encode(text, mode=mode)]

    # ------------------------------------------------------------------ decoding

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> str:
        """Text of ``ids``; inverts :meth:`encode` exactly (invalid UTF-8 from a partial
        sequence is shown as U+FFFD). Metaspace tokenizers decode as their HF decoder does
        (:class:`hf_greedtok.decoders.MetaspaceDecoder`), so ``"<pad>x"`` comes back as itself.

        Raises:
            ValueError: an id outside the vocabulary.
        """
        decoder = self.pre_tokenizer.token_decoder(self.model.special_tokens)
        if decoder is not None:
            return decoder.decode(self.model.decode_tokens(ids, skip_special_tokens))
        return self.model.decode_bytes(ids, skip_special_tokens).decode("utf-8", errors="replace")

    @property
    def decoder(self) -> MetaspaceDecoder:
        """The pre-tokenizer's token decoder (Metaspace: drops the space encoding prepends to each
        text run, also after special tokens); byte-level tokenizers decode bytes directly and have
        none."""
        decoder = self.pre_tokenizer.token_decoder(self.model.special_tokens)
        if decoder is None:
            raise AttributeError("byte-level tokenizers decode bytes directly and have no token decoder")
        return decoder

    # ------------------------------------------------------------------ vocabulary

    @property
    def vocab_size(self) -> int:
        return self.model.vocab_size

    def get_vocab(self) -> dict[str, int]:
        return self.model.get_vocab()

    def token_to_id(self, token: str) -> Optional[int]:
        return self.model.token_to_id(token)

    def id_to_token(self, i: int) -> Optional[str]:
        return self.model.id_to_token(i)

    # ------------------------------------------------------------------ files

    def to_dict(self) -> dict:
        """The sections of ``greedtok.json`` (:mod:`hf_greedtok.formats.greedtok_json`):
        "normalizer", "pre_tokenizer", "model", "mode", "training" and, if any, "cache_words"."""
        sections = {"normalizer": self.normalizer.form if self.normalizer else None,
                    "pre_tokenizer": self.pre_tokenizer.to_dict(), "model": self.model.to_dict(),
                    "mode": self.mode, "training": self.training_info}
        if self.cache_words:        # optional: files without it (and readers before 0.2) stay valid
            sections["cache_words"] = list(self.cache_words)
        return sections

    @classmethod
    def from_dict(cls, sections: dict) -> "Tokenizer":
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidSpec, KeyError, ValueError: a malformed section (file readers report them
                as :class:`~hf_greedtok.errors.GreedTokFileError` naming the file).
        """
        return _from_sections(cls, sections, GreedTokModel.from_dict(sections["model"]))

    def to_json(self, *, mode: Optional[Mode] = None) -> str:
        """The text of ``greedtok.json`` for this tokenizer (deterministic); ``mode`` replaces
        the recorded default encoder (a transformers folder writes its config's mode there too).

        Raises:
            ValueError: unknown mode.
        """
        sections = self.to_dict()
        if mode is not None:
            if mode not in MODES:
                raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
            sections["mode"] = mode
        return greedtok_json.dumps(sections)

    @classmethod
    def from_json(cls, text: str, path: Union[str, os.PathLike] = "<string>") -> "Tokenizer":
        """Parse the text of a ``greedtok.json``; ``path`` only names the source in errors.

        Raises:
            GreedTokFileError: not JSON, not ours, an unsupported version, a checksum mismatch
                or a malformed section.
        """
        return greedtok_json.loads(text, cls.from_dict, Path(path))

    def save(self, directory: Union[str, os.PathLike]) -> Path:
        """Write ``greedtok.json`` into ``directory`` (created if missing) atomically, then the
        folder's manifest; returns the file's path.

        Raises:
            FileExistsError: ``directory`` holds another tokenizer's files (a transformers folder
                that ``hf-greedtok train`` or ``save_pretrained`` wrote), which the new file would
                contradict; save to a new folder, or use
                ``GreedTokTokenizerFast.from_greedtok(tok).save_pretrained(directory)``.
        """
        folder_files.refuse_foreign_files(Path(directory))
        return greedtok_json.save(self.to_dict(), Path(directory))

    @classmethod
    def load(cls, path: Union[str, os.PathLike], *, verify_folder: bool = True) -> "Tokenizer":
        """Load a directory (or its ``greedtok.json``) written by :meth:`save`, ``hf-greedtok
        train`` or ``save_pretrained``, then check the folder's manifest unless
        ``verify_folder`` is false.

        A transformers folder (with tokenizer_config.json or tokenizer.json) is opened as every
        reader opens it (:mod:`hf_greedtok.formats.folder_files`): its files and manifest
        checked, tokenizer.json's vocabulary, normalizer and split compared with greedtok.json's,
        and its ``mode`` the one the config records. The tokenizer is the GreedTok model: it
        adds no BOS/EOS (the post-processor's, which ``AutoTokenizer`` adds) and knows no token
        added after training; a folder holding such tokens loads with an
        :class:`~hf_greedtok.errors.AddedTokensWarning`.

        Raises:
            GreedTokFileError: missing, corrupted or foreign file, a file the folder's manifest
                lists is missing or changed, tokenizer.json and greedtok.json of two tokenizers,
                or a folder of another tokenizer class; the message names the file.
        """
        path = Path(path)
        folder = path if path.is_dir() else path.parent
        transformers_files = (folder_files.CONFIG_FILE, folder_files.TOKENIZER_FILE)
        if verify_folder and (path.is_dir() or path.name == greedtok_json.FILE_NAME) \
                and any((folder / name).is_file() for name in transformers_files):
            config, _, content, tok = cls._open_folder(folder)
            if tok is None:
                raise GreedTokFileError(folder / folder_files.CONFIG_FILE,
                                        f"a {config.get('tokenizer_class')} folder, not a GreedTok one; load it "
                                        "with AutoTokenizer.from_pretrained")
            unknown = [t.get("content") for t in (content or {}).get("added_tokens", [])
                       if tok.token_to_id(t.get("content")) is None]
            if unknown:
                warnings.warn(AddedTokensWarning(
                    f"{folder}: tokenizer.json holds {len(unknown)} token(s) added after training "
                    f"({', '.join(map(repr, unknown[:5]))}{', ...' if len(unknown) > 5 else ''}) that the GreedTok "
                    "model does not know, so Tokenizer.load encodes text holding them with other ids; "
                    "AutoTokenizer.from_pretrained, FolderEncoder and hf-greedtok encode apply them"), stacklevel=2)
            return tok
        return greedtok_json.load(path, cls.from_dict, verify_folder=verify_folder)

    @classmethod
    def _open_folder(cls, folder: Path) -> tuple[Optional[dict], Optional[str], Optional[dict], Optional["Tokenizer"]]:
        """:func:`~hf_greedtok.formats.folder_files.open_folder` with this class's loader: how
        ``load`` and :class:`~hf_greedtok.hf.folder.TokenizerFolder` open a folder."""
        return folder_files.open_folder(folder, lambda p: cls.load(p, verify_folder=False))

    @classmethod
    def from_tiktoken(cls, path: Union[str, os.PathLike], pattern: Optional[str] = None) -> "Tokenizer":
        """Encoder over a tiktoken ``.tiktoken`` file, rank = priority, ids = tiktoken's ranks,
        as the GreedTok paper does with cl100k_base.

        The file holds no split pattern. OpenAI's files (cl100k_base, o200k_base, r50k_base,
        p50k_base) are recognised by their SHA-256 and get the pattern their vocabulary was made
        with, so cover ids equal tiktoken's own; any other file needs ``pattern``: "gpt4",
        "gpt2", "o200k", "whitespace" or a pattern string (given for a known file, it wins).

        Example:
            >>> Tokenizer.from_tiktoken("cl100k_base.tiktoken").encode("hello world")  # doctest: +SKIP
            [15339, 1917]

        Raises:
            GreedTokFileError: unreadable or malformed file, a vocabulary without all 256 bytes,
                or an unknown file without ``pattern``.
            ImportError: tiktoken is not installed (``pip install hf-greedtok[foreign]``).
        """
        from .formats.foreign import known_tiktoken_file, tiktoken_model
        path = Path(path)
        model = tiktoken_model(path)
        known = known_tiktoken_file(path)
        if pattern is None:
            if known is None:
                raise GreedTokFileError(path, "is not one of OpenAI's tiktoken files (cl100k_base, o200k_base, "
                                              "r50k_base, p50k_base) and a tiktoken file holds no split pattern: "
                                              "give the one its vocabulary was made with (pattern= 'gpt4', 'gpt2', "
                                              "'o200k' or a regex; --pattern on the command line)")
            pattern = known[1]
        info = {"source": str(path), "foreign": "tiktoken"}
        if known is not None:
            info["vocabulary"] = known[0]
        return cls(model, ByteLevel(pattern=pattern), training_info=info)

    @classmethod
    def from_hf_bpe(cls, path: Union[str, os.PathLike]) -> "Tokenizer":
        """Encoder over a byte-level HF BPE ``tokenizer.json``: merge order = priority, ids
        unchanged; the file's own normalizer and pre-tokenizer split words exactly as HF does.

        Raises:
            GreedTokFileError: not JSON, not a byte-level BPE model, or a byte missing from the
                vocabulary.
        """
        from .formats.foreign import hf_bpe_model
        path = Path(path)
        model, pre_tokenizer = hf_bpe_model(path)
        return cls(model, pre_tokenizer, training_info={"source": str(path), "foreign": "hf-bpe"})

    def __reduce__(self):
        # Pickle as the file's JSON text: deterministic, so datasets fingerprints are stable.
        text = self.to_json()
        _remember_pickled(text, self)
        return (_unpickle_tokenizer, (text,))

    def __repr__(self) -> str:
        return (f"Tokenizer(vocab_size={self.vocab_size}, ranked={len(self.model.ranked_tokens)}, "
                f"singletons={self.model.unit_kind}, pre_tokenizer={type(self.pre_tokenizer).__name__}, "
                f"mode={self.mode!r})")


# Tokenizers this process pickled, by the digest of their JSON text: (pid, weak reference).
# A forked child (the workers of datasets.map(num_proc=...), multiprocessing, DataLoader) that
# unpickles one of them takes the model it inherited, whose native encoder and word cache are
# already built (and warm if the parent encoded), instead of parsing and rebuilding them; the
# model is never changed after construction, and the child's copy of it is its own.
_PICKLED: dict[bytes, tuple[int, "weakref.ref[Tokenizer]"]] = {}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _remember_pickled(text: str, tok: Tokenizer) -> None:
    key = _digest(text)

    def forget(ref, key=key) -> None:
        if _PICKLED.get(key, (0, None))[1] is ref:
            del _PICKLED[key]
    _PICKLED[key] = (os.getpid(), weakref.ref(tok, forget))


def _from_sections(cls: type[Tokenizer], sections: dict, model: GreedTokModel) -> Tokenizer:
    words = sections.get("cache_words", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise InvalidSpec("cache_words must be a list of strings")
    tok = cls(model, pre_tokenizer_from_dict(sections["pre_tokenizer"]),
              normalizer=normalizer_from_name(sections.get("normalizer")),
              mode=sections.get("mode", "cover"), training_info=sections.get("training"), cache_words=words)
    if words and tok._native_pattern >= 0:
        # each word is its own text: the native split gives it back whole, and its ids land in
        # the cache that single-threaded batches use (slot 0)
        model.encode_texts(words, tok._native_pattern, tok.mode)
    return tok


def _unpickle_tokenizer(text: str) -> Tokenizer:
    """A pickled Tokenizer: in a fork of the process that pickled it, with the model it
    inherited (everything else, which may have changed since, is read from the text); anywhere
    else parsed from the text."""
    pid, ref = _PICKLED.get(_digest(text), (os.getpid(), None))
    parent = ref() if ref is not None and pid != os.getpid() else None
    if parent is None:
        return Tokenizer.from_json(text)
    # the digest matched the text the parent wrote itself: no envelope or checksum to verify
    return _from_sections(Tokenizer, json.loads(text), parent.model)


def _check_texts(texts: Sequence) -> None:
    """Raises TypeError naming the first item of ``texts`` that is not a str (subclasses are)."""
    if set(map(type, texts)) <= {str}:
        return
    for k, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text {k} is {type(text).__name__}, expected str")


@functools.lru_cache(maxsize=64)
def _added_token_regex(tokens: frozenset[str]) -> Optional["regex.Pattern[str]"]:
    # GreedTokTokenizerFast passes the same few added-token sets call after call
    return special_token_regex(tokens)


def _splice_specials(ids: np.ndarray, offsets: np.ndarray,
                     segments: list[Union[str, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Put special-token ids where their placeholder (empty) words were encoded."""
    counts = np.diff(offsets)
    pieces = []
    new_counts = counts.copy()
    for k, s in enumerate(segments):
        if not isinstance(s, int):
            pieces.append(ids[offsets[k]:offsets[k + 1]])
        else:
            pieces.append(np.array([s], dtype=np.int32))
            new_counts[k] = 1
    new_offsets = np.zeros_like(offsets)
    np.cumsum(new_counts, out=new_offsets[1:])
    return (np.concatenate(pieces) if pieces else ids), new_offsets
