"""The same documents written as every kind of input the input layer reads, and what the
commands make of them, for the input matrix (tests/formats/test_input_layer.py, local;
tests/distributed/test_input_layer_ray.py, Ray). A plain module, so both can import it.

The documents: 150 lines of en_brown and 30 of hi_devdas (about 23 KB), each keeping its
``"\\n"``. Every kind holds exactly these documents (a text file's documents are its lines,
line ends included), except ``txt-bom-crlf``, whose lines end in ``"\\r\\n"``: a text line keeps
its line end as written, so its documents are the same lines with ``"\\r\\n"``. A JSON Lines
file with a BOM and CRLF line ends still holds the first documents: its line ends are not
inside the text field.
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

from corpora import corpus

import pytest

from hf_greedtok.cli import main

try:
    import zstandard  # noqa: F401
    HAVE_ZSTD = True
except ImportError:
    HAVE_ZSTD = False

#: The kinds of :func:`write_kinds` a test module runs through (standard input has its own tests).
KIND_NAMES = ["txt", "txt-bom-crlf", "jsonl", "jsonl-nested", "jsonl-bom-crlf", "parquet", "txt.gz", "txt.bz2",
              "txt.xz", "txt.zst", "jsonl.gz", "glob", "directory"]


def kinds_fixture():
    """A module fixture ``kinds``: every kind written once per module (``.zst`` when zstandard is here)."""
    @pytest.fixture(scope="module")
    def kinds(tmp_path_factory):
        return write_kinds(tmp_path_factory.mktemp("kinds"), zstd=HAVE_ZSTD)
    return kinds

BOM = "\ufeff"


def documents() -> list[str]:
    """The matrix's documents: lines of English and Hindi, each ending in "\\n"."""
    en = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:150]
    hi = corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:30]
    return en + hi


def crlf(docs: list[str]) -> list[str]:
    return [d[:-1] + "\r\n" for d in docs]


class Kind(NamedTuple):
    """One input kind: its INPUT arguments, extra options, and which documents it holds
    ("lf": :func:`documents`, "crlf": the same with "\\r\\n" line ends)."""

    inputs: list[str]
    options: list[str]
    docs: str


def _zstd(data: bytes) -> bytes:
    import zstandard
    return zstandard.ZstdCompressor().compress(data)


def write_kinds(folder: Path, zstd: bool) -> dict[str, Kind]:
    """Every kind of input, written under ``folder``: {name: Kind}; ``.zst`` only with ``zstd``."""
    docs = documents()
    text = "".join(docs).encode("utf-8")
    rows = [json.dumps({"id": k, "text": d}) for k, d in enumerate(docs)]

    def put(name: str, data: bytes) -> str:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return str(path)

    kinds = {
        "txt": Kind([put("plain.txt", text)], [], "lf"),
        "txt-bom-crlf": Kind([put("bom_crlf.txt", (BOM + "".join(crlf(docs))).encode("utf-8"))], [], "crlf"),
        "jsonl": Kind([put("docs.jsonl", "".join(r + "\n" for r in rows).encode("utf-8"))], [], "lf"),
        "jsonl-nested": Kind([put("nested.jsonl", "".join(json.dumps({"meta": {"body": d, "src": "brown"}}) + "\n"
                                                          for d in docs).encode("utf-8"))],
                             ["--text-column", "meta.body"], "lf"),
        "jsonl-bom-crlf": Kind([put("bom_crlf.jsonl", (BOM + "".join(r + "\r\n" for r in rows)).encode("utf-8"))],
                               [], "lf"),
        "parquet": Kind([_parquet(folder / "docs.parquet", docs)], [], "lf"),
        "txt.gz": Kind([put("plain.txt.gz", gzip.compress(text))], [], "lf"),
        "txt.bz2": Kind([put("plain.txt.bz2", bz2.compress(text))], [], "lf"),
        "txt.xz": Kind([put("plain.txt.xz", lzma.compress(text))], [], "lf"),
        "jsonl.gz": Kind([put("docs.jsonl.gz", gzip.compress("".join(r + "\n" for r in rows).encode("utf-8")))],
                         [], "lf"),
    }
    if zstd:
        kinds["txt.zst"] = Kind([put("plain.txt.zst", _zstd(text))], [], "lf")
    # three shards: a quoted glob, and a directory (with a hidden file and a _ file it skips)
    for k in range(3):
        part = "".join(docs[k * 60:(k + 1) * 60]).encode("utf-8")
        put(f"shards/part-{k}.txt", part)
        put(f"tree/{'sub/' if k == 2 else ''}part-{k}.txt", part)
    put("tree/.hidden.txt", b"never read\n")
    put("tree/_hf_greedtok_manifest.json", b"{not json lines")
    kinds["glob"] = Kind([str(folder / "shards" / "part-*.txt")], [], "lf")
    kinds["directory"] = Kind([str(folder / "tree")], [], "lf")
    return kinds


def _parquet(path: Path, docs: list[str]) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"id": list(range(len(docs))), "text": docs}), path, row_group_size=70)
    return str(path)


#: The commands of the matrix: argv after the inputs (the output's name is added).
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "count": lambda out: ["-o", str(out / "counts.parquet")],   # .tsv would leave out line ends
    "train": lambda out: ["-k", "60", "-o", str(out / "tok")],
    "train --superwords": lambda out: ["-k", "60", "--superwords", "-o", str(out / "tok")],
}


def run(command: str, kind: Kind, out: Path, engine: str, capsys) -> dict[str, bytes]:
    """Run ``command`` on ``kind`` in this process; {file name: bytes} of what it wrote."""
    name, *flags = command.split()
    engine_args = ["--engine", "ray"] if engine == "ray" else ["--engine", "local", "--num-proc", "1"]
    code = main([name, *kind.inputs, *flags, *kind.options, *COMMANDS[command](out), *engine_args, "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    written = out / ("counts.parquet" if name == "count" else "tok")
    files = [written] if written.is_file() else sorted(written.iterdir())
    return {f.name: f.read_bytes() for f in files}


def without_source(files: dict[str, bytes]) -> dict[str, bytes]:
    """A folder's files without what names its inputs: greedtok.json's training "source" (and
    the manifest, whose hash of greedtok.json follows it); what two kinds of the same documents
    must give alike."""
    out = dict(files)
    out.pop("hf_greedtok_manifest.json", None)
    if "greedtok.json" in out:
        saved = json.loads(out["greedtok.json"])
        saved["training"].pop("source")
        saved.pop("sha256", None)
        out["greedtok.json"] = json.dumps(saved, sort_keys=True).encode("utf-8")
    return out


@contextmanager
def stdin_bytes(data: bytes) -> Iterator[None]:
    """Standard input reading ``data``, for an in-process ``main([... "-" ...])``."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved
