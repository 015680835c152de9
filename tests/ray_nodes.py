"""A Ray cluster of several nodes on this machine whose worker nodes can be lost mid-job
(``ray.cluster_utils.Cluster``, as Ray's own fault-tolerance tests build one). Shared by
tests/test_distributed_nodes.py and benchmarks/bench_node_loss.py."""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator

import psutil


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
        raylet = node.all_processes["raylet"][0].process
        try:
            children = psutil.Process(raylet.pid).children(recursive=True)
        except psutil.Error:
            return False
        for p in children:
            try:
                if marker in " ".join(p.cmdline()):
                    return True
            except psutil.Error:
                continue
        return False

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
