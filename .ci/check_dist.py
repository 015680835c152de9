#!/usr/bin/env python3
"""Check the wheel and the sdist as users get them, each in a fresh virtual environment.

* wheel: built from this checkout (``pip wheel``), installed with ``--only-binary :all:`` (no
  compiler runs) into a venv that has no Cython; ``hf-greedtok train`` and ``encode`` run.
* sdist: built from this checkout (``python -m build --sdist``); it holds the native sources,
  the generator script, README and LICENSE, and no build artefacts; in a venv holding its build
  requirements and dependencies, ``pip install --no-index --no-build-isolation`` compiles it
  with no package source at all, and it trains and encodes.

Both build from a copy of the checkout's files (tracked and untracked, ignored ones left out),
so the checkout is never written to and a stale build there cannot leak in. Dependencies come
from the package index (or pip's cache). Takes 2-5 minutes on 2 cores; exits 0 when every
check passes, else 1 after printing what failed with the output of the failing command.

    python .ci/check_dist.py [--only wheel|sdist] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "data" / "devils_dictionary.txt"
# what an sdist must never carry: compiled modules, objects, Cython's generated C++ and caches
ARTEFACT_SUFFIXES = (".so", ".pyd", ".dylib", ".o", ".obj", ".cpp", ".html", ".pyc")
ARTEFACT_DIRS = ("build", "__pycache__", "dist")


class CheckFailed(Exception):
    """A check failed; the message says which and shows what the command printed."""


def run(cmd: list, *, cwd: Path | None = None, env: dict | None = None, expect_ok: bool = True,
        ) -> subprocess.CompletedProcess:
    """Run ``cmd``, returning its completed process (text output); raises :class:`CheckFailed`
    when its success differs from ``expect_ok``."""
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if (proc.returncode == 0) != expect_ok:
        raise CheckFailed(f"{'failed' if expect_ok else 'succeeded unexpectedly'} (exit {proc.returncode}): "
                          f"{' '.join(map(str, cmd))}\n--- stdout\n{proc.stdout[-4000:]}\n"
                          f"--- stderr\n{proc.stderr[-4000:]}")
    return proc


def copy_checkout(dest: Path) -> Path:
    """The checkout's files (git's tracked and untracked-but-not-ignored ones, as they are in
    the working tree) copied to ``dest``."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():               # a tracked file deleted in the working tree is skipped
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def new_venv(path: Path) -> Path:
    """A fresh venv (no system site-packages) at ``path``; returns its python."""
    run([sys.executable, "-m", "venv", path])
    return path / ("Scripts" if os.name == "nt" else "bin") / "python"


def smoke(python: Path, work: Path) -> str:
    """Train 200 tokens on the example corpus and encode "hello" with the package installed
    for ``python``, from ``work`` (outside the checkout, whose hf_greedtok/ has no compiled
    modules); returns the ids printed. Checks that the native modules come from that venv."""
    where = run([python, "-c", "import hf_greedtok._trainer as t, hf_greedtok._encoder; print(t.__file__)"],
                cwd=work).stdout.strip()
    venv = python.parent.parent
    if not Path(where).resolve().is_relative_to(venv.resolve()):
        raise CheckFailed(f"hf_greedtok._trainer was imported from {where}, not from the venv {venv}")
    cli = python.parent / "hf-greedtok"
    out = work / "tok"
    run([cli, "train", CORPUS, "-k", "200", "-o", out, "--quiet"], cwd=work)
    ids = run([cli, "encode", out, "hello"], cwd=work).stdout.strip()
    if not ids:
        raise CheckFailed(f"`hf-greedtok encode {out} hello` printed nothing")
    return ids


def check_wheel(source: Path, tmp: Path) -> str:
    """Build the wheel of ``source``, install it without Cython or a compiler and run it."""
    dist = tmp / "wheel"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, source])
    wheel, = dist.glob("hf_greedtok-*.whl")
    python = new_venv(tmp / "venv-wheel")
    run([python, "-m", "pip", "install", "--only-binary", ":all:", wheel])
    run([python, "-c", "import Cython"], expect_ok=False)
    return f"{wheel.name}: trained and encoded without Cython, `encode hello` -> {smoke(python, tmp)}"


def sdist_problems(sdist: Path, source: Path) -> list[str]:
    """What ``sdist`` lacks (the native sources and the generator script of ``source``, README,
    LICENSE, the build files) or carries that it should not (build artefacts)."""
    with tarfile.open(sdist) as tar:
        members = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    native = sorted(p.relative_to(source).as_posix() for p in (source / "src_ext").rglob("*")
                    if p.suffix in (".pyx", ".pxd", ".pxi", ".h", ".py"))
    required = native + ["README.md", "LICENSE", "pyproject.toml", "setup.py", "MANIFEST.in"]
    problems = [f"missing {name}" for name in required if name not in members]
    problems += [f"build artefact {name}" for name in sorted(members)
                 if name.endswith(ARTEFACT_SUFFIXES) or set(name.split("/")[:-1]) & set(ARTEFACT_DIRS)]
    return problems


def check_sdist(source: Path, tmp: Path) -> str:
    """Build the sdist of ``source``, check its contents, compile it offline and run it."""
    import tomllib   # Python 3.11+; only this check needs it

    project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    python = new_venv(tmp / "venv-sdist")
    # everything the offline install will need, fetched now: build requirements, the frontend, dependencies
    run([python, "-m", "pip", "install", "build", *project["build-system"]["requires"],
         *project["project"]["dependencies"]])
    dist = tmp / "sdist"
    run([python, "-m", "build", "--sdist", "--no-isolation", "--outdir", dist, source])
    sdist, = dist.glob("hf_greedtok-*.tar.gz")
    problems = sdist_problems(sdist, source)
    if problems:
        raise CheckFailed(f"{sdist.name}: " + "; ".join(problems))
    # no package source but the sdist: no index, and no configured find-links either
    offline = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")} | {"PIP_CONFIG_FILE": os.devnull}
    run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", sdist], env=offline)
    return f"{sdist.name}: complete, built offline, `encode hello` -> {smoke(python, tmp)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("wheel", "sdist"), help="run one of the two checks")
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and leave it behind")
    args = parser.parse_args(argv)
    checks = [c for name, c in (("wheel", check_wheel), ("sdist", check_sdist)) if args.only in (None, name)]
    tmp = Path(tempfile.mkdtemp(prefix="hf-greedtok-dist-")) if args.keep is None else args.keep
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        source = copy_checkout(tmp / "src")
        for check in checks:
            work = tmp / check.__name__
            work.mkdir()
            started = time.monotonic()
            result = check(source, work)
            print(f"{check.__name__}: ok ({time.monotonic() - started:.0f} s): {result}", flush=True)
    except CheckFailed as e:
        print(f"check_dist: {e}", file=sys.stderr)
        return 1
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
