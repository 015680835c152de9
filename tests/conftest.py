"""Shared fixtures: cuts of the real corpora from tests/data/corpora (tests/data/README.md)."""
from __future__ import annotations

import importlib.util
import os
from collections import Counter
from pathlib import Path

import pytest
from corpora import corpus, head_counts
from hypothesis import HealthCheck, settings


def _require_compiled_package() -> None:
    """Stop the run unless ``hf_greedtok`` resolves to a package with its compiled modules: the
    tests must exercise the installed build, never a bare checkout of hf_greedtok/."""
    spec = importlib.util.find_spec("hf_greedtok")
    where = "nowhere (not installed)" if spec is None else str(Path(spec.origin or "?").parent)
    try:
        import hf_greedtok._encoder  # noqa: F401
        import hf_greedtok._trainer  # noqa: F401
    except ImportError as e:
        pytest.exit(f"hf_greedtok resolves to {where}, which lacks its compiled core _encoder/_trainer ({e}). "
                    "Run `pip install \".[test]\"` (or `pip install -e \".[test]\"` for development, which "
                    "builds the modules beside the sources), then `pytest` (not `python -m pytest` from the "
                    "repository root with a non-editable install).", returncode=4)


def pytest_configure(config: pytest.Config) -> None:
    # before any test module imports hf_greedtok; pytest.exit here prints just the message
    _require_compiled_package()


# The modules that start Ray clusters (the `cluster` fixture, `--engine ray` runs). pytest runs
# on every core (pytest-xdist, `-n auto --dist loadgroup` in pyproject.toml); these share one
# group, so they run one after another in one worker: two local clusters at once would contend
# for the same cores and /tmp/ray, and the signal tests look for a run's processes by name.
_RAY_MODULES = ("distributed/", "behaviour/test_bad_documents.py", "behaviour/test_cli_fuzz.py",
                "formats/test_uris.py")
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    for item in items:
        if item.path.resolve().relative_to(_TESTS).as_posix().startswith(_RAY_MODULES):
            item.add_marker(pytest.mark.xdist_group("ray"))


# Hypothesis profiles of the fuzz suite (tests/behaviour/test_fuzz.py picks one with HF_GREEDTOK_FUZZ):
# "fuzz-ci" is reproducible (same strings every run, no example database) and fits CI's budget;
# "fuzz-nightly" explores new strings every night, 10,000 per path, and prints a reproduction blob.
_FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("fuzz-ci", max_examples=200, derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=_FUZZ_HEALTH)
settings.register_profile("fuzz-nightly", max_examples=10_000, derandomize=False, database=None, deadline=None,
                          print_blob=True, suppress_health_check=_FUZZ_HEALTH)

@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster for one test module (``ray.init(address="local", num_cpus=2)``, about 5 s to start);
    skips without the ``ray`` extra."""
    ray = pytest.importorskip("ray", reason="distributed tests need the ray extra: pip install 'hf-greedtok[ray]'")
    # Ray puts the driver's working directory first on its workers' sys.path: started from the
    # checkout (as CI runs pytest), workers would import its hf_greedtok/, which has no compiled
    # modules after a plain `pip install .`, instead of the installed package
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray_driver"))
    try:
        # address="local": a cluster of its own, never one RAY_ADDRESS or another run's file names
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        os.chdir(here)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def english_counts() -> Counter:
    """20,000 real English words (Wikipedia 2012 counts) with a leading space, as GPT-2 sees them."""
    return Counter({" " + w: c for w, c in head_counts("en_wiki2012_wordcounts.tsv", 20_000).items()})


@pytest.fixture(scope="session")
def hindi_counts() -> Counter:
    """10,000 real Hindi words (news counts), Devanagari, with a leading space."""
    return Counter({" " + w: c for w, c in head_counts("hi_news_wordcounts.tsv", 10_000).items()})


@pytest.fixture(scope="session")
def hindi_text() -> str:
    return corpus("hi_devdas.txt").read_text(encoding="utf-8")[:60_000]


@pytest.fixture(scope="session")
def english_text() -> str:
    return corpus("en_brown.txt").read_text(encoding="utf-8")[:60_000]
