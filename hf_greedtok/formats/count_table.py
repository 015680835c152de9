"""``{word: count}`` tables, TSV and parquet: written by ``hf-greedtok count``
(:func:`write_count_table`), read by ``train --counts`` (:func:`iter_count_tables`).

The TSV format is the one :func:`iter_count_tables` reads: UTF-8, one ``word<TAB>count`` entry per
line, ASCII digits. Training (:func:`hf_greedtok.word_counts.read_count_tables`) pre-tokenizes
every entry again, so a counted word (already pre-tokenized) is written in the form that reading
turns back into exactly that word, with ``prefix_space=False`` (CLI: ``--no-prefix-space``):

* byte level: the word as it is (``" the"``, with its space);
* Metaspace: the word without its leading replacement character (reading prepends it).

Each written entry is checked by reading it back through the same pre-tokenizer (with special
tokens and normalizer, as :func:`hf_greedtok.special_tokens.counting_pipeline` builds it). A word
the format cannot hold is left out and counted in the returned :class:`TableSummary`: one
containing a tab, CR, LF or NUL (the separators and the reader's line ends; at byte level these
are whitespace words such as ``"\\n"`` or ``" \\n\\n"``), the lone ``"▁"`` of Metaspace (a run
of spaces; reading prepends one to every entry), or one that the reader would split differently.
The parquet table (columns ``word``: string, ``count``: int64) holds every word exactly, as
counted (a Metaspace word with its leading "▁"); ``train --counts --no-prefix-space`` reads it
back word for word (:func:`iter_count_tables`), as do
``ray.data.read_parquet`` and pyarrow.

A table records the counting pipeline that made its words (:func:`pipeline_record`), one JSON
object with sorted keys:

* ``"split"``: the counting pre-tokenizer's ``table_split`` ("gpt4-marks", "superwords",
  "metaspace-marks", ...; ``count --units/--pattern/--superwords/--digits-in-chunks``);
* ``"normalizer"``: "NFC", "NFKC", "NFD", "NFKD" or "none" (``--normalizer``);
* ``"special_tokens"``: the special tokens cut out of the text before counting, sorted (only
  the set changes the words; ``--special-token``).

In a TSV it is the first line, ``# hf-greedtok count table {"normalizer": "none",
"special_tokens": [], "split": "gpt4-marks"}`` (one line: JSON escapes tabs and line ends, so no
reader can take it for an entry; ASCII, so identical runs write identical bytes); in parquet, the
schema metadata key ``hf_greedtok``. Readers (:func:`hf_greedtok.word_counts.read_count_tables`,
on every path that trains or evaluates from tables) refuse a table whose record disagrees with
the reading pipeline (:func:`check_table_record`), in one line naming the table, the setting,
both values and the flag that fixes it, and read its entries as written (no prefix space). A
record holding only "split" (written before the other keys existed) is checked on the split
alone; a table without a record (written before, or by hand) is read as before.

Rows are sorted by descending count, then by word (code point order), so identical counts give
byte-identical files. Both writers write a temporary file beside the target and rename it into
place (:func:`hf_greedtok.atomic.atomic_write`): a killed run leaves no partial table under the
final name, and the temporary it leaves is removed by the next write of the same table.
"""
from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Optional, Sequence, Union

from ..atomic import atomic_write
from ..errors import CorpusError, OutputError
from ..normalizers import FORMS as NORMALIZER_FORMS
from ..normalizers import UnicodeNormalizer
from ..pre_tokenizers.patterns import SUPERWORDS, SUPERWORDS_DIGITS
from ..remote import local_path, message_first_line
from .sources import check_input_file, iter_utf8_lines, table_files

if TYPE_CHECKING:
    from .._chunk_table import ChunkTable

_UNWRITABLE = ("\t", "\n", "\r", "\0")
#: How a TSV table's first line, its record, begins; the JSON object after it is :func:`pipeline_record`'s.
TSV_HEADER = "# hf-greedtok count table "
#: A first line that names the TSV columns (as a spreadsheet or ``pandas.to_csv`` writes them): skipped.
TSV_COLUMN_NAMES = ["word", "count"]
#: The parquet schema metadata key of a table's record (the same JSON object).
PARQUET_KEY = b"hf_greedtok"


@dataclass(frozen=True)
class TableSummary:
    """What a table writer wrote: ``words``/``occurrences`` written, and the words (and their
    summed counts) left out because the TSV format cannot hold them (always 0 for parquet)."""

    path: Path
    words: int
    occurrences: int
    omitted_words: int = 0
    omitted_occurrences: int = 0


def sorted_items(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """(word, count) pairs by descending count, then word: the order of every written table."""
    return sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))


def table_form(word: str, pre_tokenizer: Any) -> Optional[str]:
    """The TSV entry that reads back as exactly ``word`` (``prefix_space=False``), or None.

    ``pre_tokenizer`` is the counting pre-tokenizer (a :class:`SpecialSplitPreTokenizer` when
    special tokens were cut out; its normalizer is applied on reading too, which is idempotent)."""
    if not word or any(c in word for c in _UNWRITABLE):
        return None
    replacement = getattr(pre_tokenizer, "replacement", None)    # Metaspace (or a wrapper of it)
    form = word[len(replacement):] if replacement and word.startswith(replacement) else word
    if not form:
        return None
    return form if pre_tokenizer.count_table_word(form, False) == [word] else None


def _format(path: Union[str, os.PathLike], format: Optional[str]) -> str:
    fmt = format or ("parquet" if str(path).endswith(".parquet") else "tsv")
    if fmt not in ("tsv", "parquet"):
        raise ValueError(f"count table format must be 'tsv' or 'parquet', got {fmt!r}")
    return fmt


def _is_chunk_table(counts) -> bool:
    from .._chunk_table import ChunkTable     # native, with numpy: only when a table is written
    return isinstance(counts, ChunkTable)


def _parquet_columns(counts: Union[Mapping[str, int], ChunkTable], pa) -> tuple:
    """The word and count columns (pyarrow arrays) of a table, in :func:`sorted_items`' order; a
    ChunkTable's straight from its sorted UTF-8 buffer, without a str per word."""
    if not _is_chunk_table(counts):
        items = sorted_items(counts)
        return pa.array([w for w, _ in items], pa.string()), pa.array([c for _, c in items], pa.int64())
    text, offsets, values = counts.sorted_parts()
    words = pa.LargeStringArray.from_buffers(len(values), pa.py_buffer(offsets), pa.py_buffer(text))
    try:
        words.validate(full=True)
    except pa.ArrowInvalid:
        # a lone surrogate (from a JSON "\ud800" escape) has no UTF-8: the Counter path's
        # pa.array raises this UnicodeEncodeError, so this one does too, before anything is written
        for word in counts:
            word.encode("utf-8")
        raise
    # the column type the Counter path writes (32-bit offsets) when it fits, so both write the same file
    if len(text) < 2**31:
        words = words.cast(pa.string())
    return words, pa.array(values, pa.int64())


def write_count_table(counts: Union[Mapping[str, int], ChunkTable], path: Union[str, os.PathLike],
                      pre_tokenizer: Any = None, normalizer: Optional[UnicodeNormalizer] = None, *,
                      format: Optional[str] = None) -> TableSummary:
    """Write ``counts`` to ``path`` atomically as TSV (default) or parquet (``format="parquet"`` or a
    ``.parquet`` suffix).

    Args:
        counts: {word: count >= 1}, words as the counters give them (pre-tokenized), a
            :class:`~hf_greedtok._chunk_table.ChunkTable` of them (written from its buffer), or
            partitioned counts (:class:`~hf_greedtok.chunk_spill.SpilledChunks`, Ray's), written
            a partition at a time, rows grouped by partition.
        path: the table file; its folder is created.
        pre_tokenizer: the counting pre-tokenizer (required for TSV), with ``normalizer`` the
            counting pipeline (:func:`hf_greedtok.special_tokens.counting_pipeline`'s pair): its
            :func:`pipeline_record` is recorded in the table, and each TSV entry is checked to
            read back as its word. Without it a parquet table has no record.
        normalizer: the counting normalizer (None: none, or the one inside a
            :class:`~hf_greedtok.special_tokens.SpecialSplitPreTokenizer`).

    Returns:
        TableSummary; for TSV, the words left out (see the module docstring).

    Raises:
        OutputError: a TSV table that would hold none of the words.
        ValueError: a TSV table without ``pre_tokenizer``, or an unknown format.
        ImportError: parquet without pyarrow (``pip install "hf-greedtok[ray]"``).
        OSError: the file cannot be written (no partial file is left).
    """
    target = Path(path)
    record = None if pre_tokenizer is None else json.dumps(pipeline_record(pre_tokenizer, normalizer), sort_keys=True)
    if _format(target, format) == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("writing parquet count tables needs pyarrow: pip install 'hf-greedtok[ray]'") from None
        if hasattr(counts, "map_partitions"):
            return _write_partitioned_parquet(counts, target, record)
        words, values = _parquet_columns(counts, pa)
        table = pa.table({"word": words, "count": values},
                         metadata=None if record is None else {PARQUET_KEY: record.encode()})
        atomic_write(target, lambda fd, tmp: pq.write_table(table, tmp))
        return TableSummary(target, len(values), sum(values.to_numpy().tolist()))
    if pre_tokenizer is None:
        raise ValueError("a TSV count table needs the counting pre_tokenizer (to check each entry reads back)")
    parts = (counts.map_partitions(_to_dict) if hasattr(counts, "map_partitions")
             else [counts.to_dict() if _is_chunk_table(counts) else counts])
    lines, words, total, omitted, omitted_occ = [TSV_HEADER + record + "\n"], 0, 0, 0, 0
    for part in parts:
        for word, count in sorted_items(part):
            words += 1
            total += count
            form = table_form(word, pre_tokenizer)
            if form is None:
                omitted += 1
                omitted_occ += count
            else:
                lines.append(f"{form}\t{count}\n")
    if words and len(lines) == 1:
        raise OutputError(target, f"a TSV table would hold none of the {words:,} words (every one has a tab, "
                                  "line break or NUL, or reads back otherwise): write a .parquet table")
    atomic_write(target, "".join(lines))
    return TableSummary(target, len(lines) - 1, total - omitted_occ, omitted, omitted_occ)


def _to_dict(table) -> dict:
    return table.to_dict()


def _partition_columns(table):
    """One partition of partitioned counts as a pyarrow table (word: string, count: int64) in
    :func:`sorted_items`' order; a module function, so Ray runs it where the partition is."""
    import pyarrow as pa
    words, values = _parquet_columns(table, pa)
    return pa.table({"word": words.cast(pa.string()), "count": values})


def _write_partitioned_parquet(counts, target: Path, record: Optional[str]) -> TableSummary:
    """A parquet table of partitioned counts (:class:`~hf_greedtok.chunk_spill.SpilledChunks`, or
    Ray's), written one partition at a time: its rows are grouped by partition, each group in
    :func:`sorted_items`' order (a table that fitted in memory is in that order throughout)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    schema = pa.schema([("word", pa.string()), ("count", pa.int64())],
                       metadata=None if record is None else {PARQUET_KEY: record.encode()})
    rows, total = 0, 0

    def fill(fd, tmp) -> None:
        nonlocal rows, total
        with pq.ParquetWriter(tmp, schema) as writer:
            for part in counts.map_partitions(_partition_columns):
                if part.num_rows:
                    writer.write_table(part.replace_schema_metadata(schema.metadata))
                    rows += part.num_rows
                    total += int(pc.sum(part.column("count")).as_py())

    atomic_write(target, fill)
    return TableSummary(target, rows, total)


# ---------------------------------------------------------------------- reading

_PARQUET_MAGIC = b"PAR1"      # a parquet file opens and ends with it
_PARQUET_BATCH_ROWS = 1 << 16


def is_parquet_table(path: Union[str, os.PathLike]) -> bool:
    """Whether a count table is read as parquet: its name ends in ``.parquet`` (as for the
    writer, :func:`write_count_table`), or the file opens and
    ends with parquet's magic bytes ``PAR1`` (a parquet table under another name)."""
    if str(path).endswith(".parquet"):
        return True
    try:
        with open(path, "rb") as f:
            if f.read(4) != _PARQUET_MAGIC:
                return False
            f.seek(-4, os.SEEK_END)
            return f.read(4) == _PARQUET_MAGIC
    except OSError:
        return False           # missing or unreadable: the reader names the problem


def pipeline_record(pre_tokenizer: Any, normalizer: Optional[UnicodeNormalizer] = None) -> dict:
    """The record of a counting pipeline (see the module docstring): {"normalizer": form or
    "none", "special_tokens": [sorted], "split": ``table_split``}. The writer records it and the
    readers compare a table's record with their own pipeline's, so both sides describe a
    pipeline the one way.

    Args:
        pre_tokenizer: a pre-tokenizer, or a
            :class:`~hf_greedtok.special_tokens.SpecialSplitPreTokenizer` (its special tokens and
            normalizer are the pipeline's), as :func:`hf_greedtok.special_tokens.counting_pipeline`
            returns it.
        normalizer: the pipeline's normalizer beside ``pre_tokenizer`` (None: none, or the one
            inside the wrapper).
    """
    from ..special_tokens import SpecialSplitPreTokenizer     # it imports the pre-tokenizers

    specials: Sequence[str] = ()
    if isinstance(pre_tokenizer, SpecialSplitPreTokenizer):
        specials = pre_tokenizer.special_tokens
        normalizer = normalizer or pre_tokenizer.normalizer
    return {"normalizer": normalizer.form if normalizer is not None else "none",
            "special_tokens": sorted(specials), "split": pre_tokenizer.table_split}


def table_record(path: Union[str, os.PathLike]) -> Optional[dict]:
    """The record of a count table (see the module docstring: "split" always; "normalizer" and
    "special_tokens" in tables written since they were recorded), or None for a table without
    one (written before tables had one, or by hand).

    Raises:
        CorpusError: the record is there but is not a JSON object with a string "split" (and,
            when present, a normalizer name and a list of special token strings).
        ImportError: a parquet table without pyarrow.
    """
    p = local_path(path)
    if is_parquet_table(p):
        pq = _pyarrow_parquet(p)
        import pyarrow as pa
        try:
            metadata = pq.read_schema(p).metadata or {}
        except (pa.ArrowException, OSError):     # the row reader names the problem
            return None
        record = metadata.get(PARQUET_KEY)
        return None if record is None else _parse_record(str(p), None, record.decode("utf-8", "replace"))
    try:
        with contextlib.closing(iter_utf8_lines(p)) as lines:      # decompressed, as the rows are
            first = next(lines, (1, ""))[1]
    except CorpusError:
        return None                # missing, unreadable or not UTF-8: the row reader names the problem
    first = first.rstrip("\r\n")
    if not first.startswith(TSV_HEADER) or "\t" in first:
        return None
    return _parse_record(str(p), 1, first[len(TSV_HEADER):])


def table_split(path: Union[str, os.PathLike]) -> Optional[str]:
    """The split a count table records (:func:`table_record`'s "split"), or None without a record."""
    record = table_record(path)
    return None if record is None else record["split"]


def _parse_record(source: str, line: Optional[int], text: str) -> dict:
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    valid = (isinstance(record, dict) and isinstance(record.get("split"), str)
             and record.get("normalizer", "none") in (*NORMALIZER_FORMS, "none")
             and isinstance(record.get("special_tokens", []), list)
             and all(isinstance(t, str) for t in record.get("special_tokens", [])))
    if not valid:
        raise CorpusError(source, line, "a count table record that is not {\"split\": NAME, \"normalizer\": FORM, "
                                        f"\"special_tokens\": [...]}}: {text[:80]!r}")
    return record


def check_table_record(path: Union[str, os.PathLike], pre_tokenizer: Any,
                       normalizer: Optional[UnicodeNormalizer] = None) -> Optional[dict]:
    """The record of ``path`` (:func:`table_record`), refused unless each setting it holds is the
    reading pipeline's (``pre_tokenizer``, ``normalizer``: :func:`pipeline_record`): the words a
    tokenizer trains on must be the words its own pipeline makes (a table counted with NFKC or
    with special tokens cut out, trained without them, learns tokens of text the tokenizer never
    sees). A record of only "split" (an older table) is checked on the split alone.

    Returns:
        The record, or None for a table without one.

    Raises:
        CorpusError: a setting that differs, naming the table, the setting, both values and the
            flags of each (:func:`check_table_split` for the split).
    """
    record = table_record(path)
    if record is None:
        return None
    check_table_split(path, pre_tokenizer, record["split"])
    expected = pipeline_record(pre_tokenizer, normalizer)
    for key, flags in (("normalizer", _normalizer_flag), ("special_tokens", _special_token_flags)):
        if key in record and record[key] != expected[key]:
            counted, run = flags(record[key]), flags(expected[key])
            raise CorpusError(str(path), None, f"counted with {counted}, but this run has {run}: count the text "
                                               f"again with {run}, or train with {counted}"
                                               + (_NAMED_SPECIALS if key == "special_tokens" else ""))
    return record


#: Why a run without --special-token may still have some (the CLI's train adds them).
_NAMED_SPECIALS = " (train's --bos-token, --eos-token and --pad-token are special tokens too)"


def _normalizer_flag(form: str) -> str:
    return f"--normalizer {form}"


def _special_token_flags(tokens: Sequence[str]) -> str:
    import shlex
    return " ".join(f"--special-token {shlex.quote(t)}" for t in tokens) or "no special tokens"


def check_table_split(path: Union[str, os.PathLike], pre_tokenizer: Any,
                      recorded: Optional[str] = None) -> Optional[str]:
    """The split ``path`` records (or ``recorded``, already read from it), refused unless it is
    ``pre_tokenizer``'s (the words a tokenizer trains on must be the words its pre-tokenizer
    makes: a word table gives a superword trainer no chunk of several words, a chunk table
    without digits gives ``superwords-digits`` none).

    Returns:
        The recorded split, or None for a table without the record.

    Raises:
        CorpusError: another split, named with the ``hf-greedtok count`` flags of both.
    """
    if recorded is None:
        recorded = table_split(path)
    expected = pre_tokenizer.table_split
    if recorded is not None and recorded != expected:
        raise CorpusError(str(path), None, f"counted with {count_flags(recorded)}, but this run splits text "
                                           f"with {count_flags(expected)}: count the text again with those "
                                           "flags, or train with the table's")
    return recorded


# A letter, later on the same line whitespace, then a letter: two words in one entry. No word of
# the word splits (gpt4-marks, gpt4, gpt2, o200k, whitespace) holds whitespace between letters,
# while apostrophes and hyphens ("don't", "well-known") join letters in words and chunks alike.
_TWO_WORDS = r"\p{L}[^\r\n]*?\s\p{L}"
_LETTER_AND_DIGIT = r"\p{L}[^\r\n]*?\p{N}|\p{N}[^\r\n]*?\p{L}"


def check_table_words(paths: Sequence[Union[str, os.PathLike]], words: Iterable[str], pre_tokenizer: Any) -> None:
    """Refuse count tables that record no split (:func:`table_split` is None for every one of
    ``paths``) whose ``words`` (the entries as ``pre_tokenizer`` read them) show another split
    than ``pre_tokenizer``'s superword one; nothing for word splits or tables that record theirs
    (:func:`check_table_split` checked those). The evidence:

    * ``superwords``/``superwords-digits``: no entry holds two words (letters, whitespace,
      letters): a word table, whose "superwords" would all be words;
    * ``superwords-digits``: entries with digits, none of them with letters too: a table counted
      with digits apart (``--superwords`` without ``--digits-in-chunks``).

    Raises:
        CorpusError: either case, naming the tables and the ``hf-greedtok count`` flags to use.
    """
    from ..pre_tokenizers.patterns import find_split

    split = find_split(pre_tokenizer.table_split)
    if split is None or not split.spans_words or any(table_split(p) is not None for p in paths):
        return
    import regex

    two_words, letter_and_digit, digit = (regex.compile(p).search for p in (_TWO_WORDS, _LETTER_AND_DIGIT, r"\p{N}"))
    spans = mixed = digits = seen = False
    for w in words:
        seen = True
        spans = spans or bool(two_words(w))
        if not mixed and digit(w):
            digits = True
            mixed = bool(letter_and_digit(w))
        if spans and (mixed or split.name != SUPERWORDS_DIGITS.name):
            return
    source = ", ".join(map(str, paths))
    if not seen:
        return      # an empty table: the trainer's own check names that
    if not spans:
        raise CorpusError(source, None, f"read as superword chunks ({count_flags(split.name)}), but no entry holds "
                                        "two words, so no token could span words; this is a word table: count the "
                                        f"text with `hf-greedtok count {count_flags(split.name)}`")
    if digits:
        raise CorpusError(source, None, f"read with {count_flags(split.name)}, but no entry holds digits and words "
                                        "together: a table counted with digits apart (--superwords); count the text "
                                        f"with `hf-greedtok count {count_flags(split.name)}`, or train without "
                                        "--digits-in-chunks")


def count_flags(split: str) -> str:
    """The ``hf-greedtok count`` (and ``train``) flags that give a table's split: "--superwords",
    "--superwords --digits-in-chunks", "--units marks", "--pattern gpt2"."""
    if split == SUPERWORDS.name:
        return "--superwords"
    if split == SUPERWORDS_DIGITS.name:
        return "--superwords --digits-in-chunks"
    if split.startswith("metaspace"):
        units = split.removeprefix("metaspace").removeprefix("-").split("+")[0] or "chars"
        return f"--units {units}" + (" and a lookup" if split.endswith("+lookup") else "")
    return f"--pattern {split}"


def table_place(path: Union[str, os.PathLike], n: int) -> tuple[str, Optional[int]]:
    """(source, line) for a :class:`CorpusError` about entry ``n`` of a count table, as
    :func:`iter_count_tables` numbers them: a TSV line, or a parquet row (from 1)."""
    if is_parquet_table(path):
        return f"{path}, row {n}", None
    return str(path), n


def iter_count_tables(paths: Sequence[Union[str, os.PathLike]]) -> Iterator[tuple[Path, int, str, int]]:
    """(file, n, word, count) of every entry of count tables, as
    :func:`hf_greedtok.word_counts.read_count_tables` reads them (same checks and errors),
    without pre-tokenization.

    ``paths`` are expanded as INPUTs are (:func:`~hf_greedtok.formats.sources.table_files`: a
    directory or a glob is its files). A table is either TSV, one ``word<TAB>count`` entry per
    line (``n`` its line; blank lines skipped, and a first line ``word<TAB>count`` naming the
    columns), compressed or not (``.gz``, ``.bz2``, ``.xz``, ``.zst``: read decompressed), or
    parquet (:func:`is_parquet_table`), with columns ``word`` (string) and ``count`` (any integer
    type), other columns ignored, as ``hf-greedtok count -o TABLE.parquet`` writes it (``n`` its
    row, from 1). In TSV, a count is written in ASCII digits only: a sign, spaces, ``_``
    separators or another script's digits (all accepted by ``int``) are errors, and a byte order
    mark opening a file is dropped.

    Within one file each word is listed once: a word listed again is an error naming both
    places (the table was probably concatenated or edited by hand, and adding the counts
    silently would hide that). Across files a word's counts add up: that is how several tables
    are combined.

    Raises:
        CorpusError: a missing file or a URI, standard input, a TSV line without exactly one tab, a count that is not an
            integer >= 1, an empty word, a NUL character, invalid UTF-8, a word listed twice in
            one file (file and line or row given); a parquet file that cannot be read as parquet
            or lacks a string ``word`` or integer ``count`` column, or a null in either (file named).
        ImportError: a parquet table without pyarrow installed.
    """
    for p in map(local_path, table_files(paths)):
        parquet = is_parquet_table(p)
        unit = "row" if parquet else "line"
        from .._chunk_table import ChunkTable     # native, with numpy: only when a table is read
        # each word's first row, in a chunk table: a dict of a large superword table's 16 million
        # entries would take some 2.5 GB
        first = ChunkTable()
        for n, word, count in (_parquet_table_rows(p) if parquet else _tsv_table_rows(p)):
            earlier = first.setdefault(word, n)
            if earlier != n:
                raise CorpusError(*table_place(p, n), f"word {word!r} listed again (first on {unit} {earlier}): "
                                                      "a table lists each word once (give several tables to "
                                                      "add their counts)")
            yield p, n, word, count


def _check_entry(source: str, line: Optional[int], word: str, count: int) -> None:
    """The checks every table entry passes, TSV or parquet."""
    if count < 1:
        raise CorpusError(source, line, f"count {count} must be >= 1")
    if not word:
        raise CorpusError(source, line, "empty word")
    if "\0" in word:
        raise CorpusError(source, line, "NUL character in word")


def _tsv_table_rows(p: Path) -> Iterator[tuple[int, str, int]]:
    source = str(p)
    for line, text in iter_utf8_lines(p):
        row = text.rstrip("\r\n").split("\t")
        if len(row) != 2:
            if row == [""] or (line == 1 and row[0].startswith(TSV_HEADER)):
                continue                # a blank line, or the table's record
            raise CorpusError(source, line, f"expected 'word<TAB>count', found {len(row)} "
                                            "tab-separated fields")
        word, count_text = row
        if line == 1 and row == TSV_COLUMN_NAMES:
            continue                    # a spreadsheet's or pandas' header line, not an entry
        if not (count_text.isascii() and count_text.isdigit()):
            raise CorpusError(source, line, f"count {count_text!r} is not an integer in ASCII "
                                            "digits 0-9 (no sign, spaces, separators or other "
                                            "scripts' digits)")
        count = int(count_text)
        _check_entry(source, line, word, count)
        yield line, word, count


def _parquet_table_rows(p: Path) -> Iterator[tuple[int, str, int]]:
    """(row from 1, word, count) of a parquet count table, read in batches (bounded memory)."""
    check_input_file(p)
    pq = _pyarrow_parquet(p)
    import pyarrow as pa
    source = str(p)
    try:
        table = pq.ParquetFile(p)
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(source, None, f"not a parquet file ({message_first_line(e)})") from None
    schema = table.schema_arrow
    names = schema.names
    missing = [c for c in ("word", "count") if c not in names]
    if missing:
        raise CorpusError(source, None, f"not a count table: no column {' or '.join(map(repr, missing))} "
                                        f"(columns: {', '.join(names) or 'none'}); expected word (string) "
                                        "and count (integer)")
    word_type, count_type = _value_type(schema.field("word").type), _value_type(schema.field("count").type)
    if not (pa.types.is_string(word_type) or pa.types.is_large_string(word_type)
            or getattr(pa.types, "is_string_view", lambda t: False)(word_type)):
        raise CorpusError(source, None, f"not a count table: column 'word' is {word_type}, expected a string type")
    if not pa.types.is_integer(count_type):
        raise CorpusError(source, None, f"not a count table: column 'count' is {count_type}, expected an "
                                        "integer type")
    row = 0
    batches = table.iter_batches(batch_size=_PARQUET_BATCH_ROWS, columns=["word", "count"])
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as e:
            raise CorpusError(source, None, f"unreadable parquet after row {row} ({message_first_line(e)})") from None
        columns = {}
        for name in ("word", "count"):
            column = batch.column(name)
            if column.null_count:
                first_null = next(k for k, valid in enumerate(column.is_valid().to_pylist()) if not valid)
                raise CorpusError(f"{source}, row {row + first_null + 1}", None, f"{name} is null")
            try:
                columns[name] = column.to_pylist()
            except UnicodeDecodeError:
                k = _first_undecodable(column)
                raise CorpusError(f"{source}, row {row + k + 1}", None, f"invalid UTF-8 in column {name!r}") from None
        for k, (word, count) in enumerate(zip(columns["word"], columns["count"]), row + 1):
            _check_entry(f"{source}, row {k}", None, word, count)
            yield k, word, count
        row += batch.num_rows


def _pyarrow_parquet(p: Path):
    """``pyarrow.parquet``; ImportError naming the table without pyarrow."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(f"{p}: reading a parquet count table needs pyarrow: pip install "
                          "'hf-greedtok[ray]'") from None
    return pq


def _value_type(arrow_type):
    """A dictionary-encoded column's value type (pandas' categoricals are written so), else the type."""
    return getattr(arrow_type, "value_type", arrow_type)


def _first_undecodable(column) -> int:
    for k in range(len(column)):
        try:
            column[k].as_py()
        except UnicodeDecodeError:
            return k
    return 0
