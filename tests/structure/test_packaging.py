"""Packaging: the wheel built from the checkout installs without Cython and trains; the sdist
holds everything to build offline (.ci/check_dist.py, run here in fresh venvs; minutes, so only
with `pytest -m slow tests/structure/test_packaging.py`; CI runs the script itself). The version
the package reports is the one pyproject.toml declares."""
from __future__ import annotations

import subprocess
import sys

import pytest
from corpora import REPO

CHECK = REPO / ".ci" / "check_dist.py"


@pytest.mark.slow
@pytest.mark.skipif(not CHECK.is_file(), reason="needs the checkout's .ci/check_dist.py (not in the sdist)")
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the sdist check reads pyproject.toml with tomllib")
def test_wheel_and_sdist(request):
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("builds and installs the package twice: select it with `pytest -m slow tests/structure/test_packaging.py`")
    proc = subprocess.run([sys.executable, str(CHECK)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": ok (") == 2, proc.stdout


def test_the_package_version_is_the_one_pyproject_declares():
    """The version lives in pyproject.toml (what pip installs and ``--version`` prints) and in
    ``hf_greedtok.__version__`` (a checkout that is not installed): a release bumps both."""
    try:
        import tomllib
    except ModuleNotFoundError:                       # Python 3.10: the backport, if installed
        tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on Python 3.10 needs tomli")
    import hf_greedtok
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert hf_greedtok.__version__ == declared
