"""Startup with many routes, and the cost of the OpenAPI document on its first request.

Each framework builds, in a fresh interpreter, an app of ``--routes`` routes, each
``POST /r{i}/{item_id}`` with a path parameter and a body model of its own (four fields,
constraints on two), then generates the OpenAPI document once (as the first request for it
does) and once more (kept). Reported: seconds to import and register, to start, to generate,
and the process's peak memory (RSS). With ``--dependencies`` each handler also takes two
dependencies, as a real API's do: the current user (from the ``authorization`` header) and a
database session (a ``yield`` dependency).

    python benchmarks/openapi_startup.py                  # hasten, and the peers if installed
    python benchmarks/openapi_startup.py --routes 100 --only hasten
    python benchmarks/openapi_startup.py --dependencies

The peers run from ``benchmarks/.venv-peers`` (see requirements-peers.txt); hasten from the
interpreter running this script.
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


async def current_user(authorization: str) -> str:
    """The first dependency: who asks (hasten and FastAPI read it as a header)."""
    return authorization


async def database() -> Any:
    """The second: a session, closed after the response."""
    yield "session"


def build_hasten(routes: int) -> Callable[[], Any]:
    from typing import Annotated

    from hasten import App, Depends, Header

    current_user.__annotations__["authorization"] = Annotated[str, Header()]
    app = App()
    for index in range(routes):
        model = struct_model(index)

        async def handler(item_id: int, body: Any, user: Any = None, db: Any = None) -> Any:
            return body

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "body": model, "return": model}
        if DEPENDENCIES:
            handler.__annotations__["user"] = Annotated[str, Depends(current_user)]
            handler.__annotations__["db"] = Annotated[str, Depends(database)]
        else:
            handler = _without_dependencies(handler)
        app.add_api_route(f"/r{index}/{{item_id}}", handler, ["POST"])
    start = time.perf_counter()
    asyncio.run(app.startup())
    timings["start"] = time.perf_counter() - start
    return app.openapi


def _without_dependencies(handler: Any, body: str = "body") -> Any:
    """The handler without ``--dependencies``: the path parameter and the body only."""
    annotations = handler.__annotations__

    async def plain_body(item_id: int, body: Any) -> Any:
        return body

    async def plain_data(item_id: int, data: Any) -> Any:
        return data

    chosen = plain_body if body == "body" else plain_data
    chosen.__name__ = handler.__name__
    chosen.__annotations__ = annotations
    return chosen


def build_fastapi(routes: int) -> Callable[[], Any]:
    from typing import Annotated

    from fastapi import Depends, FastAPI, Header
    from pydantic import Field, create_model

    current_user.__annotations__["authorization"] = Annotated[str, Header()]
    app = FastAPI()
    for index in range(routes):
        model = create_model(
            f"Body{index}",
            name=(Annotated[str, Field(min_length=1, max_length=50)], ...),
            price=(Annotated[float, Field(ge=0)], ...),
            tags=(list[str], []),
            note=(str | None, None),
        )

        async def handler(item_id: int, body: Any, user: Any = None, db: Any = None) -> Any:
            return body

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "body": model, "return": model}
        if DEPENDENCIES:
            handler.__annotations__["user"] = Annotated[str, Depends(current_user)]
            handler.__annotations__["db"] = Annotated[str, Depends(database)]
        else:
            handler = _without_dependencies(handler)
        app.post(f"/r{index}/{{item_id}}")(handler)
    timings["start"] = 0.0  # FastAPI does its work at registration
    return app.openapi


def build_litestar(routes: int) -> Callable[[], Any]:
    from typing import Annotated

    from litestar import Litestar, post
    from litestar.di import NamedDependency, Provide
    from litestar.params import HeaderParameter

    current_user.__annotations__["authorization"] = Annotated[
        str, HeaderParameter(name="authorization")
    ]
    handlers = []
    for index in range(routes):
        model = struct_model(index)

        async def handler(item_id: int, data: Any, user: str = "", db: str = "") -> Any:
            return data

        handler.__name__ = f"handler_{index}"
        handler.__annotations__ = {"item_id": int, "data": model, "return": model}
        dependencies = None
        if DEPENDENCIES:
            handler.__annotations__.update(user=NamedDependency[str], db=NamedDependency[str])
            dependencies = {"user": Provide(current_user), "db": Provide(database)}
        else:
            handler = _without_dependencies(handler, "data")
        route = post(f"/r{index}/{{item_id:int}}", sync_to_thread=False, dependencies=dependencies)
        handlers.append(route(handler))
    start = time.perf_counter()
    app = Litestar(route_handlers=handlers)
    timings["start"] = time.perf_counter() - start

    def generate() -> Any:
        # Litestar builds its schema when openapi_schema is first read, not before.
        return app.openapi_schema.to_schema()

    return generate


BUILDERS = {"hasten": build_hasten, "fastapi": build_fastapi, "litestar": build_litestar}
timings: dict[str, float] = {}
DEPENDENCIES = "--dependencies" in sys.argv


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
    extra = ["--dependencies"] if DEPENDENCIES else []
    done = subprocess.run(
        [python, __file__, "--child", framework, "--routes", str(routes), *extra],
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
    parser.add_argument(
        "--dependencies", action="store_true", help="each handler takes two dependencies"
    )
    args = parser.parse_args()
    if args.child:
        child(args.child, args.routes)
        return
    with_dependencies = " and two dependencies" if DEPENDENCIES else ""
    print(
        f"{args.routes} routes, each with a path parameter and a body model of its own"
        f"{with_dependencies}"
    )
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
