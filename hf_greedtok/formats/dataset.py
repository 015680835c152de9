"""The tokenized dataset ``hf-greedtok tokenize`` writes: a folder of parquet parts of token ids.

Columns: ``input_ids`` (list<int32>) [, ``attention_mask`` (list<int8>)]. Part k holds the k-th
input (file, run of parquet row groups or Dataset block; the local engine writes one part), so
the folder read as one table (``pyarrow.parquet.read_table(folder)``,
``datasets.load_dataset("parquet", data_files="FOLDER/*.parquet")``,
``ray.data.read_parquet(folder)``) holds the documents in input order. The folder's manifest
(:data:`DATASET_MANIFEST`) is ``_``-prefixed, so parquet readers do not take it for data.

A Ray task writes its part through :func:`hf_greedtok.atomic.atomic_write` (:func:`write_part`),
whole or absent: rerun after its worker died, it writes the part afresh and removes the temporary
the dead one left. The local engine writes its one part straight into the folder being built
(:func:`write_tables`), which :func:`hf_greedtok.output_folders.write_folder` puts in place whole.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Union

from ..atomic import atomic_write
from .manifest import DATASET_MANIFEST_NAME

if TYPE_CHECKING:
    import pyarrow as pa

#: The output folder's manifest: ``_``-prefixed, so parquet readers do not take it for data.
DATASET_MANIFEST = DATASET_MANIFEST_NAME


@dataclass(frozen=True)
class TokenizedDataset:
    """What :func:`hf_greedtok.distributed.tokenize_dataset` wrote: the folder, its parquet
    files and their rows."""

    path: Path
    files: tuple[str, ...]
    rows: int


def write_tables(path: Union[str, os.PathLike], tables: Iterable["pa.Table"],
                 empty: Callable[[], "pa.Table"]) -> None:
    """Write ``tables``, in order, as the parquet file ``path``, where nobody reads it before it
    is done (a folder being built, a temporary); without any table, ``empty()`` (a table of no
    rows, so that readers find the columns).

    Raises:
        Whatever ``tables`` raises while they are made (a document that is not text...).
    """
    import pyarrow.parquet as pq
    tables = iter(tables)
    first = next(tables, None)
    if first is None:
        pq.write_table(empty(), path)
        return
    with pq.ParquetWriter(path, first.schema) as writer:
        writer.write_table(first)
        for table in tables:
            writer.write_table(table)


def write_part(target: Union[str, os.PathLike], tables: Iterable["pa.Table"],
               empty: Callable[[], "pa.Table"]) -> None:
    """:func:`write_tables` through :func:`~hf_greedtok.atomic.atomic_write`: ``target`` is whole
    or absent, for a Ray task that may be rerun after its worker died.

    Raises:
        Whatever ``tables`` raises: no file is left, under ``target``'s name or another.
        OSError: as :func:`~hf_greedtok.atomic.atomic_write`.
    """
    tables = iter(tables)
    first = next(tables, None)     # made before the temporary exists: a task killed meanwhile leaves none
    rest = itertools.chain([first], tables) if first is not None else ()
    atomic_write(target, lambda fd, tmp: write_tables(tmp, rest, empty))


def read_summary(folder: Union[str, os.PathLike]) -> TokenizedDataset:
    """The :class:`TokenizedDataset` of a written folder: its parquet files, sorted, and their rows
    (from the files' metadata)."""
    import pyarrow.parquet as pq
    folder = Path(folder)
    files = tuple(sorted(p.name for p in folder.glob("*.parquet")))
    rows = sum(pq.ParquetFile(folder / f).metadata.num_rows for f in files)
    return TokenizedDataset(folder, files, rows)
