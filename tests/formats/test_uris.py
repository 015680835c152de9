"""URI inputs named whole (issue 29 item 6): ``Path("s3://bucket/x.txt")`` is ``s3:/bucket/x.txt``.

The local engine refuses a URI before any work; the Ray engine looks it up with pyarrow's
filesystem first, so that an unreachable bucket is one line naming the URI, not a failed Ray
task. No test here reaches beyond this machine: the S3 endpoint is a closed port on the loopback
(and the command runs in a network namespace of its own where ``unshare`` allows it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from hf_greedtok import ByteLevel
from hf_greedtok import remote
from hf_greedtok.cli import main
from hf_greedtok.errors import CorpusError
from hf_greedtok.word_counts import count_words_in_files, read_count_tables

URI = "s3://bucket/x.txt"


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """A tokenizer folder, and the working directory an empty folder (nothing may appear in it)."""
    text = tmp_path / "small.txt"
    text.write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    tok = tmp_path / "tok"
    assert main(["train", str(text), "-k", "5", "-o", str(tok), "--quiet"]) == 0
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tok


@pytest.mark.parametrize("argv", [["count", URI, "-o", "out.tsv"], ["train", URI, "-k", "5", "-o", "out"],
                                  ["tokenize", "TOK", URI, "-o", "out"]], ids=["count", "train", "tokenize"])
def test_the_local_engine_names_a_uri_whole(argv, folder, capsys):
    capsys.readouterr()
    assert main([str(folder) if a == "TOK" else a for a in argv] + ["--quiet"]) == 2
    err = one_line_error(capsys)
    assert f"{URI}: a URI" in err and "--engine ray" in err and "s3:/bucket" not in err.replace(URI, "")
    assert os.listdir(".") == []


@pytest.mark.parametrize("argv, option", [
    (["train", "TEXT", "-k", "5", "-o", "out", "--candidates", "s3://b/c.txt"], "--candidates"),
    (["count", "TEXT", "-o", "s3://b/out.tsv"], "--output"),
    (["tokenize", "s3://b/tok", "TEXT", "-o", "out"], "DIR"),
    (["encode", "s3://b/tok", "the cat"], "DIR"),
])
def test_path_options_refuse_a_uri_naming_it(argv, option, folder, capsys):
    """A URI given where a local path goes would have become a local folder named 's3:'."""
    text = folder.parent / "small.txt"
    capsys.readouterr()
    assert main([str(text) if a == "TEXT" else a for a in argv]) == 2
    err = one_line_error(capsys)
    uri = next(a for a in argv if "://" in a)
    assert f"argument {option}" in err and f"{uri} is a URI" in err
    assert os.listdir(".") == []


def test_the_python_readers_name_a_uri_whole():
    with pytest.raises(CorpusError, match=r"^s3://bucket/x\.txt: a URI"):
        count_words_in_files([URI], ByteLevel(), show_progress=False)
    with pytest.raises(CorpusError, match=r"^s3://bucket/counts\.parquet: a URI"):
        read_count_tables(["s3://bucket/counts.parquet"], ByteLevel())


def test_an_unreachable_bucket_is_one_line_naming_the_uri(tmp_path):
    """The Ray engine's look-up before any work, against an S3 endpoint nobody listens on."""
    pytest.importorskip("pyarrow.fs")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ENDPOINT_URL="http://127.0.0.1:9", AWS_REGION="us-east-1", AWS_ACCESS_KEY_ID="test",
               AWS_SECRET_ACCESS_KEY="test", AWS_EC2_METADATA_DISABLED="true",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
    command = [sys.executable, "-m", "hf_greedtok.cli", "count", URI, "-o", str(tmp_path / "out.tsv"),
               "--engine", "ray", "--quiet"]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        command = [unshare, "-n", *command]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert f"hf-greedtok count: error: {URI}: cannot be read (" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_pyarrow_without_s3_says_so(tmp_path, monkeypatch, capsys):
    pa = pytest.importorskip("pyarrow")

    def no_s3(uri):
        raise pa.ArrowNotImplementedError("Got S3 URI but Arrow compiled without S3 support")

    monkeypatch.setattr(remote, "_from_uri", no_s3)
    assert main(["count", URI, "-o", str(tmp_path / "out.tsv"), "--engine", "ray", "--quiet"]) == 2
    err = one_line_error(capsys)
    assert f"{URI}: this pyarrow cannot read s3:// URIs (Got S3 URI but Arrow compiled without S3 support)" in err


def test_a_missing_object_and_a_folder_are_named(tmp_path, monkeypatch):
    fs = pytest.importorskip("pyarrow.fs")
    monkeypatch.setattr(remote, "_from_uri", lambda uri: (fs.LocalFileSystem(), str(tmp_path / uri.split("/")[-1])))
    with pytest.raises(CorpusError, match=r"^s3://bucket/x\.txt: no such file$"):
        remote.check_uri(URI)
    (tmp_path / "x.txt").mkdir()
    with pytest.raises(CorpusError, match=r"^s3://bucket/x\.txt: is a folder"):
        remote.check_uri(URI)
    (tmp_path / "x.txt").rmdir()
    (tmp_path / "x.txt").write_text("the cat\n", encoding="utf-8")
    remote.check_uri(URI)
