"""Compiles the Cython core in src_ext/ into the hf_greedtok package (see pyproject.toml).

Sources sit in src_ext/hf_greedtok/ so that Cython finds each module's .pxd by its package
name (``from hf_greedtok._hashtrie cimport HashTrie``); every .pyx there becomes
``hf_greedtok.<name>``.
"""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = ["-O3", "-std=c++17"]
SOURCES = Path("src_ext") / "hf_greedtok"

extensions = [
    Extension(f"hf_greedtok.{pyx.stem}", [str(pyx)], language="c++", extra_compile_args=COMPILE_ARGS)
    for pyx in sorted(SOURCES.glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3}, include_path=["src_ext"]))
