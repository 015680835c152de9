"""Word counting: corpus -> {pre-tokenized word: count}, streamed, on all cores, with progress.

Text files are read in binary chunks cut at line ends and pre-tokenized line by line (as HF
``tokenizers`` does when training from files), in worker processes. ``word<TAB>count`` tables
are read with :mod:`csv`; each entry goes through the same pre-tokenizer, read as a word that
follows a space in running text (``prefix_space``), so training and encoding see the same words.

Every error names its place: file and line, or item index of an iterable. Inputs must be
regular files (a directory or a device such as /dev/null is named as such). In tables and
token lists, a UTF-8 byte order mark at the start of the file is dropped (it is an encoding
signature, not part of the first word); in text corpora it is kept as text, as HF
``tokenizers`` keeps it.

Worker processes die with their parent: on Linux the kernel kills them when it exits
(``PR_SET_PDEATHSIG``), and everywhere a watchdog thread in each worker exits when its parent
changes, so a killed run never leaves workers blocked on a pipe. Results are merged in input
order, so parallel and serial counting give the same Counter, insertion order included.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import signal
import stat
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence, Union

from ._progress import progress_bar
from ._trainer import MAX_WORD_UNITS
from .defaults import ENCODING_ERRORS
from .errors import CorpusError
from .normalizers import UnicodeNormalizer
from .pre_tokenizers import PreTokenizer
from .remote import local_path, message_first_line

if TYPE_CHECKING:
    from tqdm import tqdm

_CHUNK_BYTES = 1 << 22
_PARALLEL_MIN_BYTES = 1 << 21   # below this, starting processes costs more than it saves
_PR_SET_PDEATHSIG = 1           # linux/prctl.h
_PARENT_POLL_SECONDS = 0.5
_BOM = "\ufeff"
_PARQUET_MAGIC = b"PAR1"      # a parquet file opens and ends with it
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")   # an undecodable byte under errors="surrogateescape"


def always_short(pre_tokenizer: PreTokenizer) -> int:
    """The longest word, in characters, that cannot exceed the trainer's limit of singletons
    (a character is at most 4 bytes); only longer ones need :func:`check_word_length`."""
    return MAX_WORD_UNITS // (4 if pre_tokenizer.unit_kind == "bytes" else 1)


def check_word_length(word: str, pre_tokenizer: PreTokenizer, source: str, line: Optional[int]) -> None:
    """Raise CorpusError if ``word`` has more singletons than the trainer supports."""
    if len(word) <= always_short(pre_tokenizer):
        return
    n = len(pre_tokenizer.word_units(word))
    if n > MAX_WORD_UNITS:
        raise CorpusError(source, line, f"a word of {n} singletons ({word[:40]!r}...) is longer than "
                                        f"the {MAX_WORD_UNITS} the trainer supports; split or remove it")


def check_input_file(path: Path) -> None:
    """Raise CorpusError unless ``path`` is a regular file (following symlinks), saying what it is."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise CorpusError(str(path), None, "no such file") from None
    except OSError as e:
        raise CorpusError(str(path), None, f"cannot read it ({e.strerror})") from None
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a named pipe" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise CorpusError(str(path), None, f"is {kind}, not a text file")


def iter_utf8_lines(path: Union[str, os.PathLike], *, strip_bom: bool = True) -> Iterator[tuple[int, str]]:
    """(line number, line with its end) of a UTF-8 file, streamed; lines end at \\n, \\r\\n or
    \\r, and a byte order mark opening the file is dropped when ``strip_bom``.

    Invalid bytes are decoded as lone surrogates (``surrogateescape``) and reported on their
    own line: strict decoding of buffered blocks fails at the block, not at the line.

    Raises:
        CorpusError: not a regular file, or invalid UTF-8 (file, line and byte given).
    """
    p = local_path(path)
    check_input_file(p)
    with open(p, encoding="utf-8", errors="surrogateescape", newline="") as f:
        for k, text in enumerate(f, 1):
            bad = _ESCAPED_BYTE.search(text)
            if bad:
                raise CorpusError(str(p), k, f"invalid UTF-8 (byte 0x{ord(bad.group()) - 0xDC00:02x} at "
                                             f"character {bad.start() + 1} of the line)")
            if k == 1 and strip_bom and text.startswith(_BOM):
                text = text[1:]
            yield k, text


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


def _watch_parent(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(_PARENT_POLL_SECONDS)


def die_with_parent(parent_pid: int, *, use_prctl: bool = True) -> None:
    """Make this (worker) process exit when ``parent_pid`` is no longer its parent.

    On Linux the kernel sends SIGKILL when the parent exits (``prctl(PR_SET_PDEATHSIG)``, via
    ctypes); a daemon thread polling ``os.getppid()`` every 0.5 s is the fallback elsewhere
    (and covers a parent that died before the prctl call).
    """
    if use_prctl and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="hf-greedtok-parent-watch",
                     daemon=True).start()


def _init_pool_worker(parent_pid: int, *init_args) -> None:
    # Forked workers inherit the parent's Python handlers (the CLI turns SIGTERM into an
    # exception); a worker should just die on SIGTERM and leave Ctrl-C to the parent, which
    # stops every worker itself.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)
    _init_worker(*init_args)


def _init_worker(pre_tokenizer: PreTokenizer, normalizer: Optional[UnicodeNormalizer],
                 encoding_errors: str) -> None:
    _state.update(pre=pre_tokenizer, norm=normalizer, errors=encoding_errors)


def _count_lines(lines: Sequence[str], source: str, first_line: int, per_item: bool) -> Counter:
    pre, norm = _state["pre"], _state["norm"]
    counts: Counter = Counter()
    for k, line in enumerate(lines):
        if per_item and not isinstance(line, str):
            raise CorpusError(source, None, f"item {first_line + k} is {type(line).__name__}, expected str")
        words = pre.pre_tokenize(norm(line) if norm else line)
        counts.update(words)
    longest = max(counts, key=len, default="")
    if len(longest) * 4 > MAX_WORD_UNITS:
        for k, line in enumerate(lines):
            for word in pre.pre_tokenize(norm(line) if norm else line):
                place = (source + f", item {first_line + k}", None) if per_item else (source, first_line + k)
                check_word_length(word, pre, *place)
    return counts


def text_lines(source: str, first_line: int, data: bytes, encoding_errors: str) -> list[str]:
    """The lines of a chunk of a UTF-8 text file (whole lines, ``first_line`` its first line's
    number), each keeping its ``"\\n"``; the last one may lack it. Word counting and dataset
    tokenization cut text files with this one function, so both see the same lines.

    Raises:
        CorpusError: a NUL byte, or invalid UTF-8 under ``encoding_errors="strict"`` (file and
            line named).
    """
    nul = data.find(b"\0")
    if nul >= 0:
        raise CorpusError(source, first_line + data.count(b"\n", 0, nul),
                          "NUL byte: this looks like a binary file, not text")
    try:
        text = data.decode("utf-8", errors=encoding_errors)
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise CorpusError(source, line, f"invalid UTF-8 (byte 0x{data[e.start]:02x}); pass "
                                        "encoding_errors='replace' or 'ignore' (CLI: --encoding-errors) "
                                        "to accept it") from None
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _count_file_chunk(job: tuple[str, int, bytes]) -> Counter:
    source, first_line, data = job
    return _count_lines(text_lines(source, first_line, data, _state["errors"]), source, first_line, per_item=False)


def _count_text_batch(job: tuple[str, int, list]) -> Counter:
    source, first_item, texts = job
    return _count_lines(texts, source, first_item, per_item=True)


def _file_chunks(paths: Sequence[Path], bar: Optional[tqdm]) -> Iterator[tuple[str, int, bytes]]:
    for path in paths:
        line = 1
        rest = b""
        with open(path, "rb") as f:
            while True:
                block = f.read(_CHUNK_BYTES)
                if bar is not None:
                    bar.update(len(block))
                if not block:
                    break
                data = rest + block
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    rest = data
                    continue
                yield str(path), line, data[:cut]
                line += data.count(b"\n", 0, cut)
                rest = data[cut:]
        if rest:
            yield str(path), line, rest


def _text_batches(texts: Iterable[str], source: str) -> Iterator[tuple[str, int, list]]:
    batch: list = []
    size = 0
    first = 0
    for k, text in enumerate(texts):
        batch.append(text)
        size += len(text) if isinstance(text, str) else 1
        if size >= _CHUNK_BYTES // 4:
            yield source, first, batch
            batch, size, first = [], 0, k + 1
    if batch:
        yield source, first, batch


def _mp_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _run(jobs: Iterator, fn, init_args: tuple, num_proc: int) -> Counter:
    total: Counter = Counter()
    if num_proc <= 1:
        _init_worker(*init_args)
        for job in jobs:
            total.update(fn(job))
        return total
    with ProcessPoolExecutor(num_proc, mp_context=_mp_context(), initializer=_init_pool_worker,
                             initargs=(os.getpid(), *init_args)) as pool:
        pending: deque = deque()
        try:
            for job in jobs:
                pending.append(pool.submit(fn, job))
                if len(pending) >= 2 * num_proc:   # bounded read-ahead keeps memory flat
                    total.update(pending.popleft().result())   # in input order: deterministic
            while pending:
                total.update(pending.popleft().result())
        except BaseException:
            # An error, Ctrl-C or SIGTERM (turned into an exception by the CLI): stop the
            # workers now rather than letting them finish their chunks.
            workers = list(pool._processes.values())   # no public accessor before Python 3.14
            result_queue = pool._result_queue            # (private too; shutdown drops it)
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in workers:
                proc.terminate()
            for proc in workers:
                proc.join(timeout=5)
            # A worker stopped while writing its result leaves half a message in the result
            # pipe; the pool's manager thread would wait for the rest forever, and the
            # interpreter for that thread at exit. The workers are gone: closing our own write
            # end turns that wait into end-of-file, which the pool handles as a broken pool.
            if result_queue is not None:
                result_queue._writer.close()
            raise
    return total


def _num_proc(num_proc: Optional[int]) -> int:
    if num_proc is None:
        return os.cpu_count() or 1
    if num_proc < 1:
        raise ValueError(f"num_proc must be >= 1, got {num_proc}")
    return num_proc


def count_words_in_files(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                         normalizer: Optional[UnicodeNormalizer] = None, *,
                         encoding_errors: str = "strict", num_proc: Optional[int] = None,
                         show_progress: bool = True) -> Counter:
    """Count the pre-tokenized words of UTF-8 text files.

    Args:
        paths: text files, read line by line (each line keeps its "\\n").
        encoding_errors: "strict" (an invalid byte is an error naming file and line),
            "replace" (U+FFFD) or "ignore" (dropped).
        num_proc: worker processes (default: all cores); small inputs are counted in-process.

    Raises:
        CorpusError: a missing file, a URI (named whole; local files only), invalid UTF-8
            (strict), a NUL byte, a word too long.
        ValueError: unknown encoding_errors policy.
    """
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    files = [local_path(p) for p in paths]     # a URI is named whole, not collapsed to s3:/...
    for p in files:
        check_input_file(p)
    total_bytes = sum(p.stat().st_size for p in files)
    procs = _num_proc(num_proc) if total_bytes >= _PARALLEL_MIN_BYTES else 1
    with progress_bar(total=total_bytes, unit="B", unit_scale=True, desc="counting words",
                      show=show_progress) as bar:
        return _run(_file_chunks(files, bar), _count_file_chunk,
                    (pre_tokenizer, normalizer, encoding_errors), procs)


def count_words(texts: Iterable[str], pre_tokenizer: PreTokenizer,
                normalizer: Optional[UnicodeNormalizer] = None, *, num_proc: Optional[int] = None,
                show_progress: bool = True, source: str = "texts") -> Counter:
    """Count the pre-tokenized words of an iterable of strings (a list, a generator, a
    ``datasets`` column); each string is pre-tokenized as a whole.

    Raises:
        CorpusError: an item that is not a str, or a word too long (item index given).
    """
    procs = _num_proc(num_proc)
    if isinstance(texts, (list, tuple)):
        sample = texts[:1000]
        estimate = sum(len(t) for t in sample if isinstance(t, str)) * len(texts) / max(1, len(sample))
        if estimate < _PARALLEL_MIN_BYTES:
            procs = 1
    batches = _text_batches(progress_bar(texts, desc="counting words", unit=" texts", show=show_progress), source)
    return _run(batches, _count_text_batch, (pre_tokenizer, normalizer, "strict"), procs)


def read_count_tables(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                      normalizer: Optional[UnicodeNormalizer] = None, *,
                      prefix_space: bool = True) -> Counter:
    """Read ``word<TAB>count`` tables (UTF-8, one entry per line, blank lines skipped).

    Each word is normalized and pre-tokenized; with ``prefix_space`` (byte level) it is read
    as " word", as words appear inside running text. A table is TSV or parquet (``word``,
    ``count`` columns; :func:`iter_count_tables`). A word listed twice in one table is an error;
    a word in several tables adds its counts, as do different entries that pre-tokenize to the
    same word.

    Raises:
        CorpusError: as :func:`iter_count_tables` (file and line or row given), or a word too long.
        ImportError: a parquet table without pyarrow.
    """
    counts: dict[str, int] = {}
    get = counts.get
    split = pre_tokenizer.count_table_word
    short = always_short(pre_tokenizer)
    for p, line, word, count in iter_count_tables(paths):
        for piece in split(normalizer(word) if normalizer else word, prefix_space):
            if len(piece) > short:
                check_word_length(piece, pre_tokenizer, *table_place(p, line))
            counts[piece] = get(piece, 0) + count
    return Counter(counts)


def count_corpus(paths: Sequence[Union[str, os.PathLike]], pre_tokenizer: PreTokenizer,
                 normalizer: Optional[UnicodeNormalizer] = None, *, counts: bool = False,
                 encoding_errors: str = "strict", num_proc: Optional[int] = None, prefix_space: bool = True,
                 show_progress: bool = True) -> Counter:
    """{word: count} of text files (:func:`count_words_in_files`) or, with ``counts``, of
    ``word<TAB>count`` tables (:func:`read_count_tables`); errors as there."""
    if counts:
        return read_count_tables(paths, pre_tokenizer, normalizer, prefix_space=prefix_space)
    return count_words_in_files(paths, pre_tokenizer, normalizer, encoding_errors=encoding_errors,
                                num_proc=num_proc, show_progress=show_progress)


def is_parquet_table(path: Union[str, os.PathLike]) -> bool:
    """Whether a count table is read as parquet: its name ends in ``.parquet`` (as for the
    writer, :func:`hf_greedtok.formats.count_table.write_count_table`), or the file opens and
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


def table_place(path: Union[str, os.PathLike], n: int) -> tuple[str, Optional[int]]:
    """(source, line) for a :class:`CorpusError` about entry ``n`` of a count table, as
    :func:`iter_count_tables` numbers them: a TSV line, or a parquet row (from 1)."""
    if is_parquet_table(path):
        return f"{path}, row {n}", None
    return str(path), n


def iter_count_tables(paths: Sequence[Union[str, os.PathLike]]) -> Iterator[tuple[Path, int, str, int]]:
    """(file, n, word, count) of every entry of count tables, as read by
    :func:`read_count_tables` (same checks and errors), without pre-tokenization.

    A table is either TSV, one ``word<TAB>count`` entry per line (``n`` its line; blank lines
    skipped), or parquet (:func:`is_parquet_table`), with columns ``word`` (string) and
    ``count`` (any integer type), other columns ignored, as ``hf-greedtok count -o
    TABLE.parquet`` writes it (``n`` its row, from 1). In TSV, a count is written in ASCII
    digits only: a sign, spaces, ``_`` separators or another script's digits (all accepted by
    ``int``) are errors, and a byte order mark opening a file is dropped.

    Within one file each word is listed once: a word listed again is an error naming both
    places (the table was probably concatenated or edited by hand, and adding the counts
    silently would hide that). Across files a word's counts add up: that is how several tables
    are combined.

    Raises:
        CorpusError: a missing file or a URI, a TSV line without exactly one tab, a count that is not an
            integer >= 1, an empty word, a NUL character, invalid UTF-8, a word listed twice in
            one file (file and line or row given); a parquet file that cannot be read as parquet
            or lacks a string ``word`` or integer ``count`` column, or a null in either (file named).
        ImportError: a parquet table without pyarrow installed.
    """
    for p in map(local_path, paths):
        parquet = is_parquet_table(p)
        unit = "row" if parquet else "line"
        first: dict[str, int] = {}
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
            if row == [""]:
                continue                # a blank line
            raise CorpusError(source, line, f"expected 'word<TAB>count', found {len(row)} "
                                            "tab-separated fields")
        word, count_text = row
        if not (count_text.isascii() and count_text.isdigit()):
            raise CorpusError(source, line, f"count {count_text!r} is not an integer in ASCII "
                                            "digits 0-9 (no sign, spaces, separators or other "
                                            "scripts' digits)")
        count = int(count_text)
        _check_entry(source, line, word, count)
        yield line, word, count


_PARQUET_BATCH_ROWS = 1 << 16


def _parquet_table_rows(p: Path) -> Iterator[tuple[int, str, int]]:
    """(row from 1, word, count) of a parquet count table, read in batches (bounded memory)."""
    check_input_file(p)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(f"{p}: reading a parquet count table needs pyarrow: pip install "
                          "'hf-greedtok[ray]'") from None
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


def iter_text_lines(paths: Sequence[Union[str, os.PathLike]], encoding_errors: str = "strict"
                    ) -> Iterator[tuple[Path, int, str]]:
    """(file, line number, line without its end) of UTF-8 text files; errors name file and line.

    Raises:
        CorpusError: a missing file, invalid UTF-8 (strict), or a NUL byte.
    """
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    for p in map(local_path, paths):
        check_input_file(p)
        with open(p, "rb") as f:
            for k, raw in enumerate(f, 1):
                if b"\0" in raw:
                    raise CorpusError(str(p), k, "NUL byte: this looks like a binary file, not text")
                try:
                    text = raw.decode("utf-8", errors=encoding_errors)
                except UnicodeDecodeError as e:
                    raise CorpusError(str(p), k, f"invalid UTF-8 (byte 0x{raw[e.start]:02x}); pass "
                                                 "--encoding-errors replace or ignore to accept it") from None
                yield p, k, text.rstrip("\r\n")
