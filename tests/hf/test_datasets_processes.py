"""GreedTokTokenizerFast across processes and threads: remote code, no-package loading,
datasets.map with num_proc=2 and its cache, and threads with different padding/truncation.

Subprocesses run with cwd outside the repository (so the installed package is used) and
HF_HUB_OFFLINE=1.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest
from corpora import corpus

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def lines() -> list[str]:
    text = corpus("en_brown.txt").read_text(encoding="utf-8").splitlines()
    return [t for t in text if t.strip()][:4000]


@pytest.fixture(scope="module")
def saved(lines, tmp_path_factory):
    core = GreedTokTrainer(k=2000, special_tokens=["<s>", "</s>", "<pad>"], show_progress=False) \
        .train_from_iterator(lines[:2000], num_proc=1)
    tok = GreedTokTokenizerFast.from_greedtok(core, mode="cover", bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                              add_eos_token=True)
    path = tmp_path_factory.mktemp("tok") / "greedtok-en"
    tok.save_pretrained(path)
    return path


def clean_env(**env) -> dict[str, str]:
    """This environment without PYTHONPATH, offline for the hub, plus ``env``."""
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    clean.update(HF_HUB_OFFLINE="1", **env)
    return clean


def run_python(code: str, cwd, **env) -> subprocess.CompletedProcess:
    clean = clean_env(HF_HOME=str(cwd / "hf_home"), TOKENIZERS_PARALLELISM="false", **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=clean,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_bare_folder_loads_with_trust_remote_code_in_a_clean_process(saved, lines, tmp_path):
    probe = lines[3000:3020]
    result = run_python(f"""
        import json, sys
        from transformers import AutoTokenizer
        assert "hf_greedtok" not in sys.modules
        try:
            AutoTokenizer.from_pretrained({str(saved)!r})
            print("LOADED WITHOUT TRUST")
        except ValueError as e:
            assert "trust_remote_code=True" in str(e), e
        tok = AutoTokenizer.from_pretrained({str(saved)!r}, trust_remote_code=True)
        print("\\nRESULT", json.dumps({{"module": type(tok).__module__, "mode": tok.mode,
                          "ids": tok({probe!r})["input_ids"]}}))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "LOADED WITHOUT TRUST" not in result.stdout
    out = json.loads(result.stdout.split("\nRESULT ")[-1])
    assert out["module"].startswith("transformers_modules.") and out["module"].endswith("tokenization_greedtok")
    local = GreedTokTokenizerFast.from_pretrained(saved)
    assert out["mode"] == "cover" and out["ids"] == local(probe)["input_ids"]


def test_tokenizer_json_loads_with_the_package_unimportable(saved, lines, tmp_path):
    """An optimal-mode folder's tokenizer.json is standard: no hf_greedtok, no custom code, its ids."""
    optimal = tmp_path / "optimal"
    GreedTokTokenizerFast.from_pretrained(saved, mode="optimal").save_pretrained(optimal)
    only = tmp_path / "only"
    only.mkdir()
    (only / "tokenizer.json").write_bytes((optimal / "tokenizer.json").read_bytes())
    probe = lines[3000:3020]
    result = run_python(f"""
        import json, sys
        sys.modules["hf_greedtok"] = None          # any import of the package now fails
        from tokenizers import Tokenizer
        from transformers import AutoTokenizer
        plain = Tokenizer.from_file({str(only / "tokenizer.json")!r})
        auto = AutoTokenizer.from_pretrained({str(only)!r})
        print(json.dumps({{"plain": [e.ids for e in plain.encode_batch({probe!r})],
                          "auto": auto({probe!r})["input_ids"], "cls": type(auto).__name__}}))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    local = GreedTokTokenizerFast.from_pretrained(saved)
    want = [ids.tolist() + [1] for ids in local.greedtok.encode_batch(probe, mode="optimal")]
    assert out["plain"] == want and out["auto"] == want and out["cls"] == "TokenizersBackend"


def test_fingerprint_is_the_same_in_every_process(saved, tmp_path):
    code = f"""
        import hf_greedtok
        from datasets.fingerprint import Hasher
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained({str(saved)!r})
        tok(["warm the word cache", "and set padding"], padding=True, truncation=True, max_length=3)
        print(Hasher.hash(tok))
    """
    first = run_python(code, tmp_path)
    second = run_python(code, tmp_path, PYTHONHASHSEED="123")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() and first.stdout.strip() == second.stdout.strip()


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("how", ["closure", "fn_kwargs"])
def test_dataset_map_two_processes_then_cache(saved, lines, tmp_path, how):
    tok = GreedTokTokenizerFast.from_pretrained(saved)
    data_dir = tmp_path / "ds"
    datasets.Dataset.from_dict({"text": lines[:3000]}).save_to_disk(str(data_dir))
    ds = datasets.load_from_disk(str(data_dir))

    if how == "closure":
        def fn(batch):
            return tok(batch["text"], truncation=True, max_length=64)
        kwargs = {}
    else:
        def fn(batch, tokenizer):
            return tokenizer(batch["text"], truncation=True, max_length=64)
        kwargs = {"fn_kwargs": {"tokenizer": tok}}

    records = _Records()
    logger = logging.getLogger("datasets")
    logger.addHandler(records)
    level = datasets.utils.logging.get_verbosity()
    datasets.utils.logging.set_verbosity_info()     # the cache-hit message is logged at INFO
    try:
        first = ds.map(fn, batched=True, num_proc=2, **kwargs)
        second = ds.map(fn, batched=True, num_proc=2, **kwargs)
    finally:
        logger.removeHandler(records)
        datasets.utils.logging.set_verbosity(level)
    assert not [m for m in records.messages if "couldn't be hashed" in m], records.messages
    assert first._fingerprint == second._fingerprint
    assert [f["filename"] for f in first.cache_files] == [f["filename"] for f in second.cache_files]
    assert any("Loading cached processed dataset" in m for m in records.messages)
    assert first["input_ids"][:50] == tok(lines[:50], truncation=True, max_length=64)["input_ids"]


@pytest.mark.parametrize("num_proc", [1, 2])
def test_the_arrow_recipe_writes_the_table_the_tokenizer_map_writes(saved, lines, tmp_path, num_proc):
    """README's recipe: ``with_format("arrow").map(FolderEncoder.map_batch)`` gives the very
    columns and types of ``map(lambda b: tok(b["text"]))`` (the EOS token the folder adds
    included), from the folder or from the loaded tokenizer, in one process or two."""
    from hf_greedtok.hf.folder_encoder import FolderEncoder

    tok = GreedTokTokenizerFast.from_pretrained(saved)
    data_dir = tmp_path / "ds"
    datasets.Dataset.from_dict({"text": lines[:3000]}).save_to_disk(str(data_dir))
    ds = datasets.load_from_disk(str(data_dir))
    want = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"], num_proc=num_proc)
    assert want.features["input_ids"].feature.dtype == "int32" and want[0]["input_ids"][-1] == tok.eos_token_id
    for encoder in (FolderEncoder(saved, attention_mask=True), FolderEncoder.from_tokenizer(tok, attention_mask=True)):
        assert encoder.native
        got = ds.with_format("arrow").map(encoder.map_batch, batched=True, with_indices=num_proc == 2,
                                          remove_columns=["text"], num_proc=num_proc).with_format(None)
        assert got.features == want.features
        assert got.data.table.equals(want.data.table)


def test_the_arrow_recipe_names_a_null_by_its_dataset_row(saved):
    """With ``with_indices=True`` the row is the dataset's (1500), not the batch's (500)."""
    from hf_greedtok.hf.folder_encoder import FolderEncoder

    rows = ["a text"] * 2000
    rows[1500] = None
    ds = datasets.Dataset.from_dict({"text": rows}).with_format("arrow")
    encoder = FolderEncoder(saved)
    with pytest.raises(TypeError, match=r"^column 'text', dataset row 1500: null \(None\), expected str$"):
        ds.map(encoder.map_batch, batched=True, with_indices=True, remove_columns=["text"])
    with pytest.raises(TypeError, match=r"^column 'text', row 500 of this batch \(Dataset.map\(\.\.\., with_indices=True\)"):
        ds.map(encoder.map_batch, batched=True, remove_columns=["text"])
    numbers = datasets.Dataset.from_dict({"text": [1, 2]}).with_format("arrow")
    with pytest.raises(TypeError, match="column 'text' is int64, expected strings"):
        numbers.map(encoder.map_batch, batched=True, remove_columns=["text"])


def test_map_batch_takes_the_default_format_too_and_gives_the_same_table(saved, lines):
    """Without ``with_format("arrow")`` ``Dataset.map`` passes a dict of lists (a LazyBatch):
    the same rows, and the same errors naming the row; a single example (no ``batched=True``)
    or a batch of another kind is refused in one line."""
    from hf_greedtok.hf.folder_encoder import FolderEncoder

    encoder = FolderEncoder(saved, attention_mask=True)
    ds = datasets.Dataset.from_dict({"text": lines[:1200]})
    arrow = ds.with_format("arrow").map(encoder.map_batch, batched=True, remove_columns=["text"]).with_format(None)
    plain = ds.map(encoder.map_batch, batched=True, remove_columns=["text"])
    assert plain.features == arrow.features and plain.data.table.equals(arrow.data.table)
    rows = ["a text"] * 1200
    rows[1100] = None
    with pytest.raises(TypeError, match=r"^column 'text', dataset row 1100: null \(None\), expected str$"):
        datasets.Dataset.from_dict({"text": rows}).map(encoder.map_batch, batched=True, with_indices=True)
    with pytest.raises(TypeError, match=r"^column 'text', row 3 of this batch \(Dataset.map\(.*\): int, expected str$"):
        encoder.map_batch({"text": ["a", "b", "c", 4]})
    with pytest.raises(KeyError, match=r"no column 'text' in the batch \(columns: 'body'\)"):
        encoder.map_batch({"body": ["a"]})
    with pytest.raises(TypeError, match=r"holds one text, not a batch: .*Dataset.map\(\.\.\., batched=True\)"):
        ds.map(encoder.map_batch)
    with pytest.raises(TypeError, match=r"^batch is list: map_batch takes a pyarrow Table \(Dataset.with_format"):
        encoder.map_batch(["a text"])


def test_a_tokenizer_the_native_path_cannot_run_is_encoded_by_its_own_batch_call(lines):
    """HF BPE (any PreTrainedTokenizerFast): the same table through ``tok(texts)``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from hf_greedtok.hf.folder_encoder import FolderEncoder

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(lines[:2000], trainers.BpeTrainer(vocab_size=600, show_progress=False))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe)
    encoder = FolderEncoder.from_tokenizer(tok, attention_mask=True)
    assert not encoder.native
    import pyarrow as pa
    table = encoder.map_batch(pa.table({"text": lines[:500]}))
    want = tok(lines[:500])
    assert table.column("input_ids").to_pylist() == want["input_ids"]
    assert table.column("attention_mask").to_pylist() == want["attention_mask"]


THREADS_SCRIPT = """
import sys, threading, hf_greedtok
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained(sys.argv[1])
lines = [l for l in open(sys.argv[2], encoding="utf-8").read().splitlines() if l.strip()][:400]
settings = [dict(padding=True), dict(truncation=True, max_length=8), dict(padding="max_length", max_length=40,
            truncation=True), dict(padding=True, pad_to_multiple_of=16, padding_side="left")]
want = [tok(lines, **s)["input_ids"] for s in settings]
errors = []
def work(k):
    try:
        for i in range(30):
            s = (k + i) % len(settings)
            if tok(lines, **settings[s])["input_ids"] != want[s]:
                errors.append((k, i))
    except BaseException as e:
        errors.append(repr(e))
threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print("errors", errors)
"""


def test_threads_with_different_padding_and_truncation_do_not_deadlock(saved, tmp_path):
    script = tmp_path / "threads.py"
    script.write_text(THREADS_SCRIPT)
    try:
        result = subprocess.run([sys.executable, str(script), str(saved), str(corpus("en_brown.txt"))],
                                cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("4 threads sharing one GreedTokTokenizerFast did not finish in 240 s (deadlock)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("errors []")


# ---------------------------------------------------------------------- forked workers (issue 14 item 5)

def _in_fork(fn) -> str:
    """fn()'s str result, computed in a forked child."""
    import os
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # pragma: no cover - the child
        try:
            os.write(w, str(fn()).encode())
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    os.close(w)
    with os.fdopen(r) as f:
        return f.read()


def test_a_forked_worker_unpickles_with_the_model_it_inherited(saved, lines):
    """datasets.map(num_proc=N) forks, then sends each worker the pickled function: the worker
    takes its inherited model (native encoder and word cache built, warm if the parent
    encoded) instead of rebuilding it; the ids are the same."""
    import pickle
    tok = GreedTokTokenizerFast.from_pretrained(saved).greedtok
    want = tok.encode_batch_flat(lines[:500])[0].tolist()
    blob = pickle.dumps(tok)
    assert pickle.loads(blob).model is not tok.model          # in the same process: a copy
    got = _in_fork(lambda: (lambda c: (c.model is tok.model, c.encode_batch_flat(lines[:500])[0].tolist() == want))(
        pickle.loads(blob)))
    assert got == "(True, True)"


def test_a_forked_worker_reads_what_changed_after_pickling_from_the_pickle(saved):
    import pickle
    tok = GreedTokTokenizerFast.from_pretrained(saved).greedtok
    blob = pickle.dumps(tok)
    tok.mode = "optimal" if tok.mode == "cover" else "cover"
    pickled_mode = pickle.loads(blob).mode
    assert pickled_mode != tok.mode
    assert _in_fork(lambda: (lambda c: (c.model is tok.model, c.mode))(pickle.loads(blob))) == \
        str((True, pickled_mode))
