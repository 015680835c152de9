"""Tokenizing a dataset into parquet on Ray (issue 16 item 3); ``engine="local"`` is
:func:`hf_greedtok.hf.tokenize_local.tokenize_local`, this process.

Shape of the Ray job::

    byte range of a text file, JSON Lines file, run of parquet row groups, or block k of a Dataset
        ─► one Ray task: read, encode (the folder loaded once per worker process),
           write part-k.parquet
    into a new folder beside the output, renamed into place at the end;
    columns: input_ids (list<int32>) [, attention_mask (list<int8>)]

Every task is a Ray Core task with ``max_retries``: one whose worker or node died is rerun and
rewrites its part from the start (:func:`hf_greedtok.formats.dataset.write_part`: a part is whole
or absent), so a lost node costs time, not rows. Files are read by our own readers, as the local
engine reads them (:func:`~hf_greedtok.formats.sources.read_documents`), so an error names
the file and line in one line on both engines. Text files went to plain tasks rather than Ray
Data first: on 43 MB with 2 CPUs the Ray Data job (read, actor pool, write) ran at 0.35x the local
engine's speed, its fixed costs larger than the encoding (benchmarks/RESULTS.md, issue 16); the
other kinds followed when Ray Data's actor pool was seen to hang when every actor died (issue 29).

Rows keep the input's order (part k holds the k-th byte range of a text file (64 MB, cut after
a line end: :func:`~hf_greedtok.formats.sources.line_ranges`), JSON Lines file, run of row
groups or block; the
local engine reads in order):
row k of the output, read back as one table (``pyarrow.parquet.read_table(output)``,
``datasets.load_dataset("parquet", data_files="OUTPUT/*.parquet")``,
``ray.data.read_parquet(output)``), is
document k of the inputs taken in the order given. A text file's documents are its lines, each
keeping its ``"\\n"``, cut and decoded exactly as word counting cuts them
(:func:`hf_greedtok.formats.sources.text_lines`), so the ids' total equals the token count the
trainer reports on the same file; JSON Lines and parquet documents are the ``text_column``
values, one per line / row.

The output folder is written as every hf-greedtok folder is
(:func:`hf_greedtok.output_folders.write_folder`): under a temporary name beside it, with a
manifest (``_hf_greedtok_manifest.json``: the sha256 of every parquet file; parquet readers skip
``_`` files) written last, then renamed into place. A failed or killed run leaves nothing under
the output's name, and ``overwrite`` replaces only a folder this function wrote.
"""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, Union

from ..atomic import is_temporary_of
from ..defaults import DEFAULT_MAX_RETRIES
from ..errors import CorpusError
from ..formats.dataset import DATASET_MANIFEST, TokenizedDataset, read_summary, write_part
from ..formats.sources import (read_documents, read_range, resolve_inputs, single_kind, task_pieces,
                               text_lines)
from ..hf.folder_encoder import FolderEncoder
from ..hf.tokenize_local import DEFAULT_BATCH_SIZE, check_job, check_options, tokenize_local
from ..output_folders import write_folder
from .session import (core_retries, dataset_blocks, is_dataset_source, ray_session, require_ray, run_tasks,
                      shutdown_ray, to_ray_dataset)

if TYPE_CHECKING:
    import datasets
    import ray.data

__all__ = ["DATASET_MANIFEST", "DEFAULT_BATCH_SIZE", "ENGINES", "TokenizedDataset", "tokenize_dataset"]

ENGINES = ("ray", "local")

Source = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], "ray.data.Dataset", "datasets.Dataset"]


# The encoder a Ray worker process keeps between tasks, with its key: folder, the folder's
# files' (name, size, mtime) stamp (a folder rewritten in place is loaded afresh) and the encoding
# options. One only: a worker serves one job at a time.
_WORKER_ENCODER: list = [None, None]


def _worker_encoder(key: tuple) -> FolderEncoder:
    if _WORKER_ENCODER[0] != key:
        folder, _, mode, add_special_tokens, attention_mask = key
        _WORKER_ENCODER[:] = [key, FolderEncoder(folder, mode=mode, add_special_tokens=add_special_tokens,
                                                 attention_mask=attention_mask)]
    return _WORKER_ENCODER[1]


def _folder_stamp(folder: Path) -> tuple:
    return tuple(sorted((p.name, st.st_size, st.st_mtime_ns)
                        for p in folder.iterdir() if p.is_file() for st in [p.stat()]))


def _write_part(target: str, encoder: FolderEncoder, docs: list, source: str, batch_size: int) -> int:
    """Encode ``docs`` ``batch_size`` at a time into the parquet file ``target``; returns its rows.
    Written whole or not at all (:func:`~hf_greedtok.formats.dataset.write_part`), so a task
    killed mid-write and rerun leaves one whole file."""
    tables = (encoder.encode_documents(docs[k:k + batch_size], source, k + 1)
              for k in range(0, len(docs), batch_size))
    write_part(target, tables, lambda: encoder.encode_table([]))
    return len(docs)


def _tokenize_file(path: str, kind: str, piece, target: str, key: tuple, text_column: str,
                   encoding_errors: str, batch_size: int) -> int:
    """Ray task: the lines of a byte range of a text file (``piece``: start, end, first line, of
    :func:`~hf_greedtok.formats.sources.line_ranges`; cut as word counting cuts them), a JSON
    Lines file's documents or a run of a parquet file's row groups (``piece``), encoded into the
    parquet file ``target``."""
    if kind == "text":
        start, end, first_line = piece
        docs = text_lines(path, first_line, read_range(path, start, end), encoding_errors)
    else:
        docs = list(read_documents(path, kind, text_column, encoding_errors, piece))
    return _write_part(target, _worker_encoder(key), docs, path, batch_size)


def _tokenize_block(block, target: str, key: tuple, text_column: str, source: str, batch_size: int) -> int:
    """Ray task: one block of a Dataset (Arrow or pandas), its ``text_column`` encoded into the
    parquet file ``target``."""
    from ray.data.block import BlockAccessor
    table = BlockAccessor.for_block(block).to_arrow()
    if text_column not in table.column_names:
        raise CorpusError(source, None, f"no column {text_column!r} (columns: {table.column_names})")
    return _write_part(target, _worker_encoder(key), table.column(text_column).to_pylist(), source, batch_size)


def _tokenize_on_ray(folder: Path, kinds: Optional[dict], dataset, key: tuple, text_column: str,
                     encoding_errors: str, batch_size: int, max_retries: Optional[int], limit: int,
                     show_progress: bool) -> None:
    """One task per byte range of a text file, JSON Lines file, run of row groups or Dataset
    block (:func:`_tokenize_file`,
    :func:`_tokenize_block`), part k holding the k-th of them, so the folder's order is the
    inputs' order; at most ``limit`` at a time; waits for all of them, a bar counting parts."""
    import ray
    from .._progress import progress_bar
    retries = core_retries(max_retries)
    if kinds is not None:
        task = ray.remote(_tokenize_file).options(**retries)
        pieces = [(path, kind, piece) for kind, files in kinds.items() for path in files
                  for piece in task_pieces(path, kind)]
        width = max(5, len(str(len(pieces) - 1)))
        submissions = [partial(_submit, task, path, kind, piece, str(folder / f"part-{k:0{width}d}.parquet"),
                               key, text_column, encoding_errors, batch_size)
                       for k, (path, kind, piece) in enumerate(pieces)]
        total: Optional[int] = len(pieces)
    else:
        task = ray.remote(_tokenize_block).options(**retries)
        source = f"dataset column {text_column!r}"
        blocks = dataset_blocks(dataset, show_progress=show_progress, step="tokenizing", max_retries=max_retries)
        submissions = (partial(_submit, task, block, str(folder / f"part-{k:09d}.parquet"), key, text_column, source,
                               batch_size) for k, block in enumerate(blocks))
        total = None
    with progress_bar(total=total, desc="tokenizing", unit="part", show=show_progress) as bar:
        run_tasks(submissions, "tokenizing", max_retries, lambda *_: bar.update(1), limit=limit)
    # Every task has finished, and ``folder`` is this run's own (write_folder puts it in place
    # after this returns), so a part's temporary still here is an attempt's that a lost node or
    # killed worker ended: the rerun's write keeps an empty unlocked one (a live writer may own
    # it), and none is live now.
    for entry in os.scandir(folder):
        part = entry.name[1:].partition(".parquet.")[0] + ".parquet"      # .part-00000.parquet.<random><suffix>
        if entry.name.startswith(".part-") and is_temporary_of(entry.name, part) and entry.is_file():
            os.unlink(entry.path)


def _submit(task, *args) -> tuple:
    return task.remote(*args), None


def tokenize_dataset(source: Source, tokenizer_dir: Union[str, os.PathLike], output: Union[str, os.PathLike], *,
                     engine: str = "ray", mode: Optional[str] = None, text_column: str = "text",
                     add_special_tokens: bool = True, attention_mask: bool = False,
                     encoding_errors: str = "strict", batch_size: int = DEFAULT_BATCH_SIZE,
                     overwrite: bool = False, address: Optional[str] = None, num_cpus: Optional[int] = None,
                     num_workers: Optional[int] = None, num_threads: int = 1,
                     max_retries: Optional[int] = DEFAULT_MAX_RETRIES, show_progress: bool = True) -> TokenizedDataset:
    """Tokenize documents with a saved tokenizer folder into a folder of parquet files.

    Args:
        source: text files (one document per line, each keeping its ``"\\n"``), ``.jsonl``/
            ``.json`` (JSON Lines, ``text_column`` per line) or ``.parquet`` files, compressed
            ones, globs or directories
            (:func:`~hf_greedtok.formats.sources.resolve_inputs`), one kind per call; or a ``ray.data.Dataset`` / Hugging Face ``datasets.Dataset`` (Ray
            engine) with a ``text_column``.
        tokenizer_dir: any folder ``hf-greedtok train`` writes, or a ``Tokenizer.save`` folder.
        output: the folder to create (a path every Ray worker can write, e.g. a shared file
            system; one machine: any local path).
        engine: "ray" (one Ray task per file, run of parquet row groups or Dataset block, each
            worker process loading the tokenizer once) or "local" (this process, ``num_threads``
            native encoder threads: :func:`~hf_greedtok.hf.tokenize_local.tokenize_local`).
        mode: "cover" or "optimal" for GreedTok folders (default: the folder's).
        add_special_tokens: BOS/EOS as the folder's post-processor adds them (``tok(text)``).
        attention_mask: also write ``attention_mask`` (list<int8>, all ones).
        encoding_errors: invalid UTF-8 in text files: "strict", "replace" or "ignore".
        batch_size: documents per encoder call.
        overwrite: replace an existing ``output`` (only a folder this function wrote).
        address, num_cpus: Ray: None starts a local cluster of ``num_cpus`` CPUs when Ray is not
            initialized; ``"auto"`` or an address joins one; an existing connection is used.
        num_workers: Ray: at most this many parts encoded at a time (default: twice the
            cluster's CPUs; a Dataset's blocks are produced as they are encoded).
        num_threads: local: encoder threads.
        max_retries: Ray: reruns of a task whose worker process or node died; ids stay exact
            (its part is encoded and written afresh). None: forever.
        show_progress: a bar of the parts done (and Ray Data's for a Dataset); Ray's INFO
            lines.

    Returns:
        :class:`TokenizedDataset`. Row k of ``pyarrow.parquet.read_table(output)`` holds
        ``input_ids`` (list<int32>) equal to ``AutoTokenizer.from_pretrained(tokenizer_dir)(doc_k)
        ["input_ids"]`` (GreedTok folders: :class:`GreedTokTokenizerFast`).

    Raises:
        CorpusError: a missing input file or unmatched glob, inputs of several kinds (before any
            work starts); invalid UTF-8 (strict), a NUL byte, a missing column or a non-str
            document (raised from the task, file named).
        GreedTokFileError: a missing or damaged tokenizer folder (before any work starts).
        OutputError, FileExistsError: ``output`` exists (without ``overwrite``), is not ours to
            replace, or contains an input.
        WorkerLostError: Ray: a worker died on every one of a task's ``max_retries + 1``
            attempts (nothing is left under ``output``'s name).
        ValueError: unknown engine or encoding_errors. ImportError: Ray Data or pyarrow missing.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    check_options(encoding_errors, batch_size)
    if engine == "local":
        if is_dataset_source(source):
            raise ValueError("the local engine reads files; tokenize a Dataset with engine='ray'")
        return tokenize_local(source, tokenizer_dir, output, mode=mode, text_column=text_column,
                              add_special_tokens=add_special_tokens, attention_mask=attention_mask,
                              encoding_errors=encoding_errors, batch_size=batch_size, overwrite=overwrite,
                              num_threads=num_threads)
    tokenizer_dir, output = Path(tokenizer_dir), Path(output)
    # every check before any work: inputs, tokenizer folder, output
    kinds = None
    if not is_dataset_source(source):
        kinds = resolve_inputs([source] if isinstance(source, (str, os.PathLike)) else source)
        single_kind(kinds)
    tokenizer, not_inside = check_job(kinds, tokenizer_dir, output, overwrite)

    ray = require_ray()
    # each worker process opens the folder once, by its path (a TokenizerFolder holds loaded models)
    resolved = tokenizer.path.resolve()
    key = (str(resolved), _folder_stamp(resolved), mode, add_special_tokens, attention_mask)
    with ray_session(address, num_cpus, quiet=not show_progress) as started:
        def write(folder: Path) -> None:
            try:
                limit = num_workers or 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
                _tokenize_on_ray(folder, kinds, None if kinds is not None else to_ray_dataset(source), key,
                                 text_column, encoding_errors, batch_size, max_retries, limit, show_progress)
            except BaseException:
                if started:     # stop our tasks before the temporary folder is removed
                    shutdown_ray()
                raise

        write_folder(output, write, kind="dataset", overwrite=overwrite, inputs=not_inside)
    return read_summary(output)
