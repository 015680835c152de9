"""Scale-out on Ray (issue 16): distributed word counting, hierarchical training and dataset
tokenization, each equal to one process.

Needs the optional extra ``pip install "hf-greedtok[ray]"``. Nothing outside this package imports
it, and it imports Ray only inside functions, so ``import hf_greedtok`` (and this package) never
loads Ray. Names: :func:`count_words_distributed` (:mod:`.counting`; superword chunks left on the
cluster as :class:`RayChunks`, :mod:`.chunk_partitions`), :func:`tokenize_dataset`
(:mod:`.tokenizing`), :func:`train_hierarchical_distributed` (:mod:`.training`, the paper's
Section 5.4 with one Ray task per domain), :func:`ensure_ray`, :func:`ray_session` and
:func:`shutdown_ray` (:mod:`.session`). What the local
engine shares with it lives outside this package, which only Ray runs need: inputs are resolved
and read by :mod:`hf_greedtok.formats.sources` (:func:`resolve_inputs`, re-exported here), count
tables written by :func:`hf_greedtok.formats.count_table.write_count_table`, and folders encoded
by :class:`hf_greedtok.hf.folder_encoder.FolderEncoder`.
"""
from __future__ import annotations

from ..errors import RayConnectionError, WorkerLostError
from ..formats.sources import resolve_inputs
from .chunk_partitions import RayChunks
from .counting import count_words_distributed
from .training import RayRunner, train_hierarchical_distributed
from .session import ensure_ray, ray_session, shutdown_ray
from .tokenizing import TokenizedDataset, tokenize_dataset

__all__ = ["RayChunks", "RayConnectionError", "RayRunner", "TokenizedDataset", "WorkerLostError",
           "count_words_distributed", "ensure_ray", "ray_session", "resolve_inputs", "shutdown_ray", "tokenize_dataset",
           "train_hierarchical_distributed"]
