"""Scale-out on Ray (issue 16): distributed word counting, hierarchical training and dataset
tokenization, each equal to one process.

Needs the optional extra ``pip install "hf-greedtok[ray]"``. Nothing outside this package imports
it, and it imports Ray only inside functions, so ``import hf_greedtok`` (and this package) never
loads Ray. Names: :func:`count_words_distributed` (:mod:`.counting`), :func:`tokenize_dataset`
(:mod:`.tokenizing`, workers encoding with :class:`~.encoding.FolderEncoder`),
:func:`train_hierarchical_distributed` (:mod:`.training`, the paper's Section 5.4 with one Ray
task per domain),
:func:`resolve_inputs` (:mod:`.sources`), :func:`ensure_ray`, :func:`ray_session` and
:func:`shutdown_ray` (:mod:`.session`); count tables are
written by :func:`hf_greedtok.formats.count_table.write_count_table`.
"""
from __future__ import annotations

from ..errors import RayConnectionError, WorkerLostError
from .counting import count_words_distributed
from .training import RayRunner, train_hierarchical_distributed
from .session import ensure_ray, ray_session, shutdown_ray
from .sources import resolve_inputs
from .tokenizing import TokenizedDataset, tokenize_dataset

__all__ = ["RayConnectionError", "RayRunner", "TokenizedDataset", "WorkerLostError", "count_words_distributed",
           "ensure_ray", "ray_session", "resolve_inputs", "shutdown_ray", "tokenize_dataset",
           "train_hierarchical_distributed"]
