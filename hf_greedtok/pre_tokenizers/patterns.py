"""The split patterns we ship, in one registry: each split's name, regex, aliases, report label,
native scanner id and the OpenAI vocabularies made with it.

Every other place reads them from here: :class:`~hf_greedtok.pre_tokenizers.ByteLevel` (its
``pattern`` argument and its native scanner), the command line's ``--pattern`` choices, the
reports of the experiments, and the recognition of OpenAI's tiktoken files. The native scanners
(``src_ext/hf_greedtok/_pretokenize.pyx``) are numbered by ``PATTERN_*`` ids of their own;
``native_id`` below is that id, and tests/pre_tokenizers/test_native_split.py checks both that the numbers agree
and that each scanner splits exactly as ``regex.findall`` does with the regex here.

This module imports nothing, so ``hf-greedtok --help`` can list the splits without loading the
pre-tokenizers (tiktoken keeps each pattern once in the same way, in
``tiktoken_ext/openai_public.py``).

Example:
    >>> SPLITS_BY_NAME["cl100k"] is GPT4
    True
    >>> split_label(GPT4_MARKS.regex), native_id(O200K.regex), native_id(r"\\w+")
    ('GPT-4 regex, marks kept', 2, -1)
"""
from __future__ import annotations

from typing import NamedTuple, Optional


class SplitPattern(NamedTuple):
    """One split pattern we ship (a named tuple: ``dataclasses`` would cost ``--help`` 10 ms).

    Attributes:
        name: what ``ByteLevel(pattern=...)`` and ``--pattern`` call it ("gpt4").
        regex: the pattern, for the ``regex`` package (possessive quantifiers need it).
        label: how reports name it ("GPT-4 regex").
        native_id: the ``PATTERN_*`` id of its native scanner in ``hf_greedtok._pretokenize``.
        aliases: other names ``ByteLevel(pattern=...)`` accepts for it ("cl100k").
        vocabularies: OpenAI's tiktoken vocabularies made with this split ("cl100k_base").
        letter_runs_whole: a run of letters, with the one space before it, is always one word
            (not cut by case, as o200k cuts "wOrd").
        spans_words: a match may hold several words (a superword chunk), so a token may too.
    """

    name: str
    regex: str
    label: str
    native_id: int
    aliases: tuple[str, ...] = ()
    vocabularies: tuple[str, ...] = ()
    letter_runs_whole: bool = True
    spans_words: bool = False


# tiktoken's cl100k_base pattern (GPT-4). Possessive quantifiers need the `regex` package.
GPT4 = SplitPattern(
    name="gpt4", label="GPT-4 regex", native_id=0, aliases=("cl100k",), vocabularies=("cl100k_base",),
    regex=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
          r"""|\s*[\r\n]|\s+(?!\S)|\s+""")
# GPT-2's pattern (r50k_base).
GPT2 = SplitPattern(
    name="gpt2", label="GPT-2 regex", native_id=1, aliases=("r50k",), vocabularies=("r50k_base", "p50k_base"),
    regex=r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
# tiktoken's o200k_base pattern (GPT-4o), copied from tiktoken_ext/openai_public.py (tiktoken 0.14.0).
O200K = SplitPattern(
    name="o200k", label="o200k regex", native_id=2, vocabularies=("o200k_base",), letter_runs_whole=False,
    regex="|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]))
# The GreedTok paper's words (Section 5.2): space-delimited, each keeping the one space before it.
WHITESPACE = SplitPattern(name="whitespace", label="' ?\\S+' (words)", native_id=3,
                          regex=r""" ?\S+|\s+(?!\S)|\s+""")
# GPT-4's split with o200k's treatment of combining marks (issue 19 item 2): a letter run is
# [\p{L}\p{M}]+, so Devanagari vowel signs and viramas stay in their words; nothing else changes
# (text without marks splits exactly as with GPT4).
GPT4_MARKS = SplitPattern(
    name="gpt4-marks", label="GPT-4 regex, marks kept", native_id=4,
    regex=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+[\p{L}\p{M}]+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
          r"""|\s*[\r\n]|\s+(?!\S)|\s+""")
# The chunk splitter for tokens that span words (issue 31; in the spirit of SuperBPE's stage-2
# pre-tokenization, Liu et al. 2025, arXiv 2503.13423). A chunk is a run, within one line, of
# gpt4-marks letter words (one optional non-letter, non-digit, non-newline character before a run
# of letters and marks) and of single punctuation characters (optionally after one space) not next
# to another punctuation character, with the line ends right after it. Digits (1-3), runs of 2+
# punctuation (with an optional space before, and the line ends after, as GPT-4's), spaces before
# a line end (\s*[\r\n]) and other whitespace runs (trailing spaces, then any) stay apart; so no
# chunk crosses a line end, holds a digit or ends in a space. The line ends go with the chunk
# before them as GPT-4's split gives them to punctuation: isolated, they cost a token on nearly
# every line (measured, benchmarks/RESULTS.md "Superwords": 3.8 points of the held-out mean).
# letter_runs_whole=False: a letter run is part of a longer chunk in running text, so a count
# table's entries go through the split itself (which, for an ASCII word, gives the one chunk
# "word" or " word", as the shortcut would).
SUPERWORDS = SplitPattern(
    name="superwords", label="superword chunks", native_id=5, letter_runs_whole=False, spans_words=True,
    regex=r"""(?:[^\r\n\p{L}\p{N}]?+[\p{L}\p{M}]+| ?[^\s\p{L}\p{N}](?![^\s\p{L}\p{N}]))+[\r\n]*|\p{N}{1,3}"""
          r"""| ?[^\s\p{L}\p{N}]{2,}[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""")

# SUPERWORDS with digits inside chunks: a chunk's pieces are runs of letters, marks and digits
# (with one prefix) and single punctuation, so "page 12, line 3." is one chunk. Opt-in: SuperBPE
# and GPT-4 keep digits apart (numbers in groups of at most 3 help arithmetic); measured held out
# in benchmarks/RESULTS.md, "Superwords".
SUPERWORDS_DIGITS = SplitPattern(
    name="superwords-digits", label="superword chunks, digits in chunks", native_id=6, letter_runs_whole=False,
    spans_words=True,
    regex=r"""(?:[^\r\n\p{L}\p{N}]?+[\p{L}\p{M}\p{N}]+| ?[^\s\p{L}\p{N}](?![^\s\p{L}\p{N}]))+[\r\n]*"""
          r"""| ?[^\s\p{L}\p{N}]{2,}[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""")

# Not a split we ship: SuperBPE's stage-2 pre-tokenizer, the SuperBPE-style peer's
# (hf_greedtok.experiments.superbpe), verbatim from scripts/extend_tokenizer.sh (regex_string) of
# github.com/PythonNut/superbpe (also scripts/extend_existing_tokenizer.sh); utils.py
# train_or_extend_tokenizer uses it as Split(Regex(regex_string), behavior="isolated") followed by
# ByteLevel(add_prefix_space=False, use_regex=False): its matches stand alone, and everything
# between them, spaces and line ends included, is one chunk.
SUPERBPE_STAGE2_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"

#: Every split we ship, in native id order.
SPLITS = (GPT4, GPT2, O200K, WHITESPACE, GPT4_MARKS, SUPERWORDS, SUPERWORDS_DIGITS)
#: The splits by name and by alias.
SPLITS_BY_NAME = {name: s for s in SPLITS for name in (s.name, *s.aliases)}
_BY_REGEX = {s.regex: s for s in SPLITS}
_BY_VOCABULARY = {v: s for s in SPLITS for v in s.vocabularies}

#: The names ``--pattern`` offers (without the aliases).
SPLIT_NAMES = tuple(s.name for s in SPLITS)
#: The split ``hf-greedtok train``, ``count`` and ``compare`` use at byte level unless told: GPT-4's,
#: with combining marks kept in letter runs. Measured (benchmarks/RESULTS.md, issue 19 item 2):
#: the same words as gpt4 on text without marks (equal token counts on the English corpora), and
#: 28-37% lower fertility on unseen Hindi, where gpt4 cuts every word at each vowel sign and
#: virama. The trainers use it too unless given a pre-tokenizer; ByteLevel() itself stays GPT-4's
#: split (saved tokenizers name theirs, so nothing loaded changes).
DEFAULT_SPLIT = GPT4_MARKS.name
#: name or alias -> regex (as in 0.1).
PATTERNS = {name: s.regex for name, s in SPLITS_BY_NAME.items()}
# The regexes under their 0.1 names.
GPT4_PATTERN, GPT2_PATTERN, O200K_PATTERN = GPT4.regex, GPT2.regex, O200K.regex
WHITESPACE_PATTERN, GPT4_MARKS_PATTERN, SUPERWORDS_PATTERN = WHITESPACE.regex, GPT4_MARKS.regex, SUPERWORDS.regex


def superword_split(digits_in_chunks: bool = False) -> SplitPattern:
    """The chunk split of superword training: :data:`SUPERWORDS`, or :data:`SUPERWORDS_DIGITS`
    with digits inside chunks."""
    return SUPERWORDS_DIGITS if digits_in_chunks else SUPERWORDS


def find_split(pattern: str) -> Optional[SplitPattern]:
    """The split that ``pattern`` names (a name, an alias, or its regex character for
    character), or None for any other string."""
    return SPLITS_BY_NAME.get(pattern) or _BY_REGEX.get(pattern)


def resolve_pattern(pattern: str) -> str:
    """The regex of a split's name or alias; any other string is returned as it is (a regex)."""
    split = SPLITS_BY_NAME.get(pattern)
    return pattern if split is None else split.regex


def native_id(regex: str) -> int:
    """The ``PATTERN_*`` id of the native scanner of ``regex`` when it is, character for
    character, the regex of a split we ship; else -1 (then the ``regex`` package splits). Names
    are not regexes: ``native_id("gpt4") == -1``."""
    split = _BY_REGEX.get(regex)
    return -1 if split is None else split.native_id


def split_name(pattern: str) -> Optional[str]:
    """The name of the split ``pattern`` names or spells ("gpt4" for "cl100k"), or None."""
    split = find_split(pattern)
    return None if split is None else split.name


def split_label(pattern: str) -> str:
    """How reports name a split ("GPT-4 regex" etc.) for a pattern we ship (name, alias or
    regex), else the regex itself in quotes."""
    split = find_split(pattern)
    return repr(pattern) if split is None else split.label


def vocabulary_split(vocabulary: str) -> str:
    """The name of the split OpenAI's tiktoken vocabulary ``vocabulary`` ("cl100k_base") was
    made with.

    Raises:
        KeyError: not one of the vocabularies of :data:`SPLITS`.
    """
    return _BY_VOCABULARY[vocabulary].name
