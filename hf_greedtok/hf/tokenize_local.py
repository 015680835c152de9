"""Tokenizing files into a parquet dataset in this process: ``hf-greedtok tokenize --engine local``.

Documents are read as the Ray engine reads them (:mod:`hf_greedtok.formats.sources`), encoded
by one :class:`~hf_greedtok.hf.folder_encoder.FolderEncoder` with ``num_threads`` native
threads, and written as one part (:func:`hf_greedtok.formats.dataset.write_tables`) of a folder
put in place as every hf-greedtok folder is (:func:`hf_greedtok.output_folders.write_folder`).
A text file's documents are its lines, each keeping its ``"\\n"``, cut and decoded exactly as word
counting cuts them (:func:`hf_greedtok.formats.sources.text_lines`), so the ids' total equals the
token count the trainer reports on the same file; JSON Lines and parquet documents are the
``text_column`` values, one per line / row. Rows keep the inputs' order.

The checks here (:func:`check_options`, :func:`check_job`) run before any work on both engines:
the Ray engine (:func:`hf_greedtok.distributed.tokenize_dataset`) uses them too.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Optional, Sequence, Union

from ..defaults import ENCODING_ERRORS
from ..formats.dataset import TokenizedDataset, read_summary, write_tables
from ..formats.sources import read_documents, resolve_inputs, single_kind, text_chunks, text_lines
from ..output_folders import check_target, check_writable, write_folder
from .folder import TokenizerFolder
from .folder_encoder import FolderEncoder

#: Documents per encoder call: large enough that Ray's per-batch cost (about a millisecond)
#: stays small next to encoding (English text at 100 bytes a line: about 0.4 MB per batch).
DEFAULT_BATCH_SIZE = 4096
PathLike = Union[str, os.PathLike]


def check_options(encoding_errors: str, batch_size: int) -> None:
    """Raise ValueError for an unknown ``encoding_errors`` or a ``batch_size`` below 1, and
    ImportError without pyarrow."""
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError("writing parquet needs pyarrow: pip install 'hf-greedtok[ray]'") from None


def check_job(kinds: Optional[dict[str, list[str]]], tokenizer_dir: Path, output: Path,
              overwrite: bool) -> tuple[TokenizerFolder, list[PathLike]]:
    """Open the tokenizer folder and check the output before any work; returns the opened
    folder and what the output must not contain (the local input files and the folder), for
    ``write_folder``'s ``inputs``.

    Args:
        kinds: :func:`~hf_greedtok.formats.sources.resolve_inputs` of the inputs, or None (a Dataset).

    Raises:
        GreedTokFileError: a missing or damaged tokenizer folder.
        OutputError, FileExistsError: as :func:`~hf_greedtok.output_folders.check_target`, or
            ``output`` cannot be created.
    """
    folder = TokenizerFolder.open(tokenizer_dir)
    inputs: list[PathLike] = [f for fs in (kinds or {}).values() for f in fs if "://" not in f]
    inputs.append(folder.path)
    check_target(output, kind="dataset", overwrite=overwrite, inputs=inputs)
    check_writable(output)
    return folder, inputs


def local_documents(kinds: dict[str, list[str]], text_column: str, encoding_errors: str,
                    batch_size: int) -> Iterator[tuple[str, Optional[int], list]]:
    """(source, number of the batch's first document or None, documents) of the inputs, in
    order: text files by lines, cut in chunks at line ends as word counting reads them.

    Raises:
        CorpusError: inputs of several kinds, or as the readers raise (file and line named).
    """
    kind, files = single_kind(kinds)
    if kind == "text":
        for source, first, data in text_chunks([Path(f) for f in files]):
            lines = text_lines(source, first, data, encoding_errors)
            for k in range(0, len(lines), batch_size):
                yield source, None, lines[k:k + batch_size]
        return
    for f in files:
        batch: list = []
        first = 1
        for doc in read_documents(f, kind, text_column, encoding_errors):
            batch.append(doc)
            if len(batch) == batch_size:
                yield f, first, batch
                first += len(batch)
                batch = []
        if batch:
            yield f, first, batch


def tokenize_local(inputs: Union[PathLike, Sequence[PathLike]], tokenizer_dir: PathLike, output: PathLike, *,
                   mode: Optional[str] = None, text_column: str = "text", add_special_tokens: bool = True,
                   attention_mask: bool = False, encoding_errors: str = "strict",
                   batch_size: int = DEFAULT_BATCH_SIZE, overwrite: bool = False,
                   num_threads: int = 1) -> TokenizedDataset:
    """Tokenize files with a saved tokenizer folder, in this process, into a folder of parquet
    files (one part): :func:`hf_greedtok.distributed.tokenize_dataset` with ``engine="local"``.

    Args:
        inputs: text files (one document per line, each keeping its ``"\\n"``), ``.jsonl``/
            ``.json`` (JSON Lines, ``text_column`` per line) or ``.parquet`` files, compressed
            ones, globs or directories (:func:`~hf_greedtok.formats.sources.resolve_inputs`);
            one kind per call.
        tokenizer_dir: any folder ``hf-greedtok train`` writes, or a ``Tokenizer.save`` folder.
        output: the folder to create.
        mode, add_special_tokens, attention_mask, encoding_errors, batch_size, overwrite: as
            :func:`~hf_greedtok.distributed.tokenize_dataset`.
        num_threads: native encoder threads (ids do not depend on it).

    Returns:
        :class:`~hf_greedtok.formats.dataset.TokenizedDataset`; row k holds document k's
        ``input_ids`` (list<int32>), as ``AutoTokenizer.from_pretrained(tokenizer_dir)(doc_k)``.

    Raises:
        CorpusError: a missing input file or unmatched glob, inputs of several kinds (before any
            work starts); invalid UTF-8 (strict), a NUL byte, a missing column or a non-str
            document (file named).
        GreedTokFileError: a missing or damaged tokenizer folder (before any work starts).
        OutputError, FileExistsError: ``output`` exists (without ``overwrite``), is not ours to
            replace, or contains an input.
        ValueError: unknown encoding_errors. ImportError: pyarrow missing.
    """
    check_options(encoding_errors, batch_size)
    tokenizer_dir, output = Path(tokenizer_dir), Path(output)
    kinds = resolve_inputs([inputs] if isinstance(inputs, (str, os.PathLike)) else inputs)
    single_kind(kinds)
    tokenizer, not_inside = check_job(kinds, tokenizer_dir, output, overwrite)

    def write(folder: Path) -> None:
        encoder = FolderEncoder(tokenizer, mode=mode, add_special_tokens=add_special_tokens,
                                attention_mask=attention_mask, num_threads=num_threads)
        tables = (encoder.encode_documents(docs, source, first)
                  for source, first, docs in local_documents(kinds, text_column, encoding_errors, batch_size))
        write_tables(folder / "part-00000.parquet", tables, lambda: encoder.encode_table([]))

    write_folder(output, write, kind="dataset", overwrite=overwrite, inputs=not_inside)
    return read_summary(output)
