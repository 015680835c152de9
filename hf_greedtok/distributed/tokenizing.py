"""Tokenizing a dataset into parquet, on Ray or in this process (issue 16 item 3).

Shape of the Ray job::

    text file k ─► one Ray task: read, cut lines, encode (the folder loaded once per worker
                   process), write part-k.parquet
    read_json / read_parquet / a ray.data.Dataset / a datasets.Dataset ─► documents
          ─► map_batches(_EncodeActor): an actor pool, each actor loading the folder once
          ─► write_datasink(_ordered_parquet_sink): write task t, its blocks in order, to part-t.parquet
    each into a new folder beside the output, renamed into place at the end;
    columns: input_ids (list<int32>) [, attention_mask (list<int8>)]

Text files go to plain Ray tasks rather than Ray Data: on 43 MB with 2 CPUs the Ray Data job
(read, actor pool, write) ran at 0.35x the local engine's speed, its fixed costs larger than
the encoding (benchmarks/RESULTS.md, issue 16).

Rows keep the input's order (text files: part k is file k; documents: Ray Data's
``preserve_order`` hands write task t the t-th run of blocks, which it writes in that order;
the local engine reads in order):
row k of the output, read back as one table (``pyarrow.parquet.read_table(output)``,
``datasets.load_dataset("parquet", data_files="OUTPUT/*.parquet")``,
``ray.data.read_parquet(output)``), is
document k of the inputs taken in the order given. A text file's documents are its lines, each
keeping its ``"\\n"``, cut and decoded exactly as word counting cuts them
(:func:`hf_greedtok.word_counts.text_lines`), so the ids' total equals the token count the
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

from ..defaults import DEFAULT_MAX_RETRIES, ENCODING_ERRORS
from ..errors import CorpusError
from ..hf.folder import check_tokenizer_folder
from .. import word_counts as _wc
from .encoding import FolderEncoder
from .session import (actor_retry_args, data_settings, ensure_ray, finished, is_dataset_source, settle_fsspec_http,
                      with_remote_args,
                      require_ray, task_retry_args, to_ray_dataset)
from .sources import iter_documents, read_bytes, resolve_inputs

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa
    import ray.data

#: The output folder's manifest: ``_``-prefixed, so parquet readers do not take it for data.
DATASET_MANIFEST = "_hf_greedtok_manifest.json"
#: Documents per encoder call: large enough that Ray's per-batch cost (about a millisecond)
#: stays small next to encoding (English text at 100 bytes a line: about 0.4 MB per batch).
DEFAULT_BATCH_SIZE = 4096
ENGINES = ("ray", "local")

Source = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], "ray.data.Dataset", "datasets.Dataset"]


@dataclass(frozen=True)
class TokenizedDataset:
    """What :func:`tokenize_dataset` wrote: the folder, its parquet files and their rows."""

    path: Path
    files: tuple[str, ...]
    rows: int


class _EncodeActor:
    """One Ray actor's encoder: loads the folder once, then encodes the batches of documents
    (``text_column``) it is given."""

    def __init__(self, folder: str, mode: Optional[str], add_special_tokens: bool, attention_mask: bool,
                 text_column: str, source: str) -> None:
        self.encoder = FolderEncoder(folder, mode=mode, add_special_tokens=add_special_tokens,
                                     attention_mask=attention_mask)
        self.text_column, self.source = text_column, source

    def __call__(self, batch: "pa.Table") -> "pa.Table":
        return _encode(self.encoder, batch, self.text_column, self.source)


# The encoder a Ray worker process keeps between text-file tasks, with its key: folder, the
# folder's files' (name, size, mtime) stamp (a folder rewritten in place is loaded afresh) and
# the encoding options. One only: a worker serves one job at a time.
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


def _tokenize_text_file(path: str, target: str, key: tuple, encoding_errors: str, batch_size: int) -> int:
    """Ray task: text file ``path``'s lines (cut as word counting cuts them), encoded
    ``batch_size`` at a time into the parquet file ``target``; returns its rows. Written under a
    ``_``-prefixed name (parquet readers skip it) and renamed, so a task killed mid-write and
    rerun leaves one whole file."""
    import pyarrow.parquet as pq
    encoder = _worker_encoder(key)
    lines = _wc.text_lines(path, 1, read_bytes(path), encoding_errors)
    partial = os.path.join(os.path.dirname(target), "_" + os.path.basename(target) + ".partial")
    if not lines:       # an empty table, so that readers find the columns
        pq.write_table(encoder.encode_table([]), partial)
    else:
        writer = None
        try:
            for k in range(0, len(lines), batch_size):
                table = encoder.encode_table(lines[k:k + batch_size])
                if writer is None:
                    writer = pq.ParquetWriter(partial, table.schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
    os.replace(partial, target)
    return len(lines)


def _write_text_files_on_ray(folder: Path, files: list[str], key: tuple, encoding_errors: str, batch_size: int,
                             retries: dict, show_progress: bool) -> None:
    """One task per text file, part k holding file k's rows (so the folder's order is the
    inputs' order); waits for all of them, a bar counting finished files."""
    import ray
    from .._progress import progress_bar
    task = ray.remote(_tokenize_text_file).options(**retries)
    width = max(5, len(str(len(files) - 1)))
    pending = [task.remote(f, str(folder / f"part-{k:0{width}d}.parquet"), key, encoding_errors, batch_size)
               for k, f in enumerate(files)]
    try:
        with progress_bar(total=len(files), desc="tokenizing", unit="file", show=show_progress) as bar:
            for ref in finished(pending):
                ray.get(ref)        # a task's error surfaces here, with the first to fail
                bar.update(1)
    except BaseException:
        # on a cluster we joined, nothing keeps writing after we gave up (finished tasks ignore it)
        for ref in pending:
            ray.cancel(ref)
        raise


def _write_blocks(folder: str, blocks, task_idx: int) -> int:
    """Ray Data write task ``task_idx``: its blocks (Arrow tables of ids), in the order given, into
    ``part-<task_idx>.parquet``; returns the rows written (none: no file).

    Ray's own ``write_parquet`` (Ray 2.60) hands a task's blocks to ``pyarrow.dataset.write_dataset``
    with ``use_threads=True`` and no ``preserve_order``, which may write them out of order (seen:
    rows 300-310 of a 311-row JSON Lines file before rows 200-299). Written under a ``_``-prefixed
    name and renamed, as the text-file tasks do, so a retried task leaves one whole file."""
    import pyarrow.parquet as pq
    from ray.data.block import BlockAccessor
    tables = [t for t in (BlockAccessor.for_block(b).to_arrow() for b in blocks) if t.num_rows]
    if not tables:
        return 0
    target = os.path.join(folder, f"part-{task_idx:09d}.parquet")
    partial = os.path.join(folder, f"_part-{task_idx:09d}.parquet.partial")
    with pq.ParquetWriter(partial, tables[0].schema) as writer:
        for table in tables:
            writer.write_table(table)
    os.replace(partial, target)
    return sum(t.num_rows for t in tables)


def _ordered_parquet_sink(folder: str):
    """A Ray Data ``Datasink`` writing with :func:`_write_blocks` (defined here: ray loads lazily)."""
    from ray.data import Datasink

    class OrderedParquetSink(Datasink):
        def write(self, blocks, ctx) -> int:
            return _write_blocks(folder, blocks, ctx.task_idx)

        def get_name(self) -> str:
            return "OrderedParquet"

    return OrderedParquetSink()


def _encode(encoder: FolderEncoder, batch: "pa.Table", column: str, source: str) -> "pa.Table":
    if column not in batch.column_names:
        raise CorpusError(source, None, f"no column {column!r} (columns: {batch.column_names})")
    return _encode_docs(encoder, batch.column(column).to_pylist(), source)


def _encode_docs(encoder: FolderEncoder, docs: list, source: str, first: Optional[int] = None) -> "pa.Table":
    """Encode one batch; ``first``: the number of its first document in ``source``, if known."""
    bad = next((k for k, d in enumerate(docs) if not isinstance(d, str)), None)
    if bad is not None:      # a null or a number among the documents
        which = f"document {first + bad}" if first is not None else "a document"
        raise CorpusError(source, None, f"{which} is {type(docs[bad]).__name__}, not text")
    return encoder.encode_table(docs)


def _single_kind(kinds: dict[str, list[str]]) -> tuple[str, list[str]]:
    if len(kinds) > 1:
        raise CorpusError(", ".join(f for files in kinds.values() for f in files), None,
                          f"inputs of different kinds ({', '.join(kinds)}): tokenize one kind at a time, so "
                          "rows keep the inputs' order")
    return next(iter(kinds.items()))


def _ray_documents(source, kinds, text_column: str, workers: int,
                   retries: dict) -> tuple["ray.data.Dataset", str]:
    """(Dataset of documents, their name in errors) of a Dataset or of JSON Lines or parquet
    files; reads take the task arguments ``retries``."""
    import ray
    if kinds is None:
        return source, f"dataset column {text_column!r}"
    kind, files = _single_kind(kinds)
    names = [os.path.basename(f) if "://" not in f else f for f in files]
    # errors name the file when there is one; each task carries the name, so not thousands
    name = ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])} ... ({len(names)} files)"
    # Reads take no CPU slot: the encoder actors hold one CPU each for the whole run, and a read
    # waiting for a slot they hold would wait forever (measured: 2 actors on 2 CPUs hung). At
    # most ``workers`` reads at a time, as slot-free tasks would otherwise all start at once,
    # each in a new worker process (measured: 16 files, 27 processes on a 1-CPU cluster)
    free = {"num_cpus": 0, "concurrency": workers}     # read_* keyword arguments
    if kind == "json":
        return with_remote_args(ray.data.read_json, files, lines=True, override_num_blocks=len(files),
                                remote_args=retries, **free), name
    settle_fsspec_http()
    return with_remote_args(ray.data.read_parquet, files, remote_args=retries, **free).select_columns([text_column]), \
        name


def _local_documents(kinds: dict[str, list[str]], text_column: str, encoding_errors: str,
                     batch_size: int) -> Iterator[tuple[str, Optional[int], list]]:
    """(source, number of the batch's first document or None, documents) of the inputs, in
    order: text files by lines, cut in chunks at line ends as word counting reads them."""
    kind, files = _single_kind(kinds)
    if kind == "text":
        for source, first, data in _wc._file_chunks([Path(f) for f in files], None):
            lines = _wc.text_lines(source, first, data, encoding_errors)
            for k in range(0, len(lines), batch_size):
                yield source, None, lines[k:k + batch_size]
        return
    for f in files:
        batch: list = []
        first = 1
        for doc in iter_documents(f, kind, text_column):
            batch.append(doc)
            if len(batch) == batch_size:
                yield f, first, batch
                first += len(batch)
                batch = []
        if batch:
            yield f, first, batch


def _write_local(folder: Path, kinds, tokenizer_dir, mode, add_special_tokens, attention_mask, text_column,
                 encoding_errors, batch_size, num_threads) -> None:
    import pyarrow.parquet as pq
    encoder = FolderEncoder(tokenizer_dir, mode=mode, add_special_tokens=add_special_tokens,
                            attention_mask=attention_mask, num_threads=num_threads)
    writer = None
    try:
        for source, first, docs in _local_documents(kinds, text_column, encoding_errors, batch_size):
            table = _encode_docs(encoder, docs, source, first)
            if writer is None:
                writer = pq.ParquetWriter(folder / "part-00000.parquet", table.schema)
            writer.write_table(table)
        if writer is None:      # no document: an empty table, so that readers find the columns
            pq.write_table(encoder.encode_table([]), folder / "part-00000.parquet")
    finally:
        if writer is not None:
            writer.close()


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
            ``.json`` (JSON Lines, ``text_column`` per line) or ``.parquet`` files, globs, one
            kind per call; or a ``ray.data.Dataset`` / Hugging Face ``datasets.Dataset`` (Ray
            engine) with a ``text_column``.
        tokenizer_dir: any folder ``hf-greedtok train`` writes, or a ``Tokenizer.save`` folder.
        output: the folder to create (a path every Ray worker can write, e.g. a shared file
            system; one machine: any local path).
        engine: "ray" (text files: one Ray task per file, each worker process loading the
            tokenizer once; documents: Ray Data ``map_batches`` over an actor pool, each actor
            loading it once) or "local" (this process, ``num_threads`` native encoder threads).
        mode: "cover" or "optimal" for GreedTok folders (default: the folder's).
        add_special_tokens: BOS/EOS as the folder's post-processor adds them (``tok(text)``).
        attention_mask: also write ``attention_mask`` (list<int8>, all ones).
        encoding_errors: invalid UTF-8 in text files: "strict", "replace" or "ignore".
        batch_size: documents per encoder call.
        overwrite: replace an existing ``output`` (only a folder this function wrote).
        address, num_cpus: Ray: None starts a local cluster of ``num_cpus`` CPUs when Ray is not
            initialized; ``"auto"`` or an address joins one; an existing connection is used.
        num_workers: Ray: encoder actors (default: the cluster's CPUs).
        num_threads: local: encoder threads.
        max_retries: Ray: reruns of a text file's task or of a read or write task whose worker
            process died, restarts of a dead encoder actor and resends of its batch; ids stay
            exact (a file or batch is encoded afresh). None: forever.
        show_progress: a bar of the text files done, or Ray Data's progress bars; Ray's INFO
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
    from ..output_folders import check_target, check_writable, write_folder
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if encoding_errors not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be one of {ENCODING_ERRORS}, got {encoding_errors!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError("writing parquet needs pyarrow: pip install 'hf-greedtok[ray]'") from None
    tokenizer_dir, output = Path(tokenizer_dir), Path(output)
    # every check before any work: inputs, tokenizer folder, output
    if not is_dataset_source(source):
        kinds = resolve_inputs([source] if isinstance(source, (str, os.PathLike)) else source)
        _single_kind(kinds)
    elif engine == "local":
        raise ValueError("the local engine reads files; tokenize a Dataset with engine='ray'")
    else:
        kinds = None
    check_tokenizer_folder(tokenizer_dir)
    files = [f for fs in (kinds or {}).values() for f in fs if "://" not in f]
    check_target(output, kind="dataset", overwrite=overwrite, inputs=[*files, tokenizer_dir])
    check_writable(output)
    args = dict(mode=mode, add_special_tokens=add_special_tokens, attention_mask=attention_mask)

    if engine == "local":
        def write(folder: Path) -> None:
            _write_local(folder, kinds, tokenizer_dir, mode, add_special_tokens, attention_mask, text_column,
                         encoding_errors, batch_size, num_threads)
        write_folder(output, write, kind="dataset", overwrite=overwrite, inputs=[*files, tokenizer_dir])
        return _summary(output)

    ray = require_ray()
    started = ensure_ray(address, num_cpus, quiet=not show_progress)

    def write(folder: Path) -> None:
        try:
            workers = num_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            retries = task_retry_args(max_retries)
            dataset = to_ray_dataset(source) if kinds is None else None
            # the reads are made under the run's settings (preserve_order), not only the steps after them
            with data_settings([] if dataset is None else [dataset], show_progress=show_progress,
                               preserve_order=True, step="tokenizing", max_retries=max_retries,
                               cpu_free_reads=True):
                if kinds is not None and "text" in kinds:
                    resolved = tokenizer_dir.resolve()
                    key = (str(resolved), _folder_stamp(resolved), mode, add_special_tokens, attention_mask)
                    # Ray Core's default is 3 retries; None means forever here, as in Ray Data
                    _write_text_files_on_ray(folder, kinds["text"], key, encoding_errors, batch_size,
                                             {"max_retries": -1 if max_retries is None else max_retries},
                                             show_progress)
                    return
                docs, name = _ray_documents(dataset, kinds, text_column, workers, retries)
                ids = with_remote_args(docs.map_batches, _EncodeActor, fn_constructor_kwargs=dict(
                    folder=str(tokenizer_dir.resolve()), text_column=text_column, source=name, **args),
                    batch_size=batch_size, batch_format="pyarrow", zero_copy_batch=True,
                    compute=ray.data.ActorPoolStrategy(size=workers), remote_args=actor_retry_args(max_retries))
                with_remote_args(ids.write_datasink, _ordered_parquet_sink(str(folder)),
                                 remote_args={"num_cpus": 0, **retries}, concurrency=workers)    # as the reads
        except BaseException:
            if started:     # stop our tasks before the temporary folder is removed
                ray.shutdown()
            raise

    try:
        write_folder(output, write, kind="dataset", overwrite=overwrite, inputs=[*files, tokenizer_dir])
    finally:
        if started and ray.is_initialized():
            ray.shutdown()
    return _summary(output)


def _summary(output: Path) -> TokenizedDataset:
    import pyarrow.parquet as pq
    files = tuple(sorted(p.name for p in output.glob("*.parquet")))
    rows = sum(pq.ParquetFile(output / f).metadata.num_rows for f in files)
    return TokenizedDataset(output, files, rows)
