"""Each implementation's own CPU time per request, in-process, on the real PostgreSQL.

    benchmarks/tfb/pg.sh start
    benchmarks/.venv-peers/bin/python -m benchmarks.tfb.inprocess            # every test type
    benchmarks/.venv-peers/bin/python -m benchmarks.tfb.inprocess db fortunes

No server and no load generator: each app is called directly (RSGI with a stand-in for
Granian's protocol object, ASGI with ``receive``/``send`` functions), one request after the
other, and ``time.process_time()`` counts this process's CPU only, so PostgreSQL's work and
the other processes on the machine stay out of it. What is left is the framework plus asyncpg
and the event loop, which every implementation shares: the differences are the frameworks'.
It complements ``run.py``, whose throughput on this 2-core machine moves with its load.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from benchmarks.overhead import Headers, Proto, Scope
from benchmarks.suite import TIMES
from benchmarks.tfb import app as hasten_app
from benchmarks.tfb import blacksheep_app, fastapi_app, raw_rsgi, starlette_app

REQUESTS = 1000
ROUNDS = 5
PATHS = {
    "json": ("/json", ""),
    "plaintext": ("/plaintext", ""),
    "db": ("/db", ""),
    "queries": ("/queries", "queries=20"),
    "fortunes": ("/fortunes", ""),
    "updates": ("/updates", "queries=20"),
    "cached-queries": ("/cached-queries", "count=100"),
}
Call = Callable[[], Awaitable[None]]


class GranianProto(Proto):
    """Granian's protocol object, as far as these apps use it."""

    def response_str(self, status: int, headers: list[tuple[str, str]], body: str) -> None:
        self.status = status


def rsgi(app: Any, path: str, query: str) -> Call:
    async def one() -> None:
        proto = GranianProto(b"")
        await app.__rsgi__(Scope("GET", path, query, Headers([])), proto)
        if proto.status != 200:
            raise RuntimeError(f"{path}: {proto.status}")

    return one


def asgi(app: Any, path: str, query: str) -> Call:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def one() -> None:
        statuses = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }
        await app(scope, receive, send)
        if statuses != [200]:
            raise RuntimeError(f"{path}: {statuses}")

    return one


async def start(stack: AsyncExitStack) -> None:
    """Open every implementation's pool, as its server would."""
    await hasten_app.app.startup()
    stack.push_async_callback(hasten_app.app.shutdown)
    await raw_rsgi.start()
    stack.push_async_callback(raw_rsgi.resources.pool.close)
    await blacksheep_app.app.start()
    stack.push_async_callback(blacksheep_app.app.stop)
    await stack.enter_async_context(starlette_app.lifespan(starlette_app.app))
    await stack.enter_async_context(fastapi_app.lifespan(fastapi_app.app))


def cases(path: str, query: str) -> dict[str, Call]:
    return {
        "raw@rsgi": rsgi(raw_rsgi.app, path, query),
        "hasten@rsgi": rsgi(hasten_app.app, path, query),
        "hasten@asgi": asgi(hasten_app.app, path, query),
        "starlette@asgi": asgi(starlette_app.app, path, query),
        "fastapi@asgi": asgi(fastapi_app.app, path, query),
        "blacksheep@asgi": asgi(blacksheep_app.app, path, query),
    }


async def measure(tests: list[str]) -> None:
    async with AsyncExitStack() as stack:
        await start(stack)
        for test in tests:
            runs: dict[str, list[float]] = {}
            calls = cases(*PATHS[test])
            for _ in range(ROUNDS):  # interleaved, as in alternating rounds
                for name, one in calls.items():
                    for _ in range(50):
                        await one()
                    began = time.process_time()
                    for _ in range(REQUESTS):
                        await one()
                    used = (time.process_time() - began) / REQUESTS * 1e6
                    runs.setdefault(name, []).append(used)
            raw = statistics.median(runs["raw@rsgi"])
            print(f"{test}: median µs of CPU per request over {ROUNDS} rounds of {REQUESTS}")
            for name, values in runs.items():
                median = statistics.median(values)
                print(f"  {name:16} {median:7.1f}   {TIMES}{median / raw:.2f} of raw")


def main() -> None:
    tests = sys.argv[1:] or list(PATHS)
    unknown = set(tests) - set(PATHS)
    if unknown:
        raise SystemExit(f"unknown test types {sorted(unknown)}; choose from {list(PATHS)}")
    asyncio.run(measure(tests))


if __name__ == "__main__":
    main()
