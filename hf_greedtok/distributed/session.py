"""The Ray session of a distributed job: connecting, running Ray Core tasks, errors, signals.

Shared by counting (:mod:`.counting`), dataset tokenization (:mod:`.tokenizing`) and hierarchical
training (:mod:`.training`). Every piece of work is a Ray Core task with ``max_retries``
(a file, a run of parquet row groups, or one block of a Dataset); Ray Data only turns a
``ray.data.Dataset`` into blocks. Ray is imported inside the functions only: importing this
module never loads it.

Connecting (:func:`ensure_ray`):

* no address: a new local cluster (``ray.init(address="local")``), never whatever cluster
  ``RAY_ADDRESS`` or ``/tmp/ray/ray_current_cluster`` names (a stale file made a join hang for
  minutes); a watchdog process (:class:`_Reaper`) kills that cluster's processes if this one dies
  without shutting it down (SIGKILL), instead of Ray's agents lingering 35-90 s;
* an address: checked with one TCP connection first (``connect_timeout`` seconds), so a wrong
  address fails in one line (:class:`~hf_greedtok.errors.RayConnectionError`) instead of Ray's
  retry loop of several minutes;
* a SIGTERM or SIGINT while Ray starts or stops waits for it to finish
  (:func:`_signals_deferred`): interrupted, Ray's start leaves a half-built driver that aborts or
  crashes; then the caller's handler gets it, so the CLI unwinds and cleans up (exit 143 or 130).
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import uuid
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional

from ..errors import CorpusError, GreedTokError, RayConnectionError, WorkerLostError
from ..remote import message_first_line

if TYPE_CHECKING:
    import ray.data

#: Seconds a join waits for the cluster's address to accept a connection.
CONNECT_TIMEOUT_SECONDS = 10.0
#: Environment variable that every process of a local cluster started here inherits (its value:
#: one token per cluster), by which :class:`_Reaper` and the tests find them.
CLUSTER_MARK = "HF_GREEDTOK_RAY_CLUSTER"


def require_ray():
    """The ``ray`` module, or ImportError saying how to install the extra."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise ImportError("distributed counting and tokenizing need Ray Data: pip install 'hf-greedtok[ray]'") from None
    return ray


def core_retries(max_retries: Optional[int]) -> dict:
    """Ray Core task options: ``max_retries`` reruns after a worker or its node died; None
    means forever (Ray's -1). A rerun redoes its file or block afresh, so results stay exact."""
    return {"max_retries": -1 if max_retries is None else max_retries}


# ------------------------------------------------------------------------------------ connecting

_REAPER_CODE = r"""
import os, sys, psutil
mark, token = sys.argv[1], sys.argv[2]
sys.stdin.buffer.read()      # returns at end of file: the owner closed the pipe or died
for _ in range(3):           # again: a dying raylet may still start a process
    found = []
    for p in psutil.process_iter():
        try:
            if p.pid != os.getpid() and p.environ().get(mark) == token:
                found.append(p)
        except psutil.Error:
            pass
    if not found:
        break
    for p in found:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(found, timeout=2)
"""


class _Reaper:
    """A watchdog for a local cluster started here: a small process reading a pipe whose only
    writer is this process. When this process closes it (after ``ray.shutdown()``) or dies in
    any way (SIGKILL included: the kernel closes the pipe), the watchdog kills every process
    carrying the cluster's :data:`CLUSTER_MARK` token. Ray fate-shares the GCS and raylet with
    their parent, but its agents poll for the raylet and then spend up to 60 s reporting its
    death to the dead GCS (measured: 25-90 s after a SIGKILL)."""

    def __init__(self) -> None:
        self.token = uuid.uuid4().hex
        env = {k: v for k, v in os.environ.items() if k != CLUSTER_MARK}
        self.process = subprocess.Popen([sys.executable, "-c", _REAPER_CODE, CLUSTER_MARK, self.token],
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env, start_new_session=True)

    def close(self) -> None:
        """Close the pipe and wait for the watchdog to finish its sweep."""
        try:
            self.process.stdin.close()
            self.process.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


_reaper: list = []      # the watchdog of the cluster this process started, if any


def _probe(address: str, timeout: float) -> None:
    """Fail fast when nothing accepts connections at ``address`` ("auto", HOST:PORT or
    ray://HOST:PORT): a TCP connection to the cluster's bootstrap address first.

    Raises:
        RayConnectionError: a malformed address, no cluster found for "auto", or nothing
            answering within ``timeout`` seconds.
    """
    from ray._private import services
    target = address[len("ray://"):] if address.startswith("ray://") else address
    try:
        canonical = services.canonicalize_bootstrap_address(target)
    except (ValueError, ConnectionError, OSError) as e:
        problem = message_first_line(e)
        if problem.startswith("Invalid address format"):
            problem = "not an address: give 'auto', HOST:PORT or ray://HOST:PORT"
        raise RayConnectionError(address, problem) from None
    if canonical is None:
        raise RayConnectionError(address, "no running Ray cluster found (RAY_ADDRESS is not set and no cluster "
                                          "was started on this machine); give its HOST:PORT")
    parsed = services.parse_address(canonical)
    if parsed is None:
        raise RayConnectionError(address, "not an address: give 'auto', HOST:PORT or ray://HOST:PORT")
    host, port = parsed
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as e:
        reason = "no answer within {:g} s".format(timeout) if isinstance(e, socket.timeout) else \
            (getattr(e, "strerror", None) or str(e))
        raise RayConnectionError(address, f"no Ray cluster answers at {host}:{port} ({reason})") from None


_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[list]:
    """Hold SIGTERM and SIGINT while Ray starts or stops, then hand them to the caller's handlers.

    A signal that interrupts ``ray.init`` leaves Ray half started: measured on SIGTERMs sent
    throughout a run, Ray's own handlers then either printed a C++ stack dump and aborted the
    process (exit -6: the core worker's failure handler, installed by the init) or crashed it at
    exit (exit -11, in a metrics thread of the half-built core worker), and ``ray.shutdown`` set
    SIGTERM's default action, so one more signal killed the command with no cleanup. Inside this
    block, signals are only noted; Ray's init sets no Python handler of its own (its
    ``set_sigterm_handler`` is a no-op here) and the driver gets no C++ failure handler
    (``RAY_DISABLE_FAILURE_SIGNAL_HANDLER``, read at the driver's start; the cluster's own
    processes keep theirs). On leaving, the caller's handlers are set again and every noted
    signal is raised once more, so it reaches them at once (the CLI's unwind and clean up;
    exit 143 or 130). Starting and stopping Ray takes a few seconds at most."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    from ray._private import ray_constants
    from ray._private import utils as ray_utils
    noted: list = []
    saved = {s: signal.getsignal(s) for s in _SIGNALS}
    patches = [(m, name, value) for m, name, value in ((ray_utils, "set_sigterm_handler", lambda handler: None),
                                                       (ray_constants, "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", True))
               if hasattr(m, name)]
    originals = [(m, name, getattr(m, name)) for m, name, _ in patches]
    for m, name, value in patches:
        setattr(m, name, value)
    for s in _SIGNALS:
        signal.signal(s, lambda signum, frame: noted.append(signum))
    try:
        yield noted
    finally:
        for m, name, value in originals:
            setattr(m, name, value)
        for s, handler in saved.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
    for s in dict.fromkeys(noted):
        signal.raise_signal(s)


@contextlib.contextmanager
def _join_settings() -> Iterator[None]:
    """Ray settings for joining a cluster, unless the user set them: one attempt to reach its GCS
    (Ray's own loop makes 20, a second each, while printing a warning line for every one: seen
    against an address whose port accepted connections but was not Ray's), and its C++ core's
    warnings off (errors only); restored afterwards."""
    settings = {"RAY_gcs_server_port_wait_time_s": "1", "RAY_BACKEND_LOG_LEVEL": "error"}
    added = [k for k in settings if k not in os.environ]
    os.environ.update({k: settings[k] for k in added})
    try:
        yield
    finally:
        for k in added:
            os.environ.pop(k, None)


def ensure_ray(address: Optional[str] = None, num_cpus: Optional[int] = None, *, quiet: bool = False,
               connect_timeout: float = CONNECT_TIMEOUT_SECONDS) -> bool:
    """Connect to Ray unless already connected.

    Args:
        address: None starts a new local cluster (``num_cpus`` CPUs, no dashboard), whatever
            ``RAY_ADDRESS`` or a running cluster's file says; ``"auto"``, ``"HOST:PORT"`` or
            ``"ray://HOST:PORT"`` joins a running one.
        num_cpus: CPUs of a local cluster (default: all cores).
        quiet: Ray's Python loggers print errors only (no INFO lines, no warnings such as its
            notice about token authentication).
        connect_timeout: seconds a join waits for the address to accept a TCP connection.

    Returns:
        True when this call connected: the caller then owns the cluster and ends it with
        :func:`shutdown_ray` (or use :func:`ray_session`).

    Raises:
        RayConnectionError: a malformed address, or no cluster answering there (one line,
            naming the address; the CLI names ``--ray-address``).
        ImportError: Ray not installed.
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    # quiet: errors only; Ray's notice about token authentication is a WARNING at every local start
    level = logging.ERROR if quiet else logging.INFO
    reaper = None
    if address is not None:
        _probe(address, connect_timeout)
    else:
        reaper = _Reaper()       # first: a SIGKILL during the start is covered too
    try:
        with _signals_deferred():
            if address is not None:
                _join(ray, address, level)
            else:
                os.environ[CLUSTER_MARK] = reaper.token
                try:
                    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                             logging_level=level)
                finally:
                    del os.environ[CLUSTER_MARK]   # the cluster's processes have it; our later children not
            if reaper is not None:
                _reaper.append(reaper)
            # a signal noted during the start is raised here, on leaving the block: it finds the
            # cluster registered, and the except below shuts it down
    except BaseException:
        if ray.is_initialized():
            shutdown_ray()
        if reaper is not None and reaper in _reaper:
            _reaper.remove(reaper)
        if reaper is not None:
            reaper.close()
        raise
    return True


def _join(ray, address: str, level: int) -> None:
    """``ray.init`` joining the cluster at ``address`` (already probed)."""
    with _join_settings():
        try:
            ray.init(address=address, log_to_driver=False, logging_level=level)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise RayConnectionError(address, f"could not join the Ray cluster: {message_first_line(e)}") from None


@contextlib.contextmanager
def _native_stderr_closed() -> Iterator[None]:
    """File descriptor 2 on the null device for the block (Python's ``sys.stderr`` flushed
    first). Ray's C++ core writes there directly, below Python: shutting down ends the tasks
    still running (after Ctrl-C or SIGTERM), and the core then logs the errors it can no longer
    deliver ("task_manager.cc: Failed to push error to driver for task ...", seen in the signal
    tests under load) before our own one-line message. Python exceptions still propagate."""
    if sys.stderr is not None:
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:         # no fd 2 at all (started with stderr closed): nothing to keep quiet
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def shutdown_ray() -> None:
    """End the Ray connection :func:`ensure_ray` made, and the local cluster it started (its
    watchdog then checks that none of the cluster's processes is left); what Ray's C++ core
    writes to stderr meanwhile is dropped."""
    ray = require_ray()
    try:
        with _signals_deferred(), _native_stderr_closed():
            ray.shutdown()
            while _reaper:
                _reaper.pop().close()
    finally:
        while _reaper:      # when shutdown itself failed
            _reaper.pop().close()


@contextlib.contextmanager
def ray_session(address: Optional[str] = None, num_cpus: Optional[int] = None, *,
                quiet: bool = False) -> Iterator[bool]:
    """:func:`ensure_ray` for the duration of a ``with`` block, and :func:`shutdown_ray` at its
    end (however it ends) when the block connected. Yields whether it did."""
    started = ensure_ray(address, num_cpus, quiet=quiet)
    try:
        yield started
    finally:
        if started:
            shutdown_ray()


# ------------------------------------------------------------------------------------ tasks

def lost_worker(error: BaseException, step: str, max_retries: Optional[int]) -> Optional[WorkerLostError]:
    """The :class:`WorkerLostError` saying that ``step`` gave up, when ``error`` is Ray's report
    of a dead worker, actor or node (the task having used up its retries), else None."""
    ray = require_ray()
    names = ("WorkerCrashedError", "ActorDiedError", "ActorUnavailableError", "NodeDiedError",
             "OutOfMemoryError", "LocalRayletDiedError", "ObjectLostError", "OwnerDiedError",
             "ObjectReconstructionFailedError")
    kinds = tuple(k for k in (getattr(ray.exceptions, n, None) for n in names) if k is not None)
    if not isinstance(error, kinds):
        return None
    tries = "every attempt" if max_retries is None else f"{max_retries + 1} attempts (max_retries={max_retries})"
    return WorkerLostError(step, f"a Ray worker process died on {tries} of one task (killed, out of memory or "
                                 f"crashed; see the Ray workers' logs): {type(error).__name__}: "
                                 f"{message_first_line(error)}")


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


def user_error(error: BaseException, step: str, max_retries: Optional[int]) -> BaseException:
    """What a failed task's ``error`` (a ``ray.exceptions.RayError``) means to the caller: the
    task's own GreedTokError rebuilt here (one line: file, line, problem; not Ray's remote
    traceback with its colour codes), a :class:`WorkerLostError` naming ``step``, or ``error``."""
    cause = task_error(error)
    if isinstance(cause, CorpusError):
        return CorpusError(cause.source, cause.line, cause.problem)
    if cause is not None:
        return cause
    return lost_worker(error, step, max_retries) or error


def cancel(refs: Iterable) -> None:
    """Cancel tasks after the job failed: on a joined cluster nothing keeps working after we gave
    up (cancelling a finished task does nothing). Their errors are the job's own consequences:
    each ref is looked at once, so Ray does not print them later as unhandled errors."""
    ray = require_ray()
    refs = list(refs)
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref)
    with contextlib.suppress(Exception):
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=2)
        for ref in ready:
            with contextlib.suppress(Exception):
                ray.get(ref, timeout=0)


def run_tasks(submissions: Iterable[Callable[[], tuple]], step: str, max_retries: Optional[int],
              on_done: Optional[Callable[[int, object, object], None]] = None, *, limit: Optional[int] = None,
              poll_seconds: float = 0.2) -> None:
    """Submit Ray Core tasks and wait for all of them.

    Args:
        submissions: callables, each submitting one task and returning ``(ref, payload)``: the
            ObjectRef to wait on (a small value; it is fetched) and anything the caller needs
            when that task is done (e.g. the refs of its other returns).
        step: the work's name in a :class:`WorkerLostError`.
        max_retries: the tasks' own bound, for that message.
        on_done: ``on_done(k, value, payload)`` for the k-th submission, in the order they finish.
        limit: at most this many tasks submitted and not finished (None: all at once); a lazy
            ``submissions`` (e.g. over a Dataset's blocks) is then read only as tasks finish.
        poll_seconds: one ``ray.wait`` takes every task finished within this time (waiting for
            one at a time would scan all pending refs per finished task, quadratic in their number).

    Raises:
        The first failure, as :func:`user_error` says, after cancelling the other tasks
        (:func:`cancel`). An interrupted wait (Ctrl-C, SIGTERM) cancels nothing: the command
        exits, and Ray ends the tasks of a driver that has gone.
    """
    ray = require_ray()
    todo = iter(enumerate(submissions))
    pending: dict = {}       # ref -> (k, payload)
    try:
        while True:
            while limit is None or len(pending) < limit:
                item = next(todo, None)
                if item is None:
                    break
                ref, payload = item[1]()
                pending[ref] = (item[0], payload)
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=poll_seconds)
            for ref in ready:
                k, payload = pending.pop(ref)
                try:
                    value = ray.get(ref)
                except ray.exceptions.RayError as e:
                    raise user_error(e, step, max_retries) from None
                if on_done is not None:
                    on_done(k, value, payload)
    except KeyboardInterrupt:
        # a signal (Ctrl-C, SIGTERM): the command leaves, and Ray ends a departed driver's tasks
        # itself. Cancelling here raced the completion of a task whose reply was in flight: Ray's
        # core worker failed a check ("Tried to complete task that was not pending") and ended
        # the command with exit 1 before its cleanup (seen once in the signal tests).
        raise
    except BaseException:
        cancel(pending)
        raise


# ------------------------------------------------------------------------------------ Datasets

def settle_fsspec_http() -> None:
    """Make a failing ``fsspec.implementations.http`` fail the same way in every thread.

    Ray Data's parquet reader lists several files on threads, each asking whether the
    filesystem is fsspec's HTTPFileSystem, and catches only ModuleNotFoundError. With fsspec
    installed but not aiohttp, threads importing that module at once see it half-initialized
    and raise a plain ImportError (measured: ``read_parquet`` of 6 local files failed). Importing
    it once here and, when it fails, recording the failure in ``sys.modules`` makes every later
    import a ModuleNotFoundError, which Ray reads as "no HTTP filesystem"."""
    name = "fsspec.implementations.http"
    if name in sys.modules:
        return
    try:
        import fsspec.implementations.http  # noqa: F401
    except ImportError:
        sys.modules[name] = None    # the module cannot load here: say so to every importer


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


def dataset_blocks(dataset: "ray.data.Dataset", *, show_progress: bool, step: str,
                   max_retries: Optional[int]) -> Iterator:
    """The ObjectRefs of ``dataset``'s blocks (Arrow or pandas tables), in the dataset's order,
    as Ray Data produces them (streaming: the whole dataset is never held at once). Ray Data
    runs the dataset's own reads and transformations, with its own retries; what we do with
    each block is a Ray Core task of ours. Progress bars and Ray Data's INFO lines follow
    ``show_progress``; a failure of the dataset's own tasks is raised as :func:`user_error`
    says."""
    ray = require_ray()
    contexts = [ray.data.DataContext.get_current(), dataset.context]
    saved = [(c.enable_progress_bars, c.execution_options.preserve_order) for c in contexts]
    for c in contexts:
        c.enable_progress_bars = show_progress
        c.execution_options.preserve_order = True
    data_log = logging.getLogger("ray.data")
    log_level = data_log.level
    if not show_progress:
        data_log.setLevel(logging.ERROR)
    try:
        for bundle in dataset.iter_internal_ref_bundles():
            yield from bundle.block_refs
    except ray.exceptions.RayError as e:
        raise user_error(e, step, max_retries) from None
    finally:
        data_log.setLevel(log_level)
        for c, (bars, order) in zip(contexts, saved):
            c.enable_progress_bars = bars
            c.execution_options.preserve_order = order
