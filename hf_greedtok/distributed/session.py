"""The Ray session of a distributed job: connecting, Ray Data settings for one run, errors.

Shared by counting (:mod:`.counting`) and dataset tokenization (:mod:`.tokenizing`). Ray is
imported inside the functions only: importing this module never loads it.
"""
from __future__ import annotations

import contextlib
import inspect
import logging
import warnings
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence

from ..errors import CorpusError, GreedTokError, WorkerLostError

if TYPE_CHECKING:
    import ray.data


def task_retry_args(max_retries: Optional[int]) -> dict:
    """Ray remote arguments of a Ray Data task step (reads, task maps, writes): ``max_retries``
    reruns after a worker died, None for Ray Data's default (forever). Every task step of a job
    gets the same, so Ray still fuses a read with the map after it (fusion needs equal arguments)."""
    return {} if max_retries is None else {"max_retries": max_retries}


def actor_retry_args(max_retries: Optional[int]) -> dict:
    """Ray remote arguments of a Ray Data actor pool: a batch whose actor died is resent at most
    ``max_retries`` times; None for Ray Data's default (forever). Dead actors are restarted
    without limit, as Ray Data does (a bound there would make Ray Core warn on every run that
    the restart needs the constructor's arguments kept)."""
    return {} if max_retries is None else {"max_task_retries": max_retries}


def with_remote_args(method: Callable, *args, remote_args: dict, **kwargs):
    """``method(*args, **kwargs)`` (a ``ray.data.read_*``, ``Dataset.map_batches`` or
    ``write_parquet``), its tasks or actors taking the Ray remote arguments ``remote_args``
    (:func:`task_retry_args`, :func:`actor_retry_args`, ``num_cpus``).

    Ray 2.60 takes retry bounds only through ``ray_remote_args`` (a dict for reads and writes,
    keywords for maps), which it has deprecated: its warning is silenced here. A Ray without
    ``ray_remote_args`` gets the call without them, so with its own retry defaults; reads and
    maps then lose them alike and still fuse (fusion needs equal arguments)."""
    param = inspect.signature(method).parameters.get("ray_remote_args")
    if not remote_args or param is None:
        return method(*args, **kwargs)
    extra = remote_args if param.kind is param.VAR_KEYWORD else {"ray_remote_args": remote_args}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`ray_remote_args` is deprecated", category=DeprecationWarning)
        return method(*args, **kwargs, **extra)


def settle_fsspec_http() -> None:
    """Make a failing ``fsspec.implementations.http`` fail the same way in every thread.

    Ray Data's parquet reader lists several files on threads, each asking whether the
    filesystem is fsspec's HTTPFileSystem, and catches only ModuleNotFoundError. With fsspec
    installed but not aiohttp, threads importing that module at once see it half-initialized
    and raise a plain ImportError (measured: ``read_parquet`` of 6 local files failed). Importing
    it once here and, when it fails, recording the failure in ``sys.modules`` makes every later
    import a ModuleNotFoundError, which Ray reads as "no HTTP filesystem"."""
    import sys
    name = "fsspec.implementations.http"
    if name in sys.modules:
        return
    try:
        import fsspec.implementations.http  # noqa: F401
    except ImportError:
        sys.modules[name] = None    # the module cannot load here: say so to every importer


def lost_worker(error: BaseException, step: str, max_retries: Optional[int]) -> Optional[WorkerLostError]:
    """The :class:`WorkerLostError` saying that ``step`` gave up, when ``error`` is Ray's report
    of a dead worker, actor or node (the task having used up its retries), else None."""
    ray = require_ray()
    names = ("WorkerCrashedError", "ActorDiedError", "ActorUnavailableError", "NodeDiedError",
             "OutOfMemoryError", "LocalRayletDiedError")
    kinds = tuple(k for k in (getattr(ray.exceptions, n, None) for n in names) if k is not None)
    if not isinstance(error, kinds):
        return None
    tries = "every attempt" if max_retries is None else f"{max_retries + 1} attempts (max_retries={max_retries})"
    reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return WorkerLostError(step, f"a Ray worker process died on {tries} of one task (killed, out of memory or "
                                 f"crashed; see the Ray workers' logs): {type(error).__name__}: {reason}")


def finished(refs: Sequence, poll_seconds: float = 0.2) -> Iterator:
    """``refs`` (Ray ObjectRefs), each yielded once its task has finished (or failed), in the
    order they finish. One ``ray.wait`` takes every ref ready within ``poll_seconds``: waiting
    for one ref at a time would scan all pending refs per finished task, quadratic in the number
    of files."""
    ray = require_ray()
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=len(pending), timeout=poll_seconds)
        yield from ready


def require_ray():
    """The ``ray`` module, or ImportError saying how to install the extra."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise ImportError("distributed counting and tokenizing need Ray Data: pip install 'hf-greedtok[ray]'") from None
    return ray


def ensure_ray(address: Optional[str] = None, num_cpus: Optional[int] = None, *, quiet: bool = False) -> bool:
    """Connect to Ray unless already connected: ``address`` None starts a local cluster
    (``num_cpus`` CPUs, no dashboard), ``"auto"`` or ``"host:port"`` joins a running one.
    Returns True when this call connected (the caller then owns the shutdown); ``quiet`` drops
    Ray's INFO lines."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    level = logging.WARNING if quiet else logging.INFO
    if address is None:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, logging_level=level)
    else:
        ray.init(address=address, log_to_driver=False, logging_level=level)
    return True


@contextlib.contextmanager
def data_settings(datasets: Sequence = (), *, show_progress: bool,
                  preserve_order: Optional[bool] = None, step: str = "Ray Data job",
                  max_retries: Optional[int] = None, cpu_free_reads: bool = False) -> Iterator[None]:
    """Ray Data settings for one run, restored afterwards: on the current ``DataContext`` and
    on each of ``datasets``' own (a Dataset keeps the context it was made with). Progress bars
    and Ray Data's INFO lines follow ``show_progress``; a task's own exception reaches the
    caller as itself (``raise_original_map_exception``), a :class:`CorpusError` naming file and
    line instead of a UserCodeException whose cause Ray does not carry across processes; a
    worker that died on every attempt, a :class:`WorkerLostError` naming ``step`` (its
    ``max_retries`` in the message).

    ``cpu_free_reads``: Ray Data's first parquet reader (``use_datasource_v2 = False``), whose
    read tasks are all that the read runs. The second (Ray 2.60's default) adds steps of its own
    that need a CPU slot: behind an actor pool holding every CPU they wait forever (measured:
    tokenizing one parquet file with 2 actors on 2 CPUs hung, with 1 actor it finished)."""
    ray = require_ray()
    contexts = [ray.data.DataContext.get_current()] + [d.context for d in datasets]
    saved = [(c.enable_progress_bars, c.raise_original_map_exception,
              c.execution_options.preserve_order, getattr(c, "use_datasource_v2", None)) for c in contexts]
    for c in contexts:
        c.enable_progress_bars = show_progress
        c.raise_original_map_exception = True
        if preserve_order is not None:
            c.execution_options.preserve_order = preserve_order
        if cpu_free_reads and hasattr(c, "use_datasource_v2"):
            c.use_datasource_v2 = False
    data_log = logging.getLogger("ray.data")
    log_level = data_log.level
    if not show_progress:
        data_log.setLevel(logging.WARNING)
    try:
        yield
    except ray.exceptions.RayError as e:
        cause = task_error(e)
        if cause is None:
            lost = lost_worker(e, step, max_retries)
            if lost is None:
                raise
            raise lost from e
        if isinstance(cause, CorpusError):   # the worker's own error, naming file and line: just that
            raise CorpusError(cause.source, cause.line, cause.problem) from None
        raise cause from None
    finally:
        data_log.setLevel(log_level)
        for c, (bars, original, order, v2) in zip(contexts, saved):
            c.enable_progress_bars, c.raise_original_map_exception = bars, original
            c.execution_options.preserve_order = order
            if v2 is not None:
                c.use_datasource_v2 = v2


def task_error(error: BaseException) -> Optional[GreedTokError]:
    """The GreedTokError (CorpusError, GreedTokFileError...) a Ray task raised, found in the
    chain Ray wraps it in (RayTaskError -> UserCodeException -> ...), or None."""
    seen, todo = set(), [error]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, GreedTokError):
            return e
        todo += [getattr(e, "cause", None), e.__cause__, e.__context__]
    return None


def is_dataset_source(source) -> bool:
    """Whether ``source`` is a ``ray.data.Dataset`` or a Hugging Face ``datasets.Dataset``
    (else files); neither library is imported for a file source.

    Raises:
        TypeError: a ``datasets.IterableDataset`` (no fixed rows to split among workers).
    """
    module = type(source).__module__.split(".")[0]
    if module == "ray":
        return isinstance(source, require_ray().data.Dataset)
    if module == "datasets":
        import datasets
        if isinstance(source, datasets.IterableDataset):
            raise TypeError("an IterableDataset has no fixed rows to split among workers: pass a "
                            "datasets.Dataset, a ray.data.Dataset or the files")
        return isinstance(source, datasets.Dataset)
    return False


def to_ray_dataset(source) -> "ray.data.Dataset":
    """A source :func:`is_dataset_source` accepts as a ``ray.data.Dataset``, once connected.

    A ``datasets.Dataset`` becomes the Arrow table of its rows (its ``select``/``shuffle``
    indices applied, order kept), in one block per CPU: what ``ray.data.from_huggingface``
    does for a local Dataset, without its probe of the Hugging Face Hub (network, aiohttp).
    """
    ray = require_ray()
    if isinstance(source, ray.data.Dataset):
        return source
    blocks = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ray.data.from_arrow(source.with_format("arrow")[:], override_num_blocks=min(blocks, max(1, len(source))))
