"""Endpoint: a handler compiled once into ``async (Request) -> Response``.

At registration the signature is analysed, the executor chosen and the result encoder picked;
per request only argument extraction, the call and encoding remain.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import inspect
import pickle
import types
import typing
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from .errors import ValidationFailure
from .overload import ConcurrencyLimit, Deadline
from .params import BodyParam, Errors, Extractor, classify, describe, unwrap
from .paths import PathTemplate
from .pools import Pools, call_in_child
from .requests import Request
from .responses import Response, build_response
from .types import Handler, Target, passthrough

__all__ = ["Endpoint", "RouteOptions", "RunsOn"]

RunsOn = Literal["event loop", "thread pool", "process pool", "executor"]
Offload = Literal["process"]
_json_encode = msgspec.json.encode
_Render = Callable[[Any], Response]


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteOptions:
    """How a route's handler runs, given as keywords to ``app.get(...)`` and friends."""

    status: int = 200
    offload: Offload | None = None
    executor: Executor | None = None
    max_concurrency: int | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        if self.offload not in (None, "process"):
            raise ValueError(f"offload must be 'process' or None, not {self.offload!r}")
        if self.offload is not None and self.executor is not None:
            raise ValueError("Give offload='process' or executor=, not both")
        if self.executor is not None and not isinstance(self.executor, Executor):
            raise TypeError(
                f"executor must be a concurrent.futures.Executor, not {self.executor!r}"
            )
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, not {self.max_concurrency}")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")


class Endpoint:
    """A route's handler, compiled: ``endpoint.target`` serves it (see Target).

    The signature is analysed at registration; at startup ``bound`` attaches the app's pools
    and wraps the limits (timeout, max_concurrency) the route asked for.
    """

    __slots__ = (
        "_body",
        "_extractors",
        "_invoke",
        "_pools",
        "_render",
        "_request_name",
        "_run",
        "_takes_arguments",
        "func",
        "options",
        "runs_on",
        "target",
    )

    def __init__(
        self, func: Callable[..., Any], template: PathTemplate, options: RouteOptions
    ) -> None:
        self.func = func
        self.options = options
        self.runs_on = _runs_on(func, options)
        path_params = {param.name: param for param in template.params}
        self._extractors, self._body, self._request_name = classify(func, path_params)
        self._takes_arguments = bool(
            self._extractors or self._body is not None or self._request_name is not None
        )
        if self.runs_on == "process pool":
            _check_offloadable(func, self._request_name)
        self._render = _renderer(func, options.status)
        self._pools: Pools | None = None
        self._run = self._runner()
        self._invoke = self._invoker()
        self.target = Target(self._unbound, passthrough)

    @property
    def status(self) -> int:
        return self.options.status

    def bound(self, pools: Pools, label: str) -> Endpoint:
        """A copy of this endpoint attached to one app's pools, its ``handle`` built (a router
        included in two apps serves each with that app's pools); ``label`` names the route."""
        if self.runs_on == "process pool":
            _check_picklable(self.func)
        endpoint = copy.copy(self)
        endpoint._pools = pools
        # Bound methods of the copy, not of self.
        endpoint._run = endpoint._runner()
        endpoint._invoke = endpoint._invoker()
        endpoint.target = endpoint._make_target(label)
        return endpoint

    async def handle(self, request: Request) -> Response:
        """Serve one request (once bound): the handler's result, rendered."""
        invoke, render = self.target
        return render(await invoke(request))

    def _make_target(self, label: str) -> Target:
        if self.options.timeout is None and self.options.max_concurrency is None:
            return Target(self._invoke, self._render)
        handler: Handler = self._handle_unlimited
        if self.options.timeout is not None:
            handler = Deadline(handler, self.options.timeout)
        if self.options.max_concurrency is not None:
            handler = ConcurrencyLimit(handler, self.options.max_concurrency, label)
        return Target(handler, passthrough)

    async def _handle_unlimited(self, request: Request) -> Response:
        return self._render(await self._invoke(request))

    def _invoker(self) -> Callable[[Request], Awaitable[Any]]:
        # perf: for the common shapes invoke is a plain function handing back the handler's
        # own coroutine or future: no coroutine of ours per request (benchmarks/overhead.py).
        if self._body is not None:
            return self._invoke_with_body
        if self.runs_on == "event loop":
            return self._invoke_on_loop if self._takes_arguments else self._invoke_plain
        return self._invoke_off_loop

    async def _unbound(self, request: Request) -> Response:
        raise RuntimeError(f"{self.name} is not bound to a started app")

    def _invoke_plain(self, request: Request) -> Awaitable[Any]:
        result: Awaitable[Any] = self.func()
        return result

    def _invoke_on_loop(self, request: Request) -> Awaitable[Any]:
        result: Awaitable[Any] = self.func(**self._extracted(request))
        return result

    def _invoke_off_loop(self, request: Request) -> Awaitable[Any]:
        return self._run(self._extracted(request))

    async def _invoke_with_body(self, request: Request) -> Any:
        return await self._run(await self._arguments(request))

    def _runner(self) -> Callable[[dict[str, Any]], Awaitable[Any]]:
        return {
            "event loop": self._on_loop,
            "thread pool": self._in_thread,
            "process pool": self._in_process,
            "executor": self._on_executor,
        }[self.runs_on]

    def _on_loop(self, kwargs: dict[str, Any]) -> Awaitable[Any]:
        result: Awaitable[Any] = self.func(**kwargs)
        return result

    def _in_thread(self, kwargs: dict[str, Any]) -> Awaitable[Any]:
        assert self._pools is not None
        call = functools.partial(contextvars.copy_context().run, self.func, **kwargs)
        return asyncio.wrap_future(self._pools.threads.submit(call))

    def _in_process(self, kwargs: dict[str, Any]) -> Awaitable[Any]:
        assert self._pools is not None
        return asyncio.wrap_future(self._pools.processes.submit(call_in_child, self.func, kwargs))

    def _on_executor(self, kwargs: dict[str, Any]) -> Awaitable[Any]:
        assert self.options.executor is not None
        return asyncio.wrap_future(self.options.executor.submit(call_in_child, self.func, kwargs))

    def _collect(self, request: Request, errors: Errors) -> dict[str, Any]:
        """The arguments from the path, the query and the request itself; failures go to
        ``errors``."""
        kwargs: dict[str, Any] = {}
        for name, extract in self._extractors:
            kwargs[name] = extract(request, errors)
        if self._request_name is not None:
            kwargs[self._request_name] = request
        return kwargs

    def _extracted(self, request: Request) -> dict[str, Any]:
        """Every argument of a handler without a body; one 422 names every bad value."""
        if not self._takes_arguments:
            return {}
        errors: Errors = []
        kwargs = self._collect(request, errors)
        if errors:
            raise ValidationFailure(errors)
        return kwargs

    async def _arguments(self, request: Request) -> dict[str, Any]:
        """Every argument, the JSON body included; one 422 names every bad value."""
        if self._body is None:
            return self._extracted(request)
        errors: Errors = []
        kwargs = self._collect(request, errors)
        kwargs[self._body.name] = await self._body.read(request, errors)
        if errors:
            raise ValidationFailure(errors)
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


def _runs_on(func: Callable[..., Any], options: RouteOptions) -> RunsOn:
    if options.offload == "process":
        return "process pool"
    if options.executor is not None:
        return "executor"
    return "event loop" if _is_async(func) else "thread pool"


def _check_offloadable(func: Callable[..., Any], request_name: str | None) -> None:
    where = describe(func)
    qualname = getattr(unwrap(func), "__qualname__", "")
    if "<lambda>" in qualname or "<locals>" in qualname:
        raise TypeError(
            f"{where} cannot run with offload='process': a lambda, closure or nested function "
            "cannot be pickled to a worker process. Define it at module level."
        )
    if request_name is not None:
        raise TypeError(
            f"{where} cannot run with offload='process' and take the Request (it stays in this "
            "process): take the values it needs as parameters instead."
        )


def _check_picklable(func: Callable[..., Any]) -> None:
    try:
        pickle.dumps(func)
    except Exception as exc:
        raise TypeError(
            f"{describe(func)} cannot run with offload='process': it cannot be pickled ({exc}). "
            "Define it at module level, under the name it is registered with."
        ) from exc


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
        return passthrough
    if returns is str:
        return _render_as(status, "text/plain")
    if returns is bytes:
        return _render_as(status, "application/octet-stream")
    if returns is Any or typing.get_origin(returns) in (typing.Union, types.UnionType):
        return functools.partial(_render_any, status=status)
    return _render_json(status)


def _render_empty(result: Any) -> Response:
    return result if isinstance(result, Response) else Response(b"", 204)


def _render_json(status: int) -> _Render:
    def render_json(result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return build_response(_json_encode(result), status, "application/json")

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
