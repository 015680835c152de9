"""Compiles the Cython core: every ``src_ext/hf_greedtok/NAME.pyx`` becomes the module
``hf_greedtok.NAME``, beside the Python package in ``hf_greedtok/`` (see pyproject.toml).

A new ``.pyx`` file needs no change here. Sources sit in ``src_ext/hf_greedtok/`` so that
Cython finds each module's ``.pxd`` by its package name (``from hf_greedtok._hashtrie cimport
HashTrie``) through ``include_path``. ``pip install -e .`` builds the modules in place.
"""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = ["-O3", "-std=c++17", "-pthread"]
LINK_ARGS = ["-pthread"]   # std::thread (the trainer's parallel setup, _parallel.h) on older glibc
SOURCES = Path("src_ext") / "hf_greedtok"

# relative, sorted paths: setuptools refuses absolute source paths, and a stable order keeps builds reproducible
extensions = [
    Extension(f"hf_greedtok.{pyx.stem}", [pyx.as_posix()], language="c++", extra_compile_args=COMPILE_ARGS,
              extra_link_args=LINK_ARGS,
              include_dirs=[SOURCES.as_posix()])   # generated headers beside the .pyx (_unicode_props.h)
    for pyx in sorted(SOURCES.glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3}, include_path=["src_ext"]))
