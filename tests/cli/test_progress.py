"""Progress bars (hf_greedtok._progress): tqdm on a terminal; in a log a line at the start, at
most one per LOG_INTERVAL seconds, and one at the end; nothing with --quiet."""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok import _progress
from hf_greedtok._progress import LOG_INTERVAL, native_progress, progress_bar


class Terminal(io.StringIO):
    """A stderr that says it is a terminal (and, closed, raises as a real stream does)."""

    def isatty(self) -> bool:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        return True


def bar_lines(text: str) -> list[str]:
    """Every drawing of a bar in captured stderr (a redraw starts with a carriage return)."""
    return [line for line in text.replace("\r", "\n").splitlines() if "%|" in line or "it/s]" in line]


def train_with_stderr_in_a_file(tmp_path, *extra: str) -> str:
    log = tmp_path / "stderr.log"
    with open(log, "w") as err:
        result = subprocess.run([sys.executable, "-m", "hf_greedtok.cli", "train", str(EXAMPLE_TEXT), "-k", "2000",
                                 "-o", str(tmp_path / "tok"), "--overwrite", *extra], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=err, text=True, timeout=300,
                                env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 0, log.read_text()
    assert "learned 2000 tokens" in result.stdout
    return log.read_text()


def test_training_into_a_file_writes_at_most_a_handful_of_progress_lines(tmp_path):
    # two bars (counting words, GreedTok), each drawn when it starts and ends and at most once
    # per LOG_INTERVAL in between: this run takes seconds (a terminal would get dozens of redraws)
    lines = bar_lines(train_with_stderr_in_a_file(tmp_path))
    assert len(lines) <= 6
    assert lines[-1].startswith("GreedTok: 100%|")


def test_quiet_training_writes_nothing_on_stderr(tmp_path):
    assert train_with_stderr_in_a_file(tmp_path, "--quiet") == ""


def test_bars_off_a_terminal_draw_start_end_and_once_per_interval(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = progress_bar(total=10, desc="counting words")
    assert (bar.mininterval, bar.disable) == (LOG_INTERVAL, False)
    for _ in range(10):
        bar.update(1)                          # within the interval: no redraw
    bar.close()
    assert [line.split("|")[0] for line in bar_lines(sys.stderr.getvalue())] == ["counting words:   0%",
                                                                                "counting words: 100%"]
    assert not native_progress(True)


def test_bars_on_a_terminal_keep_tqdm_defaults(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    bar = progress_bar(total=10, desc="counting words")
    assert (bar.mininterval, bar.disable) == (0.1, False)
    bar.update(10)
    bar.close()
    assert "counting words: 100%" in sys.stderr.getvalue()
    assert native_progress(True) and not native_progress(False)


@pytest.mark.parametrize("stream", [io.StringIO, Terminal])
def test_show_false_disables_every_bar(monkeypatch, stream):
    monkeypatch.setattr(sys, "stderr", stream())
    with progress_bar(range(3), show=False, desc="counting words") as bar:
        assert list(bar) == [0, 1, 2]
    assert sys.stderr.getvalue() == ""


def test_a_closed_or_missing_stderr_counts_as_no_terminal(monkeypatch):
    closed = Terminal()
    closed.close()
    for stream in (closed, None):
        monkeypatch.setattr(sys, "stderr", stream)
        assert not _progress.stderr_is_terminal()


def test_a_quiet_run_never_imports_tqdm(tmp_path):
    code = ("import sys\nfrom hf_greedtok._progress import progress_bar\n"
            "with progress_bar(total=3, show=False) as bar:\n    bar.update(3)\n    bar.set_postfix(gain=1)\n"
            "print('tqdm' in sys.modules)")
    # run outside the checkout, whose uncompiled package would shadow the installed one
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.stdout.split() == ["False"], result.stderr
