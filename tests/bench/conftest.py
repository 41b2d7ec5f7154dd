"""Fixtures for the bench tests: the repository as working directory, one shared server of
``tests.bench.app:app``, and a mark in the environment that finds every server process started
by a test, so that a test can check that none survives."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from hasten.bench.server import Server, launched
from hasten.bench.target import AppTarget

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.bench.app:app"
MARK = "HASTEN_BENCH_TEST_MARK"

FindMarked = Callable[[], list[psutil.Process]]


def app_target(label: str = "app", interface: str = "rsgi") -> AppTarget:
    return AppTarget(label, APP, "granian", "asgi" if interface == "asgi" else "rsgi", 1)


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers import ``tests.bench.app`` from the working directory: the repository root."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """``tests.bench.app:app`` on Granian RSGI, shared by a module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with launched(app_target(), ready_timeout=30) as server:
            yield server


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> FindMarked:
    """Mark the environment of the processes this test starts; return a function listing the
    marked processes that are alive (this process excepted)."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)

    def find() -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter():
            if process.pid == os.getpid():
                continue
            try:
                if process.environ().get(MARK) == mark and process.status() != "zombie":
                    found.append(process)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return found

    return find
