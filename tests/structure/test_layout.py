"""The house (issue 13): rooms by job, imports one way, no cycle, and folders saved by 0.1 (whose
remote code imports the old module paths) still load.

The import graph is read with ``ast`` from the package's sources: every ``import`` and ``from``
statement, at the top, inside functions and under ``TYPE_CHECKING`` alike, so a cycle cannot
hide behind a function-local import.
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
import textwrap
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, REPO

import hf_greedtok

PACKAGE = Path(hf_greedtok.__file__).parent
# The 0.1 module paths that saved folders' remote code imports, gathered in hf_greedtok.compat.
OLD_PATHS = {"hf_greedtok.file_format", "hf_greedtok.hf_folder", "hf_greedtok.hf_pipeline", "hf_greedtok.lookup",
             "hf_greedtok.tokenization_greedtok", "hf_greedtok.distributed.sources", "hf_greedtok.distributed.encoding"}
# what the two Ray engine modules of 0.2 exported
OLD_NAMES = {"hf_greedtok.distributed.sources": ["KINDS", "PIECE_BYTES", "check_input_file", "input_kind",
                                                 "parquet_pieces", "read_bytes", "read_documents", "resolve_inputs"],
             "hf_greedtok.distributed.encoding": ["ID_TYPE", "MASK_TYPE", "FolderEncoder", "load_folder_tokenizer",
                                                  "native_parts", "wrap_rows"]}
# The pipeline that runs without HF libraries: text -> normalizer -> pre-tokenizer -> words ->
# counter -> trainer -> ranked vocabulary -> encoder -> ids. (CBPE, trainers.cbpe, returns a
# tokenizers backend: it stands on the HF integration.)
PIPELINE = ("hf_greedtok.normalizers", "hf_greedtok.pre_tokenizers", "hf_greedtok.special_tokens",
            "hf_greedtok.word_counts", "hf_greedtok.trainers.greedtok", "hf_greedtok.trainers.bpe_merges",
            "hf_greedtok.trainers.hierarchical", "hf_greedtok.models", "hf_greedtok.decoders",
            "hf_greedtok.core", "hf_greedtok.formats", "hf_greedtok.indic.units", "hf_greedtok.indic.lookup")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            # `from . import commands` names a submodule; `from .core import Tokenizer` a module
            targets = [f"{base_name}.{a.name}" if f"{base_name}.{a.name}" in known else base_name
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known)
    found.discard(name)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(name, path, set(found)) for name, path in found.items()}


def importers(graph: dict[str, set[str]], prefix: str) -> set[str]:
    return {m for m, deps in graph.items() if any(d == prefix or d.startswith(prefix + ".") for d in deps)}


def in_room(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


def test_the_graph_sees_function_local_imports(graph):
    # a command imports the encoders only once it runs (so --help stays fast)
    assert "hf_greedtok.hf.folder" in graph["hf_greedtok.cli.encode"]
    assert "hf_greedtok.formats.foreign" in graph["hf_greedtok.core"]      # Tokenizer.from_tiktoken
    assert len(graph) > 40


def test_imports_have_no_cycle(graph):
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")
    # ... and it runs down the data flow: each step depends on the one before it, never after
    def below(module: str) -> set[str]:
        seen, todo = set(), [module]
        while todo:
            for dep in graph[todo.pop()] - seen:
                seen.add(dep)
                todo.append(dep)
        return seen
    flow = [("pre_tokenizers", "normalizers"), ("word_counts", "pre_tokenizers"), ("trainers", "word_counts"),
            ("trainers", "models"), ("models", "pre_tokenizers"), ("core", "models"), ("hf.pipeline", "core"),
            ("hf.tokenization_greedtok", "hf.pipeline"), ("cli.encode", "hf.folder")]
    for upper, lower in flow:
        assert f"hf_greedtok.{lower}" in below(f"hf_greedtok.{upper}"), (upper, lower)
    assert len(order) == len(graph)


def test_rooms_import_one_way(graph):
    # the experiments serve the CLI; nothing in the product imports them
    assert {m for m in importers(graph, "hf_greedtok.experiments") if not in_room(m, "hf_greedtok.experiments")
            and not in_room(m, "hf_greedtok.cli")} == set()
    assert {m for m in importers(graph, "hf_greedtok.cli") if not in_room(m, "hf_greedtok.cli")} == set()
    # the native pipeline needs neither the HF integration nor tokenizers' Python objects
    for module in PIPELINE:
        for dep in graph.get(module, set()) | set().union(*(graph[m] for m in graph if in_room(m, module))):
            assert not in_room(dep, "hf_greedtok.hf"), (module, dep)
    # nobody inside the package goes through the 0.1 paths
    assert {m for m in graph if graph[m] & OLD_PATHS} == set()


def test_only_the_model_touches_its_ids():
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        touching = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "_ids"]
        assert name == "hf_greedtok.models" or touching == [], (name, touching)


def test_the_old_paths_are_the_modules_that_hold_their_names_now():
    """No module at the package root only re-exports: hf_greedtok.compat maps each 0.1 path to the
    module itself, and keeps only file_format's four delegations to Tokenizer."""
    from hf_greedtok.compat import OLD_PATHS as MAPPED
    assert set(MAPPED) == OLD_PATHS
    for old, new in MAPPED.items():
        assert old not in modules() and new in modules()
        assert importlib.import_module(old) is importlib.import_module(new)
    for old, names in OLD_NAMES.items():
        module = importlib.import_module(old)
        assert [n for n in names if not hasattr(module, n)] == [], old
    tree = ast.parse(modules()["hf_greedtok.compat.file_format"].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert len(node.body) == 2 and isinstance(node.body[1], ast.Return), node.name
        else:
            assert isinstance(node, (ast.Expr, ast.ImportFrom, ast.Assign)), ast.dump(node)[:80]


def test_no_module_only_re_exports():
    """Every module but a package's __init__ defines something: a module of imports alone is an
    old path, which belongs in hf_greedtok.compat."""
    for name, path in modules().items():
        if path.name == "__init__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        own = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom))
               and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        assert own, f"{name} only imports"


def test_errors_share_one_base():
    from hf_greedtok.errors import CorpusError, GreedTokError, GreedTokFileError, InvalidSpec, OutputError
    for cls in (CorpusError, GreedTokFileError, InvalidSpec, OutputError):
        assert issubclass(cls, GreedTokError) and issubclass(cls, ValueError)
    assert hf_greedtok.CorpusError is CorpusError and hf_greedtok.GreedTokFileError is GreedTokFileError
    import pickle
    for err in (CorpusError("a.txt", 3, "bad"), GreedTokFileError(Path("x/greedtok.json"), "gone"),
                OutputError("out", "is a file")):
        assert str(pickle.loads(pickle.dumps(err))) == str(err)


def test_components_round_trip_through_their_dicts(tmp_path):
    from hf_greedtok import ByteLevel, GreedTokModel, Metaspace, Tokenizer
    from hf_greedtok.pre_tokenizers import pre_tokenizer_from_dict
    for pre in (ByteLevel(), ByteLevel(pattern="whitespace"), Metaspace(), Metaspace(units="marks")):
        assert pre_tokenizer_from_dict(pre.to_dict()) == pre
    model = GreedTokModel([b"th", b"the"], unit_kind="bytes", special_tokens=["<s>"], gains=[5, 3])
    again = GreedTokModel.from_dict(model.to_dict())
    assert again.to_dict() == model.to_dict() and again.get_vocab() == model.get_vocab()
    tok = Tokenizer(model, ByteLevel())
    assert Tokenizer.from_dict(tok.to_dict()).to_json() == tok.to_json()
    assert Tokenizer.load(tok.save(tmp_path)).encode("the them") == tok.encode("the them")


# ------------------------------------------------------------------ a folder saved by 0.1

SAVED = REPO / "tests" / "data" / "saved_before_layout"


def run_clean(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_HOME=str(cwd / "hf_home"), TOKENIZERS_PARALLELISM="false")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_the_saved_folder_is_the_old_layouts():
    code = (SAVED / "tokenization_greedtok.py").read_text(encoding="utf-8")
    assert "from hf_greedtok.file_format import" in code and "from hf_greedtok.hf_pipeline import" in code


@pytest.mark.parametrize("how", ["remote-code", "registered"])
def test_a_folder_saved_by_0_1_loads_and_encodes_as_it_did(tmp_path, how):
    """The folder (tests/data/saved_before_layout) was saved by the 0.1 layout, commit 3ccb7ab;
    its ids were recorded then."""
    expected = json.loads((REPO / "tests" / "data" / "saved_before_layout_expected.json").read_text())
    load = "AutoTokenizer.from_pretrained(folder, trust_remote_code=True)" if how == "remote-code" else \
        "(__import__('hf_greedtok'), AutoTokenizer.from_pretrained(folder))[1]"
    result = run_clean(f"""
        import json, sys
        from transformers import AutoTokenizer
        folder = {str(SAVED)!r}
        tok = {load}
        print(json.dumps({{"module": type(tok).__module__,
                          "ids": tok({expected["texts"]!r})["input_ids"]}}))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["ids"] == expected["input_ids"]
    if how == "remote-code":    # the folder's own copy of 0.1's module, importing the 0.1 paths
        assert out["module"].startswith("transformers_modules.") and out["module"].endswith("tokenization_greedtok")
    else:
        assert out["module"] == "hf_greedtok.hf.tokenization_greedtok"


def test_the_distributed_engine_sits_on_top(graph):
    # hf_greedtok.distributed (Ray) uses the counters; only the CLI uses it, nothing in the core
    assert {m for m in importers(graph, "hf_greedtok.distributed")
            if not in_room(m, "hf_greedtok.distributed") and not in_room(m, "hf_greedtok.cli")} == set()
    assert "hf_greedtok.word_counts" in graph["hf_greedtok.distributed.counting"]
    # Ray is an optional extra: imported inside functions only, and only in that room
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        anywhere = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        def ray_in(nodes):
            return [n.lineno for n in nodes if (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "ray"
                    for a in n.names)) or (isinstance(n, ast.ImportFrom) and not n.level
                    and (n.module or "").split(".")[0] == "ray")]
        assert ray_in(top) == [], (name, ray_in(top))
        assert ray_in(anywhere) == [] or in_room(name, "hf_greedtok.distributed"), (name, ray_in(anywhere))


def test_the_local_engine_never_enters_the_distributed_room(tmp_path):
    """``count``, ``train`` and ``tokenize`` with ``--engine local`` (the default) import nothing
    of hf_greedtok.distributed: inputs are read by formats/, folders encoded by hf/ (issue 30)."""
    pytest.importorskip("pyarrow", reason="tokenize writes parquet (the ray extra)")
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"text": "the cat sat on the mat"}\n{"text": "a dog"}\n', encoding="utf-8")
    counts, tok, ids = tmp_path / "counts.tsv", tmp_path / "tok", tmp_path / "ids"
    result = run_clean(f"""
        import sys
        from hf_greedtok.cli import main
        for argv in (["count", {str(EXAMPLE_TEXT)!r}, {str(docs)!r}, "-o", {str(counts)!r}, "--quiet"],
                     ["train", {str(counts)!r}, "--counts", "--no-prefix-space", "--vocab-size", "300",
                      "-o", {str(tok)!r}, "--quiet"],
                     ["tokenize", {str(tok)!r}, {str(docs)!r}, "-o", {str(ids)!r}, "--engine", "local", "--quiet"]):
            assert main(argv) == 0, argv
        print(sorted(m for m in sys.modules if m.startswith("hf_greedtok.distributed")))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert (ids / "part-00000.parquet").is_file()


def test_moved_names_keep_their_old_import_paths():
    from hf_greedtok import distributed, word_counts
    from hf_greedtok.distributed import encoding, sources
    from hf_greedtok.formats import count_table, sources as formats_sources
    from hf_greedtok.hf import folder_encoder
    assert distributed.resolve_inputs is sources.resolve_inputs is formats_sources.resolve_inputs
    assert sources.read_documents is formats_sources.read_documents
    assert encoding.FolderEncoder is folder_encoder.FolderEncoder
    for name in ("iter_count_tables", "is_parquet_table", "table_place"):
        assert getattr(word_counts, name) is getattr(count_table, name)
    for name in ("check_input_file", "iter_utf8_lines", "iter_text_lines", "text_lines"):
        assert getattr(word_counts, name) is getattr(formats_sources, name)


#: tests/ folders that are not a room of the package: the behaviour suites, the house's own rules,
#: the rooms that are single modules (core.py with special_tokens.py, models.py, output_folders.py)
#: and the documentation site's checks (docs/)
TEST_FOLDERS_BESIDE_ROOMS = {"behaviour", "structure", "core", "models", "outputs", "docs"}


def test_every_test_module_sits_in_the_folder_of_its_room():
    """Tests a reader can find (issue 30 item 6): tests/<room>/test_*.py, the room a subpackage
    of hf_greedtok or one of TEST_FOLDERS_BESIDE_ROOMS; none loose at the top."""
    from corpora import TESTS
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} | TEST_FOLDERS_BESIDE_ROOMS
    misplaced = [str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                 if "data" not in p.relative_to(TESTS).parts and
                 (len(p.relative_to(TESTS).parts) != 2 or p.parent.name not in rooms)]
    assert misplaced == []
    assert {p.name for p in TESTS.iterdir() if p.is_dir() and p.name not in ("data", "__pycache__")} <= rooms
