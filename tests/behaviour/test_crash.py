"""Crashes lose nothing: a run that fails, is interrupted or is killed at any step leaves the
output name holding a complete folder (old or new) or nothing, and no process behind.

* Failures injected at each step of the folder replacement (an exception: cleanup runs; a
  hard exit in a forked child: no cleanup at all).
* Real ``hf-greedtok train`` processes killed with SIGKILL or SIGTERM while their worker
  processes count words (issue 12 item 3: workers stayed alive forever) or while training.
* What a killed run leaves beside its output (issue 29) is cleaned by the next run on it: the
  hidden new folder, the old one (put back if its name is missing), a table's temporary file;
  never a live run's folders, nor anything not recognisably ours.
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
from corpora import EXAMPLE_TEXT, corpus, corpus_of_size

from hf_greedtok import Tokenizer, atomic
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
    # The next run cleans up what the killed one left, then replaces the folder.
    assert main(train_argv(out, NEW_K)) == 0
    assert assert_complete(out) == NEW_K
    assert leftovers(out.parent, "new") == [] and leftovers(out.parent, "old") == []
    assert sorted(p.name for p in out.parent.iterdir()) == ["tok"]


# ---------------------------------------------------------------------- real processes, real signals

def start_training(out: Path, *extra: str) -> tuple[subprocess.Popen, "StderrReader"]:
    """``hf-greedtok train`` on an 11 MB corpus (four corpora's cuts, repeated: counting takes
    seconds, training on their distinct words too) with two word-counting workers (progress on)."""
    text = out.parent.parent / f"{out.parent.name}-eleven_mb.txt"      # beside the test's folder, not in it
    if not text.is_file():
        corpus_of_size(text, 11, "en_python_docs.txt", "en_brown.txt", "code_python_stdlib.txt",
                       "en_shakespeare_milton.txt")
    argv = [sys.executable, "-m", "hf_greedtok.cli", "train", str(text), "-o", str(out),
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
    from hf_greedtok._process_pool import die_with_parent
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
        from hf_greedtok._process_pool import ordered_results

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
            for _ in ordered_results(jobs(), slow, 2):
                pass
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "interrupted", result.stderr[-2000:]


# ---------------------------------------------------------------------- leftovers of killed runs (issue 29)

# train's folder is written in milliseconds: this child runs the real command, but waits once its
# files are saved into the temporary folder, so that the SIGKILL lands there
TRAIN_WAITING_IN_WRITE = textwrap.dedent("""
    import sys, time
    from hf_greedtok.cli import main
    from hf_greedtok.hf import folder      # train's run imports save_greedtok_folder from here
    real = folder.save_greedtok_folder

    def save_then_wait(*args, **kwargs):
        files = real(*args, **kwargs)
        print("saved", flush=True)
        time.sleep(120)
        return files

    folder.save_greedtok_folder = save_then_wait
    sys.exit(main(sys.argv[1:]))
""")


def test_a_sigkilled_train_leaves_its_new_folder_and_the_next_run_removes_it(existing, capsys):
    out, old = existing
    proc = subprocess.Popen([sys.executable, "-c", TRAIN_WAITING_IN_WRITE, *train_argv(out, NEW_K)],
                            stdout=subprocess.PIPE, text=True, cwd=out.parent)
    assert proc.stdout.readline().strip() == "saved"
    proc.kill()
    proc.wait(60)
    (new,) = leftovers(out.parent, "new")
    assert (new / folders.WRITING_MARKER).is_file() and (new / "greedtok.json").is_file()
    assert snapshot(out) == old
    assert main(train_argv(out, NEW_K)) == 0
    err = capsys.readouterr().err
    assert err == f"hf-greedtok: cleaned up after a killed run on {out}: removed {new.name}\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["tok"] and assert_complete(out) == NEW_K


def test_a_sigkilled_tokenize_leaves_its_new_folder_and_the_next_run_removes_it(tmp_path, capsys):
    """No injection: a real tokenize killed while it writes parquet."""
    tok, out = tmp_path / "tok", tmp_path / "ids"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "200", "-o", str(tok), "--quiet"]) == 0
    big = tmp_path / "big.txt"        # long enough to be killed mid-run
    big.write_bytes(b"".join(corpus(n).read_bytes() for n in ("en_brown.txt", "en_python_docs.txt")))
    proc = subprocess.Popen([sys.executable, "-m", "hf_greedtok.cli", "tokenize", str(tok), str(big), "-o", str(out),
                             "--num-proc", "1", "--batch-size", "256", "--quiet"], cwd=tmp_path)
    while not list(tmp_path.glob(".ids.new-*/part-00000.parquet")) and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "finished before it could be killed"
    proc.kill()
    proc.wait(60)
    (new,) = tmp_path.glob(".ids.new-*")
    assert not out.exists()
    small = tmp_path / "small.txt"
    small.write_text("the cat sat on the mat\n", encoding="utf-8")
    assert main(["tokenize", str(tok), str(small), "-o", str(out), "--quiet"]) == 0
    assert f"removed {new.name}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "ids", "small.txt", "tok"]


def test_an_old_folder_left_without_its_name_is_put_back(existing, capsys):
    """Killed between the two renames: NAME is missing, the old folder waits in .NAME.old-*."""
    out, old = existing
    child = multiprocessing.get_context("fork").Process(target=_crash_run, args=(out, "rename new in"))
    child.start()
    child.join(120)
    assert child.exitcode == 9 and not out.exists()
    (holder,) = leftovers(out.parent, "old")
    (new,) = leftovers(out.parent, "new")
    # a run without --overwrite: the old folder is back first, so it is refused as existing
    code = main(["train", str(EXAMPLE_TEXT), "-k", str(NEW_K), "-o", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "already exists" in err
    assert (f"cleaned up after a killed run on {out}: removed {new.name}; put tok back from {holder.name}"
            in err)
    assert snapshot(out) == old and assert_complete(out) == OLD_K
    assert sorted(p.name for p in out.parent.iterdir()) == ["tok"]


# another run writing the same output, stopped inside its write until its stdin gets a line
LIVE_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from hf_greedtok.output_folders import write_folder

    def write(folder):
        (folder / "report.md").write_text("live")
        print("writing", flush=True)
        sys.stdin.readline()

    write_folder(Path(sys.argv[1]), write, kind="compare", overwrite=True)
""")


def test_a_live_writers_folders_are_left_alone(tmp_path, capsys):
    out = tmp_path / "report"
    folders.write_folder(out, lambda f: (f / "report.md").write_text("old"), kind="compare")
    proc = subprocess.Popen([sys.executable, "-c", LIVE_WRITER, str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=tmp_path)   # the installed package
    try:
        assert proc.stdout.readline().strip() == "writing"
        (new,) = tmp_path.glob(".report.new-*")
        before = snapshot(new)
        assert folders.clean_leftovers(out) == []
        folders.check_target(out, kind="compare", overwrite=True, inputs=[])
        assert snapshot(new) == before and capsys.readouterr().err == ""
    finally:
        proc.communicate("go\n", timeout=60)
    assert proc.returncode == 0
    assert (out / "report.md").read_text() == "live"
    assert sorted(p.name for p in out.iterdir()) == [folders.MANIFEST_NAME, "report.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_only_recognisable_leftovers_are_cleaned_and_not_while_a_writer_holds_its_marker(existing, capsys):
    out, old = existing
    parent = out.parent

    def temporary(name: str, files: dict) -> Path:
        folder = parent / name
        folder.mkdir()
        for rel, text in files.items():
            (folder / rel).write_text(text)
        return folder

    def marked(name: str, output: str = "tok") -> tuple[Path, int]:
        folder = temporary(name, {"greedtok.json": "{}"})
        return folder, folders._start_writing(folder, parent / output, "tokenizer")

    stale, fd = marked(".tok.new-dead0001")
    os.close(fd)                                  # its writer died: the lock is released
    held, held_fd = marked(".tok.new-live0001")   # a live writer: this test holds its lock
    other, fd = marked(".tok.new-othr0001", output="tok2")
    os.close(fd)
    kept = [
        other,                                                              # another output's marker
        temporary(".tok.new-mine0001", {"notes.txt": "mine"}),              # no marker: not ours
        temporary(".tok.new-bad00001", {folders.WRITING_MARKER: "not json"}),
        temporary(".tok.old-mine0001", {"notes.txt": "mine"}),              # does not hold "tok"
        temporary(".tok.new-x.new-abc", {}),                                # not a name write_folder gives
    ]
    theirs = temporary(".tok.old-user0001", {})
    (theirs / "tok").mkdir()
    (theirs / "tok" / "weights.bin").write_bytes(b"\0")                    # "tok", but not our folder
    kept.append(theirs)
    holder = parent / ".tok.old-ours0001"
    holder.mkdir()
    shutil.copytree(out, holder / "tok")                                  # an old folder of ours
    kept_bytes = {p: snapshot(p) for p in kept}
    try:
        assert folders.clean_leftovers(out) == [f"removed {stale.name}"]
        assert not stale.exists() and held.exists() and holder.exists()   # a writer lives: holders wait
    finally:
        os.close(held_fd)
    capsys.readouterr()
    assert folders.clean_leftovers(out) == [f"removed {held.name}",
                                            f"removed {holder.name} (the folder tok replaced)"]
    assert capsys.readouterr().err.count("\n") == 1
    assert {p: snapshot(p) for p in kept} == kept_bytes and snapshot(out) == old


# a count table write stopped after its first bytes
TABLE_WRITER = textwrap.dedent("""
    import os, sys, time
    from hf_greedtok.atomic import atomic_write

    def fill(fd, tmp):
        os.write(fd, b"partial\\t1\\n")
        print("filling", flush=True)
        time.sleep(120)

    atomic_write(sys.argv[1], fill)
""")


def test_a_killed_table_write_leaves_a_temporary_the_next_write_removes(tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text("the cat sat on the mat\n", encoding="utf-8")
    table = tmp_path / "counts.tsv"
    proc = subprocess.Popen([sys.executable, "-c", TABLE_WRITER, str(table)], stdout=subprocess.PIPE, text=True,
                            cwd=tmp_path)        # the installed package, not the checkout's sources
    try:
        assert proc.stdout.readline().strip() == "filling"
        (tmp,) = tmp_path.glob(".counts.tsv.*")
        assert main(["count", str(text), "-o", str(table), "--quiet"]) == 0     # its writer lives: left
        assert tmp.exists() and "removed" not in capsys.readouterr().err
    finally:
        proc.kill()
        proc.wait(60)
    mine = tmp_path / ".counts.tsv.notes.tmp"                    # not a name atomic_write gives
    mine.write_text("mine")
    empty = tmp_path / f".counts.tsv.abcd1234{atomic.TEMP_SUFFIX}"  # killed before its first byte
    empty.touch()
    assert main(["count", str(text), "-o", str(table), "--overwrite", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"removed 1 temporary file(s) that a killed write of {table} left: {tmp.name}" in err
    assert not tmp.exists() and mine.read_text() == "mine" and empty.exists()
    assert table.read_text(encoding="utf-8").splitlines() == [
        '# hf-greedtok count table {"normalizer": "none", "special_tokens": [], "split": "gpt4-marks"}', " cat\t1", " mat\t1", " on\t1", " sat\t1", " the\t1",
        "the\t1"]
