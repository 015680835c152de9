"""Compiles the Cython core: every ``src_ext/hf_greedtok/NAME.pyx`` becomes the module
``hf_greedtok.NAME``, beside the Python package in ``hf_greedtok/`` (see pyproject.toml).

A new ``.pyx`` file needs no change here. Sources sit in ``src_ext/hf_greedtok/`` so that
Cython finds each module's ``.pxd`` by its package name (``from hf_greedtok._hashtrie cimport
HashTrie``) through ``include_path``. ``pip install -e .`` builds the modules in place.

The modules are C++17 and need nothing but the standard library, Python's headers and numpy's
(``_rows`` makes numpy views through numpy's C API; built against numpy 2, the modules run with
numpy 1.23 and later, numpy's default target); the flags depend on the compiler that setuptools picked (MSVC on Windows, gcc or clang elsewhere),
which is only known once ``build_ext`` runs, hence :class:`BuildExt`.
"""
import sys
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = Path("src_ext") / "hf_greedtok"


def compiler_flags(compiler_type: str, platform: str = sys.platform) -> tuple[list[str], list[str]]:
    """(compile args, link args) for a setuptools ``compiler_type`` ("msvc", "unix", "mingw32")
    on ``platform`` (a ``sys.platform`` value)."""
    if compiler_type == "msvc":
        # MSVC ignores gcc's spellings (with warning D9002) and would compile as C++14;
        # setuptools already adds /EHsc for C++ sources; std::thread needs no flag
        return ["/O2", "/std:c++17"], []
    if platform == "darwin":
        # clang and libc++: std::thread lives in libSystem, no -pthread needed
        return ["-O3", "-std=c++17"], []
    # gcc or clang on Linux and MinGW: -pthread for std::thread (_parallel.h) on older glibc
    return ["-O3", "-std=c++17", "-pthread"], ["-pthread"]


class BuildExt(build_ext):
    """build_ext that gives each extension the flags of the compiler in use."""

    def build_extensions(self):
        compile_args, link_args = compiler_flags(self.compiler.compiler_type)
        for ext in self.extensions:
            ext.extra_compile_args = compile_args
            ext.extra_link_args = link_args
        super().build_extensions()


# relative, sorted paths: setuptools refuses absolute source paths, and a stable order keeps builds reproducible
extensions = [
    Extension(f"hf_greedtok.{pyx.stem}", [pyx.as_posix()], language="c++",
              # generated headers beside the .pyx (_unicode_props.h), and numpy's
              include_dirs=[SOURCES.as_posix(), numpy.get_include()])
    for pyx in sorted(SOURCES.glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3}, include_path=["src_ext"]),
      cmdclass={"build_ext": BuildExt})
