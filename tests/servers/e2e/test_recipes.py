"""The recipes (examples/recipes/) under ``hasten run``, where what a module makes at import (an
engine, a cluster's client) must work in the worker that serves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers.e2e.conftest import ROOT, local_client, run_server
from tests.servers.running import STOPPED_BY_SIGTERM, client, hasten_run

pytestmark = pytest.mark.server

NOTES = ROOT / "examples/recipes/notes"


def alembic(*arguments: str, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(NOTES / "alembic.ini"), *arguments],
        cwd=ROOT,
        env={**os.environ, "NOTES_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_notes_recipe_migrates_then_serves_with_a_session_per_request(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if database == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'notes.db'}"
    else:  # the session's PostgreSQL (skipped where it is not installed), through asyncpg
        postgres: str = request.getfixturevalue("database_url")
        url = postgres.replace("postgresql://", "postgresql+asyncpg://", 1)
    upgraded = alembic("upgrade", "head", database_url=url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert "Running upgrade  -> 0001, create notes" in upgraded.stderr
    # The models and the migrations agree: autogenerate finds nothing to add.
    checked = alembic("check", database_url=url)
    assert checked.returncode == 0, checked.stderr
    assert "No new upgrade operations detected." in checked.stdout

    env = {"NOTES_DATABASE_URL": url}
    target = "examples.recipes.notes.app:app"
    with (
        run_server("hasten-run", tmp_path / "server.log", env, target, "/notes") as server,
        local_client(server.base_url) as client,
    ):
        created = [client.post("/notes", json={"text": text}) for text in ("one", "two")]
        listed = client.get("/notes")
        one = client.get("/notes/1")
        missing = client.get("/notes/9")
        empty = client.post("/notes", json={"text": ""})
    assert [(r.status_code, r.json()) for r in created] == [
        (201, {"id": 1, "text": "one"}),
        (201, {"id": 2, "text": "two"}),
    ]
    assert (listed.status_code, listed.json()) == (
        200,
        [{"id": 1, "text": "one"}, {"id": 2, "text": "two"}],
    )
    assert (one.status_code, one.json()) == (200, {"id": 1, "text": "one"})
    assert (missing.status_code, missing.json()) == (404, {"detail": "Note not found"})
    assert empty.status_code == 422
    assert empty.json()["detail"][0]["loc"] == ["body", "text"]
    downgraded = alembic("downgrade", "base", database_url=url)  # and the database is as it was
    assert downgraded.returncode == 0, downgraded.stderr
    assert "Running downgrade 0001 -> , create notes" in downgraded.stderr


def test_the_dask_recipe_runs_its_handler_on_the_cluster_under_two_workers(
    scheduler: str, tmp_path: Path
) -> None:
    options = ["examples.recipes.cluster.app:app", "--workers", "2"]
    with hasten_run(options, ROOT, tmp_path / "log", {"DASK_SCHEDULER": scheduler}) as server:
        answers = []
        for _ in range(4):
            with client(server.url) as http:  # a new connection each time: any worker
                answers.append(http.get("/primes/100000"))
        with client(server.url) as http:
            refused = http.get("/primes/1")

    assert [(answer.status_code, answer.json()["primes"]) for answer in answers] == [
        (200, 9592)
    ] * 4
    distributed = pytest.importorskip(
        "distributed"
    )  # untyped: Any, as in tests/running/test_dask.py
    with distributed.Client(scheduler) as dask:
        cluster_pids = set(dask.run(os.getpid).values())
    assert {answer.json()["pid"] for answer in answers} <= cluster_pids  # the cluster's worker
    assert refused.status_code == 422
    assert server.returncode in STOPPED_BY_SIGTERM, server.log
    assert "still in flight" not in server.log
