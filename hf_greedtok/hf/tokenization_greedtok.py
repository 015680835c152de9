"""GreedTokTokenizerFast: a GreedTok tokenizer as a transformers fast tokenizer.

Example:
    >>> import hf_greedtok                                   # registers with AutoTokenizer
    >>> from transformers import AutoTokenizer
    >>> tok = AutoTokenizer.from_pretrained("devil-tokenizer")   # doctest: +SKIP
    >>> tok(["The cynic", "is a blackguard."], padding=True, return_tensors="np")  # doctest: +SKIP

This file is also the remote code of every saved folder (``auto_map``): transformers copies it
next to ``tokenizer.json``, so it imports hf_greedtok absolutely and registers nothing.
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import numpy as np
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import AddedToken, processors
from transformers import PreTrainedTokenizerFast
from transformers.tokenization_utils_base import BatchEncoding, PaddingStrategy, TruncationStrategy

from hf_greedtok.atomic import atomic_write_text
from hf_greedtok.core import Tokenizer
from hf_greedtok.errors import GreedTokFileError
from hf_greedtok.formats.greedtok_json import FILE_NAME, verify_file_folder
from hf_greedtok.formats.manifest import write_save_manifest
from hf_greedtok.hf.bos_eos import flags_of_template, token_content
from hf_greedtok.hf.fast_path import LazyEncodingsBatch, Template, TruncationRefused, assemble, char_spans, \
    fast_plan, native_threads, template
from hf_greedtok.hf.folder import CONFIG_FILE, LOOKUP_FILE, TOKENIZER_FILE, TokenizerFolder, check_same_vocab
from hf_greedtok.hf.pipeline import (attach, attachment, backend_from_folder_json, backend_lock, build_backend,
                                     folder_json, native_added_tokens, refresh_decoder, standard_json)
from hf_greedtok.indic.lookup import MorphLookup
from hf_greedtok.models import MODES
from hf_greedtok.normalizers import replace_surrogates
from hf_greedtok.pre_tokenizers import ByteLevel, Metaspace, PreTokenizer
from hf_greedtok.special_tokens import check_special_tokens, counting_pipeline
from hf_greedtok.trainers.recorded import recorded_trainer
from hf_greedtok.word_counts import count_words


class _CustomStepBackend:
    """Calls into a backend with custom (Python) pre-tokenizer steps, serialized by its lock.

    tokenizers holds its read lock while a custom step waits for the GIL, so reconfiguring the
    backend (padding, truncation) from another thread at that moment deadlocks
    (:mod:`hf_greedtok.hf.pipeline`); every call that touches the backend takes the lock.
    ``save_pretrained`` writes the standard tokenizer.json (custom steps left out) next to the
    files of ``save_vocabulary``, from which the constructor re-attaches the steps.
    """

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path, *init_inputs, **kwargs):
        """transformers' ``from_pretrained`` (what ``AutoTokenizer.from_pretrained`` calls). A
        local folder is first opened by :class:`~hf_greedtok.hf.folder.TokenizerFolder`, as every
        other reader opens it: a missing or damaged file, a changed file, an unknown mode or a
        tokenizer.json and greedtok.json of two tokenizers raise
        :class:`~hf_greedtok.errors.GreedTokFileError` naming the file before transformers
        reads anything.

        Raises:
            GreedTokFileError: as :meth:`TokenizerFolder.open`; otherwise as transformers'.
        """
        path = pretrained_model_name_or_path
        if isinstance(path, (str, os.PathLike)) and not kwargs.get("subfolder") \
                and os.path.isfile(os.path.join(path, CONFIG_FILE)):
            folder = TokenizerFolder.open(path)
            if folder.is_greedtok and issubclass(cls, GreedTokTokenizerFast):
                kwargs.setdefault("greedtok", folder.greedtok())     # loaded once (seconds for 100K tokens)
        return super().from_pretrained(pretrained_model_name_or_path, *init_inputs, **kwargs)

    @classmethod
    def convert_to_native_format(cls, trust_remote_code=False, **kwargs):
        # transformers would parse tokenizer.json with plain tokenizers, which refuses a guarded
        # file (hf_pipeline.folder_json); read it ourselves and pass on what transformers takes
        # from it (BOS/EOS post-processor, padding, truncation). The constructor rebuilds the
        # backend itself.
        local = dict(kwargs)
        path = local.get("tokenizer_file")
        if path is not None and os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                stored = backend_from_folder_json(f.read())
            local.update(post_processor=stored.post_processor, tokenizer_padding=stored.padding,
                         tokenizer_truncation=stored.truncation)
            # transformers reads the flags as False: take the template's for those not given
            # (hf_greedtok.hf.bos_eos), so that setting one leaves the other
            flags = flags_of_template(stored, token_content(local.get("bos_token")),
                                      token_content(local.get("eos_token"))) or {}
            for flag, value in flags.items():
                local.setdefault(flag, value)
        return local

    def _encode_plus(self, text, text_pair=None, *args, **kwargs):
        with backend_lock(self._tokenizer):
            try:
                return super()._encode_plus(text, text_pair, *args, **kwargs)
            except TypeError:
                # tokenizers rejects str with lone surrogates ("TextInputSequence must be str");
                # retry once with them replaced, any other TypeError propagates unchanged.
                clean, clean_pair = _without_surrogates(text), _without_surrogates(text_pair)
                if clean == text and clean_pair == text_pair:
                    raise
                return super()._encode_plus(clean, clean_pair, *args, **kwargs)

    def _encode_without_added_tokens(self, text: str) -> list[int]:
        # The base version runs the Model on pre-tokenizer splits, which in cover mode would be
        # the Unigram (optimal) encoder; go through the whole pipeline instead.
        with backend_lock(self._tokenizer):
            backend = self._tokenizer
            special = backend.encode_special_tokens
            backend.encode_special_tokens = True
            try:
                return backend.encode(replace_surrogates(text), add_special_tokens=False).ids
            finally:
                backend.encode_special_tokens = special

    def _add_tokens(self, new_tokens, special_tokens: bool = False) -> int:
        with backend_lock(self._tokenizer):
            added = super()._add_tokens(new_tokens, special_tokens=special_tokens)
            refresh_decoder(self._tokenizer, self._pre_tokenizer())
            return added

    def _pre_tokenizer(self) -> PreTokenizer:
        """The native pre-tokenizer this backend implements (for the decoder's spaces)."""
        att = attachment(self._tokenizer)
        if att.tokenizer is not None:
            return att.tokenizer.pre_tokenizer
        return Metaspace(replacement=getattr(att.standard, "replacement", "\u2581"), units=att.units)

    def update_post_processor(self) -> None:
        with backend_lock(self._tokenizer):
            super().update_post_processor()

    def _decode(self, *args, **kwargs) -> str:
        with backend_lock(self._tokenizer):
            return super()._decode(*args, **kwargs)

    # ------------------------------------------------------------------ saving

    def _save_pretrained(self, save_directory, file_names, legacy_format=None, filename_prefix=None):
        prefix = filename_prefix + "-" if filename_prefix else ""
        tokenizer_json = Path(save_directory) / (prefix + TOKENIZER_FILE)
        atomic_write_text(tokenizer_json, folder_json(self._tokenizer))
        return tuple(file_names) + (str(tokenizer_json),) + self.save_vocabulary(save_directory, filename_prefix)


class GreedTokTokenizerFast(_CustomStepBackend, PreTrainedTokenizerFast):
    """A GreedTok tokenizer with the full transformers tokenizer API.

    Padding, truncation (with stride and overflow), text pairs, offsets (characters of the
    input), ``word_ids`` (one per pre-tokenized word), tensors, added and special tokens, chat
    templates and ``save_pretrained``/``push_to_hub`` behave as for any fast tokenizer.

    Args:
        vocab_file: path of the ranked token file ``greedtok.json`` (what ``from_pretrained``
            passes); or give ``greedtok``.
        greedtok: a trained :class:`hf_greedtok.Tokenizer` (e.g. from ``GreedTokTrainer``).
        mode: "cover" (GreedTok Algorithm 4, the partition the trainer optimised; a native
            step inside the HF pipeline) or "optimal" (fewest tokens; pure Rust Unigram);
            defaults to the file's mode.
        bos_token, eos_token, pad_token, unk_token: special tokens, as for any HF tokenizer;
            new ones are added after the vocabulary.
        add_bos_token, add_eos_token: add BOS/EOS through the post-processor.
        **kwargs: passed to ``PreTrainedTokenizerFast`` (``model_max_length``,
            ``padding_side``, ``chat_template``, ...).

    Raises:
        ValueError: unknown mode; neither ``vocab_file`` nor ``greedtok``; a ``tokenizer.json``
            whose vocabulary differs from the ranked token file.
        GreedTokFileError: the ranked token file is missing, truncated or corrupted.

    Speed: calls on one text or a batch of texts, text pairs or pre-split words (special
    tokens, truncation, overflowing rows with stride, padding, attention and special-tokens
    masks, token type ids, lengths, byte-level offsets, any ``return_tensors``) are encoded
    natively without the GIL on every core (``TOKENIZERS_PARALLELISM=false``: one) and padded
    in numpy (:mod:`hf_greedtok.hf.fast_path`); the result equals the backend's, and its
    ``encodings`` (``word_ids()``, ``tokens()``) are made by the backend on first use. Offsets
    of Metaspace or normalized text, and post-processors other than templates, go through the
    backend.
    ``native_batch_path = False`` sends every call through the backend.

    Lone surrogates in input text are encoded as U+FFFD (as :class:`hf_greedtok.Tokenizer`
    does). One instance may be shared by threads: backend calls are serialized by a lock, which
    is what keeps the custom step from deadlocking tokenizers (:mod:`hf_greedtok.hf.pipeline`);
    native calls run in parallel.
    """

    vocab_files_names = {"vocab_file": FILE_NAME}
    model_input_names = ["input_ids", "attention_mask"]
    #: Encode the common calls natively (hf_greedtok.hf.fast_path); False sends every call
    #: through the tokenizers backend (same results, slower).
    native_batch_path: bool = True

    def __init__(self, vocab_file: Optional[str] = None, *, greedtok: Optional[Tokenizer] = None,
                 mode: Optional[str] = None, **kwargs: Any) -> None:
        vocab = kwargs.pop("vocab", None)              # tokenizer.json's, from from_pretrained
        if kwargs.pop("tokenizer_object", None) is not None:
            raise ValueError("GreedTokTokenizerFast builds its own backend; pass vocab_file or greedtok, "
                             "not tokenizer_object")
        source = kwargs.get("name_or_path") or vocab_file or "<greedtok>"
        if vocab_file is not None and "tokenizer_file" in kwargs and kwargs["tokenizer_file"] is None:
            # from_pretrained passes tokenizer_file=None when the folder has no tokenizer.json
            raise GreedTokFileError(Path(vocab_file).with_name(TOKENIZER_FILE), (
                f"no such file: the folder is incomplete (it has {FILE_NAME} but not {TOKENIZER_FILE}); "
                f"a folder of Tokenizer.save loads with GreedTokTokenizerFast(greedtok=Tokenizer.load(folder))"))
        tokenizer_file = kwargs.pop("tokenizer_file", None)
        if greedtok is None:
            if vocab_file is None:
                raise ValueError(f"{source}: no ranked token file: GreedTokTokenizerFast needs "
                                 f"{FILE_NAME} (vocab_file=...) or greedtok=Tokenizer(...)")
            greedtok = Tokenizer.load(vocab_file, verify_folder=False)   # the manifest below
        mode = mode or greedtok.mode
        if mode not in MODES:
            raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
        if vocab is None and tokenizer_file is not None and os.path.isfile(tokenizer_file):
            with open(tokenizer_file, encoding="utf-8") as f:
                vocab = json.load(f).get("model", {}).get("vocab")
        if vocab is not None:
            check_same_vocab(vocab, greedtok, source)
        if vocab_file is not None:
            verify_file_folder(Path(vocab_file))   # after the checks above, whose messages say more
        self._tokenizer = build_backend(greedtok, mode)
        super().__init__(mode=mode, **kwargs)

    # ------------------------------------------------------------------ the native batch path

    def _encode_plus(self, text, text_pair=None, add_special_tokens: bool = True,
                     padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD,
                     truncation_strategy: TruncationStrategy = TruncationStrategy.DO_NOT_TRUNCATE,
                     max_length: Optional[int] = None, stride: int = 0, is_split_into_words: bool = False,
                     pad_to_multiple_of: Optional[int] = None, padding_side: Optional[str] = None,
                     return_tensors=None, return_token_type_ids: Optional[bool] = None,
                     return_attention_mask: Optional[bool] = None, return_overflowing_tokens: bool = False,
                     return_special_tokens_mask: bool = False, return_offsets_mapping: bool = False,
                     return_length: bool = False, verbose: bool = True,
                     split_special_tokens: Optional[bool] = None, **kwargs) -> BatchEncoding:
        # Every call transformers makes for tok(...), tok.encode(...) and encode_plus lands here.
        # The common ones run natively (fast_path); the backend path stays for the rest and makes
        # the encodings of native results when they are first used.
        args = dict(add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
                    truncation_strategy=truncation_strategy, max_length=max_length, stride=stride,
                    is_split_into_words=is_split_into_words, pad_to_multiple_of=pad_to_multiple_of,
                    padding_side=padding_side, return_tensors=return_tensors,
                    return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask,
                    return_overflowing_tokens=return_overflowing_tokens,
                    return_special_tokens_mask=return_special_tokens_mask,
                    return_offsets_mapping=return_offsets_mapping, return_length=return_length, verbose=verbose,
                    split_special_tokens=split_special_tokens)
        backend_call = functools.partial(super()._encode_plus, text, text_pair, **args, **kwargs)
        plan = fast_plan(self, text, text_pair, kwargs=kwargs, **args) if self.native_batch_path else None
        added = self._native_added_tokens() if plan is not None else None
        tpl = self._template(plan.pairs, plan.add_special_tokens) if added is not None else None
        if tpl is None:
            return backend_call()
        with backend_lock(self._tokenizer):
            # the backend is left configured as the backend path leaves it
            self.set_truncation_and_padding(padding_strategy=padding_strategy,
                                            truncation_strategy=truncation_strategy, max_length=max_length,
                                            stride=stride, pad_to_multiple_of=pad_to_multiple_of,
                                            padding_side=padding_side)
            if self._tokenizer.encode_special_tokens != (not plan.allow_special):
                self._tokenizer.encode_special_tokens = not plan.allow_special
        ids, offsets = self.greedtok.encode_batch_flat(plan.pieces, mode=self.mode, allow_special=plan.allow_special,
                                                       num_threads=native_threads(), added_tokens=added)
        spans = char_spans(plan.pieces, ids, offsets, self._token_byte_lengths(added)) \
            if plan.return_offsets_mapping else None
        try:
            data = assemble(plan, ids, offsets, tpl, self.pad_token_id, self.pad_token_type_id, spans)
        except TruncationRefused:
            data = None
        if data is None:
            return backend_call()          # raises tokenizers' own error, without ours as its context
        if verbose and max_length is None:
            rows = data["input_ids"]
            longest = rows.shape[1] if isinstance(rows, np.ndarray) else max(map(len, rows))
            self._eventual_warn_about_too_long_sequence(range(longest), max_length, verbose)
        as_rows = plan.batched or return_tensors is not None or plan.overflow
        if not as_rows:
            data = {k: (v[0] if len(v) > 0 and isinstance(v[0], list) else v) for k, v in data.items()}
        return LazyEncodingsBatch(data, lambda: backend_call().encodings, tensor_type=return_tensors,
                                  batched=as_rows, n_sequences=tpl.n_sequences)

    def _native_added_tokens(self) -> Optional[dict[str, int]]:
        """The backend's added tokens (string -> id) for the native matcher, or None when one of
        them needs the backend (lstrip, rstrip, single-word, not special, or matched after a
        normalizer)."""
        return native_added_tokens(self._tokenizer)

    def native_offsets(self) -> bool:
        """Whether the native path computes ``return_offsets_mapping`` itself: byte-level
        tokens of text that no normalizer changed spell the input byte for byte, and the
        post-processor (none, or a template) leaves offsets alone (RoBERTa's or ByteLevel's
        may trim them)."""
        g = self.greedtok
        return isinstance(g.pre_tokenizer, ByteLevel) and g.normalizer is None and self._template_post_processor()

    def native_overflow(self) -> bool:
        """Whether the native path computes ``stride`` and ``return_overflowing_tokens`` itself:
        it follows how tokenizers merges overflowing parts through a template (none, or
        TemplateProcessing); other post-processors order them their own way."""
        return self._template_post_processor()

    def _template_post_processor(self) -> bool:
        """The backend's post-processor is none or a TemplateProcessing: it adds special tokens
        and leaves offsets and overflowing parts as tokenizers' merge makes them."""
        pp = self._tokenizer.post_processor
        return pp is None or isinstance(pp, processors.TemplateProcessing)

    def _token_byte_lengths(self, added: dict[str, int]) -> np.ndarray:
        """Bytes of text each id spells (int64[max id + 1]), tokens added after training included."""
        key = frozenset(added.items())
        cached = self.__dict__.get("_byte_lengths_cache")
        if cached is None or cached[0] != key:
            lengths = self.greedtok.model.token_byte_lengths()
            top = max([len(lengths) - 1, *added.values()])
            lengths = np.concatenate([lengths, np.zeros(top + 1 - len(lengths), dtype=np.int64)])
            for content, i in added.items():
                lengths[i] = len(content.encode("utf-8"))
            cached = (key, lengths)
            self.__dict__["_byte_lengths_cache"] = cached
        return cached[1]

    def _template(self, pair: bool, add_special_tokens: bool) -> Optional[Template]:
        """The special tokens the post-processor adds around one text or a pair (cached by its
        state), or None when the post-processor does more than add them (the backend path
        applies it)."""
        pp = self._tokenizer.post_processor
        key = (pp.__getstate__() if pp is not None else None, pair, add_special_tokens)
        cache = self.__dict__.setdefault("_template_cache", {})
        if key not in cache:
            if len(cache) >= 16:        # a post-processor changed many times: keep the newest only
                cache.clear()
            cache[key] = template(pp, pair, add_special_tokens)
        return cache[key]

    # ------------------------------------------------------------------ GreedTok state

    @property
    def greedtok(self) -> Tokenizer:
        """The native tokenizer (ranked tokens, pre-tokenizer, both encoders)."""
        return attachment(self._tokenizer).tokenizer

    @property
    def mode(self) -> str:
        """"cover" or "optimal": the encoder this instance runs (fixed at construction)."""
        return attachment(self._tokenizer).mode

    @classmethod
    def from_greedtok(cls, greedtok: Tokenizer, **kwargs: Any) -> "GreedTokTokenizerFast":
        """Wrap a trained :class:`hf_greedtok.Tokenizer`; ``kwargs`` as for the constructor."""
        return cls(greedtok=greedtok, **kwargs)

    def save_vocabulary(self, save_directory: str, filename_prefix: Optional[str] = None) -> tuple[str]:
        path = Path(save_directory) / ((filename_prefix + "-" if filename_prefix else "") + FILE_NAME)
        # the mode this instance encodes with, which save_pretrained also writes to the config
        atomic_write_text(path, self.greedtok.to_json(mode=self.mode))
        return (str(path),)

    def save_pretrained(self, save_directory, legacy_format=None, filename_prefix=None, push_to_hub=False,
                        **kwargs):
        """transformers' ``save_pretrained``, then, as the last step, the folder manifest
        (sha256 of every file written; :mod:`hf_greedtok.formats.manifest`) that loaders verify."""
        files = super().save_pretrained(save_directory, legacy_format, filename_prefix, push_to_hub, **kwargs)
        if files is not None:
            # custom_object_save copied this module (the auto_map code) but does not report it
            write_save_manifest(save_directory, [*files, Path(save_directory) / Path(__file__).name],
                                filename_prefix)
        return files

    # ------------------------------------------------------------------ training

    def train_new_from_iterator(self, text_iterator: Iterable[Union[str, list[str]]], vocab_size: int,
                                length: Optional[int] = None, new_special_tokens=None,
                                special_tokens_map: Optional[dict[str, str]] = None,
                                **kwargs: Any) -> "GreedTokTokenizerFast":
        """Train a tokenizer of this one's kind on new text, with its pipeline, special tokens, mode and
        training settings (:func:`hf_greedtok.trainers.recorded.recorded_trainer`): a superword
        tokenizer is retrained by :class:`~hf_greedtok.trainers.superwords.GreedTokSuperwordTrainer`
        with its curriculum, a word-level one by GreedTok with its longest token and frequency floor.
        The new tokenizer keeps this one's special tokens, BOS/EOS template, tokens added by
        ``add_tokens`` (after the learned ones), chat template and other settings.

        Args:
            text_iterator: texts, or batches (lists) of texts, as for other fast tokenizers.
            vocab_size: the final vocabulary size, as in HF trainers: special tokens +
                singletons (256 bytes, or the alphabet + 256 byte-fallback tokens) + learned
                tokens.
            length: ignored (progress is shown by the word counter).
            new_special_tokens: extra special tokens for the new tokenizer.
            special_tokens_map: renames {old special token: new one}.
            **kwargs: trainer options that replace the recorded ones (``max_token_length``,
                ``min_frequency``, ``show_progress``; superwords: ``word_tokens``, ...), and
                ``num_proc``, the counting processes.

        Raises:
            ValueError: ``vocab_size`` leaves no room for learned tokens; an empty,
                whitespace-only or repeated token in ``new_special_tokens`` or among the
                values of ``special_tokens_map``.
            CorpusError: no text.

        Warns:
            VocabularySizeWarning: fewer ids than ``vocab_size`` (the text has too few candidates
                for it); ``greedtok.training_info["size_shortfall"]`` gives the cause.
        """
        rename = special_tokens_map or {}
        check_special_tokens(rename.values(), "special_tokens_map")
        old = self.greedtok
        specials = [rename.get(s, s) for s in old.model.special_tokens]
        added = check_special_tokens([str(t) for t in new_special_tokens or ()], "new_special_tokens")
        specials += [t for t in added if t not in specials]
        num_proc = kwargs.pop("num_proc", None)
        show = kwargs.pop("show_progress", False)
        texts = (t for item in text_iterator for t in ([item] if isinstance(item, str) else item))
        counts = count_words(texts, *counting_pipeline(old.pre_tokenizer, old.normalizer, specials),
                             num_proc=num_proc, show_progress=show)
        trainer = recorded_trainer(old, vocab_size=vocab_size, special_tokens=specials, show_progress=show, **kwargs)
        new = trainer.train_from_counts(counts, source="train_new_from_iterator")
        init = {key: value for key, value in self.init_kwargs.items()
                if key not in ("vocab_file", "name_or_path", "mode", "added_tokens_decoder",
                               "add_bos_token", "add_eos_token")}
        for attr in self.SPECIAL_TOKENS_ATTRIBUTES:
            value = getattr(self, attr, None)
            if value is not None:
                init[attr] = rename.get(str(value), str(value))
        retrained = type(self)(greedtok=new, mode=self.mode, add_bos_token=self.add_bos_token,
                               add_eos_token=self.add_eos_token, **init)
        # tokens added after training (add_tokens), kept as a stock Unigram tokenizer keeps them
        vocab = retrained.get_vocab()
        for _, token in sorted(self.added_tokens_decoder.items()):
            content = rename.get(token.content, token.content)
            if content not in vocab:
                retrained.add_tokens([AddedToken(content, single_word=token.single_word, lstrip=token.lstrip,
                                                 rstrip=token.rstrip, normalized=token.normalized,
                                                 special=token.special)], special_tokens=token.special)
        return retrained


def _without_surrogates(x):
    if isinstance(x, str):
        return replace_surrogates(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_without_surrogates(v) for v in x)
    return x


class MorphLookupTokenizerFast(_CustomStepBackend, PreTrainedTokenizerFast):
    """Any standard HF tokenizer (BPE, CBPE, ...) behind a morphology lookup pre-tokenizer.

    Words found in the lookup table are split into their morphological segments before the
    model runs (MorphTok Section 3.1.1; :class:`hf_greedtok.indic.lookup.MorphLookup`). The lookup
    is a custom pre-tokenizer step, so the folder holds the standard ``tokenizer.json`` (which
    alone does *not* apply the lookup, so it is guarded: plain ``tokenizers`` refuses it, see
    :func:`hf_greedtok.hf.pipeline.folder_json`) and ``morph_lookup.tsv``; load the folder with
    ``AutoTokenizer`` (after ``import hf_greedtok``, or with ``trust_remote_code=True``).

    Args:
        lookup_file: path of ``morph_lookup.tsv`` (what ``from_pretrained`` passes); or give
            ``lookup``.
        lookup: a :class:`MorphLookup`.
        units: "chars", "marks" or "vowels": lookup boundaries inside a unit are dropped.
        tokenizer_object: the backend (``tokenizers.Tokenizer``) when building from objects;
            ``from_pretrained`` passes ``tokenizer_file`` instead.
        **kwargs: as for ``PreTrainedTokenizerFast`` (special tokens, ``model_max_length``, ...).

    Raises:
        ValueError: no lookup, no backend, or unknown units.
        CorpusError: a malformed lookup file (line number given).
    """

    vocab_files_names = {"lookup_file": LOOKUP_FILE, "tokenizer_file": TOKENIZER_FILE}
    model_input_names = ["input_ids", "attention_mask"]

    def __init__(self, lookup_file: Optional[str] = None, *, lookup: Optional[MorphLookup] = None,
                 units: str = "chars", tokenizer_object: Optional[HFTokenizer] = None, **kwargs: Any) -> None:
        tokenizer_file = kwargs.pop("tokenizer_file", None)
        for key in ("vocab", "merges"):          # tokenizer.json's, passed by from_pretrained
            kwargs.pop(key, None)
        if units not in ("chars", "marks", "vowels"):
            raise ValueError(f"units must be 'chars', 'marks' or 'vowels', got {units!r}")
        if lookup is None:
            if lookup_file is None:
                raise ValueError(f"MorphLookupTokenizerFast needs {LOOKUP_FILE} (lookup_file=...) or lookup=...")
            lookup = MorphLookup.load(lookup_file, normalizer=None)   # saved entries are normalized already
        if tokenizer_file is None and lookup_file is not None:
            # transformers 5 parses tokenizer.json itself and passes its pieces, not the path;
            # from_pretrained resolves every file of vocab_files_names into one folder.
            tokenizer_file = str(Path(lookup_file).with_name(TOKENIZER_FILE))
        if tokenizer_object is not None:
            text = standard_json(tokenizer_object)
        elif tokenizer_file is not None and os.path.isfile(tokenizer_file):
            with open(tokenizer_file, encoding="utf-8") as f:
                text = f.read()
        else:
            raise ValueError(f"MorphLookupTokenizerFast needs {TOKENIZER_FILE} (tokenizer_file=...) or tokenizer_object")
        self._tokenizer = attach(backend_from_folder_json(text), None, None, lookup=lookup, units=units)
        super().__init__(units=units, **kwargs)

    @property
    def lookup(self) -> MorphLookup:
        """The morphology lookup table."""
        return attachment(self._tokenizer).lookup

    @property
    def units(self) -> str:
        """The unit kind whose boundaries the lookup respects."""
        return attachment(self._tokenizer).units

    def save_vocabulary(self, save_directory: str, filename_prefix: Optional[str] = None) -> tuple[str]:
        path = Path(save_directory) / ((filename_prefix + "-" if filename_prefix else "") + LOOKUP_FILE)
        return (str(self.lookup.save_tsv(path)),)


GreedTokTokenizerFast.register_for_auto_class("AutoTokenizer")
MorphLookupTokenizerFast.register_for_auto_class("AutoTokenizer")
