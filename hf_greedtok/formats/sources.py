"""Input files: resolved and checked before any work starts, and read, by both engines.

No Ray here: the local engine (``hf-greedtok count/train/tokenize --engine local``) and the Ray
tasks read inputs with these same functions, so both see the same documents and name the same
file and line in their errors. An input is a file, a glob or a URI (:func:`resolve_inputs`); its
kind comes from its name (:func:`input_kind`): ``.jsonl``/``.json`` (JSON Lines, one document per
line, its text in ``text_column``), ``.parquet`` (one document per row) or anything else (a UTF-8
text file, counted line by line as :func:`hf_greedtok.word_counts.count_words_in_files` counts
it). Documents of JSON Lines and parquet files: :func:`read_documents`; lines of a UTF-8 file:
:func:`iter_utf8_lines`.
"""
from __future__ import annotations

import glob
import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

from ..defaults import ENCODING_ERRORS
from ..errors import CorpusError
from ..remote import is_uri, local_path, message_first_line

if TYPE_CHECKING:
    from tqdm import tqdm

_BOM = "\ufeff"
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")   # an undecodable byte under errors="surrogateescape"

KINDS = ("text", "json", "parquet")
#: Text files are read in chunks of about this many bytes, cut at line ends (:func:`text_chunks`).
CHUNK_BYTES = 1 << 22


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


def text_chunks(paths: Sequence[Path], bar: Optional["tqdm"] = None) -> Iterator[tuple[str, int, bytes]]:
    """(file, number of the chunk's first line, bytes) of text files, read in chunks of about
    :data:`CHUNK_BYTES` cut after a ``"\\n"`` (a file's last chunk may end without one), for
    :func:`text_lines`; ``bar`` is advanced by the bytes read. The paths are not checked."""
    for path in paths:
        line = 1
        rest = b""
        with open(path, "rb") as f:
            while True:
                block = f.read(CHUNK_BYTES)
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


def input_kind(path: Union[str, os.PathLike]) -> str:
    """"json", "parquet" or "text", from the file name (case-insensitive suffix)."""
    name = str(path).lower()
    if name.endswith((".jsonl", ".json")):
        return "json"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def read_bytes(path: str) -> bytes:
    """A text file's bytes, read whole; a URI (``s3://``...) through pyarrow's filesystems, as
    Ray Data reads one.

    Raises:
        CorpusError: the file cannot be read (named as given, a URI whole; the reason in one line).
    """
    try:
        if is_uri(path):
            from pyarrow import fs
            filesystem, inner = fs.FileSystem.from_uri(path)
            with filesystem.open_input_stream(inner) as f:
                return f.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:         # pyarrow's I/O errors are OSErrors too
        raise CorpusError(str(path), None, f"cannot be read ({message_first_line(e)})") from None


def resolve_inputs(inputs: Sequence[Union[str, os.PathLike]]) -> dict[str, list[str]]:
    """{kind: [files]} of ``inputs``, each a file, a glob (``*``, ``?``, ``[``; sorted matches) or a
    URI (passed through unchecked), in the order given; kinds with no file are left out.

    Raises:
        CorpusError: an empty list, a glob matching no file, or a missing or non-regular file
            (named, before any counting starts).
    """
    if not inputs:
        raise CorpusError("inputs", None, "no input files given")
    out: dict[str, list[str]] = {}
    for item in map(str, inputs):
        if is_uri(item):
            files = [item]
        elif glob.has_magic(item):
            files = sorted(glob.glob(item, recursive=True))
            if not files:
                raise CorpusError(item, None, "no file matches this pattern")
        else:
            files = [item]
        for f in files:
            if not is_uri(f):
                check_input_file(Path(f))
            out.setdefault(input_kind(f), []).append(f if is_uri(f) else os.path.abspath(f))
    return out



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
    """The documents of a JSON Lines or parquet file, in file order: each line's (each row's)
    ``text_column`` value. Both engines, counting and tokenizing alike, read files with this one
    function, so they see the same documents and report the same errors.

    Args:
        path: a local path or a URI (``s3://``...; read through pyarrow's filesystems).
        kind: "json" (JSON Lines: one object a line, blank lines skipped) or "parquet".
        text_column: the documents' field (JSON) or column (parquet).
        encoding_errors: invalid UTF-8 in a JSON Lines file: "strict" (an error naming the
            line), "replace" or "ignore", as for text files.
        row_groups: parquet: only these row groups (a run :func:`parquet_pieces` gives); rows
            are still numbered from the start of the file in errors.

    Raises:
        CorpusError: naming the file and the line (JSON) or row (parquet, counted from 1):
            invalid UTF-8 (strict), invalid JSON, a line that is not an object or lacks the
            field, a missing column, a document that is not a string (null, number...), or a
            file that is not parquet.
        ImportError: parquet without pyarrow.
    """
    if kind == "json":
        yield from _json_documents(path, text_column, encoding_errors)
    elif kind == "parquet":
        yield from _parquet_documents(path, text_column, row_groups)
    else:
        raise ValueError(f"read_documents reads json or parquet files, not {kind!r}")


def _json_documents(path: str, text_column: str, encoding_errors: str) -> Iterator[str]:
    data = read_bytes(path)
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
        if text_column not in row:
            raise CorpusError(path, k, f"no {text_column!r} field (choose it with --text-column / text_column)")
        doc = row[text_column]
        if not isinstance(doc, str):
            raise CorpusError(path, k, f"{text_column!r} is {_json_type(doc)}, not text")
        yield doc


def _json_type(value) -> str:
    return "null" if value is None else {bool: "a boolean", int: "a number", float: "a number", list: "an array",
                                         dict: "an object"}.get(type(value), type(value).__name__)


def _parquet_documents(path: str, text_column: str, row_groups: Optional[Sequence[int]]) -> Iterator[str]:
    import pyarrow as pa
    pf = _parquet_file(path)
    schema = pf.schema_arrow
    if text_column not in schema.names:
        raise CorpusError(path, None, f"no column {text_column!r} (columns: {schema.names}; choose it with "
                                      "--text-column / text_column)")
    kind = schema.field(text_column).type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise CorpusError(path, None, f"column {text_column!r} holds {kind}, not text")
    meta = pf.metadata
    first_rows = [0]
    for g in range(meta.num_row_groups):
        first_rows.append(first_rows[-1] + meta.row_group(g).num_rows)
    for g in (range(meta.num_row_groups) if row_groups is None else row_groups):
        row = first_rows[g] + 1
        column = pf.read_row_group(g, columns=[text_column]).column(0)
        if column.null_count:
            nulls = column.is_null().to_pylist()
            raise CorpusError(path, None, f"row {row + nulls.index(True)}: {text_column!r} is null, not text")
        yield from column.to_pylist()
