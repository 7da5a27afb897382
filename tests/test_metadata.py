"""The metadata a package index shows: links, classifiers, who maintains it.

Read from the installed distribution (`make` installs the project again when
pyproject.toml changes), so it is what the build wrote, not the TOML.
"""

from __future__ import annotations

import importlib.metadata
import pathlib
import re

ROOT = pathlib.Path(__file__).parent.parent
META = importlib.metadata.metadata("toolkit-llm")


def _urls() -> dict[str, str]:
    pairs = (entry.split(", ", 1) for entry in META.get_all("Project-URL") or [])
    return dict(pairs)


def test_every_link_a_package_page_shows() -> None:
    urls = _urls()
    assert sorted(urls) == [
        "Changelog",
        "Documentation",
        "Homepage",
        "Issues",
        "Source",
    ]
    assert all(url.startswith("https://") for url in urls.values())
    source = urls["Source"]
    assert urls["Issues"] == f"{source}/issues"
    assert urls["Changelog"] == f"{source}/blob/main/CHANGELOG.md"
    # One repository and one site: the docs site says the same.
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^repo_url: (\S+)$", config, re.MULTILINE)[1] == source  # type: ignore[index]
    site = re.search(r"^site_url: (\S+)$", config, re.MULTILINE)[1]  # type: ignore[index]
    assert urls["Documentation"] == site


def test_classifiers_say_what_it_is_and_where_it_runs() -> None:
    classifiers = META.get_all("Classifier") or []
    prefixes = {c.split(" :: ", 1)[0] for c in classifiers}
    assert {"Development Status", "Intended Audience", "Topic", "Typing"} <= prefixes
    assert META["Requires-Python"] == ">=3.10"
    versions = {c.rsplit(" :: ", 1)[1] for c in classifiers if " :: 3." in c}
    assert versions == {"3.10", "3.11", "3.12", "3.13"}


def test_license_and_people() -> None:
    # The licence is the SPDX expression; a `License ::` classifier beside it
    # is deprecated (PEP 639) and refused by package indices.
    assert META["License-Expression"] == "MIT"
    assert [
        c for c in META.get_all("Classifier") or [] if c.startswith("License")
    ] == []
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert META["Author"]
    assert META["Maintainer"]


def test_changelog_has_one_short_line_per_change() -> None:
    """Keep a Changelog bullets a reader scans: one line each, under 300 characters."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert bullets
    assert [line[:60] for line in bullets if len(line) >= 300] == []
