"""Instructions per request in-process, raw RSGI, hasten and Emmett, on TFB's json and plaintext.

    benchmarks/.venv-peers/bin/python benchmarks/tfb/counts.py

Both apps are called through RSGI with the doubles of ``benchmarks/overhead.py`` (no server,
no network), each request run to completion without an event loop, under callgrind
(deterministic: the machine's load does not move it). On the wire Granian's own work is
added to both; this isolates what each framework costs per request.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import overhead  # noqa: E402

REQUESTS = 2000
CASES = (
    ("raw", "/json"),
    ("raw", "/plaintext"),
    ("hasten", "/json"),
    ("hasten", "/plaintext"),
    ("emmett", "/json"),
    ("emmett", "/plaintext"),
)


def hasten_app() -> Any:
    """benchmarks/tfb/app.py's json and plaintext routes, with its settings (its database
    routes need PostgreSQL at startup)."""
    from hasten import App, PlainTextResponse

    app = App(openapi_url=None, docs_url=None, block_threshold=None)

    @app.get("/json")
    async def json() -> dict[str, str]:
        return {"message": "Hello, World!"}

    @app.get("/plaintext", response_class=PlainTextResponse)
    async def plaintext() -> str:
        return "Hello, World!"

    asyncio.run(app.startup())
    return app


def raw_app() -> Any:
    """benchmarks/tfb/raw_rsgi.py, the floor: its json and plaintext need no database."""
    from benchmarks.tfb.raw_rsgi import app

    return app


def emmett_app() -> Any:
    from benchmarks.tfb.emmett_app import app

    app.__rsgi_init__(asyncio.new_event_loop())
    return app


def runner(app: Any, path: str) -> Callable[[Any, int], None]:
    headers = overhead.Headers([("host", "localhost")])
    scope = overhead.Scope("GET", path, "", headers)
    scope.server = "127.0.0.1:8000"  # type: ignore[attr-defined]  # read by Emmett
    scope.authority = None  # type: ignore[attr-defined]
    serve = app.__rsgi__

    def one(_: Any, __: int) -> None:
        proto = overhead.Proto(b"")
        try:
            serve(scope, proto).send(None)
        except StopIteration:
            pass  # done: nothing waited
        else:
            raise RuntimeError(f"{path} waited on something: it cannot be measured here")
        if proto.status != 200:
            raise RuntimeError(f"{path} answered {proto.status}")

    return one


def run_counted(name: str, path: str) -> None:
    app = {"raw": raw_app, "hasten": hasten_app, "emmett": emmett_app}[name]()
    one = runner(app, path)
    one(None, 0)
    functools.reduce(one, range(REQUESTS), None)


def main() -> int:
    if len(sys.argv) == 3:
        run_counted(sys.argv[1], sys.argv[2])
        return 0
    print("| app | path | instructions per request |\n| --- | --- | --: |")
    for name, path in CASES:
        (total,) = overhead.callgrind_totals([__file__, name, path])
        print(f"| {name} | {path} | {total / REQUESTS:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
