"""What importing hf_greedtok costs (issue 13): ``import hf_greedtok`` and the CLI's GreedTok
commands load no transformers, datasets, matplotlib or tiktoken; every public name still
imports; AutoTokenizer finds our classes in either import order; old folders' remote code
still imports. Each check runs in a fresh interpreter, outside the checkout."""
from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from corpora import EXAMPLE_TEXT, TESTS

import hf_greedtok

HEAVY = ("transformers", "datasets", "matplotlib", "tiktoken")
ADVISORY = "PyTorch was not found"

# Every name the remote code of saved folders imports from hf_greedtok (tokenization_greedtok.py,
# copied into each folder): folders saved by earlier versions carry these lines, so each name must
# keep importing from the same module. The 0.1 paths first, then today's.
REMOTE_CODE_IMPORTS = {
    "hf_greedtok.core": ["Tokenizer"],
    "hf_greedtok.file_format": ["FILE_NAME", "GreedTokFileError", "atomic_write_text", "load_tokenizer",
                                "tokenizer_to_json", "verify_file_folder", "write_save_manifest"],
    "hf_greedtok.hf_pipeline": ["attach", "attachment", "backend_from_folder_json", "backend_lock",
                                "build_backend", "folder_json", "refresh_decoder", "standard_json",
                                "unigram_vocab"],
    "hf_greedtok.hf_folder": ["LOOKUP_FILE", "TOKENIZER_FILE", "check_same_vocab"],
    "hf_greedtok.lookup": ["MorphLookup"],
    "hf_greedtok.models": ["MODES"],
    "hf_greedtok.pre_tokenizers": ["ByteLevel", "Metaspace", "PreTokenizer", "replace_surrogates"],
    "hf_greedtok.special_tokens": ["check_special_tokens", "counting_pipeline"],
    "hf_greedtok.trainers": ["GreedTokTrainer", "singleton_alphabet"],
    "hf_greedtok.trainers.recorded": ["recorded_trainer"],
    "hf_greedtok.word_counts": ["count_words"],
    "hf_greedtok.atomic": ["atomic_write_text"],
    "hf_greedtok.errors": ["GreedTokFileError"],
    "hf_greedtok.formats.greedtok_json": ["FILE_NAME", "verify_file_folder"],
    "hf_greedtok.formats.manifest": ["write_save_manifest"],
    "hf_greedtok.hf.bos_eos": ["flags_of_template", "token_content"],
    "hf_greedtok.hf.fast_path": ["LazyEncodingsBatch", "Template", "TruncationRefused", "assemble", "char_spans", "fast_plan",
                                 "kept_lengths", "native_threads", "template"],
    "hf_greedtok.hf.folder": ["CONFIG_FILE", "LOOKUP_FILE", "TOKENIZER_FILE", "TokenizerFolder", "check_same_vocab"],
    "hf_greedtok.hf.pipeline": ["attach", "attachment", "backend_from_folder_json", "backend_lock",
                                "build_backend", "folder_json", "native_added_tokens", "refresh_decoder",
                                "standard_json"],
    "hf_greedtok.indic.lookup": ["MorphLookup"],
    "hf_greedtok.normalizers": ["replace_surrogates"],
}


def run_python(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -c code args`` in ``cwd`` (outside the checkout: the installed package), offline,
    with transformers' advisories left on so that the tests see them."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TRANSFORMERS_NO_ADVISORY_WARNINGS")}
    env.update(HF_HUB_OFFLINE="1", HF_HOME=str(cwd / "hf_home"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def loaded_heavy(stdout: str) -> list[str]:
    """The heavy modules a script reported on its last stdout line (see AUDIT)."""
    return json.loads(stdout.strip().splitlines()[-1])


# appended to a script: print which heavy top-level packages it imported
AUDIT = f"""
import json, sys
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {set(HEAVY)!r})))
"""


def test_import_hf_greedtok_loads_no_heavy_library(tmp_path):
    result = run_python("import hf_greedtok" + AUDIT, tmp_path)
    assert result.returncode == 0, result.stderr
    assert loaded_heavy(result.stdout) == []
    assert result.stderr == ""


def test_every_public_name_imports_from_the_package(tmp_path):
    names = [*hf_greedtok.__all__, "register_auto_classes", "__version__"]
    code = f"from hf_greedtok import {', '.join(names)}\nimport hf_greedtok\nprint(hf_greedtok.experiments.__name__)"
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["hf_greedtok.experiments"]
    assert set(hf_greedtok.__all__) <= set(dir(hf_greedtok))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        hf_greedtok.no_such_name  # noqa: B018


def test_remote_code_imports_keep_their_module_paths():
    import ast
    import importlib
    for module, names in REMOTE_CODE_IMPORTS.items():
        loaded = importlib.import_module(module)
        assert [n for n in names if not hasattr(loaded, n)] == [], module
    # what today's copy imports joins the list: folders saved from now on carry it
    source = (Path(hf_greedtok.__file__).parent / "hf" / "tokenization_greedtok.py").read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hf_greedtok"):
            assert {a.name for a in node.names} <= set(REMOTE_CODE_IMPORTS.get(node.module, ())), node.module


@pytest.fixture(scope="module")
def greedtok_folder(tmp_path_factory) -> Path:
    from hf_greedtok.cli import main
    out = tmp_path_factory.mktemp("imports") / "devil"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "300", "--pad-token", "<pad>", "-o", str(out), "--quiet"]) == 0
    return out


@pytest.mark.parametrize("order", [
    "import hf_greedtok\nfrom transformers import AutoTokenizer",
    "from transformers import AutoTokenizer\nimport hf_greedtok",
    "import transformers\nimport hf_greedtok\nfrom transformers import AutoTokenizer",
    "from hf_greedtok import GreedTokTokenizerFast\nfrom transformers import AutoTokenizer",
    "from hf_greedtok.tokenization_greedtok import GreedTokTokenizerFast\nfrom transformers import AutoTokenizer",
    "from hf_greedtok.hf.tokenization_greedtok import GreedTokTokenizerFast\nfrom transformers import AutoTokenizer",
    "from hf_greedtok.hf.auto import GreedTokConfig\nfrom transformers import AutoTokenizer",
    "import hf_greedtok.hf.fast_path\nfrom transformers import AutoTokenizer",
    # libraries ask whether transformers is installed without importing it; the hook must wait
    "import importlib.util, hf_greedtok\nimportlib.util.find_spec('transformers')\nfrom transformers import AutoTokenizer",
], ids=["package-first", "transformers-first", "bare-transformers-first", "lazy-name", "old-module", "module",
        "auto-module", "fast-path-module",
        "found-before-imported"])
def test_auto_tokenizer_finds_greedtok_in_any_import_order(greedtok_folder, tmp_path, order):
    code = order + """
import sys
tok = AutoTokenizer.from_pretrained(sys.argv[1])
assert type(tok).__module__ == "hf_greedtok.hf.tokenization_greedtok", type(tok)
print(type(tok).__name__, tok("The cynic")["input_ids"] == tok.greedtok.encode("The cynic"))
"""
    result = run_python(code, tmp_path, str(greedtok_folder))
    assert result.returncode == 0, result.stderr
    assert "could not register" not in result.stderr
    assert result.stdout.split() == ["GreedTokTokenizerFast", "True"]
    assert json.loads((greedtok_folder / "tokenizer_config.json").read_text())["auto_map"] == {
        "AutoTokenizer": [None, "tokenization_greedtok.GreedTokTokenizerFast"]}


def run_cli(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """The command in a fresh interpreter, reporting the heavy modules it imported."""
    code = "import sys\nfrom hf_greedtok.cli import main\nrc = main(sys.argv[1:])\n" + AUDIT + "sys.exit(rc)"
    return run_python(code, tmp_path, *argv)


def test_greedtok_train_encode_evaluate_never_import_transformers(tmp_path):
    out = tmp_path / "devil"
    commands = [
        ["train", str(EXAMPLE_TEXT), "-k", "300", "--eos-token", "</s>", "--add-eos-token", "-o", str(out)],
        ["encode", str(out), "The cynic is a blackguard"],
        ["evaluate", str(out), str(EXAMPLE_TEXT), "--json", "--quiet"],
    ]
    for argv in commands:
        result = run_cli(tmp_path, *argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert loaded_heavy(result.stdout) == [], argv
        assert ADVISORY not in result.stderr
    assert (out / "tokenization_greedtok.py").is_file()


def test_encode_never_imports_the_experiments(greedtok_folder, tmp_path):
    """``encode`` is a product command: a folder or a vocabulary file (hf_greedtok.vocabularies)
    encodes without hf_greedtok.experiments."""
    from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.train([str(EXAMPLE_TEXT)], trainers.BpeTrainer(vocab_size=400, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bpe.save(str(tmp_path / "tokenizer.json"))
    code = ("import sys\nfrom hf_greedtok.cli import main\n"
            "rcs = [main(['encode', p, 'The cynic']) for p in sys.argv[1:]]\n"
            "print(rcs, sorted(m for m in sys.modules if m.startswith('hf_greedtok.experiments')))")
    result = run_python(code, tmp_path, str(greedtok_folder), str(tmp_path / "tokenizer.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[0, 0] []"


# what a command's parser must not need: the compiled core (trainer, encoders, pre-tokenizer) and
# the libraries under it, besides HEAVY; its run imports them
NOT_FOR_HELP = ("numpy", "tokenizers", "ray", "pyarrow", "hf_greedtok._encoder", "hf_greedtok._trainer",
                "hf_greedtok._pretokenize", "hf_greedtok._hashtrie", "hf_greedtok._rows", *HEAVY)


def test_help_of_every_command_loads_neither_the_trainer_nor_the_encoders(tmp_path):
    """``hf-greedtok --help`` and each ``hf-greedtok COMMAND --help``: the command modules'
    argument definitions import nothing heavy (issue 30: --help <= 0.3 s)."""
    code = f"""
import contextlib, io, json, sys
from hf_greedtok.cli import COMMANDS, main
for argv in [["--help"], *([name, "--help"] for name in COMMANDS)]:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0, argv
print(json.dumps(sorted(m for m in sys.modules if m in {NOT_FOR_HELP!r} or m.split(".")[0] in {NOT_FOR_HELP!r})))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_bpe_train_prints_no_pytorch_advisory(tmp_path):
    result = run_cli(tmp_path, "train", str(EXAMPLE_TEXT), "--algorithm", "bpe", "-k", "100", "-o",
                     str(tmp_path / "bpe"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert loaded_heavy(result.stdout) == ["transformers"]     # BPE folders are written by transformers
    assert ADVISORY not in result.stderr


@pytest.fixture()
def bare_checkout(tmp_path) -> Path:
    """A directory holding hf_greedtok/ as a source checkout has it: the .py files, no compiled core."""
    package = tmp_path / "hf_greedtok"
    package.mkdir()
    for source in Path(hf_greedtok.__file__).parent.glob("*.py"):
        (package / source.name).write_bytes(source.read_bytes())
    return tmp_path


def run_without_pth_files(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -S argv`` with site-packages on sys.path but none of its .pth files run: an
    editable install's import finder (a .pth file) would otherwise resolve hf_greedtok's compiled
    modules from the development checkout whatever directory shadows the package."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(site.getsitepackages())}
    return subprocess.run([sys.executable, "-S", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_an_unbuilt_checkout_on_sys_path_fails_with_a_clear_message(bare_checkout):
    result = run_without_pth_files(["-c", "import hf_greedtok"], bare_checkout)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"ImportError: hf_greedtok at {bare_checkout / 'hf_greedtok'} has no compiled core (_encoder, _trainer "
        "missing): this is an unbuilt source checkout. Build it in place with `pip install -e .`, or run from "
        "outside the checkout to use the installed package.")


def test_pytest_refuses_to_test_an_unbuilt_checkout(bare_checkout):
    tests = bare_checkout / "tests"
    tests.mkdir()
    for name in ("conftest.py", "corpora.py"):
        (tests / name).write_bytes((TESTS / name).read_bytes())
    (tests / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    # python -m pytest puts the working directory, hence the bare checkout, first on sys.path
    result = run_without_pth_files(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], bare_checkout)
    assert result.returncode == 4
    assert f"Exit: hf_greedtok resolves to {bare_checkout / 'hf_greedtok'}, which lacks its compiled core" \
        in result.stdout + result.stderr
    assert "passed" not in result.stdout
