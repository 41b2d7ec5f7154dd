"""``hasten[standard]``: one install line for every battery the README's tour uses."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
# What the tour uses, by the extra that brings it: Swagger UI's files for /docs, Jinja2
# templates, uvicorn (--server uvicorn), the TestClient's httpx, and --reload.
TOUR = {"docs", "templates", "uvicorn", "testing", "reload"}


def included(extra: str) -> set[str]:
    """The extras ``extra`` pulls in through ``hasten[...]`` requirements, itself included."""
    names = {extra}
    for requirement in EXTRAS[extra]:
        found = re.fullmatch(r"hasten\[([a-z,]+)\]", requirement)
        if found:
            for name in found.group(1).split(","):
                names |= included(name)
    return names


def test_standard_brings_every_battery_of_the_tour() -> None:
    assert included("standard") == {"standard", *TOUR}


def test_every_extra_standard_names_exists() -> None:
    assert included("standard") <= set(EXTRAS)


def test_the_readme_installs_hasten_standard_from_a_checkout() -> None:
    install = (ROOT / "README.md").read_text().split("## Install\n", 1)[1].split("\n## ", 1)[0]
    assert "\npip install -e './hasten[standard]'  " in install
