"""The access log, and what every observed request is named by: through both adapters."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from hasten import App, StreamingResponse
from hasten.testing import TestClient
from tests import offload_handlers
from tests.conftest import ClientFactory


def build_app(**settings: object) -> App:
    app = App(**settings)  # type: ignore[arg-type]

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    @app.get("/items/{id}")
    def item(id: int) -> dict[str, int]:
        return {"id": id}

    @app.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield b"abc"
            yield b"defg"

        return StreamingResponse(chunks())

    return app


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "hasten.access"]


def without_duration(line: str) -> dict[str, object]:
    fields: dict[str, object] = json.loads(line)
    assert isinstance(fields.pop("duration_ms"), float | int)
    fields.pop("queued_ms", None)  # only when the handler waited for a thread
    return fields


def test_json_lines_name_the_route_not_the_path(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    client = serve(build_app(access_log="json"))
    assert client.get("/hello").status_code == 200
    assert client.get("/items/7").status_code == 200
    assert client.get("/nowhere").status_code == 404
    assert client.get("/stream").text == "abcdefg"
    assert [without_duration(line) for line in lines(caplog)] == [
        {"method": "GET", "route": "/hello", "path": "/hello", "status": 200, "bytes": 7,
         "runs_on": "loop"},
        {"method": "GET", "route": "/items/{id}", "path": "/items/7", "status": 200,
         "bytes": 8, "runs_on": "thread"},
        {"method": "GET", "route": "<unmatched>", "path": "/nowhere", "status": 404,
         "bytes": 22, "runs_on": "loop"},
        {"method": "GET", "route": "/stream", "path": "/stream", "status": 200, "bytes": 7,
         "runs_on": "loop"},
    ]  # fmt: skip


def test_keyvalue_lines(serve: ClientFactory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    client = serve(build_app(access_log="keyvalue"))
    client.get("/hello")
    [line] = lines(caplog)
    assert re.fullmatch(
        r'method="GET" route="/hello" path="/hello" status=200 duration_ms=[0-9.]+ bytes=7 '
        r'runs_on="loop"',
        line,
    ), line


def test_a_long_path_and_an_invented_method_make_a_short_line(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    client = serve(build_app(access_log="json"))
    client.get("/" + "x" * 60_000)
    client.request("BREW", "/hello")
    first, second = lines(caplog)
    assert len(first) < 400
    assert json.loads(first)["path"] == "/" + "x" * 199
    assert json.loads(second)["method"] == "_OTHER"
    assert json.loads(second)["status"] == 405


def test_a_handler_on_a_thread_reports_its_wait_for_one(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    app = App(access_log="json", max_threads=1)

    @app.get("/slow")
    def slow() -> str:
        time.sleep(0.2)
        return "done"

    client = serve(app)
    with ThreadPoolExecutor(2) as senders:
        answers = list(senders.map(lambda _: client.get("/slow").status_code, range(2)))
    assert answers == [200, 200]
    queued = sorted(json.loads(line).get("queued_ms", 0.0) for line in lines(caplog))
    assert queued[0] < 100 < queued[1]  # the second waited for the one thread


def test_a_handler_in_a_worker_process_reports_its_wait_for_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    app = App(access_log="json", max_processes=1, process_threads=1)
    app.add_api_route("/slow", offload_handlers.slow, offload="process")
    with TestClient(app) as client, ThreadPoolExecutor(2) as senders:
        # The worker process boots before its first task runs: one request waits for that.
        assert client.get("/slow", params={"seconds": 0}).json() == 0
        caplog.clear()
        calls = [senders.submit(client.get, "/slow", params={"seconds": 0.3}) for _ in range(2)]
        assert [call.result().json() for call in calls] == [0.3, 0.3]
    entries = [json.loads(line) for line in lines(caplog)]
    assert [entry["runs_on"] for entry in entries] == ["process", "process"]
    queued = sorted(entry.get("queued_ms", 0.0) for entry in entries)
    assert queued[0] < 150 < queued[1]  # the second waited for the worker's one thread


def test_off_by_default_and_the_request_path_is_the_plain_one(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hasten.access")
    app = build_app()
    client = serve(app)
    client.get("/hello")
    assert lines(caplog) == []
    assert app.runtime is not None
    assert app.runtime.observer is None


def test_an_observed_app_has_an_observer() -> None:
    app = build_app(access_log="json")
    with TestClient(app) as client:
        client.get("/hello")
        assert app.runtime is not None
        assert app.runtime.observer is not None


def test_the_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="access_log must be 'json', 'keyvalue' or None"):
        App(access_log="xml")  # type: ignore[arg-type]
