"""Shared by the benchmarks: corpus paths, the reference interpreter, subprocess workers."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("HF_GREEDTOK_SHARED", REPO.parent / "shared")) / "corpora"
REFERENCE_PYTHON = Path(os.environ.get("GREEDTOK_REF_PYTHON", "/work/refvenv/bin/python"))
# every running-text corpus of ../shared/corpora (not the word-count tables): "the mix", 43 MB
TEXT_CORPORA = ("en_brown.txt", "en_shakespeare_milton.txt", "en_python_docs.txt", "code_python_stdlib.txt",
                "hi_devdas.txt", "zh_reviews.txt")


def reference_available() -> bool:
    """True if a venv with greedtok 0.14.1 is at GREEDTOK_REF_PYTHON (see benchmarks/README.md)."""
    return REFERENCE_PYTHON.is_file()


def run_json(cmd: list[str], env: Optional[dict] = None) -> dict[str, Any]:
    """Run a worker process and parse the one JSON object it prints last."""
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_reference(*args: str) -> dict[str, Any]:
    lib = REFERENCE_PYTHON.parent.parent / "lib"
    return run_json([str(REFERENCE_PYTHON), str(REPO / "benchmarks" / "reference_worker.py"), *args],
                    env={"LD_LIBRARY_PATH": str(lib)})


def run_ours(script: str, *args: str) -> dict[str, Any]:
    return run_json([sys.executable, str(REPO / "benchmarks" / script), "--worker", *args])


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"


def peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
