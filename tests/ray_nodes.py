"""A Ray cluster of several nodes on this machine whose worker nodes can be lost mid-job
(``ray.cluster_utils.Cluster``, as Ray's own fault-tolerance tests build one), and the inputs
such runs read. Shared by tests/distributed/test_node_loss.py, tests/distributed/test_signals.py and
benchmarks/bench_node_loss.py."""
from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Iterator, Sequence

import psutil


def runs(pid: int, marker: str) -> bool:
    """Whether a descendant of process ``pid`` has ``marker`` in its command line (Ray titles a
    busy worker ``ray::<task name>``)."""
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return False
    for p in children:
        try:
            if marker in " ".join(p.cmdline()):
                return True
        except psutil.Error:
            continue
    return False


def write_inputs(folder: Path, lines: Sequence[str]) -> dict[str, list[str]]:
    """``lines`` dealt into 8 text files, and as documents into 4 JSON Lines and 4 parquet files
    (row groups of 2,000 rows): {"txt"|"jsonl"|"parquet": [paths]}."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    files: dict[str, list[str]] = {"txt": [], "jsonl": [], "parquet": []}
    for k in range(8):
        path = folder / f"text-{k}.txt"
        path.write_text("".join(lines[k::8]), encoding="utf-8", newline="")
        files["txt"].append(str(path))
    for k in range(4):
        docs = lines[k::4]
        path = folder / f"docs-{k}.jsonl"
        path.write_text("".join(json.dumps({"text": d}, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
        files["jsonl"].append(str(path))
        path = folder / f"docs-{k}.parquet"
        pq.write_table(pa.table({"text": list(docs)}), path, row_group_size=2000)
        files["parquet"].append(str(path))
    return files


class Nodes:
    """A head without CPUs and two worker nodes of one CPU each; within ``losing(marker)``, a
    worker node is removed once a task whose Ray title contains ``marker`` runs on it."""

    def __init__(self) -> None:
        from ray.cluster_utils import Cluster
        # a removed node is declared dead within about a second (Ray's default: 15 s)
        config = {"health_check_period_ms": 300, "health_check_failure_threshold": 3,
                  "health_check_initial_delay_ms": 0}
        self.cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "_system_config": config})
        self.workers = [self.cluster.add_node(num_cpus=1) for _ in range(2)]
        self.cluster.wait_for_nodes()
        self.lost: list[tuple[str, float]] = []

    @staticmethod
    def running(node, marker: str) -> bool:
        return runs(node.all_processes["raylet"][0].process.pid, marker)

    @contextlib.contextmanager
    def losing(self, marker: str, delay: float = 0.0) -> Iterator[None]:
        """Within the block, the first worker node seen running ``marker`` is removed, ``delay``
        seconds later unless the block has ended; ``lost`` then gets (marker, time.monotonic() of
        the removal). On leaving, the watch stops (a node is never removed after the block) and
        the cluster is given back its two worker nodes."""
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                for node in list(self.workers):
                    if self.running(node, marker):
                        if stop.wait(delay):
                            return
                        self.cluster.remove_node(node, allow_graceful=False)
                        self.workers.remove(node)
                        self.lost.append((marker, time.monotonic()))
                        return
                time.sleep(0.005)
        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            self.replace()

    def replace(self) -> None:
        """Back to two worker nodes."""
        while len(self.workers) < 2:
            self.workers.append(self.cluster.add_node(num_cpus=1))
        self.cluster.wait_for_nodes()
