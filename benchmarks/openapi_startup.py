"""Startup with many routes, and the cost of the OpenAPI document on its first request.

Each framework builds, in a fresh interpreter, an app of ``--routes`` routes, each
``POST /r{i}/{item_id}`` with a path parameter and a body model of its own (four fields,
constraints on two), then generates the OpenAPI document once (as the first request for it
does) and once more (kept). Reported: seconds to import and register, to start, to generate,
and the process's peak memory (RSS).

    python benchmarks/openapi_startup.py                  # hasten, and the peers if installed
    python benchmarks/openapi_startup.py --routes 100 --only hasten

The peers run from ``benchmarks/.venv-peers`` (see requirements-peers.txt); hasten from the
interpreter running this script. Dependencies are not part of it yet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"
FRAMEWORKS = ("hasten", "fastapi", "litestar")


def struct_model(index: int) -> Any:
    """The body model of route ``index`` as a msgspec Struct (hasten's and Litestar's)."""
    from typing import Annotated

    import msgspec

    return msgspec.defstruct(
        f"Body{index}",
        [
            ("name", Annotated[str, msgspec.Meta(min_length=1, max_length=50)]),
            ("price", Annotated[float, msgspec.Meta(ge=0)]),
            ("tags", list[str], []),
            ("note", str | None, None),
        ],
    )


def build_hasten(routes: int) -> Callable[[], Any]:
    from hasten import App

    app = App()
    for index in range(routes):
        model = struct_model(index)

        async def handler(item_id: int, body: Any) -> Any:
            return body

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "body": model, "return": model}
        app.add_route(f"/r{index}/{{item_id}}", handler, ["POST"])
    start = time.perf_counter()
    asyncio.run(app.startup())
    timings["start"] = time.perf_counter() - start
    return app.openapi


def build_fastapi(routes: int) -> Callable[[], Any]:
    from typing import Annotated

    from fastapi import FastAPI
    from pydantic import Field, create_model

    app = FastAPI()
    for index in range(routes):
        model = create_model(
            f"Body{index}",
            name=(Annotated[str, Field(min_length=1, max_length=50)], ...),
            price=(Annotated[float, Field(ge=0)], ...),
            tags=(list[str], []),
            note=(str | None, None),
        )

        async def handler(item_id: int, body: Any) -> Any:
            return body

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "body": model, "return": model}
        app.post(f"/r{index}/{{item_id}}")(handler)
    timings["start"] = 0.0  # FastAPI does its work at registration
    return app.openapi


def build_litestar(routes: int) -> Callable[[], Any]:
    from litestar import Litestar, post

    handlers = []
    for index in range(routes):
        model = struct_model(index)

        async def handler(item_id: int, data: Any) -> Any:
            return data

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "data": model, "return": model}
        handlers.append(post(f"/r{index}/{{item_id:int}}", sync_to_thread=False)(handler))
    start = time.perf_counter()
    app = Litestar(route_handlers=handlers)
    timings["start"] = time.perf_counter() - start

    def generate() -> Any:
        # Litestar builds its schema when openapi_schema is first read, not before.
        return app.openapi_schema.to_schema()

    return generate


BUILDERS = {"hasten": build_hasten, "fastapi": build_fastapi, "litestar": build_litestar}
timings: dict[str, float] = {}


def child(framework: str, routes: int) -> None:
    start = time.perf_counter()
    generate = BUILDERS[framework](routes)
    timings["build"] = time.perf_counter() - start - timings["start"]
    start = time.perf_counter()
    document = generate()
    timings["first"] = time.perf_counter() - start
    start = time.perf_counter()
    generate()
    timings["again"] = time.perf_counter() - start
    assert len(document["paths"]) == routes, len(document["paths"])
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({**timings, "peak_mib": peak_kib / 1024, "routes": routes}))


def measure(framework: str, routes: int) -> dict[str, Any] | None:
    python = sys.executable if framework == "hasten" else str(PEERS_PYTHON)
    if not Path(python).exists():
        return None
    done = subprocess.run(
        [python, __file__, "--child", framework, "--routes", str(routes)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routes", type=int, default=1000)
    parser.add_argument("--only", choices=FRAMEWORKS, nargs="+", default=list(FRAMEWORKS))
    parser.add_argument("--child", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.routes)
        return
    print(f"{args.routes} routes, each with a path parameter and a body model of its own")
    header = f"{'framework':<10} {'register s':>11} {'start s':>8} {'document s':>11}"
    print(f"{header} {'again s':>8} {'peak RSS MiB':>13}")
    for framework in args.only:
        found = measure(framework, args.routes)
        if found is None:
            print(f"{framework:<10} (not installed: see requirements-peers.txt)")
            continue
        print(
            f"{framework:<10} {found['build']:>11.3f} {found['start']:>8.3f} "
            f"{found['first']:>11.3f} {found['again']:>8.4f} {found['peak_mib']:>13.1f}"
        )


if __name__ == "__main__":
    main()
