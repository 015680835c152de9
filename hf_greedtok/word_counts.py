"""Word counting: corpus -> {pre-tokenized word: count}, streamed, on all cores, with progress.

Text files are read in binary chunks cut at line ends and pre-tokenized line by line (as HF
``tokenizers`` does when training from files), in worker processes. Count tables (TSV or
parquet, read by :func:`hf_greedtok.formats.count_table.iter_count_tables`) are counted by
:func:`read_count_tables`: each entry goes through the same pre-tokenizer, read as a word that
follows a space in running text (``prefix_space``), so training and encoding see the same words.
Input files are checked and read by :mod:`hf_greedtok.formats.sources`.

A word longer than the trainer's limit (65,535 singletons: a line of more than 64 KB with no
digit, punctuation run or line end makes one superword chunk) is counted as pieces that fit
(:func:`cut_word`), on every path, never refused.

Every error names its place: file and line, or item index of an iterable. Inputs must be
regular files (a directory or a device such as /dev/null is named as such). A UTF-8 byte
order mark at the start of a file is dropped, in text corpora, documents, tables and token
lists alike: it is an encoding signature, not part of the first word (HF ``tokenizers``, which
keeps it, would count it as text). The INPUT arguments of a corpus (globs, directories,
compressed files, ``-``) are resolved by :func:`resolve_corpus` and counted by
:func:`count_inputs`, for ``count`` and ``train`` alike.

Worker processes (:mod:`hf_greedtok._process_pool`) die with their parent. Results are merged in
input order, so parallel and serial counting give the same Counter, insertion order included.
"""
from __future__ import annotations

import codecs
import json
import os
import re
from collections import Counter
from typing import Iterable, Iterator, Mapping, Optional, Sequence, Union

from ._chunk_table import ChunkTable
from ._process_pool import ordered_results
from .chunk_spill import ChunkCounts, ChunkSpiller
from ._pretokenize import pack_words
from ._progress import progress_bar
from ._trainer import MAX_WORD_UNITS
from .defaults import ENCODING_ERRORS
from .errors import CorpusError
# count tables and input files are read in the file formats; the names stay importable from here
from .formats.count_table import (TSV_COLUMN_NAMES, TSV_HEADER, check_table_record, check_table_split,  # noqa: F401
                                  check_table_words, is_parquet_table, iter_count_tables, table_place)
from .formats.sources import (CHUNK_BYTES, HEAD_BYTES, STDIN, check_input_file, compression,  # noqa: F401
                              chunk_text, input_head, iter_text_lines, iter_utf8_lines, read_blocks, read_documents,
                              resolve_inputs, table_files, text_chunks, text_lines)
from .normalizers import UnicodeNormalizer
from .pre_tokenizers import PreTokenizer
from .pre_tokenizers.patterns import GPT4_MARKS, find_split
from .remote import is_uri, local_path

_PARALLEL_MIN_BYTES = 1 << 21   # below this, starting processes costs more than it saves


def always_short(pre_tokenizer: PreTokenizer) -> int:
    """The longest word, in characters, that cannot exceed the trainer's limit of singletons
    (a character is at most 4 bytes); only longer ones need :func:`cut_word`."""
    return MAX_WORD_UNITS // (4 if pre_tokenizer.unit_kind == "bytes" else 1)


def cut_word(word: str, pre_tokenizer: PreTokenizer, limit: int = MAX_WORD_UNITS) -> list[str]:
    """The pieces the trainer counts for the counted word (or chunk) ``word``: ``[word]`` when it
    has at most ``limit`` singletons (default the trainer's ``MAX_WORD_UNITS``, 65,535: it keeps
    positions in a word as uint16), else pieces of at most ``limit`` singletons each that
    concatenate to ``word``. Every path that makes training counts cuts with it (the counters of
    this module, hence the Ray counter and ``hf-greedtok count``; count tables; the trainers on a
    ``{word: count}``), so a long line never makes the corpus refused.

    What is cut, and where:

    * a superword chunk (a split that spans words, ``superwords`` or ``superwords-digits``): at
      its words' ends under the gpt4-marks split (letter words with their one-character prefix,
      single punctuation, digit groups: the pieces the chunk strings together), consecutive
      words packed greedily into pieces of at most ``limit`` UTF-8 bytes;
    * any other word, and a chunk's single word longer than ``limit``: at ``limit``, on a
      character boundary (byte level: ``limit`` UTF-8 bytes, never a character's bytes in two
      pieces; characters with Metaspace; whole units with script-aware units).

    A piece is then one word to the trainer, so no token is learned across a cut. The saved
    tokenizer does not cut: it encodes the whole chunk, so in ``cover`` mode its partition of
    a cut chunk may differ from the trainer's around the cuts, and ``optimal`` may use a token
    across one. Both stay lossless (tests/models/test_long_words.py).

    Args:
        word: a counted word, as the pre-tokenizer gives it (str).
        pre_tokenizer: the counting pre-tokenizer (its ``unit_kind`` gives the units, its
            ``pattern``, at byte level, whether words are chunks).
        limit: the most singletons a piece may have; at least 4 at byte level (a character's
            bytes), 1 otherwise.

    Returns:
        the pieces, in order, none empty (a new list; ``[word]`` when it fits, "" included).

    Raises:
        ValueError: ``limit`` below the smallest a character needs (see above).
    """
    kind = pre_tokenizer.unit_kind
    if len(word) * (4 if kind == "bytes" else 1) <= limit:     # a unit is at least a character
        return [word]
    if kind == "bytes":
        split = find_split(getattr(pre_tokenizer, "pattern", ""))
        words = GPT4_MARKS.native_id if split is not None and split.spans_words else -1
        return pack_words(words, word, limit, True)
    if kind == "chars":
        return pack_words(-1, word, limit, False)
    if limit < 1:
        raise ValueError(f"limit must be at least 1 unit, got {limit}")
    units = pre_tokenizer.word_units(word)
    if len(units) <= limit:
        return [word]
    # Slice the word itself, not the units: word_units shows lone surrogates as U+FFFD (one
    # character either way), so unit lengths are offsets into the word.
    pieces, start = [], 0
    for k in range(0, len(units), limit):
        end = start + sum(map(len, units[k:k + limit]))
        pieces.append(word[start:end])
        start = end
    return pieces


def cut_long_words(counts: Mapping[str, int], pre_tokenizer: PreTokenizer) -> Mapping[str, int]:
    """``counts`` ({word: count}) with every word longer than the trainer supports replaced by
    its :func:`cut_word` pieces, each piece counted as often as the word (pieces equal to other
    words add up, as Python ints). Returns ``counts`` itself when no word is longer than
    :func:`always_short` characters (one C-level pass over the keys: the counters' fast path),
    else a new Counter in the same order, each word's pieces where the word was."""
    short = always_short(pre_tokenizer)
    if len(max(counts, key=len, default="")) <= short:
        return counts
    out: Counter = Counter()
    for word, count in counts.items():
        if len(word) > short:
            for piece in cut_word(word, pre_tokenizer):
                out[piece] += int(count)
        else:
            out[word] += int(count)
    return out


def read_token_list(path: Union[str, os.PathLike]) -> list[str]:
    """The non-empty lines of a UTF-8 file of one token per line (``--candidates``), each
    without its line end (lines split as ``str.splitlines`` does).

    Raises:
        CorpusError: not a regular file, or invalid UTF-8 (file and line given).
    """
    return [t for _, line in iter_utf8_lines(path) for t in line.splitlines() if t]


def check_learnable(word_counts, pre_tokenizer: PreTokenizer, source: str) -> None:
    """Raise CorpusError when the counted words leave nothing to learn: no words at all, or
    only whitespace (blank lines, spaces, tabs)."""
    if not word_counts:
        raise CorpusError(source, None, "empty corpus: no words to train on")
    space = getattr(pre_tokenizer, "replacement", " ")   # Metaspace words show spaces as "▁"
    if all(not w.replace(space, " ").strip() for w in word_counts):
        raise CorpusError(source, None, f"the corpus has only whitespace ({len(word_counts)} distinct "
                                        "blank words): nothing to learn")


# ---------------------------------------------------------------------- workers

_state: dict = {}


def _init_worker(pre_tokenizer: PreTokenizer, normalizer: Optional[UnicodeNormalizer],
                 encoding_errors: str, table: bool = False) -> None:
    _state.update(pre=pre_tokenizer, norm=normalizer, errors=encoding_errors, table=table)


def native_table_pattern(pre_tokenizer, normalizer: Optional[UnicodeNormalizer]) -> int:
    """The native split id with which :meth:`ChunkTable.add_split_lines` counts lines exactly as
    ``pre_tokenizer.pre_tokenize`` splits them, or -1 when it cannot: only a plain
    :class:`~hf_greedtok.pre_tokenizers.ByteLevel` of a split we ship (not a subclass, not a
    :class:`~hf_greedtok.special_tokens.SpecialSplitPreTokenizer`, which drops special tokens,
    not Metaspace), with no normalizer, splits its text as it is."""
    from .pre_tokenizers.byte_level import ByteLevel    # loaded by then: the workers' pipeline holds one
    if normalizer is not None or type(pre_tokenizer) is not ByteLevel:
        return -1
    return pre_tokenizer.native_pattern


def _table_pattern() -> int:
    """The worker's native split id for counting into a table (:func:`native_table_pattern`), or
    -1: not counting into a table, or a pipeline the native counter cannot run."""
    return native_table_pattern(_state["pre"], _state["norm"]) if _state["table"] else -1


def _native_table(pattern: int, lines: Union[str, Sequence[str]]) -> ChunkTable:
    """The table of ``lines`` (a list of str, or a chunk's text cut into lines natively as
    :func:`~hf_greedtok.formats.sources.text_lines` cuts it) counted natively under the native
    split ``pattern``; words longer than :func:`always_short` characters come back from the
    native counter and are cut here (:func:`cut_long_words`), their pieces added after the
    other words."""
    pre = _state["pre"]
    table = ChunkTable()
    add = table.add_split_text if isinstance(lines, str) else table.add_split_lines
    long = add(pattern, lines, always_short(pre))
    if long:
        table.add_counts(cut_long_words(Counter(long), pre))
    return table


def _count_lines(lines: Sequence[str], source: str, first_line: int, per_item: bool) -> Union[Counter, ChunkTable]:
    """The counts of ``lines`` (one job) under the worker's pipeline: a Counter, or with the
    worker's ``table`` a ChunkTable, in the order words first occur.

    A table of a pipeline :func:`native_table_pattern` accepts is counted natively
    (:func:`_native_table`: no str and no Counter per word), to the same counts; its order is
    the Python path's too, except that the pieces of a word longer than :func:`always_short`
    characters come after the job's other words (the Python path puts them where the word
    first occurs).

    Raises:
        CorpusError: with ``per_item``, an item that is not a str (its index, from ``first_line``).
    """
    pre, norm = _state["pre"], _state["norm"]
    if per_item:
        for k, line in enumerate(lines):
            if not isinstance(line, str):
                raise CorpusError(source, None, f"item {first_line + k} is {type(line).__name__}, expected str")
    pattern = _table_pattern()
    if pattern >= 0:
        return _native_table(pattern, lines)
    counts: Counter = Counter()
    for line in lines:
        counts.update(pre.pre_tokenize(norm(line) if norm else line))
    counts = cut_long_words(counts, pre)
    if not _state["table"]:
        return counts
    # a job's table travels to the parent as three arrays, not a pickled str per word
    table = ChunkTable()
    table.add_counts(counts)
    return table


def _count_file_chunk(job: tuple[str, int, bytes]) -> Union[Counter, ChunkTable]:
    source, first_line, data = job
    pattern = _table_pattern()
    if pattern >= 0:     # cut into lines natively: no str per line either
        return _native_table(pattern, chunk_text(source, first_line, data, _state["errors"]))
    return _count_lines(text_lines(source, first_line, data, _state["errors"]), source, first_line, per_item=False)


def _count_text_batch(job: tuple[str, int, list]) -> Union[Counter, ChunkTable]:
    source, first_item, texts = job
    return _count_lines(texts, source, first_item, per_item=True)


def _text_batches(texts: Iterable[str], source: str) -> Iterator[tuple[str, int, list]]:
    batch: list = []
    size = 0
    first = 0
    for k, text in enumerate(texts):
        batch.append(text)
        size += len(text) if isinstance(text, str) else 1
        if size >= CHUNK_BYTES // 4:     # characters: about a chunk's bytes
            yield source, first, batch
            batch, size, first = [], 0, k + 1
    if batch:
        yield source, first, batch


def _total(table: bool, max_table_bytes: Optional[int], show_progress: bool) -> Union[Counter, ChunkTable, ChunkSpiller]:
    """Where counts are added up: a Counter, a ChunkTable, or past ``max_table_bytes`` (with
    ``table``) a :class:`~hf_greedtok.chunk_spill.ChunkSpiller` (saying when it spills, with
    ``show_progress``)."""
    if not table:
        return Counter()
    return ChunkTable() if max_table_bytes is None else ChunkSpiller(max_table_bytes, announce=show_progress)


def _result(total: Union[Counter, ChunkTable, ChunkSpiller]) -> Union[Counter, ChunkCounts]:
    return total.result() if isinstance(total, ChunkSpiller) else total


def _run(jobs: Iterator, fn, init_args: tuple, num_proc: int,
         total: Union[Counter, ChunkTable, ChunkSpiller]) -> None:
    """Add the counts of ``fn`` over ``jobs`` to ``total`` (ChunkTables when ``init_args`` ask
    for them, merged into a ChunkTable or ChunkSpiller; else Counters)."""
    add = total.update if isinstance(total, Counter) else total.merge
    if num_proc <= 1:
        _init_worker(*init_args)
        for job in jobs:
            add(fn(job))
        return
    for result in ordered_results(jobs, fn, num_proc, _init_worker, init_args):
        add(result)


def _num_proc(num_proc: Optional[int]) -> int:
    if num_proc is None:
        return os.cpu_count() or 1
    if num_proc < 1:
        raise ValueError(f"num_proc must be >= 1, got {num_proc}")
    return num_proc


def count_words_in_files(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                         normalizer: Optional[UnicodeNormalizer] = None, *,
                         encoding_errors: str = "strict", num_proc: Optional[int] = None,
                         show_progress: bool = True, table: bool = False,
                         max_table_bytes: Optional[int] = None) -> Union[Counter, ChunkCounts]:
    """Count the pre-tokenized words of UTF-8 text files; a word (or superword chunk) longer
    than the trainer supports is counted as its :func:`cut_word` pieces.

    Args:
        paths: text files, read line by line (each line keeps its "\\n"); compressed ones
            (``.gz``, ``.bz2``, ``.xz``, ``.zst``) decompressed, ``-`` standard input.
        encoding_errors: "strict" (an invalid byte is an error naming file and line),
            "replace" (U+FFFD) or "ignore" (dropped).
        num_proc: worker processes (default: all cores); small inputs are counted in-process.
        table: return a ``ChunkTable`` (the same counts, UTF-8
            back to back: a fifth of a Counter's memory for superword chunks at corpus scale).
        max_table_bytes: with ``table``, the in-memory table's bytes; past them the counts
            spill to disk and the result is :class:`~hf_greedtok.chunk_spill.SpilledChunks`
            (the same counts, read partition by partition). None: no limit.

    Raises:
        CorpusError: a missing file, a URI (named whole; local files only), invalid UTF-8
            (strict), a NUL byte.
        ValueError: unknown encoding_errors policy.
    """
    total = _total(table, max_table_bytes, show_progress)
    _count_files(paths, pre_tokenizer, normalizer, encoding_errors, num_proc, show_progress, total)
    return _result(total)


def _count_files(paths, pre_tokenizer, normalizer, encoding_errors, num_proc, show_progress, total) -> None:
    """:func:`count_words_in_files`, adding to ``total`` (see :func:`_total`)."""
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    # a URI is named whole, not collapsed to s3:/...; "-" is standard input
    files = [STDIN if str(p) == STDIN else local_path(p) for p in paths]
    for p in files:
        if p != STDIN:
            check_input_file(p)
    total_bytes = sum(p.stat().st_size for p in files if p != STDIN)
    # standard input's size is unknown, a compressed file's bytes are more than its size
    streamed = any(p == STDIN or compression(p) for p in files)
    procs = _num_proc(num_proc) if streamed or total_bytes >= _PARALLEL_MIN_BYTES else 1
    with progress_bar(total=None if streamed else total_bytes, unit="B", unit_scale=True, desc="counting words",
                      show=show_progress) as bar:
        _run(text_chunks(files, bar), _count_file_chunk,
             (pre_tokenizer, normalizer, encoding_errors, not isinstance(total, Counter)), procs, total)


def count_words(texts: Iterable[str], pre_tokenizer: PreTokenizer,
                normalizer: Optional[UnicodeNormalizer] = None, *, num_proc: Optional[int] = None,
                show_progress: bool = True, source: str = "texts", table: bool = False,
                max_table_bytes: Optional[int] = None) -> Union[Counter, ChunkCounts]:
    """Count the pre-tokenized words of an iterable of strings (a list, a generator, a
    ``datasets`` column); each string is pre-tokenized as a whole, and a word longer than the
    trainer supports is counted as its :func:`cut_word` pieces. ``table``,
    ``max_table_bytes``: as for :func:`count_words_in_files`.

    Raises:
        CorpusError: an item that is not a str (item index given).
    """
    total = _total(table, max_table_bytes, show_progress)
    _count_texts(texts, pre_tokenizer, normalizer, num_proc, show_progress, source, total)
    return _result(total)


def _count_texts(texts, pre_tokenizer, normalizer, num_proc, show_progress, source, total) -> None:
    """:func:`count_words`, adding to ``total`` (see :func:`_total`)."""
    procs = _num_proc(num_proc)
    if isinstance(texts, (list, tuple)):
        sample = texts[:1000]
        estimate = sum(len(t) for t in sample if isinstance(t, str)) * len(texts) / max(1, len(sample))
        if estimate < _PARALLEL_MIN_BYTES:
            procs = 1
    batches = _text_batches(progress_bar(texts, desc="counting words", unit=" texts", show=show_progress), source)
    _run(batches, _count_text_batch, (pre_tokenizer, normalizer, "strict", not isinstance(total, Counter)), procs,
         total)


_TABLE_LINE = re.compile(r"[^\t\n]+\t[0-9]+\r?")
# a line opening a JSON object with a key: text rarely does
_JSON_OBJECT_START = re.compile(r'\s*\{\s*"')


def _head_lines(head: bytes) -> list[str]:
    """The non-blank lines of an input's first bytes (:func:`~hf_greedtok.formats.sources.input_head`),
    the last one left out if the read cut it."""
    lines = head.decode("utf-8", errors="replace").lstrip("\ufeff").split("\n")
    if len(head) == HEAD_BYTES:
        lines.pop()                 # cut by the read
    return [line for line in lines if line.strip()]


def looks_like_count_table(path: str) -> bool:
    """Whether a text input's beginning looks like a ``word<TAB>count`` table: the header
    ``hf-greedtok count`` writes, or every line (of the first 16 KB) some text, a tab and an
    integer: at least two lines, or one after a first line ``word<TAB>count`` naming the
    columns. Such a file is a count table given as text. ``path`` may be ``-`` (standard
    input, which loses nothing)."""
    head = input_head(path)
    if head.removeprefix(codecs.BOM_UTF8).startswith(TSV_HEADER.encode()):
        return True
    lines = _head_lines(head)
    if lines and lines[0].rstrip("\r").split("\t") == TSV_COLUMN_NAMES:
        return len(lines) >= 2 and all(_TABLE_LINE.fullmatch(line) for line in lines[1:])
    return len(lines) >= 2 and all(_TABLE_LINE.fullmatch(line) for line in lines)


def looks_like_json_lines(path: str) -> bool:
    """Whether an input's first line is a JSON object (a line too long to read whole: one that
    opens an object with a key): JSON Lines, told by its content where the input has no name
    to tell it by (standard input)."""
    head = input_head(path)
    lines = _head_lines(head)
    if lines:
        try:
            return isinstance(json.loads(lines[0]), dict)
        except ValueError:
            return False
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    return bool(text.strip()) and bool(_JSON_OBJECT_START.match(text))


def resolve_corpus(inputs: Sequence[Union[str, os.PathLike]], *, stdin: bool = False,
                   stdin_kind: str = "text") -> dict[str, list[str]]:
    """{kind: [files]} of the INPUT arguments of a corpus to count
    (:func:`hf_greedtok.formats.sources.resolve_inputs`, ``stdin`` and ``stdin_kind`` as there),
    with text that is a count table refused: ``count``, ``train`` and
    :func:`hf_greedtok.distributed.count_words_distributed` resolve their inputs here. Standard
    input has no name to tell its kind by: read as text, it is refused when it looks like a
    count table or like JSON Lines (the CLI reads it as JSON Lines with ``--text-column``).

    Raises:
        CorpusError: as ``resolve_inputs``, or text that looks like a ``word<TAB>count`` table
            (:func:`looks_like_count_table`; a file or standard input) or, on standard input,
            like JSON Lines (:func:`looks_like_json_lines`), with a hint to read it as one.
    """
    kinds = resolve_inputs(inputs, stdin=stdin, stdin_kind=stdin_kind)
    for f in kinds.get("text", []):
        if is_uri(f):
            continue
        if looks_like_count_table(f):
            if f == STDIN:
                raise CorpusError("standard input", None, "looks like a count table (word<TAB>count lines), not "
                                                          "text: save it to a .tsv file and give that to "
                                                          "`train --counts`")
            raise CorpusError(f, None, "looks like a count table (word<TAB>count lines), not text: give it to "
                                       "`train --counts` (Python: read_count_tables)")
        if f == STDIN and looks_like_json_lines(f):
            raise CorpusError("standard input", None, "looks like JSON Lines (a JSON object on its first line), "
                                                      "and is read as text lines: give --text-column FIELD (e.g. "
                                                      "--text-column text) to read its documents' field")
    return kinds


def count_inputs(kinds: Mapping[str, Sequence[str]], pre_tokenizer: PreTokenizer,
                 normalizer: Optional[UnicodeNormalizer] = None, *, text_column: str = "text",
                 encoding_errors: str = "strict", num_proc: Optional[int] = None, show_progress: bool = True,
                 table: bool = False, max_table_bytes: Optional[int] = None) -> Union[Counter, ChunkCounts]:
    """{word: count} of resolved inputs (:func:`hf_greedtok.formats.sources.resolve_inputs`):
    text files (and standard input) counted line by line in this machine's process pool
    (:func:`count_words_in_files`), then each JSON Lines and parquet file's documents
    (:func:`count_words`); a Counter, or with ``table`` a ChunkTable of the same counts. The
    local engine of ``hf-greedtok count`` and ``train`` counts here, and equals the Ray
    engine's :func:`hf_greedtok.distributed.count_words_distributed` word for word.

    Args:
        kinds: {"text" | "json" | "parquet": [files]}.
        pre_tokenizer, normalizer: the counting pipeline
            (:func:`hf_greedtok.special_tokens.counting_pipeline`).
        text_column: the documents' field or column (dotted for nested ones).
        encoding_errors, num_proc, show_progress, table, max_table_bytes: as
            :func:`count_words_in_files` (one limit over every input together).

    Raises:
        CorpusError: as :func:`count_words_in_files` and
            :func:`~hf_greedtok.formats.sources.read_documents` (file and line named).
    """
    total = _total(table, max_table_bytes, show_progress)
    if "text" in kinds:
        _count_files(kinds["text"], pre_tokenizer, normalizer, encoding_errors, num_proc, show_progress, total)
    for kind in ("json", "parquet"):
        for f in kinds.get(kind, []):
            docs = read_documents(f, kind, text_column, encoding_errors)
            _count_texts(docs, pre_tokenizer, normalizer, num_proc, show_progress, f, total)
    return _result(total)


def read_count_tables(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                      normalizer: Optional[UnicodeNormalizer] = None, *,
                      prefix_space: bool = True, max_count: Optional[int] = None,
                      table: bool = False) -> Union[Counter, ChunkTable]:
    """Read ``word<TAB>count`` tables (UTF-8, one entry per line, blank lines skipped).

    ``paths``: table files, globs or directories (:func:`~hf_greedtok.formats.sources.table_files`).
    Each word is normalized and pre-tokenized; with ``prefix_space`` (byte level) it is read
    as " word", as words appear inside running text. A table is TSV or parquet (``word``,
    ``count`` columns), read by :func:`hf_greedtok.formats.count_table.iter_count_tables`. A word listed twice in one table is an error;
    a word in several tables adds its counts, as do different entries that pre-tokenize to the
    same word, and a word longer than the trainer supports is counted as its :func:`cut_word`
    pieces (each with the entry's count). A table that records its counting pipeline
    (``hf-greedtok count`` writes the record) holds words as ``pre_tokenizer`` and
    ``normalizer`` make them: it is refused if its split, normalizer or special tokens are
    others, and its entries are read as written, whatever ``prefix_space`` says.
    ``max_count``: the largest count a word may reach (the GreedTok trainer's is 2**63-1);
    counts are Python ints of any size without it. ``table``: the words in a
    ``ChunkTable`` instead of a Counter, in the same order, for
    large superword tables (a fifth of the memory), counts bounded by 2**63-1 whatever ``max_count``.

    Raises:
        CorpusError: as :func:`~hf_greedtok.formats.count_table.iter_count_tables` (file and line
            or row given), a table of another split, normalizer or special tokens
            (:func:`~hf_greedtok.formats.count_table.check_table_record`;
            for tables without the record, what their entries show:
            :func:`~hf_greedtok.formats.count_table.check_table_words`),
            or a word whose count passes ``max_count`` (at the entry where it does).
        ImportError: a parquet table without pyarrow.
    """
    paths = table_files(paths)      # directories and globs are their files, as for text
    # before any reading: a table of another pipeline is refused at once, whatever prefix_space says
    recorded = [check_table_record(p, pre_tokenizer, normalizer) for p in paths]
    prefixes = [prefix_space and record is None for record in recorded]
    split = pre_tokenizer.count_table_word
    short = always_short(pre_tokenizer)
    entries = ((p, line, word, count, prefix) for path, prefix in zip(paths, prefixes)
               for p, line, word, count in iter_count_tables([path]))
    parts = ((p, line, part, count) for p, line, word, count, prefix in entries
             for piece in split(normalizer(word) if normalizer else word, prefix)
             for part in (cut_word(piece, pre_tokenizer) if len(piece) > short else (piece,)))
    if table:
        chunks = ChunkTable()
        add = chunks.add
        for p, line, part, count in parts:
            try:
                add(part, count)
            except OverflowError:
                raise CorpusError(*table_place(p, line), _count_too_large(part, count, None, 2**63 - 1)) from None
        check_table_words(paths, chunks, pre_tokenizer)
        return chunks
    counts: Counter = Counter()     # built in place: Counter(dict) would copy millions of entries
    get = counts.get
    for p, line, part, count in parts:
        total = counts[part] = get(part, 0) + count
        if max_count is not None and total > max_count:
            raise CorpusError(*table_place(p, line), _count_too_large(part, count, total, max_count))
    check_table_words(paths, counts, pre_tokenizer)
    return counts


def _count_too_large(word: str, count: int, total: Optional[int], max_count: int) -> str:
    """The problem of a word whose count passes ``max_count`` (its total, None when not known)."""
    bound = "2**63-1" if max_count == 2**63 - 1 else f"{max_count:,}"
    if total is None:
        return (f"word {word!r} passes {bound} here ({count} in this entry, the rest in earlier ones), the largest "
                "count the trainer can hold")
    if total == count:
        return f"word {word!r} has count {count}, above {bound}, the largest count the trainer can hold"
    return (f"word {word!r} reaches count {total} here ({count} in this entry, the rest in earlier ones), above "
            f"{bound}, the largest count the trainer can hold")


def count_corpus(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                 normalizer: Optional[UnicodeNormalizer] = None, *, counts: bool = False,
                 encoding_errors: str = "strict", num_proc: Optional[int] = None, prefix_space: bool = True,
                 show_progress: bool = True, max_count: Optional[int] = None,
                 table: bool = False, text_column: str = "text",
                 max_table_bytes: Optional[int] = None) -> Union[Counter, ChunkCounts]:
    """{word: count} of a corpus's INPUTs (:func:`resolve_corpus`, then :func:`count_inputs`:
    text, JSON Lines and parquet documents in their ``text_column``, compressed files, globs,
    directories) or, with ``counts``, of ``word<TAB>count`` tables (:func:`read_count_tables`,
    with ``max_count``); as a ChunkTable with ``table`` (spilled past ``max_table_bytes`` when
    counting text, :class:`~hf_greedtok.chunk_spill.SpilledChunks`), else a Counter; errors as
    there. The Python trainers' ``train(files)`` counts here, so they read files as the CLI does."""
    if counts:
        return read_count_tables(paths, pre_tokenizer, normalizer, prefix_space=prefix_space, max_count=max_count,
                                 table=table)
    return count_inputs(resolve_corpus(paths), pre_tokenizer, normalizer, text_column=text_column,
                        encoding_errors=encoding_errors, num_proc=num_proc, show_progress=show_progress, table=table,
                        max_table_bytes=max_table_bytes)
