"""Dependencies, forms and uploads on real servers: a yield dependency's cleanup runs once
the client has the response; forms and a multi-megabyte upload arrive whole; bad forms get
their precise answer."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers.e2e.conftest import run_server

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def di_server(server_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log: Path = tmp_path_factory.mktemp(f"di-{server_kind}") / "server.log"
    with run_server(
        server_kind, log, target="tests.servers.e2e.di_app:app", ready="/ready"
    ) as running:
        yield running.base_url


def test_cleanup_runs_after_the_client_has_the_response(di_server: str) -> None:
    with httpx.Client(base_url=di_server, timeout=10) as client:
        started = time.monotonic()
        assert client.get("/after").json() == "body"
        assert time.monotonic() - started < 4  # not held back by its own cleanup
        assert client.get("/received").json() == "ok"
        for _ in range(100):
            record = client.get("/record").json()
            if record:
                break
            time.sleep(0.02)
    assert record == [True]


def test_a_form_and_an_upload_arrive_whole(di_server: str) -> None:
    data = os.urandom(3 * 1024 * 1024)
    with httpx.Client(base_url=di_server, timeout=10) as client:
        response = client.post(
            "/upload", data={"note": "n"}, files={"file": ("data.bin", data, "x/y")}
        )
        assert response.status_code == 200
        assert response.json() == {
            "note": "n",
            "filename": "data.bin",
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        fields = {"a": "x", "b": "2", "c": "1.5", "d": "true", "e": ["p", "q"]}
        response = client.post("/form", data=fields)
        assert response.json() == {"a": "x", "b": 2, "c": 1.5, "d": True, "e": ["p", "q"]}


def test_bad_forms_get_their_answer_on_the_wire(di_server: str) -> None:
    with httpx.Client(base_url=di_server, timeout=10) as client:
        unterminated = b'--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nx'
        response = client.post(
            "/upload",
            content=unterminated,
            headers={"content-type": "multipart/form-data; boundary=b"},
        )
        stream_ended = "Unexpected end of multipart stream (parser closed)"
        assert (response.status_code, response.json()) == (
            400,
            {"detail": f"Invalid multipart data: {stream_ended}"},
        )
        # As in FastAPI, a JSON body to a form route is an empty form: every field missing.
        response = client.post("/form", json={"a": 1})
        missing = [
            {"type": "missing", "loc": ["body", name], "msg": "Field required", "input": None}
            for name in "abcde"
        ]
        assert (response.status_code, response.json()) == (422, {"detail": missing})
        response = client.post(
            "/upload",
            content=b"x" * (9 * 1024 * 1024),
            headers={"content-type": "multipart/form-data; boundary=b"},
        )
        assert (response.status_code, response.json()) == (
            413,
            {"detail": "Request body of 9437184 bytes exceeds the limit of 8388608 bytes"},
        )
