"""The limit under RSGI: the TFB test types as a hand-written Granian RSGI app, no framework.

A dict from path to handler, each answering with one ``response_bytes``; the database work,
the template and the rules for ``queries`` are the same as every framework's here (``db.py``,
``templates/fortunes.html`` rendered by Jinja2 directly). ``Server`` and ``Date`` come from
Granian. Serve with ``granian --interface rsgi benchmarks.tfb.raw_rsgi:app``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import asyncpg
import jinja2
import msgspec

from benchmarks.tfb import db

Headers = list[tuple[str, str]]
JSON: Headers = [("content-type", "application/json")]
TEXT: Headers = [("content-type", "text/plain; charset=utf-8")]
HTML: Headers = [("content-type", "text/html; charset=utf-8")]

encode = msgspec.json.encode
template = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True
).get_template("fortunes.html")


class Resources:
    """What the worker opens at start: the pool, and the cache of World rows."""

    pool: asyncpg.Pool
    worlds: dict[int, dict[str, int]]


resources = Resources()


def count(scope: Any, name: str) -> int:
    values = parse_qs(scope.query_string).get(name)
    return db.clamp(values[-1] if values else None)


async def plaintext(scope: Any, proto: Any) -> None:
    proto.response_bytes(200, TEXT, b"Hello, World!")


async def json(scope: Any, proto: Any) -> None:
    proto.response_bytes(200, JSON, encode({"message": "Hello, World!"}))


async def single_query(scope: Any, proto: Any) -> None:
    async with resources.pool.acquire() as connection:
        world = await db.read_world(connection)
    proto.response_bytes(200, JSON, encode(world))


async def queries(scope: Any, proto: Any) -> None:
    ids = db.random_ids(count(scope, "queries"))
    async with resources.pool.acquire() as connection:
        result = await db.read_worlds(connection, ids)
    proto.response_bytes(200, JSON, encode(result))


async def fortunes(scope: Any, proto: Any) -> None:
    async with resources.pool.acquire() as connection:
        rows = await db.read_fortunes(connection)
    proto.response_str(200, HTML, template.render(fortunes=rows))


async def updates(scope: Any, proto: Any) -> None:
    async with resources.pool.acquire() as connection:
        result = await db.update_worlds(connection, count(scope, "queries"))
    proto.response_bytes(200, JSON, encode(result))


async def cached_queries(scope: Any, proto: Any) -> None:
    ids = db.random_ids(count(scope, "count"))
    worlds = resources.worlds
    proto.response_bytes(200, JSON, encode([worlds[row_id] for (row_id,) in ids]))


async def not_found(scope: Any, proto: Any) -> None:
    proto.response_bytes(404, TEXT, b"Not Found")


ROUTES: dict[str, Callable[[Any, Any], Awaitable[None]]] = {
    "/plaintext": plaintext,
    "/json": json,
    "/db": single_query,
    "/queries": queries,
    "/fortunes": fortunes,
    "/updates": updates,
    "/cached-queries": cached_queries,
}


async def start() -> None:
    resources.pool = await db.create_pool()
    resources.worlds = await db.world_cache(resources.pool)


class App:
    """The RSGI app: the pool opens in ``__rsgi_init__``, before the first request."""

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(start())

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(resources.pool.close())

    def __rsgi__(self, scope: Any, proto: Any) -> Awaitable[None]:
        return ROUTES.get(scope.path, not_found)(scope, proto)


app = App()
