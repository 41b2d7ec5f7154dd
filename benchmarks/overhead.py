"""hasten's per-request overhead in-process: adapter, router, endpoint, response; no network.

    python benchmarks/overhead.py                 # microseconds per request, hasten vs raw RSGI
    python benchmarks/overhead.py --count         # instructions per request, under callgrind
    python benchmarks/overhead.py --count hello "sync def"    # these scenarios and their twins
    python benchmarks/overhead.py --check         # fail on a scenario over its budget
    python benchmarks/overhead.py --tighten       # lower the budgets to what is measured

Time moves with machine load; the instruction count does not (valgrind's callgrind counts
what the CPU executes for the same binary and inputs), so CI gates on the count: each
scenario's ratio to its hand-written twin, against its budget (see budgets.py). Each scenario
runs inside one ``functools.reduce`` call: callgrind collects only inside that function
(``--toggle-collect``) and dumps a profile as each call returns (``--dump-after``), so one run
measures every scenario without the interpreter's start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pydantic
from starlette.middleware.cors import CORSMiddleware as StarletteCORSMiddleware

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from hasten import (  # noqa: E402
    App,
    BackgroundTasks,
    Depends,
    Header,
    HTTPException,
    PlainTextResponse,
    Query,
    Request,
    Response,
)
from hasten.middleware import CORSMiddleware  # noqa: E402
from hasten.security import OAuth2PasswordBearer  # noqa: E402
from hasten.types import CallNext  # noqa: E402

sys.path.insert(0, str(ROOT))
from benchmarks import budgets  # noqa: E402

COUNTED_REQUESTS = 2000
TIMED_REQUESTS = 20000
ROUNDS = 5


class Order(msgspec.Struct):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


class Item(pydantic.BaseModel):
    """The Order as a FastAPI app has it: a pydantic model."""

    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


class Filters(pydantic.BaseModel):
    """A query model of ten fields (FastAPI's ``Annotated[Filters, Query()]``)."""

    page: int = 1
    size: int = 10
    sort: str = "id"
    order: str = "asc"
    q: str | None = None
    min_price: float = 0.0
    max_price: float | None = None
    active: bool = True
    tag: str | None = None
    since: int | None = None


oauth2_scheme = OAuth2PasswordBearer(tokenUrl="token")
USERS = {"abc": {"username": "ada", "email": "ada@example.com"}}


async def user_of(token: str) -> dict[str, str]:
    """The user lookup of FastAPI's security tutorial: the token names a user, or 401."""
    user = USERS.get(token)
    if user is None:
        raise HTTPException(401, "Invalid token", headers={"WWW-Authenticate": "Bearer"})
    return user


async def current_bearer_user(
    token: Annotated[str, Depends(oauth2_scheme)],
) -> dict[str, str]:
    return await user_of(token)


NOTES: dict[str, str] = {}


async def note(message: str) -> None:
    """A background task's work: remember the last message."""
    NOTES["last"] = message


def build_app(middlewares: int = 0, metrics: bool = False, routes: int = 0) -> App:
    app = App(block_threshold=None, metrics_url="/metrics" if metrics else None)

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.get("/items/{id}")
    async def item(id: int) -> dict[str, int]:
        return {"id": id}

    @app.get("/query")
    async def query(
        page: int = 1, size: int = 10, ratio: float = 1.0, active: bool = False, q: str = ""
    ) -> dict[str, Any]:
        return {"page": page, "size": size, "ratio": ratio, "active": active, "q": q}

    @app.post("/orders", status=201)
    async def orders(order: Order) -> Order:
        return order

    @app.get("/nested")
    async def nested(user: Annotated[dict[str, str], Depends(nested_user)]) -> dict[str, str]:
        return user

    @app.get("/deps")
    async def with_dependencies(
        user: str = Depends(current_user),
        db: str = Depends(database),
        limit: int = Depends(page_limit),
    ) -> dict[str, Any]:
        return {"user": user, "db": db, "limit": limit}

    add_fastapi_shaped_routes(app)
    add_plaintext_route(app)

    for number in range(routes):  # for "1,000 routes, the last": one app has them
        app.add_api_route(f"/r{number}/{{id}}", numbered_route(number))

    for number in range(middlewares):

        async def add_header(
            request: Request, call_next: CallNext, number: int = number
        ) -> Response:
            response = await call_next(request)
            response.headers[f"x-mw-{number}"] = "1"
            return response

        app.middleware(add_header)
    return app


def add_plaintext_route(app: App) -> None:
    """TechEmpower's plaintext test, as benchmarks/tfb/app.py has it."""

    @app.get("/plaintext", response_class=PlainTextResponse)
    async def plaintext() -> str:
        return "Hello, World!"


def add_fastapi_shaped_routes(app: App) -> None:
    """What FastAPI apps bring (issue 27): pydantic in and out, a bearer token, a sync
    handler, a query model, a background task."""

    @app.post("/items", response_model=Item, status_code=201)
    async def create_item(item: Item) -> Any:
        return item

    @app.get("/me")
    async def me(user: Annotated[dict[str, str], Depends(current_bearer_user)]) -> Any:
        return user

    @app.get("/sync")
    def sync_hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.get("/search")
    async def search(filters: Annotated[Filters, Query()]) -> Filters:
        return filters

    @app.post("/notify")
    async def notify(background: BackgroundTasks) -> dict[str, bool]:
        background.add_task(note, "sent")
        return {"queued": True}


def build_cors_app(starlettes: bool = False) -> App:
    """hello behind CORS: hasten's own middleware (what ``hasten port`` maps Starlette's and
    FastAPI's CORSMiddleware to), or Starlette's pure-ASGI class itself."""
    app = App(block_threshold=None)

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    cls: Any = StarletteCORSMiddleware if starlettes else CORSMiddleware
    app.add_middleware(cls, allow_origins=[ORIGIN])
    return app


def numbered_route(number: int) -> Callable[[int], Coroutine[Any, Any, dict[str, int]]]:
    async def route(id: int) -> dict[str, int]:
        return {"route": number, "id": id}

    return route


async def current_user() -> str:
    return "ada"


async def nested_token(x_token: Annotated[str, Header()]) -> str:
    return x_token


async def nested_session(
    token: Annotated[str, Depends(nested_token)],
) -> AsyncIterator[dict[str, str]]:
    yield {"user": token, "session": "open"}


async def nested_user(
    session: Annotated[dict[str, str], Depends(nested_session)],
) -> dict[str, str]:
    return session


async def database() -> str:
    return "pool"


async def page_limit() -> int:
    return 10


_JSON = [("content-type", "application/json")]
_TEXT = [("content-type", "text/plain; charset=utf-8")]
_encode = msgspec.json.encode


class RawQuery(msgspec.Struct):
    page: int = 1
    size: int = 10
    ratio: float = 1.0
    active: bool = False
    q: str = ""


_decode_order = msgspec.json.Decoder(Order).decode
ORIGIN = "https://example.com"
_threads = ThreadPoolExecutor(max_workers=40)


def sync_hello() -> dict[str, str]:
    return {"message": "hello"}


async def raw_hello(scope: Any) -> tuple[int, list[tuple[str, str]], bytes]:
    return 200, [("content-type", "application/json")], _encode({"message": "hello"})


def header_adder(inner: Any, number: int) -> Any:
    """A middleware written by hand: the inner app's response, with a header added."""

    async def add_header(scope: Any) -> tuple[int, list[tuple[str, str]], bytes]:
        status, headers, body = await inner(scope)
        headers.append((f"x-mw-{number}", "1"))
        return status, headers, body

    return add_header


_three_middlewares = header_adder(header_adder(header_adder(raw_hello, 2), 1), 0)


class RawRSGI:
    """The floor: hand-written RSGI twins of each scenario, as a good engineer would write
    them with msgspec (a dict of paths, one convert for the query, one typed decode)."""

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        path = scope.path
        if path == "/hello":
            proto.response_bytes(200, _JSON, _encode({"message": "hello"}))
        elif path.startswith("/items/"):
            proto.response_bytes(200, _JSON, _encode({"id": int(path[7:])}))
        elif path == "/query":
            pairs = dict(part.partition("=")[::2] for part in scope.query_string.split("&"))
            query = msgspec.convert(pairs, RawQuery, strict=False)
            proto.response_bytes(200, _JSON, _encode(query))
        elif path == "/orders":
            order = _decode_order(await proto())
            proto.response_bytes(201, _JSON, _encode(order))
        elif path == "/deps":
            user, db, limit = await current_user(), await database(), await page_limit()
            proto.response_bytes(200, _JSON, _encode({"user": user, "db": db, "limit": limit}))
        elif path == "/nested":
            # The same three, written out: the token, a session opened for the request and
            # closed after its response, the user.
            token = scope.headers.get("x-token")
            session = _raw_session(token)
            opened = await session.__anext__()
            proto.response_bytes(200, _JSON, _encode(opened))
            with contextlib.suppress(StopAsyncIteration):
                await session.__anext__()
        elif path == "/plaintext":
            proto.response_bytes(200, _TEXT, b"Hello, World!")


class RawFastAPIShaped:
    """The twins of what FastAPI apps bring, written by hand with the same libraries: pydantic
    called as its documentation says, the header read and the dependency awaited inline, the
    thread hop of ``run_in_executor``, three nested wrappers, CORS's two headers."""

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        path = scope.path
        if path == "/items":
            item = Item.model_validate_json(await proto())
            proto.response_bytes(201, _JSON, item.model_dump_json().encode())
        elif path == "/me":
            scheme, _, token = (scope.headers.get("authorization") or "").partition(" ")
            if scheme.lower() != "bearer":
                proto.response_bytes(401, _JSON, b'{"detail":"Not authenticated"}')
                return
            user = await current_bearer_user(token)
            proto.response_bytes(200, _JSON, _encode(user))
        elif path == "/sync":
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(_threads, sync_hello)
            proto.response_bytes(200, _JSON, _encode(result))
        elif path == "/search":
            pairs = dict(part.partition("=")[::2] for part in scope.query_string.split("&"))
            filters = Filters.model_validate(pairs)
            proto.response_bytes(200, _JSON, filters.model_dump_json().encode())
        elif path == "/notify":
            proto.response_bytes(200, _JSON, _encode({"queued": True}))
            await note("sent")
        elif path == "/mw":
            status, headers, body = await _three_middlewares(scope)
            proto.response_bytes(status, headers, body)
        elif path == "/cors":
            headers = [("content-type", "application/json")]
            origin = scope.headers.get("origin")
            if origin is not None and origin == ORIGIN:
                headers.append(("access-control-allow-origin", origin))
            headers.append(("vary", "Origin"))
            proto.response_bytes(200, headers, _encode({"message": "hello"}))


async def _raw_session(token: str) -> AsyncIterator[dict[str, str]]:
    yield {"user": token, "session": "open"}


async def raw_asgi(scope: Any, receive: Any, send: Any) -> None:
    """The floor under ASGI (uvicorn, Granian's ASGI): the hello and three-dependency twins."""
    path = scope["path"]
    if path == "/hello":
        body = _encode({"message": "hello"})
    elif path == "/deps":
        user, db, limit = await current_user(), await database(), await page_limit()
        body = _encode({"user": user, "db": db, "limit": limit})
    length = str(len(body)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", length)]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Headers(dict[str, str]):
    """Granian's RSGIHeaders: its methods run in Rust, so here they are C methods too (a
    dict's: ``get`` the first value of a name, ``in``, ``len`` the names, ``keys``)."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        super().__init__(reversed(items))
        self._items = items

    def items(self) -> list[tuple[str, str]]:  # type: ignore[override]  # Granian's: a list
        return self._items


@dataclass
class Scope:
    method: str
    path: str
    query_string: str
    headers: Headers
    proto: str = "http"
    scheme: str = "http"
    client: str = "127.0.0.1:50000"
    server: str = "127.0.0.1:8000"
    http_version: str = "1.1"


class Proto:
    """Granian's protocol object, reduced to what these scenarios use."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.status = 0

    async def __call__(self) -> bytes:
        return self.body

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status


@dataclass(frozen=True)
class Scenario:
    name: str
    app: Any
    method: str
    path: str
    query: str = ""
    body: bytes = b""
    status: int = 200
    twin: str = "raw rsgi /hello"  # the hand-written scenario it is compared with
    headers: tuple[tuple[str, str], ...] = ()  # sent besides the body's
    asgi: bool = False  # served through the ASGI adapter (as uvicorn calls it), not RSGI
    waits: bool = False  # waits on a thread: run with an event loop (see ``waiting_runner``)


ORDER = b'{"id":1,"name":"pen","price":1.5,"quantity":2,"tags":["a","b"],"active":true}'


TOKEN = (("x-token", "abc"),)
BEARER = (("authorization", "Bearer abc"),)
CORS = (("origin", ORIGIN),)
FILTERS = (
    "page=3&size=20&sort=name&order=desc&q=pen&min_price=1.5&max_price=9.5&active=false"
    "&tag=a&since=1700000000"
)


def scenarios() -> list[Scenario]:
    app, app_mw, app_metrics, app_cors, app_asgi_cors = (
        build_app(routes=1000),
        build_app(middlewares=3),
        build_app(metrics=True),
        build_cors_app(),
        build_cors_app(starlettes=True),
    )
    for started in (app, app_mw, app_metrics, app_cors, app_asgi_cors):
        asyncio.run(started.startup())
    raw, raw_shaped = RawRSGI(), RawFastAPIShaped()
    query = "page=3&size=20&ratio=0.5&active=true&q=x"
    return [
        Scenario("raw rsgi /hello", raw, "GET", "/hello"),
        Scenario("raw path param", raw, "GET", "/items/42"),
        Scenario("raw typed query", raw, "GET", "/query", query),
        Scenario("raw json body", raw, "POST", "/orders", body=ORDER, status=201),
        Scenario("raw 3 dependencies", raw, "GET", "/deps"),
        Scenario("raw nested dependencies", raw, "GET", "/nested", headers=TOKEN),
        Scenario("raw plaintext", raw, "GET", "/plaintext"),
        Scenario("hello", app, "GET", "/hello"),
        Scenario("path param", app, "GET", "/items/42", twin="raw path param"),
        Scenario("1,000 routes, the last", app, "GET", "/r999/42", twin="raw path param"),
        Scenario("typed query", app, "GET", "/query", query, twin="raw typed query"),
        Scenario("json body", app, "POST", "/orders", body=ORDER, status=201, twin="raw json body"),
        Scenario("3 dependencies", app, "GET", "/deps", twin="raw 3 dependencies"),
        Scenario(
            "nested dependencies, one yield",
            app,
            "GET",
            "/nested",
            headers=TOKEN,
            twin="raw nested dependencies",
        ),
        Scenario("plaintext (PlainTextResponse)", app, "GET", "/plaintext", twin="raw plaintext"),
        Scenario("3 middlewares", app_mw, "GET", "/hello", twin="raw 3 middlewares"),
        Scenario("raw asgi /hello", raw_asgi, "GET", "/hello", asgi=True),
        Scenario("raw asgi 3 dependencies", raw_asgi, "GET", "/deps", asgi=True),
        Scenario("hello (ASGI)", app, "GET", "/hello", twin="raw asgi /hello", asgi=True),
        Scenario(
            "3 dependencies (ASGI)", app, "GET", "/deps", twin="raw asgi 3 dependencies", asgi=True
        ),
        # What observability costs: the instrumented path (hasten._observing.observe) and the
        # metrics.
        Scenario("hello, metrics on", app_metrics, "GET", "/hello"),
        # What FastAPI apps bring (issue 27), each against a twin written by hand.
        Scenario("raw pydantic body", raw_shaped, "POST", "/items", body=ORDER, status=201),
        Scenario("raw 3 middlewares", raw_shaped, "GET", "/mw"),
        Scenario("raw cors", raw_shaped, "GET", "/cors", headers=CORS),
        Scenario("raw bearer user", raw_shaped, "GET", "/me", headers=BEARER),
        Scenario("raw sync def", raw_shaped, "GET", "/sync", waits=True),
        Scenario("raw query model", raw_shaped, "GET", "/search", FILTERS),
        Scenario("raw background task", raw_shaped, "POST", "/notify"),
        Scenario(
            "pydantic body, response_model",
            app,
            "POST",
            "/items",
            body=ORDER,
            status=201,
            twin="raw pydantic body",
        ),
        Scenario("CORS (hasten's)", app_cors, "GET", "/hello", headers=CORS, twin="raw cors"),
        Scenario(
            "CORS (Starlette's ASGI)", app_asgi_cors, "GET", "/hello", headers=CORS, twin="raw cors"
        ),
        Scenario("OAuth2 bearer user", app, "GET", "/me", headers=BEARER, twin="raw bearer user"),
        Scenario("sync def", app, "GET", "/sync", waits=True, twin="raw sync def"),
        Scenario("query model, 10 fields", app, "GET", "/search", FILTERS, twin="raw query model"),
        Scenario("background task", app, "POST", "/notify", twin="raw background task"),
    ]


def request_runner(scenario: Scenario) -> Callable[[Any, int], None]:
    """One request per call, run to completion without an event loop (nothing here waits)."""
    if scenario.asgi:
        return asgi_request_runner(scenario)
    if scenario.waits:
        return waiting_runner(scenario)
    headers = [("content-length", str(len(scenario.body)))] if scenario.body else []
    headers += scenario.headers
    if scenario.body:
        headers.append(("content-type", "application/json"))
    scope = Scope(scenario.method, scenario.path, scenario.query, Headers(headers))
    serve: Callable[[Any, Any], Coroutine[Any, Any, None]] = scenario.app.__rsgi__

    def one(_: Any, __: int) -> None:
        proto = Proto(scenario.body)
        coroutine = serve(scope, proto)
        try:
            coroutine.send(None)
        except StopIteration:
            pass
        else:
            raise RuntimeError(f"{scenario.name} waited on something: it cannot be measured here")
        if proto.status != scenario.status:
            raise RuntimeError(f"{scenario.name} answered {proto.status}")

    return one


# The event loop every request runs under: set as the running loop (without running it) while
# requests are measured, so that code which asks for its loop or task finds one.
LOOP = asyncio.new_event_loop()


@contextlib.contextmanager
def on_the_loop() -> Iterator[None]:
    asyncio.events._set_running_loop(LOOP)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(None)


def waiting_runner(scenario: Scenario) -> Callable[[Any, int], None]:
    """``request_runner`` for a request that waits on a thread: each future the request
    awaits is waited for by running the event loop's steps until it is done (what a Task
    would do, without one: the twin and hasten pay the same)."""
    scope = Scope(scenario.method, scenario.path, scenario.query, Headers(list(scenario.headers)))
    serve: Callable[[Any, Any], Coroutine[Any, Any, None]] = scenario.app.__rsgi__
    step = LOOP._run_once  # type: ignore[attr-defined]  # asyncio's own loop step

    def one(_: Any, __: int) -> None:
        proto = Proto(scenario.body)
        coroutine = serve(scope, proto)
        try:
            waited = coroutine.send(None)
            while True:
                while not waited.done():
                    step()
                waited = coroutine.send(None)
        except StopIteration:
            pass
        if proto.status != scenario.status:
            raise RuntimeError(f"{scenario.name} answered {proto.status}")

    return one


def asgi_request_runner(scenario: Scenario) -> Callable[[Any, int], None]:
    """``request_runner`` through the ASGI interface, with a scope as uvicorn makes it."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": scenario.method,
        "scheme": "http",
        "path": scenario.path,
        "raw_path": scenario.path.encode(),
        "query_string": scenario.query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    request = {"type": "http.request", "body": scenario.body, "more_body": False}
    app: Callable[[Any, Any, Any], Coroutine[Any, Any, None]] = scenario.app

    def one(_: Any, __: int) -> None:
        statuses: list[int] = []

        async def receive() -> dict[str, Any]:
            return request

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        coroutine = app(scope, receive, send)
        try:
            coroutine.send(None)
        except StopIteration:
            pass
        else:
            raise RuntimeError(f"{scenario.name} waited on something: it cannot be measured here")
        if statuses != [scenario.status]:
            raise RuntimeError(f"{scenario.name} answered {statuses}")

    return one


def run_counted(only: Sequence[str]) -> None:
    """Under callgrind: one reduce() call per scenario (each is collected and dumped)."""
    cases = chosen(scenarios(), only)
    with on_the_loop():
        for scenario in cases:
            one = request_runner(scenario)
            one(None, 0)  # warm caches outside the collected region
            functools.reduce(one, range(COUNTED_REQUESTS), None)


def chosen(cases: list[Scenario], only: Sequence[str]) -> list[Scenario]:
    """The scenarios named in ``only`` and their twins (all, where it is empty)."""
    if not only:
        return cases
    names = set(only) | {case.twin for case in cases if case.name in only}
    unknown = set(only) - {case.name for case in cases}
    if unknown:
        raise SystemExit(f"no such scenario: {', '.join(sorted(unknown))}")
    return [case for case in cases if case.name in names]


def count(cases: list[Scenario], only: Sequence[str] = ()) -> dict[str, float]:
    """Instructions per request for each of ``cases`` (those named in ``only`` and their
    twins, where given), from one callgrind run (which makes the same scenarios)."""
    cases = chosen(cases, only)
    totals = callgrind_totals([__file__, "--run-counted", *only], each_reduce=True)
    names = [scenario.name for scenario in cases]
    if len(totals) != len(names):
        raise RuntimeError(f"expected {len(names)} callgrind dumps, found {len(totals)}")
    return {name: total / COUNTED_REQUESTS for name, total in zip(names, totals, strict=True)}


def callgrind_totals(argv: list[str], *, each_reduce: bool = False) -> list[int]:
    """The instructions ``python argv...`` executes inside ``functools.reduce`` calls, under
    callgrind: one total, or one per call with ``each_reduce`` (each dumped as it returns)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            "--toggle-collect=functools_reduce",
            # Every thread's instructions count, from its start (a sync handler's thread
            # hop), each reduce() call's from its start (a thread's start-up is not a request).
            "--toggle-collect=start_thread",
            "--zero-before=functools_reduce",
            *(["--dump-after=functools_reduce"] if each_reduce else []),
            sys.executable,
            *argv,
        ]
        environment = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, env=environment, capture_output=True)
        dumps = sorted(Path(folder).glob("callgrind.out.*"), key=_part) if each_reduce else [out]
        return [_total(dump) for dump in dumps]


def _part(dump: Path) -> int:
    return int(dump.name.rsplit(".", 1)[1])


def _total(dump: Path) -> int:
    found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no total in {dump}")
    return int(found.group(1))


def timed(cases: list[Scenario]) -> dict[str, float]:
    """Median microseconds per request over ROUNDS rounds, scenarios interleaved."""
    runs: dict[str, list[float]] = {}
    runners = [(scenario.name, request_runner(scenario)) for scenario in cases]
    with on_the_loop():
        for _ in range(ROUNDS):
            for name, one in runners:
                start = time.perf_counter()
                functools.reduce(one, range(TIMED_REQUESTS), None)
                runs.setdefault(name, []).append((time.perf_counter() - start) / TIMED_REQUESTS)
    return {name: statistics.median(values) * 1e6 for name, values in runs.items()}


def print_table(cases: list[Scenario], title: str, values: dict[str, float], unit: str) -> None:
    """Each scenario beside its hand-written twin (hasten's ones; the twins at 1.00x)."""
    twins = {scenario.name: scenario.twin for scenario in cases}
    print(f"{title:<26} {unit:>12} {'vs twin':>8}  twin")
    for name, value in values.items():
        twin = name if name.startswith("raw ") else twins[name]
        print(f"{name:<26} {value:>12,.2f} {value / values[twin]:>7.2f}x  {twin}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", action="store_true", help="count instructions (callgrind)")
    parser.add_argument("--check", action="store_true", help="fail on a scenario over budget")
    parser.add_argument(
        "--tighten", action="store_true", help="lower the budgets to the counts (never raise)"
    )
    parser.add_argument(
        "only", nargs="*", help="with --count: only these scenarios (and their twins)"
    )
    parser.add_argument("--run-counted", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_counted:
        run_counted(args.only)
        return 0
    if args.only and (args.check or args.tighten):
        parser.error("--check and --tighten measure every scenario")
    cases = scenarios()
    if not (args.count or args.check or args.tighten):
        print_table(cases, "scenario", timed(chosen(cases, args.only)), "us/request")
        return 0
    counts = count(cases, args.only)
    print_table(cases, "scenario", counts, "instr/req")
    recorded = budgets.load()
    here = budgets.environment(msgspec.__version__)
    if not budgets.comparable(recorded["environment"], here):
        print(f"budgets set on {recorded['environment']}, this is {here}: not compared")
        return 1 if args.tighten else 0
    limits: dict[str, float] = recorded["budgets"]
    if args.tighten:
        limits = budgets.tightened(cases, counts, limits)
        budgets.write(limits, counts, here)
        print(f"wrote {budgets.BUDGETS.relative_to(ROOT)}")
    measured = budgets.rows(cases, counts, limits)
    print()
    budgets.print_rows(measured)
    if args.check:
        failures = budgets.failures(measured)
        for failure in failures:
            print(f"OVER BUDGET {failure}", file=sys.stderr)
        if failures:
            return 1
        print("every scenario within its budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
