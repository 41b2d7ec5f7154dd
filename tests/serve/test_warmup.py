"""The app is ready once its handlers' modules are imported where the handlers run: in each
process worker (what that import made besides is said at startup), and by each executor."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from hasten import App
from hasten._serve import warmup
from hasten.testing import TestClient
from tests import offload_handlers as handlers
from tests.apps import threaded, unimportable_in_workers, work


def _concurrently(client: TestClient, path: str, times: int) -> list[dict[str, float]]:
    with ThreadPoolExecutor(times) as pool:
        responses = list(pool.map(lambda _: client.get(path), range(times)))
    assert [response.status_code for response in responses] == [200] * times
    return [response.json() for response in responses]


def test_each_process_worker_imports_the_handlers_module_before_the_app_is_ready() -> None:
    app = App(max_processes=2, process_threads=1)
    app.add_api_route("/imported-at", work.imported_at, offload="process")

    with TestClient(app) as client:
        ready = time.monotonic()
        answers = _concurrently(client, "/imported-at?seconds=0.5", 2)

    assert len({answer["pid"] for answer in answers}) == 2  # both workers
    assert all(answer["imported_at"] < ready for answer in answers)


def test_async_def_offloaded_runs_as_a_coroutine_in_the_worker() -> None:
    app = App(max_processes=1)
    app.add_api_route("/fibo/{n}", handlers.compute_async, offload="process")

    with TestClient(app) as client:
        assert client.get("/fibo/10").json()["fibo"] == 55


def test_what_the_handlers_module_starts_at_import_is_said_at_startup(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = App(max_processes=2)
    app.add_api_route("/pid", threaded.pid, offload="process")

    with caplog.at_level(logging.WARNING, "hasten.offload"), TestClient(app):
        pass

    (record,) = caplog.records
    assert record.getMessage() == (
        "offload='process': each of the 2 worker processes imported tests.apps.threaded "
        "(GET /pid) to run its handlers, and that import made an App (tests.apps.threaded), "
        "1 thread(s) (answerer) again in each of them. Move the handlers that run in processes "
        "to a module that makes nothing when imported (the app's module imports them from it), "
        "or make those objects where they are used (functools.cache on a function that returns "
        "the client) rather than at import."
    )


def test_a_module_that_makes_nothing_at_import_is_not_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = App(max_processes=1)
    app.add_api_route("/work", work.imported_at, offload="process")

    with caplog.at_level(logging.WARNING, "hasten.offload"), TestClient(app):
        pass

    assert caplog.records == []


def test_a_worker_that_cannot_import_the_handlers_module_stops_the_startup() -> None:
    app = App(max_processes=1)
    app.add_api_route("/work", unimportable_in_workers.work, offload="process")

    with pytest.raises(RuntimeError) as raised:
        asyncio.run(app.startup())

    assert str(raised.value) == (
        "offload='process': a worker process could not import "
        "tests.apps.unimportable_in_workers (GET /work): DATABASE_URL is not set"
    )
    assert not app.started


@pytest.fixture
def busy_executor() -> Iterator[ThreadPoolExecutor]:
    """An executor whose one thread is taken: it answers nothing until the test ends."""
    release = threading.Event()
    with ThreadPoolExecutor(1) as executor:
        executor.submit(release.wait)
        yield executor
        release.set()


def test_an_executor_that_does_not_answer_the_check_is_served_unchecked(
    busy_executor: ThreadPoolExecutor,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(warmup, "EXECUTOR_CHECK_TIMEOUT", 0.2)
    app = App()
    app.add_api_route("/pid", handlers.pid, executor=busy_executor)

    with caplog.at_level(logging.WARNING, "hasten.offload"), TestClient(app):
        pass

    (record,) = caplog.records
    assert record.getMessage().startswith("executor=: <concurrent.futures.thread.")
    assert record.getMessage().endswith(
        "did not answer within 0.2 s whether it can import tests.offload_handlers (GET /pid): "
        "the routes are served unchecked"
    )
