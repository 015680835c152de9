"""Issue 16's remaining items, each equal to one process on real English and Hindi corpora:
hierarchical training with its per-domain runs as Ray tasks (item 2b), runs whose Ray workers are
killed mid-run or fail for good (item 5), and row order over several input files (item 3).

Shares the module-scoped local cluster fixture ``cluster`` (tests/conftest.py).
"""
from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from corpora import corpus

ray = pytest.importorskip("ray", reason="distributed runs need the ray extra: pip install 'hf-greedtok[ray]'")
pa = pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the ray extra)")
psutil = pytest.importorskip("psutil", reason="killing Ray workers needs psutil (installed with ray)")
import pyarrow.parquet as pq  # noqa: E402

from hf_greedtok import ByteLevel, CorpusError  # noqa: E402
from hf_greedtok.atomic import TEMP_SUFFIX  # noqa: E402
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
    from hf_greedtok.experiments.hierarchical_vs_direct import train_hierarchical
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


def test_a_per_domain_run_whose_worker_is_killed_is_rerun_and_the_result_stays_exact(cluster, domains):
    """RayRunner's tasks are Ray Core tasks with max_retries: a SIGKILLed worker's domain is
    trained again, with the same ranking; a worker that dies on every attempt ends the run with
    WorkerLostError (issue 29 item 3)."""
    from hf_greedtok.distributed import WorkerLostError
    from hf_greedtok.distributed.training import RayRunner
    from hf_greedtok.experiments.hierarchical_vs_direct import train_hierarchical
    here = train_hierarchical(domains, 1500, show_progress=False)
    with Killer("_local_task", times=1) as killer:
        there = train_hierarchical(domains, 1500, show_progress=False, local_runner=RayRunner(max_retries=1))
    assert len(killer.killed) == 1, "no per-domain run was caught running"
    for name in domains:
        assert ranking(there.local[name]) == ranking(here.local[name]), name
    assert ranking(there.hierarchical) == ranking(here.hierarchical)
    with Killer("_local_task") as killer, pytest.raises(
            WorkerLostError, match=r"hierarchical training, per-domain runs: a Ray worker process died on 2 attempts"):
        train_hierarchical(domains, 1500, show_progress=False, local_runner=RayRunner(max_retries=1))
    assert len(killer.killed) >= 2


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


# ---------------------------------------------------------------- faults (item 5)

class Killer(threading.Thread):
    """SIGKILLs Ray worker processes while one of them runs our code: Ray titles a busy worker
    ``ray::<task>`` or ``ray::<actor>.<method>``, and every title containing ``marker`` (and
    ending with ``suffix``) is killed, the first ``times`` seen or every one (None). Only this
    process's descendants (the fixture's cluster), never another run's workers."""

    def __init__(self, marker: str, *, suffix: str = "", times=None) -> None:
        super().__init__(daemon=True)
        self.marker, self.suffix, self.times = marker, suffix, times
        self.killed: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set() and (self.times is None or len(self.killed) < self.times):
            for p in psutil.Process().children(recursive=True):
                try:
                    title = " ".join(p.cmdline()).strip()
                    if title.startswith("ray::") and self.marker in title and title.endswith(self.suffix):
                        p.send_signal(signal.SIGKILL)
                        self.killed.append(title)
                        break
                except (psutil.Error, OSError):
                    continue
            time.sleep(0.005)

    def __enter__(self) -> "Killer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.join()


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Real text in files big enough for a task to be caught running (about 1.2 MB): English
    and Hindi, and a folder trained on them."""
    folder = tmp_path_factory.mktemp("faults")
    files = []
    for name, lines in (("en_brown.txt", 12000), ("hi_devdas.txt", 4000)):
        files.append(folder / name)
        files[-1].write_text(head_lines(name, lines), encoding="utf-8", newline="")
    files = [str(f) for f in files]
    assert main(["train", *files, "-k", "300", "-o", str(folder / "tok"), "--quiet"]) == 0
    return folder, files


@pytest.fixture(scope="module")
def documents(shards):
    """The same lines as JSON Lines documents: these go to Ray Data's encoder actors."""
    folder, files = shards
    out = folder / "docs.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for name in files:
            for line in Path(name).read_text(encoding="utf-8").splitlines(keepends=True):
                f.write(json.dumps({"text": line}, ensure_ascii=False) + "\n")
    return str(out)


def test_a_counting_task_killed_mid_run_is_rerun_and_the_counts_stay_exact(cluster, shards):
    from hf_greedtok.distributed import count_words_distributed
    from hf_greedtok.word_counts import count_words_in_files
    _, files = shards
    with Killer("_count_text_range", times=1) as killer:
        got = count_words_distributed(files, ByteLevel(), show_progress=False)
    assert len(killer.killed) == 1, "no counting task was caught running"
    assert got == count_words_in_files(files, ByteLevel(), num_proc=1, show_progress=False)


def _tokenize_here_and_on_ray_killing_one_task(folder, files, tmp_path) -> "Killer":
    """``tokenize`` of ``files`` with the local engine into tmp_path/local, then on Ray into
    tmp_path/ray with the first tokenizing task killed once; both runs must succeed."""
    common = ["tokenize", str(folder / "tok"), *files, "--batch-size", "500", "--quiet"]
    assert main([*common, "-o", str(tmp_path / "local"), "--engine", "local"]) == 0
    with Killer("_tokenize_file", times=1) as killer:
        assert main([*common, "-o", str(tmp_path / "ray"), "--engine", "ray"]) == 0
    return killer


def test_a_tokenizing_task_killed_mid_file_is_rerun_and_the_ids_stay_exact(cluster, shards, tmp_path):
    folder, files = shards
    killer = _tokenize_here_and_on_ray_killing_one_task(folder, files, tmp_path)
    assert len(killer.killed) == 1, "no tokenizing task was caught running"
    assert pq.read_table(tmp_path / "ray").equals(pq.read_table(tmp_path / "local"))
    assert not [p.name for p in (tmp_path / "ray").iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_a_tokenize_run_whose_tasks_always_die_fails_clearly_and_leaves_nothing(cluster, shards, tmp_path, capsys):
    from hf_greedtok.distributed import WorkerLostError, tokenize_dataset
    folder, files = shards
    out = tmp_path / "ids"
    with Killer("_tokenize_file") as killer, \
            pytest.raises(WorkerLostError, match=r"tokenizing: a Ray worker process died on 1 attempts \(max_retries=0\)"):
        tokenize_dataset(files, folder / "tok", out, batch_size=500, max_retries=0, show_progress=False)
    assert len(killer.killed) >= 1
    assert list(tmp_path.iterdir()) == []         # no output, no temporary folder beside it
    with Killer("_tokenize_file") as killer:
        code = main(["tokenize", str(folder / "tok"), *files, "-o", str(out), "--engine", "ray",
                     "--max-retries", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and len(killer.killed) >= 1
    assert "tokenize: error: tokenizing: a Ray worker process died on 1 attempts (max_retries=0)" in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_document_task_killed_mid_file_is_rerun_and_the_ids_stay_exact(cluster, shards, documents, tmp_path):
    """JSON Lines documents go to the same Ray Core tasks as text files (issue 29: Ray Data's actor
    pool, which encoded them before, could hang when every actor died)."""
    folder, _ = shards
    killer = _tokenize_here_and_on_ray_killing_one_task(folder, [documents], tmp_path)
    assert len(killer.killed) == 1, "no task was caught encoding"
    assert pq.read_table(tmp_path / "ray").equals(pq.read_table(tmp_path / "local"))


def test_a_count_whose_workers_always_die_fails_clearly(cluster, shards):
    from hf_greedtok.distributed import WorkerLostError, count_words_distributed
    _, files = shards
    with Killer("_count_text_range") as killer, \
            pytest.raises(WorkerLostError, match=r"counting: a Ray worker process died on 1 attempts \(max_retries=0\)"):
        count_words_distributed(files, ByteLevel(), max_retries=0, show_progress=False)
    assert len(killer.killed) >= 1


def test_a_tokenize_run_whose_document_tasks_always_die_fails_clearly_and_leaves_nothing(cluster, shards, documents,
                                                                                           tmp_path, capsys):
    """Issue 16's quarantined hang (Ray Data's actor pool waiting for ever once every actor had
    died) is gone with the actor pool: JSON Lines documents are Ray Core tasks, which fail after
    their retries. The CLI part runs on a thread, so a hang would fail the test, not stall the suite."""
    from hf_greedtok.distributed import WorkerLostError, tokenize_dataset
    folder, _ = shards
    files = [documents]
    out = tmp_path / "ids"
    with Killer("_tokenize_file") as killer, \
            pytest.raises(WorkerLostError, match=r"tokenizing: a Ray worker process died on 2 attempts \(max_retries=1\)"):
        tokenize_dataset(files, folder / "tok", out, batch_size=500, max_retries=1, show_progress=False)
    assert len(killer.killed) >= 2
    assert list(tmp_path.iterdir()) == []         # no output, no temporary folder beside it
    codes: list = []
    with Killer("_tokenize_file") as killer:
        cli = threading.Thread(daemon=True, target=lambda: codes.append(main([
            "tokenize", str(folder / "tok"), *files, "-o", str(out), "--engine", "ray", "--max-retries", "0",
            "--batch-size", "500", "--quiet"])))
        cli.start()
        cli.join(timeout=120)
    assert codes, "hf-greedtok tokenize hung after its tasks kept dying"
    err = capsys.readouterr().err
    assert codes == [1] and len(killer.killed) >= 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hf-greedtok tokenize: error: tokenizing: a Ray worker process "
                                                   "died on 1 attempts (max_retries=0)"), err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- row order over several files (item 3)

def split_documents(text: str, parts: int) -> list[list[str]]:
    """A text's lines (each keeping its "\\n", the only line end of a tokenized text file) dealt
    into ``parts`` runs of consecutive lines."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    lines = [line for line in lines if line]
    step = -(-len(lines) // parts)
    return [lines[k:k + step] for k in range(0, len(lines), step)]


@pytest.fixture(scope="module")
def many_files(tmp_path_factory):
    """Real English and Hindi lines split over several files of each kind, named so that sorted
    order (globs) differs from numeric order: part-10 sorts before part-2."""
    folder = tmp_path_factory.mktemp("many")
    runs = split_documents(head_lines("en_brown.txt", 1500), 3) + split_documents(head_lines("hi_devdas.txt", 600), 2)
    names = ["part-2", "part-10", "part-1", "part-30", "part-4"]
    runs[1][-1] = runs[1][-1].rstrip("\n")      # a file whose last line has no line end
    runs.append([])                               # and an empty one
    names.append("part-0")
    for name, docs in zip(names, runs):
        (folder / f"{name}.txt").write_text("".join(docs), encoding="utf-8", newline="")
        (folder / f"{name}.jsonl").write_text("".join(json.dumps({"id": k, "text": d}, ensure_ascii=False) + "\n"
                                                      for k, d in enumerate(docs)), encoding="utf-8")
        pq.write_table(pa.table({"text": pa.array(docs, pa.string())}), folder / f"{name}.parquet",
                       row_group_size=97)
    return folder, dict(zip(names, runs))


def test_several_files_and_globs_keep_the_documented_order_on_both_engines(cluster, shards, many_files, tmp_path):
    """Row k of the output is document k of the inputs in the order given, a glob's matches in
    sorted order: on the Ray engine (two actors, small batches) exactly as on the local engine,
    for text, JSON Lines and parquet inputs."""
    from hf_greedtok import Tokenizer
    from hf_greedtok.distributed import tokenize_dataset
    folder, runs = many_files
    tok_dir = shards[0] / "tok"
    tok = Tokenizer.load(tok_dir)
    # explicit files out of sorted order, then a glob over the rest (sorted: 0, 30, 4)
    order = ["part-10", "part-2", "part-1", "part-0", "part-30", "part-4"]
    for kind in ("txt", "jsonl", "parquet"):
        inputs = [str(folder / f"part-{n}.{kind}") for n in (10, 2, 1)] + [str(folder / f"part-[034]*.{kind}")]
        if kind == "txt":       # from the command line, as a user passes a quoted glob
            for engine in ("local", "ray"):
                assert main(["tokenize", str(tok_dir), *inputs, "-o", str(tmp_path / f"{kind}-{engine}"), "--engine",
                             engine, "--batch-size", "64", "--quiet"]) == 0
        else:
            for engine in ("local", "ray"):
                tokenize_dataset(inputs, tok_dir, tmp_path / f"{kind}-{engine}", engine=engine, batch_size=64,
                                 num_workers=2, show_progress=False)
        expected = [tok.encode(d) for name in order for d in runs[name]]
        local = pq.read_table(tmp_path / f"{kind}-local")
        ray_table = pq.read_table(tmp_path / f"{kind}-ray")
        assert local.column("input_ids").to_pylist() == expected, kind
        assert ray_table.equals(local), kind
