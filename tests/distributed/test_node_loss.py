"""A lost node costs time, not data (issue 29 item 3): on a Ray cluster of several nodes on this
machine (``ray.cluster_utils.Cluster``, as Ray's own fault-tolerance tests build one), a worker
node is removed while one of our tasks runs on it, and ``count`` (of words, and of superword
chunks on text), ``train --superwords`` (a node lost while tasks read the chunk partitions it
holds), ``tokenize`` and ``hierarchical`` still give exactly the single-process results, for
text, JSON Lines and parquet.

The head node has no CPU, so every task runs on the two one-CPU worker nodes; the victim is
removed (all its processes killed, its object store with them) as soon as one of our tasks is
seen running there, then a fresh node is added for the next run. What the victim held is rebuilt
by Ray from lineage: its tasks are rerun (``max_retries``), and the partial word tables it stored
are computed again when a sum task needs them.
"""
from __future__ import annotations

import functools
import os

import pytest
from corpora import corpus

ray = pytest.importorskip("ray", reason="multi-node runs need the ray extra: pip install 'hf-greedtok[ray]'")
pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")
pytest.importorskip("psutil", reason="psutil (installed with ray) lists the node's workers")
import pyarrow.parquet as pq  # noqa: E402
from ray_nodes import Nodes, write_inputs  # noqa: E402

from hf_greedtok.cli import main  # noqa: E402
from hf_greedtok.atomic import TEMP_SUFFIX  # noqa: E402
from hf_greedtok.formats import sources  # noqa: E402


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    if ray.is_initialized():
        ray.shutdown()
    # Ray puts the driver's working directory first on its workers' sys.path: started from the
    # checkout (as CI runs pytest), workers would import its unbuilt hf_greedtok/ (conftest's
    # cluster fixture does the same)
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray_driver"))
    try:
        cluster = Nodes()
        ray.init(address=cluster.cluster.address, log_to_driver=False)
    finally:
        os.chdir(here)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.cluster.shutdown()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Real English and Hindi lines in 8 text files, the same documents in 4 JSON Lines and 4
    parquet files (row groups of 2,000 rows), and a tokenizer trained on them."""
    folder = tmp_path_factory.mktemp("nodes")
    lines = []
    for name, count in (("en_brown.txt", 40000), ("hi_devdas.txt", 8000)):
        with open(corpus(name), encoding="utf-8", newline="") as f:
            lines += [line for _, line in zip(range(count), f)]
    files = write_inputs(folder, lines)
    assert main(["train", *files["txt"][:2], "-k", "500", "-o", str(folder / "tok"), "--quiet"]) == 0
    return folder, files


@pytest.fixture()
def small_pieces(monkeypatch):
    """Parquet files cut into runs of a few row groups, so several tasks read each file."""
    monkeypatch.setattr(sources, "PIECE_BYTES", 100_000)


TASKS = {"count": {"txt": "_count_text_range", "jsonl": "_count_document_file", "parquet": "_count_document_file"},
         "tokenize": {kind: "_tokenize_file" for kind in ("txt", "jsonl", "parquet")},
         # issue 53: a node lost while Ray tasks read the chunk partitions held in the object stores
         "train": {"txt": "_apply"}}


@pytest.mark.parametrize("command, kind", [
    *((command, kind) for command in ("count", "tokenize") for kind in ("txt", "jsonl", "parquet")),
    ("count --superwords", "txt"),        # issue 41: the chunks stage 2 samples from
    ("train --superwords", "txt"),        # issue 53: their words and sample, read where they are
])
def test_a_node_lost_mid_job_changes_nothing(nodes, inputs, small_pieces, tmp_path, command, kind):
    folder, files = inputs
    if command.startswith("count"):
        argv = [*command.split(), *files[kind], "--quiet"]
        suffix = ".parquet" if "--superwords" in argv else ".tsv"     # chunks keep their line ends
        local, there = tmp_path / f"local{suffix}", tmp_path / f"ray{suffix}"
    elif command.startswith("train"):
        # a budget that draws the sample: both passes over the partitions run
        argv = [*command.split(), *files[kind], "-k", "300", "--chunk-budget-mb", "0.2", "--quiet"]
        local, there = tmp_path / "local", tmp_path / "ray"
    else:
        argv = ["tokenize", str(folder / "tok"), *files[kind], "--batch-size", "500", "--quiet"]
        local, there = tmp_path / "local", tmp_path / "ray"
    assert main([*argv, "-o", str(local), "--engine", "local"]) == 0
    lost = len(nodes.lost)
    with nodes.losing(TASKS[command.split()[0]][kind]):
        assert main([*argv, "-o", str(there), "--engine", "ray"]) == 0   # the module's multi-node cluster
    assert len(nodes.lost) == lost + 1, "no task of ours was caught running on a worker node"
    if command.startswith("count"):
        assert there.read_bytes() == local.read_bytes()
    elif command.startswith("train"):
        names = sorted(p.name for p in local.iterdir())
        assert names == sorted(p.name for p in there.iterdir())
        assert all((there / name).read_bytes() == (local / name).read_bytes() for name in names)
    else:
        assert pq.read_table(there).equals(pq.read_table(local))
        assert not [p.name for p in there.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_chunk_partitions_lost_with_their_node_are_rebuilt(nodes, inputs):
    """Issue 53: superword chunks left on the cluster in partitions; the node holding the first
    one is lost before they are read, and reading them rebuilds what it held from lineage (the
    sums, and the counting tasks below them, run again): the same exact counts."""
    from hf_greedtok import ByteLevel
    from hf_greedtok.distributed import count_words_distributed
    from hf_greedtok.special_tokens import counting_pipeline
    from hf_greedtok.trainers.chunk_sample import sampled
    from hf_greedtok.word_counts import count_words_in_files
    _, files = inputs
    pre = ByteLevel("superwords")
    local = count_words_in_files(files["txt"], *counting_pipeline(pre, None, []), num_proc=1, show_progress=False)
    read: dict = {}
    with count_words_distributed(files["txt"], pre, num_partitions=4, show_progress=False, table=True) as chunks:
        holder = ray.experimental.get_object_locations(chunks.refs[:1])[chunks.refs[0]]["node_ids"]
        victim = next(node for node in nodes.workers if node.node_id in holder)
        try:
            nodes.cluster.remove_node(victim, allow_graceful=False)
            nodes.workers.remove(victim)
            for part in chunks.map_partitions(functools.partial(sampled, rate=1)):     # rate 1: the partition
                read.update(part.to_dict())
        finally:
            nodes.replace()
    assert read == local and len(chunks) == len(local)


def test_hierarchical_survives_a_lost_node(nodes, inputs, tmp_path):
    folder, files = inputs
    argv = ["hierarchical", *files["txt"][:3], "-k", "600", "--quiet"]
    assert main([*argv, "-o", str(tmp_path / "local")]) == 0
    lost = len(nodes.lost)
    with nodes.losing("_local_task"):
        assert main([*argv, "-o", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    assert len(nodes.lost) == lost + 1, "no domain's run was caught on a worker node"
    local, there = tmp_path / "local" / "tokenizer", tmp_path / "ray" / "tokenizer"
    for name in sorted(p.name for p in local.iterdir()):
        assert (local / name).read_bytes() == (there / name).read_bytes(), name


def test_a_lost_attempts_empty_temporary_is_removed_once_every_task_has_finished(tmp_path, monkeypatch):
    """A node lost right after a task created its part's temporary, before the first byte: the
    rerun's write keeps an empty unlocked temporary (a live writer may own one), so the run
    removes what is left once every task has finished (seen once in CI's node-loss test)."""
    from hf_greedtok.atomic import TEMP_SUFFIX
    from hf_greedtok.distributed import tokenizing

    def tasks_ran(*args, **kwargs):
        (tmp_path / "part-00000.parquet").write_bytes(b"PAR1")
        (tmp_path / f".part-00000.parquet.x1y2z3{TEMP_SUFFIX}").write_bytes(b"")
    monkeypatch.setattr(tokenizing, "run_tasks", tasks_ran)
    tokenizing._tokenize_on_ray(tmp_path, {}, None, ("key",), "text", "strict", 10, 0, 1, False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00000.parquet"]
