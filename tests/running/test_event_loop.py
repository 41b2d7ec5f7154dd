"""An app served through its ASGI entry on either event loop AnyIO runs, asyncio's and trio's,
as FastAPI's are (httpx's ASGITransport, as FastAPI's tests drive it): the same answers."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from hasten import App, BackgroundTasks, Depends, Request, WebSocket
from hasten.middleware import GZipMiddleware
from hasten.responses import EventSourceResponse, FileResponse, StreamingResponse

Call = Callable[[httpx.AsyncClient], Awaitable[Any]]


@pytest.fixture(params=["asyncio", "trio"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(app: App, backend: str, call: Call) -> Any:
    """``call(client)`` on ``backend``'s loop, the client talking to ``app`` in-process."""

    async def main() -> Any:
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await call(client)

    return anyio.run(main, backend=backend)


def test_async_and_sync_handlers_answer(backend: str) -> None:
    app = App()

    @app.get("/items/{item_id}")
    async def item(item_id: int, q: str = "none") -> dict[str, Any]:
        return {"item_id": item_id, "q": q}

    @app.get("/sync")
    def sync() -> dict[str, bool]:
        return {"on_loop": threading.current_thread() is threading.main_thread()}

    async def call(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get("/items/3?q=x"), await client.get("/sync")]

    found, sync_answer = run(app, backend, call)
    assert (found.status_code, found.json()) == (200, {"item_id": 3, "q": "x"})
    assert (sync_answer.status_code, sync_answer.json()) == (200, {"on_loop": False})


def test_sync_handlers_run_at_most_max_threads_at_once(backend: str) -> None:
    app = App(max_threads=2)
    running: list[int] = []
    most = [0]
    lock = threading.Lock()

    @app.get("/work")
    def work() -> str:
        with lock:
            running.append(1)
            most[0] = max(most[0], len(running))
        threading.Event().wait(0.05)
        with lock:
            running.pop()
        return "done"

    async def call(client: httpx.AsyncClient) -> list[int]:
        statuses: list[int] = []

        async def one() -> None:
            statuses.append((await client.get("/work")).status_code)

        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(one)
        return statuses

    assert run(app, backend, call) == [200] * 6
    assert most[0] == 2


def test_yield_dependencies_end_after_the_response_last_first(backend: str) -> None:
    app = App()
    events: list[str] = []

    async def session() -> AsyncIterator[str]:
        events.append("session open")
        yield "session"
        events.append("session closed")

    def user(name: str = Depends(session)) -> Iterator[str]:
        events.append("user open")
        yield f"user of {name}"
        events.append("user closed")

    @app.get("/me")
    async def me(who: str = Depends(user)) -> str:
        events.append("handler")
        return who

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.get("/me")

    response = run(app, backend, call)
    assert (response.status_code, response.json()) == (200, "user of session")
    assert events == ["session open", "user open", "handler", "user closed", "session closed"]


def test_an_error_is_thrown_into_the_yield_dependency(backend: str) -> None:
    app = App()
    seen: list[str] = []

    async def guarded() -> AsyncIterator[None]:
        try:
            yield
        except ValueError as exc:
            seen.append(str(exc))
            raise

    @app.get("/fails", dependencies=[Depends(guarded)])
    async def fails() -> None:
        raise ValueError("boom")

    async def main() -> httpx.Response:
        # The error answered as a 500, not raised into the client.
        transport = httpx.ASGITransport(app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get("/fails")

    response = anyio.run(main, backend=backend)
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert seen == ["boom"]


def test_background_tasks_run_after_the_response(backend: str) -> None:
    app = App()
    done: list[str] = []

    def write(name: str) -> None:
        done.append(f"sync {name} on loop: {threading.current_thread() is threading.main_thread()}")

    async def note(name: str) -> None:
        done.append(f"async {name}")

    @app.post("/send/{name}")
    async def send(name: str, tasks: BackgroundTasks) -> dict[str, str]:
        tasks.add_task(write, name)
        tasks.add_task(note, name)
        return {"queued": name}

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/send/ada")

    response = run(app, backend, call)
    assert (response.status_code, response.json()) == (200, {"queued": "ada"})
    assert done == ["sync ada on loop: False", "async ada"]


# The app stops reading the chunked body at its limit: httpx's generator over it is left
# unfinished, and Python's garbage collector, whenever it runs, says so (once in CI on 3.12,
# under trio). The client's, not the app's: the test asserts what the app answered.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_body_past_max_body_size_is_a_413(backend: str) -> None:
    app = App(max_body_size=16)

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    @app.post("/stream")
    async def stream(request: Request) -> dict[str, int]:
        return {"size": sum([len(chunk) async for chunk in request.stream()])}

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(3):
            yield b"x" * 10

    async def call(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/echo", content=b"x" * 16),
            await client.post("/echo", content=b"x" * 17),
            await client.post("/stream", content=chunks()),  # chunked: counted as it comes
        ]

    fits, declared, streamed = run(app, backend, call)
    assert (fits.status_code, fits.json()) == (200, {"size": 16})
    assert (declared.status_code, declared.json()) == (
        413,
        {"detail": "Request body of 17 bytes exceeds the limit of 16 bytes"},
    )
    assert (streamed.status_code, streamed.json()) == (
        413,
        {"detail": "Request body exceeds the limit of 16 bytes"},
    )


def test_a_sync_stream_is_sent_chunk_by_chunk(backend: str) -> None:
    app = App()

    def numbers() -> Iterator[str]:
        for number in range(3):
            yield f"{number},"

    @app.get("/numbers")
    async def listed() -> StreamingResponse:
        return StreamingResponse(numbers(), media_type="text/plain")

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.get("/numbers")

    response = run(app, backend, call)
    assert (response.status_code, response.text) == (200, "0,1,2,")


def test_the_lifespan_and_a_websocket(backend: str) -> None:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[dict[str, str]]:
        events.append("started")
        yield {"greeting": "hello"}
        events.append("stopped")

    app = App(lifespan=lifespan)

    @app.websocket("/echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        text = await websocket.receive_text()
        await websocket.send_text(f"{websocket.state.greeting} {text}")
        await websocket.close()

    async def main() -> list[dict[str, Any]]:
        async with app.running():
            return await _websocket_exchange(app, "/echo", "ada")

    sent = anyio.run(main, backend=backend)
    assert [message["type"] for message in sent] == [
        "websocket.accept",
        "websocket.send",
        "websocket.close",
    ]
    assert sent[1]["text"] == "hello ada"
    assert events == ["started", "stopped"]


async def _websocket_exchange(app: App, path: str, text: str) -> list[dict[str, Any]]:
    """Connect to ``path``, send ``text``, and return what the app sent, through its ASGI
    entry (httpx's transport speaks HTTP only)."""
    scope = {
        "type": "websocket",
        "path": path,
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 50000),
        "subprotocols": [],
    }
    inbox = [{"type": "websocket.connect"}, {"type": "websocket.receive", "text": text}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if inbox:
            return inbox.pop(0)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with anyio.fail_after(5):
        await app(scope, receive, send)  # type: ignore[arg-type]
    return sent


def test_trio_says_once_what_it_goes_without(caplog: pytest.LogCaptureFixture) -> None:
    app = App(body_timeout=30.0, block_threshold=0.1)

    @app.get("/")
    async def root() -> str:
        return "ok"

    async def call(client: httpx.AsyncClient) -> list[int]:
        return [(await client.get("/")).status_code for _ in range(2)]

    with caplog.at_level(logging.WARNING, logger="hasten"):
        assert run(app, "trio", call) == [200, 200]
    said = [record.getMessage() for record in caplog.records if record.name == "hasten"]
    assert said == [
        "Running on trio, not asyncio: body_timeout, the blocking monitor (block_threshold) "
        "off (they need asyncio's event loop)"
    ]


def test_a_route_timeout_is_a_504(backend: str) -> None:
    app = App()

    @app.get("/slow", timeout=0.05)
    async def slow() -> str:
        await anyio.sleep(1)
        return "late"

    @app.get("/slow-thread", timeout=0.05)
    def slow_thread() -> str:
        threading.Event().wait(0.3)
        return "late"

    @app.get("/quick", timeout=1)
    async def quick() -> str:
        return "quick"

    @app.get("/own-error", timeout=5)
    async def own_error() -> str:
        raise TimeoutError("the handler's own")

    async def main() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return [await client.get(path) for path in ("/slow", "/slow-thread", "/quick")] + [
                await client.get("/own-error")
            ]

    slow_answer, thread_answer, quick_answer, own = anyio.run(main, backend=backend)
    for response in (slow_answer, thread_answer):
        assert (response.status_code, response.json()) == (
            504,
            {"detail": "The handler did not finish within 0.05 s"},
        )
    assert (quick_answer.status_code, quick_answer.json()) == (200, "quick")
    assert (own.status_code, own.text) == (500, "Internal Server Error")


def test_an_executor_route_and_gzip_on_the_threads(backend: str) -> None:
    app = App()
    app.add_middleware(GZipMiddleware)
    executor = ThreadPoolExecutor(1, thread_name_prefix="own-executor")

    @app.get("/elsewhere", executor=executor)
    def elsewhere() -> str:
        return threading.current_thread().name.split("_")[0]

    @app.get("/large")
    async def large() -> str:
        return "x" * 300_000  # compressed on the threads

    async def call(client: httpx.AsyncClient) -> list[httpx.Response]:
        gzip = {"accept-encoding": "gzip"}
        return [await client.get("/elsewhere"), await client.get("/large", headers=gzip)]

    try:
        where, large_answer = run(app, backend, call)
    finally:
        executor.shutdown()
    assert (where.status_code, where.json()) == (200, "own-executor")
    assert large_answer.headers["content-encoding"] == "gzip"
    assert (large_answer.status_code, large_answer.json()) == (200, "x" * 300_000)


def test_shutdown_closes_an_open_websocket_and_stops_its_handler(backend: str) -> None:
    app = App(shutdown_timeout=0.1)
    ended: list[str] = []

    @app.websocket("/wait")
    async def wait(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await anyio.sleep_forever()
        finally:
            ended.append("handler stopped")

    scope: dict[str, Any] = {
        "type": "websocket",
        "path": "/wait",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 50000),
        "subprotocols": [],
    }
    sent: list[dict[str, Any]] = []
    accepted = anyio.Event()

    async def receive() -> MutableMapping[str, Any]:
        if not sent:
            return {"type": "websocket.connect"}
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))
        accepted.set()

    async def main() -> None:
        with anyio.fail_after(5):
            await app.startup()
            async with anyio.create_task_group() as group:
                group.start_soon(app, scope, receive, send)
                await accepted.wait()
                await app.shutdown()

    anyio.run(main, backend=backend)
    assert [message["type"] for message in sent] == ["websocket.accept", "websocket.close"]
    assert (sent[1]["code"], sent[1]["reason"]) == (1001, "server shutting down")
    assert ended == ["handler stopped"]


def test_a_file_is_read_on_the_threads(backend: str, tmp_path: Path) -> None:
    app = App()
    path = tmp_path / "notes.txt"
    path.write_bytes(b"line\n" * 100_000)  # two chunks of the ASGI file sender

    @app.get("/notes")
    async def notes() -> FileResponse:
        return FileResponse(path)

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.get("/notes")

    response = run(app, backend, call)
    assert (response.status_code, response.content) == (200, b"line\n" * 100_000)


def test_server_sent_events_with_pings(backend: str) -> None:
    app = App()

    async def events() -> AsyncIterator[str]:
        yield "first"
        await anyio.sleep(0.15)  # a ping goes out meanwhile
        yield "second"

    @app.get("/events")
    async def stream() -> EventSourceResponse:
        return EventSourceResponse(events(), ping=0.05)

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.get("/events")

    response = run(app, backend, call)
    assert response.status_code == 200
    assert response.text.startswith("data: first\n\n: ping\n\n")
    assert response.text.endswith(": ping\n\ndata: second\n\n")
