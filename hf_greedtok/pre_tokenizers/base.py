"""What every pre-tokenizer says about itself: the protocol the rest of the package asks.

A pre-tokenizer cuts text into words and each word into its singletons (the paper's set B), and
is used identically for counting, training and encoding. Beyond that, it answers for itself:

* its singletons (:attr:`PreTokenizer.unit_kind`, :meth:`~PreTokenizer.word_units`) and how its
  tokens are shown (:meth:`~PreTokenizer.token_to_str`, :meth:`~PreTokenizer.str_to_token`);
* how it reads a count table's entries (:meth:`~PreTokenizer.count_table_word`);
* which native scanner splits its text (:attr:`~PreTokenizer.native_pattern`);
* how its tokens decode (:meth:`~PreTokenizer.token_decoder`, and whether they spell the text
  byte for byte, :attr:`~PreTokenizer.tokens_spell_text`);
* how it exports itself to HF ``tokenizers`` (:meth:`~PreTokenizer.hf_normalizers`,
  :meth:`~PreTokenizer.hf_pre_tokenizer`, :meth:`~PreTokenizer.hf_decoder`);
* how it is saved (:meth:`~PreTokenizer.to_dict`, :meth:`~PreTokenizer.from_dict`, under the
  "type" :attr:`~PreTokenizer.kind`).

So the pipeline, the HF export and the experiments ask the component and never test its class.
A new pre-tokenizer is one module of this package holding a subclass of :class:`PreTokenizer`,
and one registration: its class in :data:`hf_greedtok.pre_tokenizers.kinds.KINDS` (which
``from_dict`` reads).
"""
from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Optional, Sequence, Union

if TYPE_CHECKING:
    from ..decoders import MetaspaceDecoder
    from ..indic.lookup import MorphLookup

#: A token or word as the native encoders take it: bytes (byte level) or str (characters, units).
Token = Union[bytes, str]


class PreTokenizer(abc.ABC):
    """The protocol of this package's pre-tokenizers (see the module docstring).

    Subclasses define the abstract methods and :attr:`kind`; the other members have defaults that
    fit a pre-tokenizer with no native scanner, no morphology lookup and no token decoder.
    ``unit_kind`` may be a class attribute or a property.
    """

    #: The "type" of :meth:`to_dict`, under which :mod:`.kinds` registers the class.
    kind: ClassVar[str]
    #: What a word's singletons are: "bytes", "chars", or the script-aware units "marks"/"vowels"
    #: of :mod:`hf_greedtok.indic.units`. The model's ``unit_kind`` must be the same.
    unit_kind: str
    #: The morphology lookup (:class:`~hf_greedtok.indic.lookup.MorphLookup`) that cuts known
    #: words into segments, or None. It has no standard HF component: an HF export runs it as a
    #: custom step, and no pure ``tokenizer.json`` can hold it.
    lookup: Optional["MorphLookup"] = None
    #: The ``PATTERN_*`` id of the native scanner (:mod:`hf_greedtok._pretokenize`) that splits
    #: this pre-tokenizer's text exactly as :meth:`pre_tokenize` does, or -1: it splits in Python
    #: (then the encoders take its words, not whole texts).
    native_pattern: int = -1
    #: Whether a text's tokens, concatenated, are the text's UTF-8 bytes (no symbol inserted, no
    #: normalization), so offsets follow from token lengths alone.
    tokens_spell_text: ClassVar[bool] = False
    #: Whether :meth:`hf_decoder` depends on the special tokens (then a tokenizer rebuilds its
    #: decoder when special tokens are added).
    decoder_follows_special_tokens: ClassVar[bool] = False
    #: Whether :meth:`hf_pre_tokenizer` and :meth:`hf_decoder` exist for this kind (False for a
    #: foreign vocabulary's own pre-tokenizer, which only encodes).
    exports_to_hf: ClassVar[bool] = True

    # ------------------------------------------------------------------ words and singletons

    @abc.abstractmethod
    def pre_tokenize(self, text: str) -> list:
        """The words of ``text`` (str, or bytes for a foreign vocabulary's), in order."""

    @abc.abstractmethod
    def word_units(self, word: Any) -> Union[Token, tuple[str, ...]]:
        """The singletons of one word: its UTF-8 bytes, the word itself (characters), or a tuple
        of unit strings; what the trainer and the encoders take."""

    @abc.abstractmethod
    def token_to_str(self, token: Token) -> str:
        """The readable form of a token (the vocabulary's string, e.g. b" the" -> "Ġthe")."""

    @abc.abstractmethod
    def str_to_token(self, text: str) -> Token:
        """Inverse of :meth:`token_to_str`."""

    def count_table_word(self, word: str, prefix_space: bool, split=None) -> list[str]:
        """The words of one ``word<TAB>count`` entry of a count table: by default the entry read
        as text, after a space if ``prefix_space``.

        Args:
            word: the entry's word.
            prefix_space: read it as following a space in running text (where the kind has a
                notion of that).
            split: the function cutting text into words; default :meth:`pre_tokenize`. A wrapper
                that cuts special tokens out first (:class:`hf_greedtok.special_tokens.SpecialSplitPreTokenizer`)
                passes its own, so only the reading of the entry comes from here.
        """
        return (split or self.pre_tokenize)(" " + word if prefix_space else word)

    @property
    def label(self) -> str:
        """How reports name this pre-tokenizer (e.g. "byte level, split GPT-4 regex")."""
        return type(self).__name__

    @property
    def table_split(self) -> str:
        """The split a count table of this pre-tokenizer's words records
        (:mod:`hf_greedtok.formats.count_table`): its kind by default."""
        return self.kind

    # ------------------------------------------------------------------ decoding

    def token_decoder(self, special_tokens: Sequence[str] = ()) -> Optional["MetaspaceDecoder"]:
        """The decoder of token strings (its ``decode(tokens) -> str``; ``special_tokens`` are
        the model's), or None when tokens decode as the bytes they stand for."""
        return None

    # ------------------------------------------------------------------ HF tokenizers export

    def hf_normalizers(self) -> list:
        """The ``tokenizers.normalizers`` steps this pre-tokenizer needs before its HF
        pre-tokenizer, after any Unicode normalization (none by default)."""
        return []

    @abc.abstractmethod
    def hf_pre_tokenizer(self, alphabet: Optional[Iterable[str]] = None):
        """The serializable ``tokenizers.pre_tokenizers.PreTokenizer`` giving the same words
        (without the :attr:`lookup`, which is a custom step).

        Args:
            alphabet: the model's singleton units, given when the export must equal the native
                ``optimal`` encoder as a pure Unigram file: a kind whose singletons may miss a
                character then makes each character outside them a word of its own. Kinds whose
                singletons cover every character (bytes) ignore it.

        Raises:
            ValueError: the kind has no HF export (:attr:`exports_to_hf` is False).
        """

    @abc.abstractmethod
    def hf_decoder(self, special_tokens: Sequence[str] = ()):
        """The ``tokenizers.decoders.Decoder`` inverting this pre-tokenizer, so that
        ``decode(encode(x)) == x`` as natively; ``special_tokens`` are the tokenizer's (see
        :attr:`decoder_follows_special_tokens`).

        Raises:
            ValueError: the kind has no HF export (:attr:`exports_to_hf` is False).
        """

    # ------------------------------------------------------------------ files

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The saved form (the "pre_tokenizer" section of ``greedtok.json``): a JSON object with
        "type" = :attr:`kind` and the fields :meth:`from_dict` reads."""

    @classmethod
    @abc.abstractmethod
    def from_dict(cls, spec: dict[str, Any]) -> "PreTokenizer":
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidSpec, ValueError: a field with a bad value. KeyError: a required field is missing.
        """
