"""The benchmark apps' tests need the peer frameworks, installed only in benchmarks/.venv-peers.

Run them with ``benchmarks/.venv-peers/bin/pytest benchmarks/tests -q -p no:cacheprovider``.
Where the peers are missing (the main venv) every test here is reported as skipped. The main
test run never gets here: its ``testpaths`` is ``tests``.

(``pytest.importorskip`` at the top of a conftest does not skip: pytest refuses a Skipped
raised while it loads a conftest and exits with an error, so the check is a collection hook.)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PEERS_INSTALLED = importlib.util.find_spec("starlette") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if PEERS_INSTALLED:
        return
    skip = pytest.mark.skip(reason="the peer frameworks are not installed (benchmarks/.venv-peers)")
    for item in items:
        if item.path.is_relative_to(HERE):  # this hook sees the whole session's items
            item.add_marker(skip)
