"""Inputs of the counting engines: files and globs resolved and checked before any work starts.

No Ray here: the CLI's local engine uses these too. An input's kind comes from its name:
``.jsonl``/``.json`` (JSON Lines, one document per line, its text in ``text_column``),
``.parquet`` (one document per row) or anything else (a UTF-8 text file, counted line by line
as :func:`hf_greedtok.word_counts.count_words_in_files` counts it).
"""
from __future__ import annotations

import glob
import json
import os
from pathlib import Path
from typing import Iterator, Sequence, Union

from ..errors import CorpusError
from ..word_counts import check_input_file

KINDS = ("text", "json", "parquet")


def input_kind(path: Union[str, os.PathLike]) -> str:
    """"json", "parquet" or "text", from the file name (case-insensitive suffix)."""
    name = str(path).lower()
    if name.endswith((".jsonl", ".json")):
        return "json"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def is_uri(path: str) -> bool:
    """A remote path (``s3://``, ``gs://``...) that only the engine's filesystem can check."""
    return "://" in path


def read_bytes(path: str) -> bytes:
    """A text file's bytes, read whole; a URI (``s3://``...) through pyarrow's filesystems, as
    Ray Data reads one."""
    if is_uri(path):
        from pyarrow import fs
        filesystem, inner = fs.FileSystem.from_uri(path)
        with filesystem.open_input_stream(inner) as f:
            return f.read()
    with open(path, "rb") as f:
        return f.read()


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


def iter_documents(path: str, kind: str, text_column: str) -> Iterator[object]:
    """The ``text_column`` values of a local JSON Lines or parquet file, in file order (what the
    single-process engine counts; Ray reads the same files with read_json / read_parquet).

    Raises:
        CorpusError: invalid JSON (line given), a line that is not an object, or a missing column.
        ImportError: parquet without pyarrow.
    """
    if kind == "json":
        with open(path, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise CorpusError(path, k, f"invalid JSON ({e.msg})") from None
                if not isinstance(row, dict) or text_column not in row:
                    raise CorpusError(path, k, f"no {text_column!r} field (choose it with text_column / --text-column)")
                yield row[text_column]
    elif kind == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("reading parquet needs pyarrow: pip install 'hf-greedtok[ray]'") from None
        pf = pq.ParquetFile(path)
        if text_column not in pf.schema_arrow.names:
            raise CorpusError(path, None, f"no column {text_column!r} (columns: {pf.schema_arrow.names})")
        for batch in pf.iter_batches(columns=[text_column]):
            yield from batch.column(0).to_pylist()
    else:
        raise ValueError(f"iter_documents reads json or parquet files, not {kind!r}")
