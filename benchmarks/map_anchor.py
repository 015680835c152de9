"""What ``datasets`` itself costs in bench_hf's ``Dataset.map`` rows.

``precomputed`` is a batched map function that tokenizes nothing: it returns, by row index, the
outputs a tokenizer produced before the map. A map with it does every step of a tokenizing map
(shards, worker processes, Arrow conversion and writes) except tokenizing, so its wall and CPU
seconds are the floor any tokenizer's map pays with this ``num_proc`` on this machine.

It lives in a module of its own so that dill pickles the function by reference: the outputs
reach forked workers through ``OUTPUTS`` (inherited memory), not through a pickle of every id.
"""
from __future__ import annotations

OUTPUTS: dict[str, list] = {}       # column -> one value per row; set before the map


def precomputed(batch: dict, indices: list[int]) -> dict:
    """The precomputed columns of rows ``indices`` (``Dataset.map(..., with_indices=True)``)."""
    return {column: [values[i] for i in indices] for column, values in OUTPUTS.items()}
