"""Morphological lookup table: split known words into their morphemes before subword training.

MorphTok (Brahma et al. 2025, "MorphTok: Morphologically Grounded Tokenization for Indian
Languages", Section 3.1.1, Algorithm 1) replaces every corpus word found in a lookup table by its
morphological segments before BPE, so merges never cross a morpheme boundary. Here that is a
pre-tokenizer step: a word found in the table is cut into its segments as separate pre-tokens.

Design: boundary-only splits.
    No marker character is inserted between segments (MorphTok's paper joins them with spaces or
    ``+``). Each piece is a substring of the original word and the pieces concatenate back to it,
    so decoding (concatenating tokens) restores the text exactly. Boundaries stay visible as
    pre-token splits, i.e. as token offsets, and :meth:`MorphLookup.boundaries` gives them
    directly.

Sandhi policy.
    An entry whose segments do not concatenate to its word (MorphTok's own example: विद्यालय ->
    विद्या + आलय, where the vowels merge) cannot be applied as a boundary-only split without
    changing the text. ``sandhi="skip"`` (default) drops such entries and counts them in
    ``stats["sandhi_skipped"]``; ``sandhi="error"`` raises. A skipped row does not occupy its
    word, so a later applicable row of the same word is kept. Normalization is applied to the word
    and to each segment separately, so a segment that composes with its neighbour under NFC
    (e.g. Latin ``e`` + combining acute) also becomes a non-concatenating entry and is treated as
    sandhi: the split could not be applied to normalized text anyway.

Duplicates policy.
    The first applicable row of a word wins (file order). Later rows of the same word with a
    different segmentation are counted in ``stats["conflicting_duplicates"]``, identical repeats in
    ``stats["repeated_rows"]``; both are dropped.

Units rule.
    With script-aware units (``units="marks"`` or ``"vowels"``, see :mod:`hf_greedtok.indic.units`) a
    boundary that falls inside a unit is dropped: लड़क|ा is not split with ``"marks"`` because the
    vowel sign ा belongs to the unit का. With ``units="chars"`` every table boundary is used.

File formats (chosen by extension):
    ``.tsv`` / ``.txt``: ``word<TAB>seg|seg|...`` per line.
    ``.csv``: MorphTok's ``word,segmentation,language`` with segments joined by ``+``, read with
    :mod:`csv`; an optional header row is skipped and ``language=`` filters rows.

Example:
    >>> t = MorphLookup({"लड़के": ["लड़क", "े"]})
    >>> t.split_word("▁लड़के।")
    ['▁लड़क', 'े।']
    >>> t.split_word("▁लड़के।", units="marks")
    ['▁लड़के।']
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence, Union

import regex

from ..atomic import atomic_write_text
from ..defaults import SANDHI_POLICIES
from ..errors import CorpusError
from ..normalizers import FORMS as NORMALIZERS, UnicodeNormalizer
from .units import UnitSplitter

__all__ = ["SANDHI_POLICIES", "NORMALIZERS", "MorphLookup"]

STAT_KEYS = ("rows", "entries", "split_entries", "sandhi_skipped", "conflicting_duplicates",
             "repeated_rows", "filtered_language")
TSV_EXTENSIONS = (".tsv", ".txt")
CSV_EXTENSIONS = (".csv",)
CSV_HEADER = ("word", "segmentation", "language")
DICT_FORMAT = "hf_greedtok.morph_lookup"
DICT_VERSION = 1

# The lookup key of a pre-token: letters, marks and ZWJ/ZWNJ (which shape Indic conjuncts and
# are part of the written word), stopping at the first punctuation, digit or symbol.
_CORE = regex.compile(r"[\p{L}\p{M}\u200c\u200d]+")

PathLike = Union[str, Path]
# Characters the TSV format cannot carry (they are its separators or end a line).
_BAD_IN_WORD = "\t\r\n\x00"
_BAD_IN_SEGMENT = _BAD_IN_WORD + "|"


def _check_policy(sandhi: str) -> None:
    if sandhi not in SANDHI_POLICIES:
        raise ValueError(f"sandhi must be one of {', '.join(SANDHI_POLICIES)}, got {sandhi!r}")


def _sandhi_problem(word: str, segments: Sequence[str]) -> str:
    return (f"segments {'+'.join(segments)!r} do not concatenate to the word {word!r} (sandhi), so a "
            f"boundary-only split cannot apply them without changing the text; use sandhi='skip' to "
            f"drop such entries")


class MorphLookup:
    """A ``word -> segments`` table applied as boundary-only pre-token splits.

    Args:
        entries: ``{word: segments}``; every segment must be a non-empty string. Single-segment
            entries are kept (they mark a word as known and unsplit).
        sandhi: ``"skip"`` drops entries whose segments do not concatenate to the word (counted
            in ``stats["sandhi_skipped"]``); ``"error"`` raises ValueError for them.
        stats: counts from the source the entries were read from (as :meth:`load` builds them);
            missing keys are 0, ``entries`` and ``split_entries`` are always recomputed, and
            entries dropped here for sandhi are added to ``sandhi_skipped``. Without it,
            ``rows`` is ``len(entries)``.

    Attributes:
        entries: ``{word: tuple of segments}`` of every kept word, in insertion order. Treat it as
            read-only: split results are cached from it.
        stats: ``{key: int}`` for the keys in ``STAT_KEYS``.
        sandhi: the sandhi policy the table was built with.

    Raises:
        ValueError: unknown sandhi policy, empty word or segment, a sandhi entry under
            ``sandhi="error"``, unknown or non-integer stats.
        TypeError: segments given as a single string instead of a sequence of strings.
    """

    def __init__(self, entries: Mapping[str, Sequence[str]], *, sandhi: str = "skip",
                 stats: Optional[dict] = None) -> None:
        _check_policy(sandhi)
        table: dict[str, tuple[str, ...]] = {}
        dropped = 0
        for word, segments in entries.items():
            if not isinstance(word, str) or not word:
                raise ValueError(f"words must be non-empty strings, got {word!r}")
            # A bare string is a Sequence[str] too; taking it as one-character segments would
            # silently split every word into characters.
            if isinstance(segments, str):
                raise TypeError(f"segments of {word!r} must be a sequence of strings, not the string "
                                f"{segments!r}")
            segs = tuple(segments)
            if not segs or not all(isinstance(s, str) and s for s in segs):
                raise ValueError(f"segments of {word!r} must be non-empty strings, got {segs!r}")
            if "".join(segs) != word:
                if sandhi == "error":
                    raise ValueError(_sandhi_problem(word, segs))
                dropped += 1
                continue
            table[word] = segs
        counts = dict.fromkeys(STAT_KEYS, 0)
        if stats is None:
            counts["rows"] = len(entries)
        else:
            unknown = sorted(set(stats) - set(STAT_KEYS))
            if unknown:
                raise ValueError(f"unknown stats keys {unknown}; expected {', '.join(STAT_KEYS)}")
            for key, value in stats.items():
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError(f"stats[{key!r}] must be an int, got {value!r}")
                counts[key] = value
        counts["sandhi_skipped"] += dropped
        counts["entries"] = len(table)
        counts["split_entries"] = sum(1 for s in table.values() if len(s) > 1)
        self.entries: dict[str, tuple[str, ...]] = table
        self.stats: dict[str, int] = counts
        self.sandhi = sandhi
        self._splitters: dict[str, UnitSplitter] = {}
        # units -> {core: cut offsets in the core}; bounded by the number of split entries.
        self._cuts: dict[str, dict[str, tuple[int, ...]]] = {}

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, path: PathLike, *, sandhi: str = "skip", normalizer: Optional[str] = "NFC",
             language: Optional[str] = None) -> "MorphLookup":
        """Read a segmentation table file.

        Args:
            path: a ``.tsv``/``.txt`` file of ``word<TAB>seg|seg...`` lines, or a ``.csv`` file of
                ``word,segmentation,language`` rows with segments joined by ``+`` (MorphTok's
                format; a first row equal to the header, in any case, is skipped). Empty lines are
                skipped; a UTF-8 byte order mark on the first line is ignored.
            sandhi: ``"skip"`` or ``"error"``, see the module docstring.
            normalizer: ``"NFC"``, ``"NFKC"``, ``"NFD"``, ``"NFKD"`` or None, applied to the word
                and to every segment before any check, so the table matches text normalized the
                same way.
            language: CSV only: keep only rows whose language equals it (case-insensitive,
                surrounding spaces ignored); dropped rows are counted in
                ``stats["filtered_language"]``.

        Returns:
            The table; ``stats`` holds the counts described in the module docstring, with
            ``rows == entries + sandhi_skipped + conflicting_duplicates + repeated_rows +
            filtered_language``.

        Raises:
            ValueError: unknown sandhi policy or normalizer, unsupported extension, ``language``
                with a TSV file.
            CorpusError: missing file (line None); a malformed line (wrong number of fields, empty
                word, empty segment, NUL character, invalid UTF-8, CSV syntax error) or, under
                ``sandhi="error"``, a sandhi row, with its 1-based line number.
        """
        _check_policy(sandhi)
        if normalizer is not None and normalizer not in NORMALIZERS:
            raise ValueError(f"normalizer must be one of {', '.join(NORMALIZERS)} or None, got {normalizer!r}")
        normalize = None if normalizer is None else UnicodeNormalizer(normalizer)
        path = Path(path)
        ext = path.suffix.lower()
        if ext not in TSV_EXTENSIONS + CSV_EXTENSIONS:
            raise ValueError(f"{path}: cannot tell the table format from the extension {path.suffix!r}; "
                             f"accepted: {', '.join(TSV_EXTENSIONS + CSV_EXTENSIONS)}")
        is_csv = ext in CSV_EXTENSIONS
        if language is not None and not is_csv:
            raise ValueError(f"{path}: language= filters CSV files only (the TSV format has no language column)")
        source = str(path)
        if not path.exists():
            raise CorpusError(source, None, "no such file")
        if not path.is_file():
            raise CorpusError(source, None, "not a regular file")

        rows = _csv_rows(path, source) if is_csv else _tsv_rows(path, source)
        want_language = language.strip().casefold() if language is not None else None
        counts = dict.fromkeys(STAT_KEYS, 0)
        table: dict[str, tuple[str, ...]] = {}
        for line, word, segments, row_language in rows:
            counts["rows"] += 1
            if not word:
                raise CorpusError(source, line, "empty word")
            if any(not s for s in segments):
                joined = ("+" if is_csv else "|").join(segments)
                raise CorpusError(source, line, f"empty segment in {joined!r} "
                                                 f"(doubled, leading or trailing separator?)")
            if normalize is not None:
                word = normalize(word)
                segments = [normalize(s) for s in segments]
            if want_language is not None and row_language.strip().casefold() != want_language:
                counts["filtered_language"] += 1
                continue
            segs = tuple(segments)
            if "".join(segs) != word:
                if sandhi == "error":
                    raise CorpusError(source, line, _sandhi_problem(word, segs))
                counts["sandhi_skipped"] += 1
                continue
            kept = table.get(word)
            if kept is None:
                table[word] = segs
            elif kept == segs:
                counts["repeated_rows"] += 1
            else:
                counts["conflicting_duplicates"] += 1
        return cls(table, sandhi=sandhi, stats=counts)

    # ------------------------------------------------------------------ queries

    def segments(self, word: str) -> list[str]:
        """The segments of ``word`` (a new list), or ``[word]`` if it is not in the table.

        ``word`` is looked up as given: pass text normalized as the table was (NFC by default).
        """
        segs = self.entries.get(word)
        return list(segs) if segs is not None else [word]

    def boundaries(self, word: str) -> Optional[tuple[int, ...]]:
        """Character offsets in ``word`` where its 2nd, 3rd, ... segment starts (all ``0 < p <
        len(word)``, increasing); ``()`` for a single-segment entry, None if ``word`` is absent."""
        segs = self.entries.get(word)
        if segs is None:
            return None
        cuts: list[int] = []
        pos = 0
        for s in segs[:-1]:
            pos += len(s)
            cuts.append(pos)
        return tuple(cuts)

    def split_word(self, word: str, units: str = "chars", prefix: str = "\u2581") -> list[str]:
        """Cut a pre-tokenized word at its table boundaries.

        Args:
            word: a pre-token as the Metaspace pre-tokenizer produces it: an optional ``prefix``,
                then the core (the maximal run of letters, marks and ZWJ/ZWNJ, the lookup key),
                then an optional tail (punctuation, digits, anything after the core).
            units: ``"chars"``, ``"marks"`` or ``"vowels"``; with the last two a boundary whose
                offset in the core is not a unit start is dropped.
            prefix: the word-start marker; "" for none. It stays on the first piece.

        Returns:
            ``[word]`` if the core is absent, has one segment or no boundary survives the units
            rule; otherwise the pieces, with the prefix on the first and the tail on the last.
            Always ``"".join(pieces) == word``.

        Raises:
            ValueError: unknown ``units``.
        """
        splitter = self._splitter(units)
        start = len(prefix) if prefix and word.startswith(prefix) else 0
        m = _CORE.match(word, start)
        if m is None:
            return [word]
        core = m.group()
        cache = self._cuts.setdefault(units, {})
        cuts = cache.get(core)
        if cuts is None:
            bounds = self.boundaries(core)
            if not bounds:
                return [word]
            if units != "chars":
                starts = splitter.unit_starts(core)
                bounds = tuple(b for b in bounds if b in starts)
            cache[core] = cuts = bounds
        if not cuts:
            return [word]
        edges = [0, *(start + c for c in cuts), len(word)]
        return [word[a:b] for a, b in zip(edges, edges[1:])]

    def _splitter(self, units: str) -> UnitSplitter:
        splitter = self._splitters.get(units)
        if splitter is None:
            splitter = self._splitters[units] = UnitSplitter(units)   # validates units
        return splitter

    # ------------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (format tag, version, sandhi policy, stats, entries as lists)
        from which :meth:`from_dict` rebuilds an equal table with the same stats."""
        return {
            "format": DICT_FORMAT,
            "version": DICT_VERSION,
            "sandhi": self.sandhi,
            "stats": dict(self.stats),
            "entries": {word: list(segs) for word, segs in self.entries.items()},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "MorphLookup":
        """Rebuild a table from :meth:`to_dict` output.

        Raises:
            ValueError: not a morph lookup dict, unsupported version, or invalid entries/stats.
        """
        if d.get("format") != DICT_FORMAT:
            raise ValueError(f"not a {DICT_FORMAT} dict (format={d.get('format')!r})")
        if d.get("version") != DICT_VERSION:
            raise ValueError(f"unsupported {DICT_FORMAT} version {d.get('version')!r}; expected {DICT_VERSION}")
        entries = d.get("entries")
        if not isinstance(entries, Mapping):
            raise ValueError(f"{DICT_FORMAT} dict has no entries mapping")
        return cls(entries, sandhi=d.get("sandhi", "skip"), stats=d.get("stats"))

    def save_tsv(self, path: PathLike) -> Path:
        """Write ``word<TAB>seg|seg`` lines sorted by word, atomically (readers never see a
        partial file). :meth:`load` of the file gives the same entries when called with the same
        normalizer the entries were built with (or None).

        Args:
            path: destination; must end in ``.tsv`` or ``.txt`` so :meth:`load` reads it back.

        Returns:
            ``path`` as a Path.

        Raises:
            ValueError: another extension, or a word or segment the format cannot represent
                (tab, line break or NUL in it; ``|`` in a segment).
        """
        path = Path(path)
        if path.suffix.lower() not in TSV_EXTENSIONS:
            raise ValueError(f"{path}: save_tsv writes {' or '.join(TSV_EXTENSIONS)} files")
        lines = []
        for word in sorted(self.entries):
            segs = self.entries[word]
            bad = next((t for t, forbidden in [(word, _BAD_IN_WORD), *((s, _BAD_IN_SEGMENT) for s in segs)]
                        if any(c in t for c in forbidden)), None)
            if bad is not None:
                raise ValueError(f"cannot write the entry {word!r} -> {segs!r} as TSV: {bad!r} contains "
                                 f"a tab, line break, NUL or (in a segment) '|'")
            lines.append(f"{word}\t{'|'.join(segs)}\n")
        atomic_write_text(path, "".join(lines))
        return path

    # ------------------------------------------------------------------ protocol

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, word: object) -> bool:
        return word in self.entries

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MorphLookup):
            return NotImplemented
        return self.entries == other.entries

    def __repr__(self) -> str:
        return (f"MorphLookup({self.stats['entries']} entries, {self.stats['split_entries']} split, "
                f"sandhi={self.sandhi!r})")


# ---------------------------------------------------------------------- readers

def _decoded_lines(path: Path, source: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text with its line ending) per physical line.

    Reading bytes and decoding line by line (UTF-8 never has 0x0A inside a multi-byte sequence)
    lets invalid UTF-8 and NUL be reported at their line instead of as a file-wide failure.
    """
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise CorpusError(source, number, f"invalid UTF-8 at byte {e.start} of the line "
                                                  f"({raw[e.start:e.start + 4]!r})") from None
            if number == 1:
                text = text.removeprefix("\ufeff")
            if "\x00" in text:
                raise CorpusError(source, number, "NUL character (binary file?)")
            yield number, text


def _tsv_rows(path: Path, source: str) -> Iterator[tuple[int, str, list[str], str]]:
    for number, text in _decoded_lines(path, source):
        text = text.removesuffix("\n").removesuffix("\r")
        if not text:
            continue
        fields = text.split("\t")
        if len(fields) != 2:
            raise CorpusError(source, number, f"expected 2 tab-separated fields (word, seg|seg...), "
                                              f"got {len(fields)}")
        word, segmentation = fields
        yield number, word, segmentation.split("|"), ""


def _csv_rows(path: Path, source: str) -> Iterator[tuple[int, str, list[str], str]]:
    lines = (text for _, text in _decoded_lines(path, source))
    reader = csv.reader(lines)
    first = True
    while True:
        # A quoted field may span lines; report the line where the record starts.
        number = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise CorpusError(source, reader.line_num or number, f"CSV syntax error: {e}") from None
        if not row:
            continue
        if first:
            first = False
            if tuple(f.strip().casefold() for f in row) == CSV_HEADER:
                continue
        if len(row) != 3:
            raise CorpusError(source, number, f"expected 3 comma-separated fields (word, segmentation, "
                                              f"language), got {len(row)}")
        word, segmentation, language = row
        yield number, word, segmentation.split("+"), language
