"""Compiles the Cython core in src_ext/ into the hf_greedtok package (see pyproject.toml)."""
from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = ["-O3", "-std=c++17"]

extensions = [
    Extension(f"hf_greedtok.{name}", [f"src_ext/{name}.pyx"], language="c++",
              extra_compile_args=COMPILE_ARGS)
    for name in ("_trainer", "_encoder")
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3},
                            include_path=["src_ext"]))
