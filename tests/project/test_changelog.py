"""CHANGELOG.md keeps Keep a Changelog's form: Unreleased on top, then each version, newest
first, the newest being the version pyproject.toml and hasten.__version__ say; within each,
only Keep a Changelog's sections, in its order, none empty."""

from __future__ import annotations

import datetime
import re
import tomllib
from pathlib import Path

import hasten

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
SECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
HEADING = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})$")


def versions() -> list[tuple[str, list[str]]]:
    """Each ``## `` heading with the lines under it, in order."""
    parts = re.split(r"^(## .*)$", CHANGELOG, flags=re.M)
    return [
        (heading, body.splitlines()) for heading, body in zip(parts[1::2], parts[2::2], strict=True)
    ]


def test_unreleased_comes_first_then_versions_newest_first() -> None:
    headings = [heading for heading, _ in versions()]
    assert headings[0] == "## [Unreleased]"
    found = [HEADING.match(heading) for heading in headings[1:]]
    assert all(found), [h for h, m in zip(headings[1:], found, strict=True) if m is None]
    numbers = [tuple(int(n) for n in m["version"].split(".")) for m in found if m]
    dates = [datetime.date.fromisoformat(m["date"]) for m in found if m]
    assert numbers == sorted(set(numbers), reverse=True)
    assert dates == sorted(dates, reverse=True)


def test_the_newest_version_is_the_packages() -> None:
    newest = HEADING.match(versions()[1][0])
    assert newest is not None
    assert newest["version"] == VERSION == hasten.__version__


def test_each_version_has_only_keep_a_changelogs_sections_in_order() -> None:
    for heading, lines in versions():
        sections = [line.removeprefix("### ") for line in lines if line.startswith("### ")]
        if heading == "## [Unreleased]" and not any(line.strip() for line in lines):
            continue  # just after a release, nothing yet
        assert sections, heading
        assert sections == sorted(sections, key=SECTIONS.index), heading
        assert len(set(sections)) == len(sections), heading
        text = "\n".join(lines)
        for section in sections:
            body = text.split(f"### {section}\n", 1)[1].split("\n### ", 1)[0]
            assert body.strip().startswith("- "), (heading, section)
