"""The tokenized dataset ``hf-greedtok tokenize`` writes: a folder of parquet parts of token ids.

Columns: ``input_ids`` (list<int32>) [, ``attention_mask`` (list<int8>)]. Part k holds the k-th
input (file, run of parquet row groups or Dataset block; the local engine writes one part), so
the folder read as one table (``pyarrow.parquet.read_table(folder)``,
``datasets.load_dataset("parquet", data_files="FOLDER/*.parquet")``,
``ray.data.read_parquet(folder)``) holds the documents in input order. The folder's manifest
(:data:`DATASET_MANIFEST`) is ``_``-prefixed, so parquet readers do not take it for data.

Each part is written through :func:`hf_greedtok.atomic.atomic_write`, whole or absent: a Ray task
rerun after its worker died writes its part afresh, and removes the temporary the dead one left.
"""
from __future__ import annotations

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


def write_part(target: Union[str, os.PathLike], tables: Iterable["pa.Table"],
               empty: Callable[[], "pa.Table"]) -> None:
    """Write ``tables``, in order, as the parquet file ``target``, atomically; without any table,
    ``empty()`` (a table of no rows, so that readers find the columns).

    Raises:
        Whatever ``tables`` raises while they are made (a document that is not text...): no
        file is left, under ``target``'s name or another. OSError: as
        :func:`~hf_greedtok.atomic.atomic_write`.
    """
    import pyarrow.parquet as pq
    tables = iter(tables)
    first = next(tables, None)     # made before the temporary exists: a task killed meanwhile leaves none

    def fill(fd: int, tmp: str) -> None:
        if first is None:
            pq.write_table(empty(), tmp)
            return
        with pq.ParquetWriter(tmp, first.schema) as writer:
            writer.write_table(first)
            for table in tables:
                writer.write_table(table)

    atomic_write(target, fill)


def read_summary(folder: Union[str, os.PathLike]) -> TokenizedDataset:
    """The :class:`TokenizedDataset` of a written folder: its parquet files, sorted, and their rows
    (from the files' metadata)."""
    import pyarrow.parquet as pq
    folder = Path(folder)
    files = tuple(sorted(p.name for p in folder.glob("*.parquet")))
    rows = sum(pq.ParquetFile(folder / f).metadata.num_rows for f in files)
    return TokenizedDataset(folder, files, rows)
