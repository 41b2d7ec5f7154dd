"""The example app: every feature of the core, small enough to read in one sitting.

Serve it with ``./scripts/serve``, ``hasten run examples.hello:app`` (Granian, RSGI) or
``uvicorn examples.hello:app``, then open http://127.0.0.1:8000/: it links to every route.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import msgspec

from hasten import App, HTMLResponse, HTTPError, Request, Response, Router

app = App(title="hasten example")  # the docs page is "hasten example - Swagger UI"
started: list[str] = []


@app.on_startup
async def connect() -> None:
    started.append("connected")


# What / links to: a URL for each GET route (tests/project/test_examples.py holds the two together).
TRY = (
    "/hello",
    "/items/3?q=x",
    "/typed/7",
    "/files/notes/today.txt",
    "/wait",
    "/teapot",
    "/fail",
    "/raw",
    "/api/users/1",
)


@app.get("/", include_in_schema=False)
async def index() -> HTMLResponse:
    """Where a newcomer lands: a link to each route, and to the docs page (POST /orders)."""
    links = "".join(f'<li><a href="{url}">{url}</a></li>' for url in TRY)
    return HTMLResponse(
        "<!doctype html><title>hasten: examples/hello.py</title>"
        "<h1>hello from hasten</h1><p>examples/hello.py answers at:</p>"
        f'<ul>{links}</ul><p><a href="/docs">/docs</a>: every route, to try in the browser.</p>'
    )


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/items/{item_id}")
async def item(item_id: int, q: str | None = None, limit: int = 10) -> dict[str, object]:
    return {"id": item_id, "q": q, "limit": limit}


@app.get("/typed/{n:int}")
async def typed(n: int) -> dict[str, int]:
    return {"n": n, "double": n * 2}


@app.get("/files/{path:path}")
async def files(path: str) -> str:
    return f"file: {path}"


class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


@app.post("/orders", status=201)
async def create(order: Order) -> Order:
    return order


@app.get("/wait")
def wait() -> dict[str, float]:
    time.sleep(0.05)
    return {"duration": 0.05}


@app.get("/fail")
async def fail() -> dict[str, str]:
    raise RuntimeError("secret internals")


@app.get("/teapot")
async def teapot() -> dict[str, str]:
    raise HTTPError(418, "I'm a teapot")


@app.middleware
async def process_time(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    start = time.perf_counter()
    response = await call_next(request)
    response.headers["x-process-time"] = f"{time.perf_counter() - start:.6f}"
    return response


api = Router(prefix="/api")


@api.get("/users/{id}")
async def user(id: int) -> dict[str, int]:
    return {"id": id}


app.include(api)


@app.get("/raw")
async def raw(request: Request) -> Response:
    return Response(b"raw-body", status=202, media_type="text/plain", headers={"x-custom": "1"})
