"""Held-out text for ``hf-greedtok compare``: reading lines and a deterministic train/eval split.

The unit of the split is the line (the corpora we ship have no common document marker:
``en_brown.txt`` has one sentence per line and no blank lines, so a blank-line "document"
split would leave it whole). Line ``j`` (0-based, counted over all inputs in the order given,
blank lines included) is held out iff ``floor((j + 1) * F) > floor(j * F)``, computed on the
exact rational value of ``F``: exactly ``floor(n * F)`` of ``n`` lines are held out, spread
evenly through the corpus (every ``1/F``-th line), with no hashing and no dependence on run
order, so every run and every machine gets the same split. Training lines and held-out lines
are disjoint and together are the input lines in their order.
"""
from __future__ import annotations

import os
from fractions import Fraction
from typing import Sequence, Union

from ..formats.sources import iter_documents

__all__ = ["check_fraction", "read_lines", "split_lines", "split_mask"]


def check_fraction(fraction: float) -> Fraction:
    """The exact rational value of ``fraction`` as written in decimal (``0.1`` is 1/10).

    Raises:
        ValueError: ``fraction`` is not strictly between 0 and 1.
    """
    value = Fraction(str(fraction)) if isinstance(fraction, float) else Fraction(fraction)
    if not 0 < value < 1:
        raise ValueError(f"--holdout-fraction must be strictly between 0 and 1, got {fraction}")
    return value


def split_mask(n_lines: int, fraction: float) -> list[bool]:
    """bool[n_lines]: True for the lines held out (see the module docstring for the rule).

    Raises:
        ValueError: ``fraction`` outside (0, 1), or ``n_lines < 0``.
    """
    f = check_fraction(fraction)
    if n_lines < 0:
        raise ValueError(f"n_lines must be >= 0, got {n_lines}")
    # floor((j + 1) f) > floor(j f) without floats: compare integer quotients of p * j by q
    p, q = f.numerator, f.denominator
    return [(p * (j + 1)) // q > (p * j) // q for j in range(n_lines)]


def split_lines(lines: Sequence[str], fraction: float) -> tuple[list[str], list[str]]:
    """(training lines, held-out lines) of ``lines``, each in input order (:func:`split_mask`).

    Raises:
        ValueError: ``fraction`` outside (0, 1).
    """
    mask = split_mask(len(lines), fraction)
    return ([line for line, held in zip(lines, mask) if not held],
            [line for line, held in zip(lines, mask) if held])


def read_lines(paths: Sequence[Union[str, os.PathLike]], encoding_errors: str = "strict",
               text_column: str = "text") -> list[str]:
    """Every line of UTF-8 text files, in order, without its line end (blank lines kept), and
    every document of JSON Lines and parquet inputs (their ``text_column``), as every command
    reads its INPUTs (:func:`hf_greedtok.formats.sources.iter_documents`).

    Raises:
        CorpusError: a missing file, invalid UTF-8 (strict) or a NUL byte (file and line named).
    """
    return list(iter_documents(paths, text_column, encoding_errors))
