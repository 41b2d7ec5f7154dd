"""Which changed files restart the workers under ``hasten run --reload``: uvicorn's rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from watchfiles import Change

from hasten._cli.watching import SourceFiles, source_filter


@pytest.mark.parametrize(
    ("include", "exclude", "path", "watched"),
    [
        ((), (), "app/main.py", True),
        ((), (), "notes.db", False),  # a route that writes its database restarts nothing
        ((), (), "notes.db-journal", False),
        ((), (), "templates/index.html", False),
        ((), (), ".hidden.py", False),
        ((), (), "app/.#main.py", False),  # an editor's lock file
        (("*.html",), (), "templates/index.html", True),
        (("*.html",), (), "app/main.py", True),  # the default stays
        ((), ("*_test.py",), "app/main_test.py", False),
        ((), ("*.py",), "app/main.py", False),  # a default named on the other side is dropped
        ((".env",), (), ".env", True),
    ],
)
def test_source_files_follow_uvicorns_rules(
    include: tuple[str, ...], exclude: tuple[str, ...], path: str, watched: bool
) -> None:
    assert (Path("/project", path) in SourceFiles.of(include, exclude)) is watched


def test_an_excluded_directory_excludes_what_is_in_it(tmp_path: Path) -> None:
    (tmp_path / "migrations").mkdir()
    files = SourceFiles.of((), (str(tmp_path / "migrations"),))

    assert tmp_path / "migrations" / "0001.py" not in files
    assert tmp_path / "main.py" in files


def test_the_granian_filter_applies_them_after_watchfiles_defaults() -> None:
    watch = source_filter(SourceFiles.of((), ()))()  # as Granian makes it: no arguments

    assert watch(Change.modified, "/project/app/main.py")
    assert not watch(Change.modified, "/project/notes.db")
    assert not watch(Change.added, "/project/.venv/lib/site.py")  # watchfiles' own ignores
    assert not watch(Change.modified, "/project/app/__pycache__/main.py")
