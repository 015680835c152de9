"""Input files: resolved and checked before any work starts, and read, by both engines.

No Ray here: the local engine (``hf-greedtok count/train/tokenize --engine local``) and the Ray
tasks read inputs with these same functions, so both see the same documents and name the same
file and line in their errors. An INPUT is a file, a glob (quoted or not), a directory (its
files, recursively), a URI or ``-`` (standard input, where the caller allows it):
:func:`resolve_inputs` turns the INPUT arguments into files by kind. A file's kind comes from
its name (:func:`input_kind`), under a compression suffix (``.gz``, ``.bz2``, ``.xz``: the
standard library; ``.zst``: the ``zstandard`` package), so ``x.jsonl.gz`` is JSON Lines:

* ``.jsonl``/``.ndjson``/``.json``: JSON Lines, one document per line, its text in the field
  ``text_column`` (a dotted path such as ``meta.body`` reaches a nested field);
* ``.parquet``: one document per row (the column ``text_column``, dotted for a struct field);
* anything else: UTF-8 text, one document per line, each keeping its line end (``"\\n"``, or
  ``"\\r\\n"`` as written), as :func:`hf_greedtok.word_counts.count_words_in_files` counts it.

A UTF-8 byte order mark opening a file (or standard input) is dropped on every kind: it is an
encoding signature, not text. Bytes of every kind are read by :func:`read_blocks`
(decompressing), documents of a JSON Lines or parquet file by :func:`read_documents`, lines of
a chunk of text by :func:`text_lines`.
"""
from __future__ import annotations

import bz2
import codecs
import contextlib
import glob
import gzip
import io
import json
import lzma
import os
import re
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Iterator, Optional, Sequence, Union

from ..defaults import ENCODING_ERRORS
from ..errors import CorpusError
from ..remote import is_uri, local_path, message_first_line

if TYPE_CHECKING:
    from tqdm import tqdm

_BOM = "\ufeff"
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")   # an undecodable byte under errors="surrogateescape"
_SURROGATE = re.compile("[\ud800-\udfff]")       # a lone surrogate, as a JSON escape can give

KINDS = ("text", "json", "parquet")
#: The suffixes of JSON Lines inputs (under a compression suffix, case-insensitive).
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
#: The INPUT that names standard input (read as UTF-8 text lines).
STDIN = "-"
#: Compression suffixes an input may carry, and what reads them.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstandard"}
_UTF8_BOM = codecs.BOM_UTF8

#: Text files are read in chunks of about this many bytes, cut at line ends (:func:`text_chunks`).
CHUNK_BYTES = 1 << 22
#: A Ray task counts a plain text file in byte ranges of about this many bytes (:func:`line_ranges`).
RANGE_BYTES = 64 << 20


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
    \\r, and a byte order mark opening the file is dropped when ``strip_bom``. A compressed
    file (:data:`COMPRESSIONS`) is read decompressed, as every input is (:func:`read_blocks`).

    Invalid bytes are decoded as lone surrogates (``surrogateescape``) and reported on their
    own line: strict decoding of buffered blocks fails at the block, not at the line.

    Raises:
        CorpusError: not a regular file, invalid UTF-8 (file, line and byte given), damaged
            compressed data.
        ImportError: a ``.zst`` file without the zstandard package.
    """
    p = local_path(path)
    check_input_file(p)
    binary = open(p, "rb") if compression(p) is None else io.BufferedReader(_BlockStream(str(p)))
    with io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="") as f:
        for k, text in enumerate(f, 1):
            bad = _ESCAPED_BYTE.search(text)
            if bad:
                raise CorpusError(str(p), k, f"invalid UTF-8 (byte 0x{ord(bad.group()) - 0xDC00:02x} at "
                                             f"character {bad.start() + 1} of the line)")
            if k == 1 and strip_bom and text.startswith(_BOM):
                text = text[1:]
            yield k, text


class _BlockStream(io.RawIOBase):
    """A readable binary stream of an input's bytes as :func:`read_blocks` gives them
    (decompressed), for readers that take a file object."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._blocks = read_blocks(path)
        self._rest = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._rest:
            block = next(self._blocks, None)
            if block is None:
                return 0
            self._rest = memoryview(block)
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


def chunk_text(source: str, first_line: int, data: bytes, encoding_errors: str) -> str:
    """A chunk of a UTF-8 text file (whole lines, ``first_line`` its first line's number) as a
    str, checked: what :func:`text_lines` cuts into lines.

    Raises:
        CorpusError: a NUL byte, or invalid UTF-8 under ``encoding_errors="strict"`` (file and
            line named).

    A byte order mark opening the file (``first_line`` 1) is dropped, as on every kind.
    """
    if first_line == 1 and data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    nul = data.find(b"\0")
    if nul >= 0:
        raise CorpusError(source, first_line + data.count(b"\n", 0, nul),
                          "NUL byte: this looks like a binary file, not text")
    try:
        return data.decode("utf-8", errors=encoding_errors)
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise CorpusError(source, line, f"invalid UTF-8 (byte 0x{data[e.start]:02x}); pass "
                                        "encoding_errors='replace' or 'ignore' (CLI: --encoding-errors) "
                                        "to accept it") from None


def text_lines(source: str, first_line: int, data: bytes, encoding_errors: str) -> list[str]:
    """The lines of a chunk of a UTF-8 text file (whole lines, ``first_line`` its first line's
    number), each keeping its ``"\\n"``; the last one may lack it. Word counting and dataset
    tokenization cut text files with this one function, so both see the same lines (the native
    chunk counter, ``ChunkTable.add_split_text``, cuts :func:`chunk_text` alike, tested so).

    Raises:
        CorpusError: as :func:`chunk_text`.
    """
    text = chunk_text(source, first_line, data, encoding_errors)
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def text_chunks(paths: Sequence[Union[str, os.PathLike]], bar: Optional["tqdm"] = None
                ) -> Iterator[tuple[str, int, bytes]]:
    """(file, number of the chunk's first line, bytes) of text files (compressed ones
    decompressed, ``-`` standard input: :func:`read_blocks`), read in chunks of about
    :data:`CHUNK_BYTES` cut after a ``"\\n"`` (a file's last chunk may end without one), for
    :func:`text_lines`; ``bar`` is advanced by the bytes read. The paths are not checked."""
    for path in paths:
        line = 1
        rest = b""
        for block in read_blocks(str(path)):
            if bar is not None:
                bar.update(len(block))
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


def iter_text_lines(paths: Sequence[Union[str, os.PathLike]], encoding_errors: str = "strict"
                    ) -> Iterator[tuple[Path, int, str]]:
    """(file, line number, line without its end) of UTF-8 text files (compressed ones
    decompressed, ``-`` standard input: :func:`read_blocks`); a byte order mark opening a file
    is dropped; errors name file and line.

    Raises:
        CorpusError: a missing file, invalid UTF-8 (strict), a NUL byte, damaged compressed data.
    """
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    for p in (STDIN if str(p) == STDIN else local_path(p) for p in paths):
        if p != STDIN:
            check_input_file(p)
        for k, raw in enumerate(_raw_lines(str(p)), 1):
            if k == 1 and raw.startswith(_UTF8_BOM):
                raw = raw[len(_UTF8_BOM):]
            if b"\0" in raw:
                raise CorpusError(str(p), k, "NUL byte: this looks like a binary file, not text")
            try:
                text = raw.decode("utf-8", errors=encoding_errors)
            except UnicodeDecodeError as e:
                raise CorpusError(str(p), k, f"invalid UTF-8 (byte 0x{raw[e.start]:02x}); pass "
                                             "--encoding-errors replace or ignore to accept it") from None
            yield p, k, text.rstrip("\r\n")


def iter_documents(inputs: Sequence[Union[str, os.PathLike]], text_column: str = "text",
                   encoding_errors: str = "strict") -> Iterator[str]:
    """The documents of INPUT arguments (:func:`resolve_inputs`), for measuring text rather than
    counting it: a text file's lines without their ends (blank ones included), a JSON Lines or
    parquet file's ``text_column`` values without a line end closing them (so a document
    holding a line reads as that line does); text files first, then JSON Lines, then parquet,
    each kind's files in the order given.

    Raises:
        CorpusError: as :func:`resolve_inputs`, :func:`iter_text_lines` and
            :func:`read_documents` (file and line named).
    """
    for kind, files in resolve_inputs(inputs).items():
        if kind == "text":
            yield from (line for _, _, line in iter_text_lines(files, encoding_errors))
            continue
        for f in files:
            yield from (doc.rstrip("\r\n") for doc in read_documents(f, kind, text_column, encoding_errors))


def _raw_lines(path: str) -> Iterator[bytes]:
    """The lines of an input's bytes, each with its "\\n" (the last may lack it)."""
    rest = b""
    for block in read_blocks(path):
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        for line in lines:
            yield line + b"\n"
    if rest:
        yield rest


def compression(path: Union[str, os.PathLike]) -> Optional[str]:
    """The compression suffix of an input's name (a key of :data:`COMPRESSIONS`), or None."""
    name = str(path).lower()
    return next((suffix for suffix in COMPRESSIONS if name.endswith(suffix)), None)


def input_kind(path: Union[str, os.PathLike]) -> str:
    """"json", "parquet" or "text", from the file name (case-insensitive suffix, under a
    compression suffix: ``x.jsonl.gz`` is "json"); standard input (``-``) is "text"."""
    name = str(path).lower()
    suffix = compression(name)
    if suffix:
        name = name[:-len(suffix)]
    if name.endswith(JSON_SUFFIXES):
        return "json"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def _decompressor(raw: BinaryIO, suffix: str, path: str) -> BinaryIO:
    """A binary file object reading ``raw`` decompressed by the codec of ``suffix``."""
    if suffix == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if suffix == ".bz2":
        return bz2.BZ2File(raw)
    if suffix == ".xz":
        return lzma.LZMAFile(raw)
    try:
        import zstandard
    except ImportError:
        raise ImportError(f"{path}: reading .zst files needs the zstandard package: pip install "
                          "'hf-greedtok[zstd]' (or pip install zstandard)") from None
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)


def _decompression_errors() -> tuple:
    errors: tuple = (OSError, EOFError, lzma.LZMAError)
    try:
        import zstandard
        errors += (zstandard.ZstdError,)
    except ImportError:
        pass
    return errors


#: How much of an input :func:`input_head` reads (and keeps, of standard input).
HEAD_BYTES = 1 << 14
# (standard input's buffer, its first bytes read by input_head (None: not read), how many of
# them read_blocks has served (-1: it reads standard input with none kept))
_stdin_head: list = [None, None, 0]


def _stdin_buffer() -> BinaryIO:
    """Standard input's bytes; the head kept when sniffing is forgotten if stdin was replaced."""
    stream = sys.stdin.buffer
    if _stdin_head[0] is not stream:
        _stdin_head[:] = [stream, None, 0]
    return stream


class _StdinReader:
    """Standard input read from its start: the bytes :func:`input_head` read first, then the rest."""

    def read(self, size: int) -> bytes:
        stream = _stdin_buffer()
        head, served = _stdin_head[1], _stdin_head[2]
        if head is None:
            _stdin_head[2] = -1
        elif served < len(head):
            _stdin_head[2] = served + min(size, len(head) - served)
            return head[served:_stdin_head[2]]
        return stream.read(size)


def input_head(path: str, size: int = HEAD_BYTES) -> bytes:
    """An input's first bytes (at most ``size``, decompressed, :func:`read_blocks`), to tell what
    it holds; standard input's are kept and read again by :func:`read_blocks`, so the input
    loses nothing. Raises as ``read_blocks``."""
    if path != STDIN:
        return next(read_blocks(path, size), b"")
    stream = _stdin_buffer()
    if _stdin_head[1] is None:
        if _stdin_head[2]:
            raise ValueError("standard input was read already")
        _stdin_head[1] = stream.read(size)
    return _stdin_head[1][:size]


@contextlib.contextmanager
def _raw_stream(path: str) -> Iterator[BinaryIO]:
    """The undecoded bytes of a local file, a URI (pyarrow's filesystems, as Ray Data reads one)
    or standard input (``-``, left open; from its start, :func:`input_head` or not)."""
    if path == STDIN:
        yield _StdinReader()
    elif is_uri(path):
        from pyarrow import fs
        filesystem, inner = fs.FileSystem.from_uri(path)
        with filesystem.open_input_stream(inner) as f:
            yield f
    else:
        with open(path, "rb") as f:
            yield f


def read_blocks(path: str, size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The bytes of an input, in blocks of at most ``size``, decompressed when its name has a
    compression suffix (:data:`COMPRESSIONS`); ``path`` is a local path, a URI or ``-``
    (standard input). Every reader of every engine gets its bytes here.

    Raises:
        CorpusError: the file cannot be read, or its compressed data is damaged or cut short
            (named as given, the reason in one line).
        ImportError: a ``.zst`` file without the zstandard package.
    """
    suffix = compression(path)
    errors = (OSError,) if suffix is None else _decompression_errors()
    try:
        with _raw_stream(path) as raw:
            f = raw if suffix is None else _decompressor(raw, suffix, path)
            while True:
                block = f.read(size)
                if not block:
                    return
                yield block
    except errors as e:         # pyarrow's I/O errors are OSErrors too
        how = "" if suffix is None else f" as {COMPRESSIONS[suffix]} data"
        raise CorpusError(str(path), None, f"cannot be read{how} ({message_first_line(e)})") from None


def read_bytes(path: str) -> bytes:
    """An input's bytes, read whole (:func:`read_blocks`: decompressed, a URI through
    pyarrow's filesystems).

    Raises:
        CorpusError: the file cannot be read (named as given, a URI whole; the reason in one line).
        ImportError: a ``.zst`` file without the zstandard package.
    """
    if compression(path) is None and path != STDIN and not is_uri(path):
        try:                     # the plain local file: one read, no copy
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise CorpusError(str(path), None, f"cannot be read ({message_first_line(e)})") from None
    return b"".join(read_blocks(path))


def line_ranges(path: str, size: Optional[int] = None) -> list[tuple[int, int, int]]:
    """Byte ranges of a text file that split it between tasks: (start, end, number of the
    range's first line), in file order, each about ``size`` bytes and cut right after a
    ``"\\n"`` (a line longer than ``size`` stays whole in its range), so the ranges' lines, read
    by :func:`read_range` and cut by :func:`text_lines`, are the file's lines as
    :func:`text_chunks` gives them, numbered alike. Planning reads the file once (counting line
    ends). A compressed file, a URI, standard input or a file of at most ``size`` bytes is one
    range, ``(0, -1, 1)``: read whole (:func:`read_bytes`).

    Args:
        size: bytes per range (default :data:`RANGE_BYTES`, read when called).

    Raises:
        CorpusError: the file cannot be read.
    """
    size = size or RANGE_BYTES
    if compression(path) is not None or path == STDIN or is_uri(path):
        return [(0, -1, 1)]
    try:
        total = os.path.getsize(path)
        if total <= size:
            return [(0, -1, 1)]
        ranges, start, line = [], 0, 1
        with open(path, "rb") as f:
            while start < total:
                f.seek(start)
                data = f.read(size)
                end = start + len(data)
                while end < total and not data.endswith(b"\n"):      # on to the line's end
                    more = f.read(CHUNK_BYTES)
                    cut = more.find(b"\n")
                    data += more if cut < 0 else more[:cut + 1]
                    end = start + len(data)
                ranges.append((start, end, line))
                line += data.count(b"\n")
                start = end
        return ranges
    except OSError as e:
        raise CorpusError(str(path), None, f"cannot be read ({message_first_line(e)})") from None


def task_pieces(path: str, kind: str) -> list:
    """What each task of a distributed run reads of one input file of ``kind``: byte ranges of a
    text file (:func:`line_ranges`), runs of a parquet file's row groups (:func:`parquet_pieces`),
    a JSON Lines file whole (``[None]``). Ray's counting and tokenizing split files alike.

    Raises:
        CorpusError: as :func:`line_ranges` or :func:`parquet_pieces`.
    """
    if kind == "text":
        return line_ranges(path)
    return parquet_pieces(path) if kind == "parquet" else [None]


def read_range(path: str, start: int, end: int) -> bytes:
    """Bytes ``start`` to ``end`` of a file, one of :func:`line_ranges`' (``end`` -1: the whole
    input, :func:`read_bytes`).

    Raises:
        CorpusError: the file cannot be read, or is shorter than the range (changed since it was
            planned).
    """
    if end < 0:
        return read_bytes(path)
    try:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
    except OSError as e:
        raise CorpusError(str(path), None, f"cannot be read ({message_first_line(e)})") from None
    if len(data) != end - start:
        raise CorpusError(str(path), None, f"ends at byte {start + len(data)}, before byte {end} where it ended "
                                           "when the run started: the file changed while it was read")
    return data


def _folder_files(folder: str) -> list[str]:
    """The files under ``folder``, recursively, sorted by their path; names starting with
    ``.`` or ``_`` are skipped (hidden files, and the ``_`` files parquet readers skip, such as
    the manifest of a folder hf-greedtok wrote), files and folders alike."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found += [os.path.join(root, f) for f in files if not f.startswith((".", "_"))]
    return sorted(found)


def _expand(item: str, absolute: bool = True) -> Iterator[tuple[str, str]]:
    """(kind, file) of one INPUT that is not ``-`` (see :func:`resolve_inputs`), local files
    checked (and made absolute with ``absolute``)."""
    if is_uri(item) or (glob.has_magic(item) and os.path.isfile(item)):    # a file named "a[1].txt"
        files = [item]
    elif glob.has_magic(item):
        matches = sorted(glob.glob(item, recursive=True))
        files = [f for m in matches for f in (_folder_files(m) if os.path.isdir(m) else [m])]
        if not files:
            raise CorpusError(item, None, "no file matches this pattern")
    elif os.path.isdir(item):
        files = _folder_files(item)
        if not files:
            raise CorpusError(item, None, "a directory with no input file in it (names starting with . or _ "
                                          "are skipped)")
    else:
        files = [item]
    for f in files:
        kind = input_kind(f)
        if not is_uri(f):
            check_input_file(Path(f))
            if kind == "parquet" and compression(f):
                raise CorpusError(f, None, "a compressed parquet file: parquet compresses its own pages; "
                                           "decompress it first")
            f = os.path.abspath(f) if absolute else f
        yield kind, f


def resolve_inputs(inputs: Sequence[Union[str, os.PathLike]], *, stdin: bool = False,
                   stdin_kind: str = "text") -> dict[str, list[str]]:
    """{kind: [files]} of the INPUT arguments, in the order given; kinds with no file are left
    out. Every command and engine turns its INPUTs into files here.

    An INPUT is a file, a glob (``*``, ``?``, ``[``, ``**``; its matches sorted, quoted or
    not), a directory (its files, recursively, sorted; names starting with ``.`` or ``_``
    skipped), a URI (passed through unchecked) or, with ``stdin``, ``-``: standard input, of
    kind ``stdin_kind`` (it has no name to tell it by). A file's kind: :func:`input_kind`.

    Args:
        stdin: whether ``-`` may name standard input (commands that stream it on this machine).
        stdin_kind: "text" (lines) or "json" (JSON Lines; the CLI: when ``--text-column`` is given).

    Raises:
        CorpusError: an empty list, a glob or directory with no file, a missing or non-regular
            file, a compressed parquet file, ``-`` where standard input is not read (or given
            twice) (named, before any work).
        ValueError: a ``stdin_kind`` other than "text" or "json".
    """
    if stdin_kind not in ("text", "json"):
        raise ValueError(f"stdin_kind must be 'text' or 'json', got {stdin_kind!r}")
    if not inputs:
        raise CorpusError("inputs", None, "no input files given")
    out: dict[str, list[str]] = {}
    for item in map(str, inputs):
        if item == STDIN:
            if not stdin:
                raise CorpusError(STDIN, None, "standard input is read by `count` and `train` on the local engine "
                                               "only; give files")
            if any(STDIN in files for files in out.values()):
                raise CorpusError(STDIN, None, "standard input given twice")
            out.setdefault(stdin_kind, []).append(STDIN)
            continue
        for kind, f in _expand(item):
            out.setdefault(kind, []).append(f)
    return out


def table_files(inputs: Sequence[Union[str, os.PathLike]]) -> list[str]:
    """The files of count-table INPUTs (``--counts``), in the order given: files, globs and
    directories expanded as :func:`resolve_inputs` expands them (every file under a directory
    is a table), checked before any reading.

    Raises:
        CorpusError: as :func:`resolve_inputs`; ``-``: tables are read from files only.
    """
    if not inputs:
        raise CorpusError("inputs", None, "no count table given")
    files = []
    for item in map(str, inputs):
        if item == STDIN:
            raise CorpusError("standard input", None, "count tables are read from files (a table is read more "
                                                      "than once): save it to a .tsv file and give its path; text "
                                                      "on standard input is counted without --counts")
        files += [f for _, f in _expand(item, absolute=False)]
    return files


def single_kind(kinds: dict[str, list[str]]) -> tuple[str, list[str]]:
    """The one (kind, files) of :func:`resolve_inputs`'s result, for a job whose output keeps
    the inputs' order (``hf-greedtok tokenize``).

    Raises:
        CorpusError: inputs of several kinds (all of them named).
    """
    if len(kinds) > 1:
        raise CorpusError(", ".join(f for files in kinds.values() for f in files), None,
                          f"inputs of different kinds ({', '.join(kinds)}): tokenize one kind at a time, so "
                          "rows keep the inputs' order")
    return next(iter(kinds.items()))

#: A parquet file is split into runs of row groups of about this many bytes (uncompressed, as
#: its metadata reports them), one Ray task each: a big file is read by several workers.
PIECE_BYTES = 64 << 20


def parquet_pieces(path: str) -> list[tuple[int, ...]]:
    """Runs of consecutive row groups of a parquet file, about :data:`PIECE_BYTES` each, that
    together cover the file in order (``[()]`` for a file without row groups).

    Raises:
        CorpusError: not a readable parquet file (file named).
    """
    meta = _parquet_file(path).metadata
    pieces: list[tuple[int, ...]] = []
    run: list[int] = []
    size = 0
    for g in range(meta.num_row_groups):
        run.append(g)
        size += meta.row_group(g).total_byte_size
        if size >= PIECE_BYTES:
            pieces.append(tuple(run))
            run, size = [], 0
    if run or not pieces:
        pieces.append(tuple(run))
    return pieces


def _parquet_file(path: str):
    """``pyarrow.parquet.ParquetFile`` of a local path or URI; errors name the file."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("reading parquet needs pyarrow: pip install 'hf-greedtok[ray]'") from None
    try:
        if is_uri(path):
            from pyarrow import fs
            filesystem, inner = fs.FileSystem.from_uri(path)
            return pq.ParquetFile(filesystem.open_input_file(inner))
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(path, None, f"not a readable parquet file ({message_first_line(e)})") from None


def read_documents(path: str, kind: str, text_column: str, encoding_errors: str = "strict",
                   row_groups: Optional[Sequence[int]] = None) -> Iterator[str]:
    """The documents of one input file of any kind, in file order: a text file's lines (each
    keeping its line end, cut as :func:`text_lines` cuts them), a JSON Lines file's lines' (a
    parquet file's rows') ``text_column`` values. Both engines, counting and tokenizing alike,
    read files with these readers (text files in chunks, :func:`text_chunks` or
    :func:`read_bytes`, then :func:`text_lines`), so they see the same documents and report the
    same errors.

    Args:
        path: a local path, a URI (``s3://``...; read through pyarrow's filesystems) or, for
            text, ``-`` (standard input). Compressed files are read decompressed.
        kind: :func:`input_kind`'s "text", "json" (JSON Lines: one object a line, blank lines
            skipped) or "parquet".
        text_column: the documents' field (JSON) or column (parquet): a key or column of that
            name, else a dotted path through nested objects or struct columns (``meta.body``).
        encoding_errors: invalid UTF-8 in a text or JSON Lines file: "strict" (an error naming
            the line), "replace" or "ignore".
        row_groups: parquet: only these row groups (a run :func:`parquet_pieces` gives); rows
            are still numbered from the start of the file in errors.

    Raises:
        CorpusError: naming the file and the line (text, JSON) or row (parquet, counted from 1):
            invalid UTF-8 (strict), a NUL byte in text, invalid JSON, a line that is not an
            object or lacks the field, a missing column, a document that is not a string (null,
            number...), a file that is not parquet, damaged compressed data.
        ImportError: parquet without pyarrow, ``.zst`` without zstandard.
    """
    if kind == "text":
        for source, first, data in text_chunks([path]):
            yield from text_lines(source, first, data, encoding_errors)
    elif kind == "json":
        yield from _json_documents(path, text_column, encoding_errors)
    elif kind == "parquet":
        yield from _parquet_documents(path, text_column, row_groups)
    else:
        raise ValueError(f"read_documents reads text, json or parquet files, not {kind!r}")


def _json_documents(path: str, text_column: str, encoding_errors: str) -> Iterator[str]:
    data = read_bytes(path)
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    for k, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8", errors=encoding_errors)
        except UnicodeDecodeError as e:
            raise CorpusError(path, k, f"invalid UTF-8 (byte 0x{raw[e.start]:02x}); pass --encoding-errors "
                                       "replace or ignore (encoding_errors=) to accept it") from None
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(path, k, f"invalid JSON at column {e.colno}: {e.msg}") from None
        if not isinstance(row, dict):
            raise CorpusError(path, k, f"a JSON Lines document is an object, found {type(row).__name__}")
        found, doc = _json_field(row, text_column)
        if not found:
            raise CorpusError(path, k, f"no {text_column!r} field (keys: {_keys(row)}; choose it with --text-column "
                                       "/ text_column, a dotted path for a nested field)")
        if not isinstance(doc, str):
            raise CorpusError(path, k, f"{text_column!r} is {_json_type(doc)}, not text")
        lone = _SURROGATE.search(doc)
        if lone:
            # JSON may escape a lone surrogate ("\ud800"), which no UTF-8 text holds: treated as
            # an invalid byte is, by the same policy
            if encoding_errors == "strict":
                raise CorpusError(path, k, f"{text_column!r} holds an escaped lone surrogate (\\u{ord(lone.group()):04x} "
                                           f"at character {lone.start() + 1}), not text; pass --encoding-errors "
                                           "replace or ignore (encoding_errors=) to accept it")
            doc = _SURROGATE.sub("\ufffd" if encoding_errors == "replace" else "", doc)
        yield doc


def _keys(row: dict) -> str:
    keys = list(row)
    return ", ".join(map(repr, keys[:10])) + (", ..." if len(keys) > 10 else "") if keys else "none"


def _json_field(row: dict, path: str) -> tuple[bool, object]:
    """(found, value) of the field ``path`` of a JSON object: a key equal to ``path`` itself,
    else a dotted path through nested objects (``meta.body``), keys that hold dots included,
    longest key first."""
    if path in row:
        return True, row[path]
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if isinstance(row.get(head), dict):
            found, value = _json_field(row[head], ".".join(parts[cut:]))
            if found:
                return True, value
    return False, None


def _json_type(value) -> str:
    return "null" if value is None else {bool: "a boolean", int: "a number", float: "a number", list: "an array",
                                         dict: "an object"}.get(type(value), type(value).__name__)


def _arrow_field(fields: dict, path: str) -> Optional[list]:
    """The names leading to the field ``path`` among arrow ``fields`` ({name: pyarrow.Field}):
    a column named ``path``, else a dotted path through struct columns (as :func:`_json_field`);
    None if there is none."""
    import pyarrow as pa
    if path in fields:
        return [fields[path]]
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = fields.get(".".join(parts[:cut]))
        if head is not None and pa.types.is_struct(head.type):
            rest = _arrow_field({f.name: f for f in head.type}, ".".join(parts[cut:]))
            if rest:
                return [head, *rest]
    return None


def _is_text_type(arrow_type) -> bool:
    """Whether an arrow column of this type holds text: string, large_string, string_view (pyarrow
    16+), or a dictionary of one of these (pandas' categoricals, Spark's dictionary pages)."""
    import pyarrow as pa
    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return (pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
            or getattr(pa.types, "is_string_view", lambda t: False)(arrow_type))


def _parquet_documents(path: str, text_column: str, row_groups: Optional[Sequence[int]]) -> Iterator[str]:
    import pyarrow as pa
    import pyarrow.compute as pc
    pf = _parquet_file(path)
    schema = pf.schema_arrow
    chain = _arrow_field({f.name: f for f in schema}, text_column)
    if chain is None:
        hint = ("; this looks like a count table: give it to `train --counts`"
                if {"word", "count"} <= set(schema.names) else "")
        raise CorpusError(path, None, f"no column {text_column!r} (columns: {schema.names}; choose it with "
                                      f"--text-column / text_column, a dotted path for a struct field){hint}")
    kind = chain[-1].type
    if not _is_text_type(kind):
        raise CorpusError(path, None, f"column {text_column!r} holds {kind}, not text")
    meta = pf.metadata
    first_rows = [0]
    for g in range(meta.num_row_groups):
        first_rows.append(first_rows[-1] + meta.row_group(g).num_rows)
    for g in (range(meta.num_row_groups) if row_groups is None else row_groups):
        row = first_rows[g] + 1
        column = pf.read_row_group(g, columns=[chain[0].name]).column(0)
        for field in chain[1:]:      # a struct's field is null where the struct is
            column = pc.struct_field(column, field.name)
        if column.null_count:
            nulls = column.is_null().to_pylist()
            raise CorpusError(path, None, f"row {row + nulls.index(True)}: {text_column!r} is null, not text")
        if not pa.types.is_string(kind):        # the same strings, from every string layout
            column = column.cast(pa.large_string())
        yield from column.to_pylist()
