"""Endpoint: a handler compiled once into ``async (Request) -> Response``.

At registration the signature is analysed, the executor chosen and the result encoder picked;
per request only argument extraction, the call and encoding remain.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import types
import typing
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Literal

import msgspec

from .errors import ValidationFailure
from .params import BodyParam, Errors, Extractor, classify, describe, unwrap
from .paths import PathTemplate
from .requests import Request
from .responses import Response
from .types import Handler

__all__ = ["Endpoint"]

RunsOn = Literal["event loop", "thread pool"]
_json_encode = msgspec.json.encode
_Render = Callable[[Any], Response]


class Endpoint:
    """A route's handler, compiled: call it with a Request, get a Response."""

    __slots__ = (
        "_body",
        "_extractors",
        "_render",
        "_request_name",
        "executor",
        "func",
        "handle",
        "runs_on",
        "status",
    )

    def __init__(self, func: Callable[..., Any], template: PathTemplate, status: int) -> None:
        self.func = func
        self.status = status
        self.runs_on: RunsOn = "event loop" if _is_async(func) else "thread pool"
        self.executor: Executor | None = None  # the app's thread pool, bound at startup
        path_params = {param.name: param for param in template.params}
        self._extractors, self._body, self._request_name = classify(func, path_params)
        self._render = _renderer(func, status)
        self.handle: Handler = self._pick_handle()

    def _pick_handle(self) -> Handler:
        # perf: a handler without parameters skips argument extraction entirely.
        plain = not self._extractors and self._body is None and self._request_name is None
        if self.runs_on == "thread pool":
            return self._call_in_thread_plain if plain else self._call_in_thread
        return self._call_async_plain if plain else self._call_async

    async def _call_async_plain(self, request: Request) -> Response:
        return self._render(await self.func())

    async def _call_async(self, request: Request) -> Response:
        return self._render(await self.func(**await self._arguments(request)))

    async def _call_in_thread_plain(self, request: Request) -> Response:
        return self._render(await self._in_thread({}))

    async def _call_in_thread(self, request: Request) -> Response:
        return self._render(await self._in_thread(await self._arguments(request)))

    def _in_thread(self, kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        call = functools.partial(contextvars.copy_context().run, self.func, **kwargs)
        return asyncio.get_running_loop().run_in_executor(self.executor, call)

    async def _arguments(self, request: Request) -> dict[str, Any]:
        errors: Errors = []
        kwargs = {name: extract(request, errors) for name, extract in self._extractors}
        if self._body is not None:
            kwargs[self._body.name] = await self._body.read(request, errors)
        if errors:
            raise ValidationFailure(errors)
        if self._request_name is not None:
            kwargs[self._request_name] = request
        return kwargs

    @property
    def body(self) -> BodyParam | None:
        return self._body

    @property
    def extractors(self) -> list[tuple[str, Extractor]]:
        return list(self._extractors)

    @property
    def name(self) -> str:
        return describe(self.func)


def _is_async(func: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(unwrap(func))


def _renderer(func: Callable[..., Any], status: int) -> _Render:
    """Pick the result encoder from the return annotation; fall back to the value's type."""
    try:
        returns = typing.get_type_hints(unwrap(func)).get("return", Any)
    except Exception:
        returns = Any
    if status == 204:
        return _render_empty
    if isinstance(returns, type) and issubclass(returns, Response):
        return _passthrough
    if returns is str:
        return _render_as(status, "text/plain")
    if returns is bytes:
        return _render_as(status, "application/octet-stream")
    if returns is Any or typing.get_origin(returns) in (typing.Union, types.UnionType):
        return functools.partial(_render_any, status=status)
    return _render_json(status)


def _render_empty(result: Any) -> Response:
    return result if isinstance(result, Response) else Response(b"", 204)


def _passthrough(result: Any) -> Response:
    return result  # type: ignore[no-any-return]


def _render_json(status: int) -> _Render:
    def render_json(result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return Response(_json_encode(result), status, None, "application/json")

    return render_json


def _render_as(status: int, media_type: str) -> _Render:
    def render(result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return Response(result, status, None, media_type)

    return render


def _render_any(result: Any, status: int) -> Response:
    if isinstance(result, Response):
        return result
    if isinstance(result, str):
        return Response(result, status)
    if isinstance(result, bytes):
        return Response(result, status, None, "application/octet-stream")
    return Response(_json_encode(result), status, None, "application/json")
