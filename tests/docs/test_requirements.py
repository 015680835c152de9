"""The requirements the documentation states are pyproject.toml's: the Requirements section of
docs/getting-started.md lists Python's version, every dependency and build requirement as
pyproject.toml writes it, and every extra with exactly what it pulls; the README's install
paragraph gives the same Python and transformers versions."""
from __future__ import annotations

import re

import pytest
from corpora import REPO

tomllib = pytest.importorskip("tomllib", reason="tomllib: Python >= 3.11")

PAGE = REPO / "docs" / "getting-started.md"

pytestmark = pytest.mark.skipif(not PAGE.is_file(), reason="needs the checkout's docs/ (not in the sdist)")


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def requirements_section() -> str:
    page = PAGE.read_text(encoding="utf-8")
    section = re.search(r"^## Requirements\n(.*?)^## ", page, re.MULTILINE | re.DOTALL)
    assert section, "docs/getting-started.md has no '## Requirements' section"
    return section[1]


def _minimum(specifiers: str, name: str) -> str:
    found = re.search(r">=\s*([\d.]+)", specifiers)
    assert found, f"pyproject.toml gives {name} no minimum version ({specifiers!r})"
    return found[1]


def _major(version: str) -> str:
    """'5.0' -> '5', '3.10' -> '3.10': a trailing .0 is not said."""
    return re.sub(r"(\.0)+$", "", version)


def test_the_requirements_section_lists_pyproject_versions():
    project, section = pyproject()["project"], requirements_section()
    python = _minimum(project["requires-python"], "Python")
    assert f"Python >= {python}" in section
    code = set(re.findall(r"`([^`]+)`", section))
    missing = [r for r in project["dependencies"] + pyproject()["build-system"]["requires"] if r not in code]
    assert not missing, f"the Requirements section lacks {missing}, as pyproject.toml writes them"
    transformers = next(r for r in project["dependencies"] if r.startswith("transformers"))
    assert f"transformers >= {_major(_minimum(transformers, 'transformers'))}" in section
    assert "upgrades" in section and "4.x" in section       # what pip does to an installed 4.x


def test_every_extra_is_listed_with_what_it_pulls():
    extras = pyproject()["project"]["optional-dependencies"]
    rows = dict(re.findall(r"^\| `([\w-]+)` \|[^|]*\|([^\n]*)\|\s*$", requirements_section(), re.MULTILINE))
    assert set(rows) == set(extras), f"extras on the page {sorted(rows)}, in pyproject.toml {sorted(extras)}"
    wrong = {name: reqs for name, reqs in extras.items() if re.findall(r"`([^`]+)`", rows[name]) != reqs}
    assert not wrong, f"extras whose row does not list exactly pyproject.toml's requirements: {wrong}"


def test_readme_states_python_and_transformers_versions():
    project = pyproject()["project"]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    transformers = next(r for r in project["dependencies"] if r.startswith("transformers"))
    assert f"Python >= {_minimum(project['requires-python'], 'Python')}" in readme
    assert f"transformers >= {_major(_minimum(transformers, 'transformers'))}" in readme
    assert "upgrades an installed transformers 4.x" in readme
    assert "docs/getting-started.md#requirements" in readme
