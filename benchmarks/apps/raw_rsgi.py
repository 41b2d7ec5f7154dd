"""The limit under RSGI: a hand-written Granian RSGI app serving every benchmark scenario.

It does the least work that still answers correctly: a dict lookup for the static paths, a
hand split for ``/items/{id}`` and ``/rN/{id}``, msgspec for JSON in and out, 404 for unknown
paths, 405 for a wrong method, 422 for a bad int, query parameter or order. ``app_mw`` is the
same behind three hand-written middlewares, each adding one response header.

Serve with ``granian --interface rsgi benchmarks.apps.raw_rsgi:app``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import msgspec

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05


class Order(msgspec.Struct):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


Headers = list[tuple[str, str]]
Reply = tuple[int, Headers, bytes]
Endpoint = Callable[[Any, Any], Awaitable[Reply]]  # (scope, proto) -> Reply

_encode = msgspec.json.encode
_decode_order = msgspec.json.Decoder(Order).decode
_JSON: Headers = [("content-type", "application/json")]
_NOT_FOUND: Reply = (404, _JSON, b'{"detail":"Not Found"}')
_NOT_ALLOWED: Reply = (405, _JSON, b'{"detail":"Method Not Allowed"}')
_BAD_INT: Reply = (422, _JSON, b'{"detail":"id must be an int"}')
_BOOLS = {"true": True, "1": True, "false": False, "0": False}
_NUMBERED = {f"r{n}": n for n in range(ROUTE_COUNT)}  # "r17" -> 17


def _invalid(message: str) -> Reply:
    return 422, _JSON, _encode({"detail": message})


async def _hello(scope: Any, proto: Any) -> Reply:
    return 200, _JSON, _encode({"message": "hello"})


async def _query(scope: Any, proto: Any) -> Reply:
    params = dict(parse_qsl(scope.query_string))
    try:
        echo = {
            "page": int(params.get("page", 1)),
            "size": int(params.get("size", 10)),
            "ratio": float(params.get("ratio", 1.0)),
            "active": _BOOLS[params.get("active", "false").lower()],
            "q": params.get("q", ""),
        }
    except (KeyError, ValueError):
        return _invalid("invalid query parameter")
    return 200, _JSON, _encode(echo)


async def _orders(scope: Any, proto: Any) -> Reply:
    try:
        order = _decode_order(await proto())
    except msgspec.ValidationError as exc:
        return _invalid(str(exc))
    except msgspec.DecodeError:
        return 400, _JSON, b'{"detail":"Malformed JSON body"}'
    return 201, _JSON, _encode(order)


def _sync_hello() -> dict[str, str]:
    return {"message": "hello"}


async def _sync(scope: Any, proto: Any) -> Reply:
    # A plain def handler runs on the loop's default thread pool, as the frameworks do.
    result = await asyncio.get_running_loop().run_in_executor(None, _sync_hello)
    return 200, _JSON, _encode(result)


async def _blocking(scope: Any, proto: Any) -> Reply:
    await asyncio.get_running_loop().run_in_executor(None, time.sleep, SLEEP_SECONDS)
    return 200, _JSON, _encode({"slept": SLEEP_SECONDS})


_STATIC: dict[str, tuple[str, Endpoint]] = {
    "/hello": ("GET", _hello),
    "/query": ("GET", _query),
    "/orders": ("POST", _orders),
    "/sync": ("GET", _sync),
    "/blocking": ("GET", _blocking),
}


def _parse_int(text: str) -> int | None:
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isascii() and digits.isdigit() else None


def _with_id(method: str, path: str) -> Reply:
    """``/items/{id}`` and ``/rN/{id}``: split by hand, N looked up in a dict."""
    parts = path.split("/")
    if len(parts) != 3:
        return _NOT_FOUND
    head, raw_id = parts[1], parts[2]
    route = None
    if head != "items":
        route = _NUMBERED.get(head)
        if route is None:
            return _NOT_FOUND
    if method != "GET":
        return _NOT_ALLOWED
    item_id = _parse_int(raw_id)
    if item_id is None:
        return _BAD_INT
    if route is None:
        return 200, _JSON, _encode({"id": item_id})
    return 200, _JSON, _encode({"route": route, "id": item_id})


async def dispatch(scope: Any, proto: Any) -> Reply:
    static = _STATIC.get(scope.path)
    if static is None:
        return _with_id(scope.method, scope.path)
    method, endpoint = static
    if scope.method != method:
        return _NOT_ALLOWED
    return await endpoint(scope, proto)


def add_header(name: str, value: str, call_next: Endpoint) -> Endpoint:
    """A middleware: ``call_next``'s reply with one more header."""

    async def middleware(scope: Any, proto: Any) -> Reply:
        status, headers, body = await call_next(scope, proto)
        return status, [*headers, (name, value)], body

    return middleware


class RawRSGI:
    """An RSGI app: the endpoint's reply, sent in one ``response_bytes``."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        status, headers, body = await self.endpoint(scope, proto)
        proto.response_bytes(status, headers, body)


app = RawRSGI(dispatch)
app_mw = RawRSGI(
    add_header("x-mw-1", "1", add_header("x-mw-2", "2", add_header("x-mw-3", "3", dispatch)))
)
