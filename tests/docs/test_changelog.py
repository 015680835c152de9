"""CHANGELOG.md (Keep a Changelog): an Unreleased section first, each section's changes under
Added/Changed/Deprecated/Removed/Fixed/Security, no placeholders; linked from the README and
shown on the site."""
from __future__ import annotations

import re

import pytest
from corpora import REPO

pytestmark = pytest.mark.skipif(not (REPO / "docs").is_dir(), reason="needs the checkout's docs/ (not in the sdist)")

KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def test_changelog_keeps_its_format():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert versions and versions[0] == "Unreleased", f"the first section must be [Unreleased], not {versions[:1]}"
    unreleased = re.search(r"^## \[Unreleased\]\n(.*?)(?=^## \[|\Z)", text, re.MULTILINE | re.DOTALL)[1]
    kinds = re.findall(r"^### (.+?)\s*$", unreleased, re.MULTILINE)
    assert kinds and set(kinds) <= set(KINDS), f"Unreleased's subsections {kinds} (Keep a Changelog: {KINDS})"
    assert all(re.search(rf"^### {k}\n+- ", unreleased, re.MULTILINE) for k in kinds), "a subsection without entries"
    placeholders = re.findall(r"\b(?:TODO|TBD|FIXME|XXX|placeholder)\b", text, re.IGNORECASE)
    assert not placeholders, f"CHANGELOG.md holds placeholders: {placeholders}"


def test_changelog_is_linked_and_on_the_site():
    assert "](CHANGELOG.md)" in (REPO / "README.md").read_text(encoding="utf-8")
    pages = "".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md"))
    assert '--8<-- "CHANGELOG.md"' in pages
