"""Issue 16's remaining items, each equal to one process on real English and Hindi corpora:
hierarchical training with its per-domain runs as Ray tasks (item 2b), runs whose Ray workers are
killed mid-run or fail for good (item 5), and row order over several input files (item 3).

Shares the module-scoped local cluster fixture ``cluster`` (tests/conftest.py).
"""
from __future__ import annotations

import json
from collections import Counter

import pytest
from corpora import corpus

ray = pytest.importorskip("ray", reason="distributed runs need the ray extra: pip install 'hf-greedtok[ray]'")
pa = pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")
import pyarrow.parquet as pq  # noqa: E402

from hf_greedtok import ByteLevel, CorpusError  # noqa: E402
from hf_greedtok.cli import main  # noqa: E402
from hf_greedtok.word_counts import count_words  # noqa: E402


def head_lines(name: str, lines: int) -> str:
    with open(corpus(name), encoding="utf-8", newline="") as f:
        return "".join(line for _, line in zip(range(lines), f))


# ---------------------------------------------------------------- hierarchical training (item 2b)

@pytest.fixture(scope="module")
def domains():
    """Word counts of real English (Brown) and Hindi (Devdas) text: two domains."""
    pre = ByteLevel()
    return {name: count_words(head_lines(name, lines).splitlines(keepends=True), pre, num_proc=1,
                              show_progress=False)
            for name, lines in (("en_brown.txt", 2000), ("hi_devdas.txt", 600))}


def ranking(tok):
    info = tok.training_info
    return tok.model.ranked_tokens, info["k_learned"], info["objective_tokens"]


def test_hierarchical_on_ray_tasks_equals_the_single_machine_run(cluster, domains):
    from hf_greedtok.distributed import train_hierarchical_distributed
    from hf_greedtok.experiments.hierarchical import train_hierarchical
    here = train_hierarchical(domains, 250, show_progress=False)
    there = train_hierarchical_distributed(domains, 250, show_progress=False)
    assert list(there.local) == list(domains)
    for name in domains:
        assert ranking(there.local[name]) == ranking(here.local[name]), name
    assert ranking(there.final) == ranking(here.hierarchical)
    assert there.final.training_info["candidates"] == here.hierarchical.training_info["candidates"]
    assert there.combined == sum(map(Counter, domains.values()), Counter())
    # the final run really was restricted: every learned token is a substring of a local token
    assert set(there.final.model.ranked_tokens) <= there.substrings
    assert len(there.substrings) == here.summary["candidate_substrings"]


def test_hierarchical_task_errors_reach_the_caller_as_themselves(cluster, domains):
    from hf_greedtok.distributed import train_hierarchical_distributed
    with pytest.raises(CorpusError, match="empty"):
        train_hierarchical_distributed({**domains, "nothing": {}}, 50, show_progress=False)
    with pytest.raises(ValueError, match="at least 2 domains"):
        train_hierarchical_distributed({"en": domains["en_brown.txt"]}, 50, show_progress=False)


def test_cli_hierarchical_engine_ray_writes_the_local_folder(cluster, tmp_path):
    files = []
    for name, lines in (("en_brown.txt", 1500), ("hi_devdas.txt", 500)):
        files.append(tmp_path / name)
        files[-1].write_text(head_lines(name, lines), encoding="utf-8", newline="")
    args = [*map(str, files), "-k", "200", "--quiet"]
    assert main(["hierarchical", *args, "-o", str(tmp_path / "local")]) == 0
    assert main(["hierarchical", *args, "-o", str(tmp_path / "ray"), "--engine", "ray"]) == 0   # joins the cluster
    local, ray_dir = tmp_path / "local" / "tokenizer", tmp_path / "ray" / "tokenizer"
    names = sorted(p.name for p in local.iterdir())
    assert names == sorted(p.name for p in ray_dir.iterdir())
    for name in names:
        assert (local / name).read_bytes() == (ray_dir / name).read_bytes(), name

    def report(folder):
        r = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        return {k: v for k, v in r["summary"].items() if not k.startswith("seconds")}, r["tokens_per_word"]
    assert report(tmp_path / "ray") == report(tmp_path / "local")
