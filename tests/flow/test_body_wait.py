"""Requests waiting for their body: a 408 past body_timeout, and no in-flight slot held while
they wait; through both adapters, with a client that never sends its body."""

from __future__ import annotations

import asyncio
from typing import Any

from hasten import App, Request

TIMEOUT = b'{"detail":"The request body did not arrive within 0.2 s"}'


def make_app(body_timeout: float | None = 0.2, max_in_flight: int = 1000) -> App:
    app = App(body_timeout=body_timeout, max_in_flight=max_in_flight, block_threshold=None)

    @app.post("/count")
    async def count(request: Request) -> dict[str, int]:
        return {"bytes": len(await request.body())}

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    return app


class Stalled:
    """Granian's protocol object for a client that sends its headers and then nothing."""

    def __init__(self, chunked: bool) -> None:
        self.chunked = chunked
        self.sent: list[tuple[int, list[tuple[str, str]], bytes]] = []

    def __call__(self) -> asyncio.Future[bytes]:
        return asyncio.get_running_loop().create_future()  # never done

    def __aiter__(self) -> Stalled:
        return self

    async def __anext__(self) -> bytes:
        await asyncio.get_running_loop().create_future()
        raise AssertionError("unreachable")

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.sent.append((status, headers, body))


class Scope:
    proto = "http"
    scheme = "http"
    client = "127.0.0.1:5000"

    def __init__(self, method: str, path: str, headers: dict[str, str]) -> None:
        self.method = method
        self.path = path
        self.query_string = ""
        self.headers = headers


async def rsgi(app: App, method: str, path: str, chunked: bool) -> tuple[int, bytes]:
    headers = {} if chunked else {"content-length": "100"}
    proto = Stalled(chunked)
    await app.__rsgi__(Scope(method, path, headers), proto)
    status, _, body = proto.sent[0]
    return status, body


async def asgi(app: App, method: str, path: str, chunked: bool) -> tuple[int, bytes]:
    headers = [] if chunked else [(b"content-length", b"100")]
    scope = {"type": "http", "method": method, "path": path, "query_string": b""}
    scope |= {"headers": headers, "client": ("127.0.0.1", 5000)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.get_running_loop().create_future()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[arg-type]
    return sent[0]["status"], sent[1]["body"]


SERVE = {"rsgi": rsgi, "asgi": asgi}


def test_a_body_that_never_arrives_is_a_408_on_every_adapter() -> None:
    async def run() -> list[tuple[int, bytes]]:
        app = make_app()
        async with app.running():
            return [
                await SERVE[kind](app, "POST", "/count", chunked)
                for kind in ("rsgi", "asgi")
                for chunked in (False, True)
            ]

    assert asyncio.run(run()) == [(408, TIMEOUT)] * 4


def test_requests_waiting_for_their_body_hold_no_in_flight_slot() -> None:
    async def run() -> tuple[list[tuple[int, bytes]], tuple[int, bytes], dict[str, int]]:
        app = make_app(body_timeout=1.0, max_in_flight=2)
        async with app.running():
            runtime = app.runtime
            assert runtime is not None
            waiting = []
            for _ in range(2):  # each time up to the limit, then past the sweeper's look
                for kind in ("rsgi", "asgi"):
                    serve = SERVE[kind](app, "POST", "/count", kind == "asgi")
                    waiting.append(asyncio.ensure_future(serve))
                await asyncio.sleep(0.3)  # the sweeper looks every 0.25 s
            counts = {"count": runtime.in_flight.count, "waiting": runtime.in_flight.waiting}
            hello = await rsgi(app, "GET", "/hello", False)
            return await asyncio.gather(*waiting), hello, counts

    timed_out, hello, counts = asyncio.run(run())
    assert counts == {"count": 0, "waiting": 4}
    assert hello == (200, b'{"message":"hello"}')
    assert timed_out == [(408, TIMEOUT.replace(b"0.2", b"1.0"))] * 4


def test_without_a_body_timeout_a_waiting_request_still_holds_no_slot() -> None:
    async def run() -> tuple[int, bytes]:
        app = make_app(body_timeout=None, max_in_flight=1)
        async with app.running():
            waiting = asyncio.ensure_future(rsgi(app, "POST", "/count", False))
            await asyncio.sleep(0.3)
            hello = await rsgi(app, "GET", "/hello", False)
            assert not waiting.done()
            waiting.cancel()
            return hello

    assert asyncio.run(run()) == (200, b'{"message":"hello"}')
