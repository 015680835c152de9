"""Special tokens: one validation rule and one text splitter, shared by training and encoding.

Encoding (:meth:`hf_greedtok.Tokenizer.encode`, and HF's ``AddedToken(normalized=False)`` in the
exported ``tokenizer.json``) cuts special-token strings out of the *raw* text, leftmost and, at
one position, longest first, and normalizes and pre-tokenizes each remaining part on its own.
A trainer that counted words on the unsplit text would learn tokens such as
``'▁foo<|endoftext|>bar'`` that encoding can never produce, and its objective would not be the
token count of its own corpus. :class:`SpecialSplitPreTokenizer` gives the word counters of
:mod:`hf_greedtok.word_counts` exactly the words encoding sees.

Example:
    >>> from hf_greedtok.pre_tokenizers import Metaspace
    >>> pre = SpecialSplitPreTokenizer(Metaspace(), ("<|endoftext|>",))
    >>> pre.pre_tokenize("foo<|endoftext|>bar baz")
    ['▁foo', '▁bar', '▁baz']
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Optional

import regex

from .errors import CorpusError
from .normalizers import UnicodeNormalizer
from .pre_tokenizers import PreTokenizer


def check_special_tokens(tokens: Iterable[Any], argument: str = "special_tokens") -> list[str]:
    """The special tokens as a list, after checking each one.

    Args:
        tokens: the special token strings, in id order.
        argument: the name to give in error messages (the caller's argument or CLI flag).

    Raises:
        ValueError: a token that is not a str, an empty or whitespace-only token (it would be
            cut out of every text at every position or every space), or a token listed twice;
            the message names ``argument``, the position and the token.
    """
    out: list[str] = []
    seen: set[str] = set()
    for k, token in enumerate(tokens):
        if not isinstance(token, str):
            raise ValueError(f"{argument}[{k}] is {type(token).__name__} {token!r}, expected a str")
        if not token.strip():
            what = "empty" if not token else "whitespace only"
            raise ValueError(f"{argument}[{k}] {token!r} is {what}: a special token needs a "
                             "character that is not whitespace")
        if token in seen:
            raise ValueError(f"{argument} lists {token!r} twice")
        seen.add(token)
        out.append(token)
    return out


def special_token_regex(tokens: Iterable[str]) -> Optional["regex.Pattern[str]"]:
    """The splitter of encoding and training, or None without special tokens.

    ``pattern.split(text)`` gives the text parts at even positions and the special tokens found
    at odd positions. Alternatives are tried longest first, so where one special token is a
    prefix of another the longer one wins (leftmost-longest, as HF's added-token matcher).
    """
    ordered = sorted(tokens, key=len, reverse=True)
    if not ordered:
        return None
    return regex.compile("(" + "|".join(regex.escape(s) for s in ordered) + ")")


@dataclass(frozen=True)
class SpecialSplitPreTokenizer:
    """A pre-tokenizer for word counting that drops special tokens as encoding does.

    ``pre_tokenize(text)`` splits the raw ``text`` with :func:`special_token_regex`, normalizes
    each part with ``normalizer`` and pre-tokenizes it with ``pre_tokenizer``, and drops the
    special tokens: the words of :meth:`hf_greedtok.Tokenizer.encode` (``allow_special=True``)
    for the same text. The normalizer therefore belongs here and the word counter must get
    ``normalizer=None`` (:func:`counting_pipeline` arranges that). Every other attribute
    (``unit_kind``, ``word_units``, ...) is the wrapped pre-tokenizer's. Picklable, for the
    counting worker processes.

    Args:
        pre_tokenizer: the trainer's pre-tokenizer (:class:`ByteLevel`, :class:`Metaspace`).
        special_tokens: the special token strings (checked with :func:`check_special_tokens`).
        normalizer: the trainer's normalizer, or None.

    Raises:
        ValueError: invalid special tokens (see :func:`check_special_tokens`).
    """

    pre_tokenizer: PreTokenizer
    special_tokens: tuple[str, ...]
    normalizer: Optional[UnicodeNormalizer] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", tuple(check_special_tokens(self.special_tokens)))

    @functools.cached_property
    def _split(self):
        pattern = special_token_regex(self.special_tokens)
        return pattern.split if pattern is not None else (lambda text: [text])

    def _words(self, part: str) -> list[str]:
        return self.pre_tokenizer.pre_tokenize(self.normalizer(part) if self.normalizer else part)

    def pre_tokenize(self, text: str) -> list[str]:
        """Words of ``text`` without its special tokens (every part pre-tokenized alone)."""
        words: list[str] = []
        for part in self._split(text)[::2]:
            if part:
                words.extend(self._words(part))
        return words

    def count_table_word(self, word: str, prefix_space: bool) -> list[str]:
        """Words of one count-table entry: the text it stands for, as the wrapped pre-tokenizer
        reads it (:meth:`PreTokenizer.count_table_word`), split as by :meth:`pre_tokenize`."""
        return self.pre_tokenizer.count_table_word(word, prefix_space, split=self.pre_tokenize)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the wrapper lacks; private and dunder names are not delegated
        # so that pickling (which probes __setstate__ before the fields exist) cannot recurse.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.pre_tokenizer, name)


def counting_pipeline(pre_tokenizer: PreTokenizer, normalizer: Optional[UnicodeNormalizer],
                      special_tokens: Iterable[str]) -> tuple[Any, Optional[UnicodeNormalizer]]:
    """(pre-tokenizer, normalizer) to give the counters of :mod:`hf_greedtok.word_counts` so that
    they count the words encoding sees: the inputs unchanged without special tokens, otherwise a
    :class:`SpecialSplitPreTokenizer` holding the normalizer, and None."""
    specials = tuple(special_tokens)
    if not specials:
        return pre_tokenizer, normalizer
    return SpecialSplitPreTokenizer(pre_tokenizer, specials, normalizer), None


def check_counted_words(words: Iterable[str], special_tokens: Iterable[str],
                        normalizer: Optional[UnicodeNormalizer], source: str) -> None:
    """Check that words given to a trainer were counted with :func:`counting_pipeline`.

    A word containing a special token string cannot come from that pipeline unless the
    normalizer made it (NFKC turns fullwidth forms into ASCII), and encoding never emits it.

    Raises:
        CorpusError: such a word without a normalizer (``source`` and the word named).

    Warns:
        UserWarning: such a word with a normalizer, which may have made it.
    """
    pattern = special_token_regex(special_tokens)
    if pattern is None:
        return
    for word in words:
        m = pattern.search(word) if isinstance(word, str) else None
        if m is None:
            continue
        problem = (f"word {word!r} contains the special token {m.group(0)!r}, which encoding always cuts "
                   "out of the text, so training on it can learn tokens encoding never emits; count the "
                   "corpus with the trainer's counting_pipeline() (as its train* methods do)")
        if normalizer is None:
            raise CorpusError(source, None, problem)
        warnings.warn(f"{source}: {problem}, unless the normalizer made it", stacklevel=3)
        return
