"""Endpoint: a handler compiled once, from its parameter descriptions to its renderer.

At registration the signature becomes ``Parameter`` descriptions, the descriptions become
extractors, the executor is chosen and the renderer picked from the return annotation. At
startup ``bind`` attaches one app's pools and the route's limits, giving the Target the router
serves; per request only extraction, the call and rendering remain.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import pickle
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import ValidationFailure
from .extractors import BodyReader, Errors, Extractor, extractor
from .overload import ConcurrencyLimit, Deadline
from .params import Parameter, describe, describe_handler, unwrap
from .paths import PathTemplate
from .pools import Pools, call_in_child
from .renderers import Renderer, renderer_for
from .requests import Request
from .types import Invoke, Target

__all__ = ["Endpoint", "Offload", "RouteOptions", "RunsOn"]

RunsOn = Literal["event loop", "thread pool", "process pool", "executor"]
Offload = Literal["process"]
Run = Callable[[dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteOptions:
    """How a route's handler runs, and how OpenAPI documents it, given as keywords to
    ``app.get(...)`` and friends."""

    status: int = 200
    offload: Offload | None = None
    executor: Executor | None = None
    max_concurrency: int | None = None
    timeout: float | None = None
    # OpenAPI only (FastAPI's names); read when the document is generated, never per request.
    tags: Sequence[str] = ()
    summary: str | None = None
    description: str | None = None
    response_description: str = "Successful Response"
    responses: Mapping[int | str, Mapping[str, Any]] = field(default_factory=dict)
    deprecated: bool = False
    operation_id: str | None = None
    include_in_schema: bool = True
    openapi_extra: Mapping[str, Any] | None = None

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
    """A route's handler, described and compiled; shared by every app that includes it."""

    __slots__ = ("_body", "_extractors", "func", "name", "options", "parameters", "renderer")

    def __init__(
        self, func: Callable[..., Any], template: PathTemplate, options: RouteOptions
    ) -> None:
        self.func = func
        self.options = options
        self.name = describe_handler(func)
        path_types = {param.name: param.converter.python_type for param in template.params}
        self.parameters: tuple[Parameter, ...] = describe(func, frozenset(path_types))
        self._extractors: tuple[tuple[str, Extractor], ...] = tuple(
            (parameter.name, extractor(parameter, path_types.get(parameter.name)))
            for parameter in self.parameters
            if parameter.source != "body"
        )
        bodies = [parameter for parameter in self.parameters if parameter.source == "body"]
        self._body = BodyReader(bodies) if bodies else None
        if self.runs_on == "process pool":
            _check_offloadable(func, self.parameters)
        self.renderer: Renderer = renderer_for(_returns(func), options.status, self.name)

    @property
    def runs_on(self) -> RunsOn:
        """Where the handler runs: decided by its kind and the route's options."""
        if self.options.offload == "process":
            return "process pool"
        if self.options.executor is not None:
            return "executor"
        return "event loop" if inspect.iscoroutinefunction(unwrap(self.func)) else "thread pool"

    def bind(self, pools: Pools, label: str) -> Target:
        """The Target that serves this endpoint in one started app: its pools attached, the
        route's timeout and concurrency limit (``label`` names it in a 503) wrapped around."""
        if self.runs_on == "process pool":
            _check_picklable(self.func)
        invoke = self._invoker(self._runner(pools))
        takes_request = bool(self.parameters)
        if not takes_request and (
            type(self.renderer) is Renderer or self.options.timeout is not None
        ):
            # It may return a Response, which is sent with the Request it answers (a file
            # reads the conditional headers), or its deadline watches the client: it gets the
            # Request. A handler that returns data needs none.
            invoke = _ignoring_request(invoke)
            takes_request = True
        if self.options.timeout is not None:
            invoke = Deadline(invoke, self.options.timeout)
        if self.options.max_concurrency is not None:
            invoke = ConcurrencyLimit(invoke, self.options.max_concurrency, label)
        return Target(self.name, invoke, self.renderer, takes_request)

    def _runner(self, pools: Pools) -> Run:
        func = self.func
        runs_on = self.runs_on
        if runs_on == "event loop":
            return lambda kwargs: func(**kwargs)
        if runs_on == "thread pool":
            threads = pools.threads

            def in_thread(kwargs: dict[str, Any]) -> Awaitable[Any]:
                call = functools.partial(contextvars.copy_context().run, func, **kwargs)
                return asyncio.wrap_future(threads.submit(call))

            return in_thread
        executor = pools.processes if runs_on == "process pool" else self.options.executor
        assert executor is not None
        return lambda kwargs: asyncio.wrap_future(executor.submit(call_in_child, func, kwargs))

    def _invoker(self, run: Run) -> Invoke:
        # perf: for the common shapes invoke is a plain function handing back the handler's
        # own coroutine or future: no coroutine of ours per request (benchmarks/overhead.py).
        func = self.func
        if self._body is not None:
            arguments = self._arguments_with_body

            async def invoke_with_body(request: Request) -> Any:
                return await run(await arguments(request))

            return invoke_with_body
        if not self.parameters:
            # perf: a handler without parameters is called with nothing: an async one is its
            # own invoke.
            return func if self.runs_on == "event loop" else lambda: run({})
        arguments_now = self._arguments
        if self.runs_on == "event loop":
            return lambda request: func(**arguments_now(request))
        return lambda request: run(arguments_now(request))

    def _collect(self, request: Request, errors: Errors) -> dict[str, Any]:
        # perf: a loop, not a comprehension (a function call of its own on Python 3.11).
        kwargs = {}
        for name, extract in self._extractors:
            kwargs[name] = extract(request, errors)
        return kwargs

    def _arguments(self, request: Request) -> dict[str, Any]:
        """Every argument of a handler without a body; one 422 names every bad value."""
        errors: Errors = []
        kwargs = self._collect(request, errors)
        if errors:
            raise ValidationFailure(errors)
        return kwargs

    async def _arguments_with_body(self, request: Request) -> dict[str, Any]:
        """Every argument, the JSON body included; one 422 names every bad value."""
        assert self._body is not None
        errors: Errors = []
        kwargs = self._collect(request, errors)
        kwargs.update(await self._body.read(request, errors))
        if errors:
            raise ValidationFailure(errors)
        return kwargs


def _ignoring_request(invoke: Invoke) -> Invoke:
    def invoke_without_request(request: Request) -> Awaitable[Any]:
        return invoke()

    return invoke_without_request


def _returns(func: Callable[..., Any]) -> Any:
    try:
        return typing.get_type_hints(unwrap(func)).get("return", Any)
    except Exception:
        return Any


def _check_offloadable(func: Callable[..., Any], parameters: tuple[Parameter, ...]) -> None:
    where = describe_handler(func)
    qualname = getattr(unwrap(func), "__qualname__", "")
    if "<lambda>" in qualname or "<locals>" in qualname:
        raise TypeError(
            f"{where} cannot run with offload='process': a lambda, closure or nested function "
            "cannot be pickled to a worker process. Define it at module level."
        )
    if any(parameter.source == "request" for parameter in parameters):
        raise TypeError(
            f"{where} cannot run with offload='process' and take the Request (it stays in this "
            "process): take the values it needs as parameters instead."
        )


def _check_picklable(func: Callable[..., Any]) -> None:
    try:
        pickle.dumps(func)
    except Exception as exc:
        raise TypeError(
            f"{describe_handler(func)} cannot run with offload='process': it cannot be pickled "
            f"({exc}). Define it at module level, under the name it is registered with."
        ) from exc
