"""The TFB test types on a real PostgreSQL: pg.sh starts it, Granian (RSGI, ASGI) and uvicorn
serve benchmarks/tfb/app.py, verify.py checks every test type (no load). And verify.py fails an
implementation that breaks the rules, test type by test type.

PostgreSQL comes from Debian's packages (.ci/run installs them); without them the database
test is skipped, saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.tfb import verify
from tests.servers.e2e.conftest import run_server

pytestmark = pytest.mark.server


# uvicorn too: hasten leaves Server and Date to the server, and each server must send one.
@pytest.mark.parametrize("kind", ["granian-rsgi", "granian-asgi", "uvicorn"])
def test_every_test_type_passes(
    kind: str, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"DATABASE_URL": database_url}
    with run_server(kind, tmp_path / "server.log", env, "benchmarks.tfb.app:app", "/json") as run:
        code = verify.main([run.base_url, "--database-url", database_url])
    output = capsys.readouterr().out
    assert code == 0, output
    assert [line.split()[:2] for line in output.splitlines() if not line.startswith(" ")] == [
        ["PASS", test] for test in verify.TEST_TYPES
    ]
    # The statements counted: one SELECT a row read, one row written a row updated.
    assert "/queries?queries=20: 20 SELECTs, 20 rows read, 0 rows updated" in output
    assert "/updates?queries=20: 20 SELECTs, 20 rows read, 20 rows updated" in output


def test_the_verifier_fails_what_breaks_the_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "tests.servers.e2e.tfb_broken_app:app"
    with run_server("granian-rsgi", tmp_path / "server.log", None, target, "/json") as run:
        code = verify.main([run.base_url])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines == [
        "FAIL json: GET /json: {'message': 'Hello, World!', 'extra': 'key'} is not"
        " {'message': ...} alone",
        "FAIL plaintext: GET /plaintext: content type 'text/html', not plaintext",
        "FAIL db: GET /db: id 10001 is not an integer from 1 to 10,000",
        "FAIL queries: GET /queries?queries=0: 0 objects, not 1",
        "FAIL fortunes: GET /fortunes: tags ['script'] in the page: a message is not escaped",
        "FAIL updates: GET /updates?queries=500 answered id 1 = 10000, but"
        " /queries?queries=500 reads 1: not persisted",
        "FAIL cached-queries: GET /cached-queries?count=2: 1 objects, not 2",
    ]
