"""Starlette's implementation of the TFB test types (see ``app.py`` for the list).

Written as Starlette's docs show: a list of ``Route``s, endpoints taking a ``Request`` and
returning ``JSONResponse``/``PlainTextResponse``, a ``lifespan`` that opens the pool into
``app.state``, and ``Jinja2Templates.TemplateResponse`` for fortunes. The database work and the
rules for ``queries`` are ``db.py``'s, shared by every implementation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from benchmarks.tfb import db

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


async def json(request: Request) -> JSONResponse:
    return JSONResponse({"message": "Hello, World!"})


async def plaintext(request: Request) -> PlainTextResponse:
    return PlainTextResponse("Hello, World!")


async def single_query(request: Request) -> JSONResponse:
    async with request.app.state.pool.acquire() as connection:
        return JSONResponse(await db.read_world(connection))


async def queries(request: Request) -> JSONResponse:
    ids = db.random_ids(db.clamp(request.query_params.get("queries")))
    async with request.app.state.pool.acquire() as connection:
        return JSONResponse(await db.read_worlds(connection, ids))


async def fortunes(request: Request) -> Response:
    async with request.app.state.pool.acquire() as connection:
        rows = await db.read_fortunes(connection)
    return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})


async def updates(request: Request) -> JSONResponse:
    count = db.clamp(request.query_params.get("queries"))
    async with request.app.state.pool.acquire() as connection:
        return JSONResponse(await db.update_worlds(connection, count))


async def cached_queries(request: Request) -> JSONResponse:
    worlds = request.app.state.worlds
    ids = db.random_ids(db.clamp(request.query_params.get("count")))
    return JSONResponse([worlds[row_id] for (row_id,) in ids])


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    app.state.pool = await db.create_pool()
    app.state.worlds = await db.world_cache(app.state.pool)
    yield
    await app.state.pool.close()


app = Starlette(
    routes=[
        Route("/json", json),
        Route("/plaintext", plaintext),
        Route("/db", single_query),
        Route("/queries", queries),
        Route("/fortunes", fortunes),
        Route("/updates", updates),
        Route("/cached-queries", cached_queries),
    ],
    lifespan=lifespan,
)
