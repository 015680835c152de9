"""Compiles the Cython core: every ``src_ext/NAME.pyx`` becomes the module ``hf_greedtok.NAME``.

A new ``.pyx`` file needs no change here; ``.pxd``/``.pxi`` files beside it are found through
``include_path``. ``pip install -e .`` builds the modules in place, beside ``hf_greedtok/*.py``.
"""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = ["-O3", "-std=c++17"]

# relative, sorted paths: setuptools refuses absolute source paths, and a stable order keeps builds reproducible
extensions = [
    Extension(f"hf_greedtok.{pyx.stem}", [pyx.as_posix()], language="c++", extra_compile_args=COMPILE_ARGS)
    for pyx in sorted(Path("src_ext").glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3},
                            include_path=["src_ext"]))
