"""Issue 29 item 2: a Ray run of the CLI, however it ends, leaves no process of ours and nothing
under the output's name.

Every run here is a real ``hf-greedtok`` process that starts its own local Ray cluster. Each
process of that run (the command, its cluster: GCS, raylet, agents, workers, and our watchdog)
inherits the environment variable ``MARK``; after the command exits, no process may still
carry it. Signals are sent at the moments that went wrong before (a stale cluster file, the
cluster starting, the work running, the end of the run), and each must give exit 143 (SIGTERM)
or 130 (SIGINT), one line on stderr, and no folder (SIGKILL: every process gone within seconds,
by the watchdog, and the hidden folder cleaned by the next run).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, corpus

pytest.importorskip("ray", reason="Ray runs need the ray extra: pip install 'hf-greedtok[ray]'")
psutil = pytest.importorskip("psutil", reason="psutil (installed with ray) lists processes")

from ray_nodes import runs  # noqa: E402

from hf_greedtok.cli import main  # noqa: E402

MARK = "HF_GREEDTOK_TEST_RUN"


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A tokenizer folder and 17 MB of real English text in 6 files (about 4 s of encoding on
    two CPUs: long enough to be caught mid-run)."""
    folder = tmp_path_factory.mktemp("signals")
    assert main(["train", str(EXAMPLE_TEXT), "-k", "300", "-o", str(folder / "tok"), "--quiet"]) == 0
    data = corpus("en_brown.txt").read_bytes() + corpus("en_python_docs.txt").read_bytes()
    cut = [0] + [data.index(b"\n", len(data) * k // 6) + 1 for k in range(1, 6)] + [len(data)]
    files = []
    for k in range(6):
        files.append(folder / f"part-{k}.txt")
        files[-1].write_bytes(data[cut[k]:cut[k + 1]])
    return folder, [str(f) for f in files]


def ours(token: str) -> list:
    """Processes carrying ``MARK=token`` in their environment: the run's, wherever they are now."""
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(MARK) == token:
                found.append(p)
        except (psutil.Error, OSError):
            continue
    return found


class Run:
    """An ``hf-greedtok`` command in its own process, every descendant marked with a token."""

    def __init__(self, argv, cwd: Path, env: dict = ()) -> None:
        self.token = uuid.uuid4().hex
        self.cwd = cwd
        self.proc = subprocess.Popen([sys.executable, "-m", "hf_greedtok.cli", *map(str, argv)], cwd=cwd,
                                     env={**os.environ, **dict(env), MARK: self.token},
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_until(self, ready, what: str, timeout: float = 120) -> None:
        """Poll ``ready()`` until true; fail if the command ended first."""
        end = time.monotonic() + timeout
        while not ready():
            assert self.proc.poll() is None, f"the command ended before {what}: {self.proc.communicate()}"
            assert time.monotonic() < end, f"waited {timeout} s for {what}"
            time.sleep(0.005)

    def finish(self, timeout: float = 120) -> tuple[int, str]:
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, err

    def children(self, name: str) -> bool:
        """Whether a descendant's command line contains ``name``."""
        return runs(self.proc.pid, name)


def assert_no_process_left(run: Run, within: float = 0.0) -> None:
    end = time.monotonic() + within
    while True:
        left = ours(run.token)
        if not left:
            return
        if time.monotonic() >= end:
            names = []
            for p in left:
                try:
                    names.append(" ".join(p.cmdline())[:80])
                except psutil.Error:
                    names.append(str(p.pid))
            pytest.fail(f"{len(left)} process(es) of the run outlived it: {names}")
        time.sleep(0.05)


def tokenize_argv(work, out: str = "out") -> list:
    folder, files = work
    return ["tokenize", folder / "tok", *files, "-o", out, "--engine", "ray", "--num-proc", "2", "--quiet"]


def started_work(run: Run) -> bool:
    """The output's hidden folder holds a part being written or written."""
    return any(p.name.startswith(("part-", "_part-")) for d in run.cwd.glob(".out.new-*") for p in d.iterdir())


MOMENTS = {
    # the cluster's GCS is up, the driver not yet connected: Ray's init was interrupted here
    "starting": lambda run: run.children("gcs_server"),
    # the tasks write their parts
    "working": started_work,
}


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_signal_at_any_moment_ends_the_run_cleanly(work, tmp_path, sig, code, moment):
    run = Run(tokenize_argv(work), tmp_path)
    run.wait_until(lambda: MOMENTS[moment](run), moment)
    run.proc.send_signal(sig)
    rc, err = run.finish()
    assert rc == code, err
    assert err.strip().splitlines() == [f"hf-greedtok tokenize: stopped by {signal.Signals(sig).name}"]
    assert list(tmp_path.iterdir()) == []         # no output, no hidden folder
    assert_no_process_left(run)


def test_a_finished_run_and_a_failed_run_leave_no_process(work, tmp_path):
    run = Run(tokenize_argv(work), tmp_path)
    rc, err = run.finish()
    assert rc == 0, err
    assert_no_process_left(run)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": "cut\n', encoding="utf-8")
    run = Run(["count", bad, "-o", "counts.tsv", "--engine", "ray", "--num-proc", "2", "--quiet"], tmp_path)
    rc, err = run.finish()
    # the remote task's error, as the local engine gives it: one line, file and line named
    assert rc == 2 and err.strip().splitlines() == [
        f"hf-greedtok count: error: {bad}, line 2: invalid JSON at column 10: Unterminated string starting at"], err
    assert_no_process_left(run)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "out"]


def test_a_sigkilled_run_leaves_no_process_for_long_and_the_next_run_cleans_its_folder(work, tmp_path):
    run = Run(tokenize_argv(work), tmp_path)
    run.wait_until(lambda: started_work(run), "working")
    run.proc.send_signal(signal.SIGKILL)
    run.finish()
    # the cluster's processes do not wait for the command: the watchdog ends them (Ray's agents
    # alone lingered 35-90 s)
    assert_no_process_left(run, within=10)
    assert [p.name for p in tmp_path.iterdir()][0].startswith(".out.new-")
    again = Run(tokenize_argv(work), tmp_path)
    rc, err = again.finish()
    assert rc == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert_no_process_left(again)


def test_a_stale_cluster_file_is_not_joined_without_an_address(work, tmp_path):
    """Without --ray-address the command starts its own cluster, as documented: Ray's default
    would join whatever ``RAY_ADDRESS`` or the last cluster's file names (a stale one hung for
    minutes)."""
    folder, files = work
    run = Run(["count", files[0], "-o", "c.tsv", "--engine", "ray", "--num-proc", "1", "--quiet"], tmp_path,
              env={"RAY_ADDRESS": "127.0.0.1:1"})
    rc, err = run.finish(timeout=90)
    assert rc == 0, err
    assert err == ""                                # --quiet: not even Ray's token notice
    assert_no_process_left(run)


@pytest.mark.parametrize("address, problem", [
    ("127.0.0.1:1", r"no Ray cluster answers at [\d.]+:1 \(Connection refused\)"),
    ("bogus", r"not an address: give 'auto', HOST:PORT or ray://HOST:PORT"),
    ("ray://127.0.0.1:1", r"no Ray cluster answers at [\d.]+:1 \(Connection refused\)"),
])
def test_a_wrong_ray_address_fails_at_once_naming_the_option(work, tmp_path, address, problem):
    import re
    folder, files = work
    started = time.monotonic()
    run = Run(["count", files[0], "-o", "c.tsv", "--engine", "ray", "--ray-address", address, "--quiet"], tmp_path)
    rc, err = run.finish(timeout=60)
    assert rc == 2
    assert re.fullmatch(rf"hf-greedtok count: error: --ray-address {re.escape(address)}: {problem}\n", err), err
    assert time.monotonic() - started < 30           # was: still waiting after 120 s
    assert list(tmp_path.iterdir()) == []
    assert_no_process_left(run)
