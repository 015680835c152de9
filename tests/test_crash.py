"""Crashes lose nothing: a run that fails, is interrupted or is killed at any step leaves the
output name holding a complete folder (old or new) or nothing, and no process behind.

* Failures injected at each step of the folder replacement (an exception: cleanup runs; a
  hard exit in a forked child: no cleanup at all).
* Real ``hf-greedtok train`` processes killed with SIGKILL or SIGTERM while their worker
  processes count words (issue 12 item 3: workers stayed alive forever) or while training.
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, corpus

from hf_greedtok import Tokenizer
from hf_greedtok import output_folders as folders
from hf_greedtok.hf import folder as hf_folder
from hf_greedtok.cli import main
from hf_greedtok.formats.manifest import verify_manifest

psutil = pytest.importorskip("psutil", reason="psutil (test extra) lists a process's children")

STEPS = ["create temporary folder", "save files", "write manifest", "rename old aside", "rename new in",
         "delete old"]
OLD_K, NEW_K = 5, 8


def train_argv(out: Path, k: int) -> list[str]:
    return ["train", str(EXAMPLE_TEXT), "-k", str(k), "-o", str(out), "--overwrite", "--quiet"]


@pytest.fixture()
def existing(tmp_path) -> tuple[Path, dict]:
    """A trained folder (k = OLD_K) that the runs below replace, and its bytes."""
    out = tmp_path / "tok"
    assert main(train_argv(out, OLD_K)) == 0
    return out, snapshot(out)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def inject(step: str, fail) -> None:
    """Make ``step`` of the replacement call ``fail()`` (patched in this process, undone by the
    caller's monkeypatch or by the child process exiting)."""
    real_rename, real_rmtree, real_mkdtemp = os.rename, shutil.rmtree, folders.tempfile.mkdtemp
    renames = []

    def rename(src, dst):
        renames.append(src)
        if (step == "rename old aside" and len(renames) == 1) or (step == "rename new in" and len(renames) == 2):
            fail()
        return real_rename(src, dst)

    def rmtree(path, *args, **kwargs):
        if step == "delete old" and Path(path).name.startswith(".tok.old-"):
            fail()
        return real_rmtree(path, *args, **kwargs)

    def mkdtemp(*args, **kwargs):
        if step == "create temporary folder":
            fail()
        return real_mkdtemp(*args, **kwargs)

    def broken_manifest(*args, **kwargs):
        fail()

    os.rename, shutil.rmtree, folders.tempfile.mkdtemp = rename, rmtree, mkdtemp
    if step == "save files":    # tokenizer files written, the save's own manifest not
        hf_folder.write_save_manifest = broken_manifest
    if step == "write manifest":
        folders.write_manifest = broken_manifest


def assert_complete(folder: Path) -> int:
    """The folder verifies against its manifest and loads; returns its learned token count."""
    assert verify_manifest(folder) is not None
    return len(Tokenizer.load(folder).model.ranked_tokens)


def leftovers(parent: Path, kind: str) -> list[Path]:
    return sorted(parent.glob(f".tok.{kind}-*"))


@pytest.fixture()
def undo(monkeypatch):
    """Restore whatever :func:`inject` patches."""
    for obj, name in [(os, "rename"), (shutil, "rmtree"), (folders.tempfile, "mkdtemp"),
                      (hf_folder, "write_save_manifest"), (folders, "write_manifest")]:
        monkeypatch.setattr(obj, name, getattr(obj, name))


@pytest.mark.parametrize("error, rc", [(OSError(5, "Input/output error"), 2), (KeyboardInterrupt(), 130)])
@pytest.mark.parametrize("step", STEPS)
def test_failure_at_any_step_leaves_a_complete_folder(step, error, rc, existing, undo, capsys):
    out, old = existing

    def fail():
        raise error

    inject(step, fail)
    replaced = step == "delete old"
    code = main(train_argv(out, NEW_K))
    err = capsys.readouterr().err
    assert code == (0 if replaced and isinstance(error, OSError) else rc), err
    assert "Traceback" not in err
    assert assert_complete(out) == (NEW_K if replaced else OLD_K)
    if not replaced:
        assert snapshot(out) == old
    assert leftovers(out.parent, "new") == []
    # Only a failed deletion keeps the old folder, complete, beside the new one.
    kept = leftovers(out.parent, "old")
    assert len(kept) == (1 if replaced else 0)
    if kept:
        assert snapshot(kept[0] / "tok") == old


def test_failure_to_put_the_old_folder_back_keeps_it_and_says_where(existing, undo, capsys):
    out, old = existing
    real_rename = os.rename
    calls = []

    def rename(src, dst):
        calls.append(src)
        if len(calls) >= 2:
            raise OSError(5, "Input/output error")
        return real_rename(src, dst)

    os.rename = rename
    assert main(train_argv(out, NEW_K)) == 2
    err = capsys.readouterr().err
    (kept,) = leftovers(out.parent, "old")
    assert f"kept at {kept / 'tok'}" in err
    assert not out.exists() and snapshot(kept / "tok") == old


def _crash_run(out: Path, step: str) -> None:
    """Child process: a hard exit (no cleanup, like kill -9) at ``step``."""
    inject(step, lambda: os._exit(9))
    main(train_argv(out, NEW_K))
    os._exit(0)


@pytest.mark.parametrize("step", STEPS)
def test_hard_crash_at_any_step_never_leaves_an_incomplete_folder(step, existing):
    out, old = existing
    child = multiprocessing.get_context("fork").Process(target=_crash_run, args=(out, step))
    child.start()
    child.join(120)
    assert child.exitcode == 9
    kept = leftovers(out.parent, "old")
    if out.exists():
        k = assert_complete(out)
        assert k == NEW_K if step == "delete old" else (k == OLD_K and snapshot(out) == old)
    else:
        # killed between the two renames: the old folder is whole, beside the output name
        assert step == "rename new in" and len(kept) == 1 and snapshot(kept[0] / "tok") == old
    # The next run replaces it; stale hidden folders do not get in the way.
    assert main(train_argv(out, NEW_K)) == 0
    assert assert_complete(out) == NEW_K


# ---------------------------------------------------------------------- real processes, real signals

def start_training(out: Path, *extra: str) -> tuple[subprocess.Popen, "StderrReader"]:
    """``hf-greedtok train`` on an 11 MB corpus with two word-counting workers (progress on)."""
    argv = [sys.executable, "-m", "hf_greedtok.cli", "train", str(corpus("en_python_docs.txt")), "-o", str(out),
            "--num-proc", "2", *extra]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=out.parent,
                            env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"})
    return proc, StderrReader(proc)


class StderrReader:
    """Collects a process's stderr in a thread (progress bars use \\r, not lines)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.text = ""
        self._thread = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            self.text += chunk.decode("utf-8", "replace")

    def wait_for(self, marker: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.text:
            assert time.monotonic() < deadline, f"no {marker!r} in stderr: {self.text[-500:]}"
            time.sleep(0.05)


def wait_for_workers(proc: subprocess.Popen, n: int = 2, timeout: float = 120) -> list:
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + timeout
    while True:
        workers = parent.children(recursive=True)
        if len(workers) >= n:
            return workers
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before counting in parallel"
        time.sleep(0.02)


def alive(processes) -> list:
    """Processes still running (a zombie has exited, it only waits to be reaped)."""
    running = []
    for p in processes:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                running.append(p)
        except psutil.NoSuchProcess:
            pass
    return running


def assert_workers_exit(workers, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = alive(workers)
    for p in left:        # do not leave them to the next test
        p.kill()
    assert left == [], f"worker processes {[p.pid for p in left]} outlived their parent"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_a_run_while_workers_count_leaves_no_process_and_no_folder(sig, tmp_path):
    out = tmp_path / "tok"
    proc, stderr = start_training(out, "-k", "200")
    workers = wait_for_workers(proc)
    time.sleep(0.3)                          # mid-count: workers hold chunks, results in pipes
    proc.send_signal(sig)
    rc = proc.wait(60)
    assert_workers_exit(workers)
    assert not out.exists() and list(tmp_path.iterdir()) == []
    if sig == signal.SIGTERM:
        stderr._thread.join(10)
        assert rc == 128 + signal.SIGTERM
        assert "stopped by SIGTERM" in stderr.text and "Traceback" not in stderr.text


def test_killing_a_run_while_training_keeps_the_old_folder(existing):
    """kill -9 after counting, in the trainer: the folder it was replacing is untouched."""
    out, old = existing
    proc, stderr = start_training(out, "-k", "20000", "--overwrite")
    workers = wait_for_workers(proc)
    stderr.wait_for("GreedTok")             # the trainer's progress bar: counting is over
    proc.kill()
    proc.wait(60)
    assert_workers_exit(workers)
    assert snapshot(out) == old and assert_complete(out) == OLD_K
    assert leftovers(out.parent, "new") == [] and leftovers(out.parent, "old") == []


def _orphan_worker_parent(conn) -> None:
    """Start a pool whose worker relies on the watchdog only, report its pid, die hard."""
    from concurrent.futures import ProcessPoolExecutor
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=_watchdog_only,
                               initargs=(os.getpid(),))
    pool.submit(time.sleep, 60)
    time.sleep(0.5)
    conn.send([p.pid for p in multiprocessing.active_children()])
    os.kill(os.getpid(), signal.SIGKILL)


def _watchdog_only(parent_pid: int) -> None:
    from hf_greedtok.word_counts import die_with_parent
    die_with_parent(parent_pid, use_prctl=False)


def test_watchdog_ends_a_worker_whose_parent_died_without_prctl():
    """The fallback for systems without PR_SET_PDEATHSIG: the worker notices the new parent."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    parent = ctx.Process(target=_orphan_worker_parent, args=(send,))
    parent.start()
    assert receive.poll(60)
    pids = receive.recv()
    parent.join(60)
    assert parent.exitcode == -signal.SIGKILL and pids
    assert_workers_exit([psutil.Process(pid) for pid in pids if psutil.pid_exists(pid)])


def test_a_worker_stopped_mid_result_does_not_hang_the_exit(tmp_path):
    """A worker killed while writing its result leaves half a message in the pool's result pipe
    (seen in CI: a SIGTERM mid-count, then the process never exited). Here the half message is
    written by hand, deterministically: the interrupted run must still exit."""
    script = textwrap.dedent("""
        import gc, os, struct, time
        from collections import Counter
        from concurrent.futures import ProcessPoolExecutor
        from hf_greedtok import ByteLevel
        from hf_greedtok.word_counts import _run

        def slow(job):
            time.sleep(60)
            return Counter()

        def jobs():
            yield 1
            time.sleep(0.5)                # the pool's manager thread waits for results
            pool = next(o for o in gc.get_objects() if isinstance(o, ProcessPoolExecutor))
            os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000))   # a header, no body
            time.sleep(0.3)                # ... and now reads a body that never comes
            raise KeyboardInterrupt

        try:
            _run(jobs(), slow, (ByteLevel(), None, "strict"), 2)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "interrupted", result.stderr[-2000:]
