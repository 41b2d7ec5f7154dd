"""Endpoint: a handler described once, from its parameters to its renderer.

At registration the signature becomes ``Parameter`` descriptions, the executor is chosen and
the renderer picked from the return annotation. At startup ``bind`` compiles the handler's
plan (``plan.py``) for one app, with its pools and the route's limits, giving the Target the
router serves; per request only reading values, the call and rendering remain.
"""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Literal

from hasten._flow.context import ServeContext
from hasten._flow.contracts import Instrumentation, Invoke, Render, Target
from hasten._flow.overload import ConcurrencyLimit, Deadline
from hasten._http.json_out import encoder_for
from hasten._http.jsonable import untyped_json
from hasten._http.paths import PathTemplate
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._http.uploads import UploadFile
from hasten._http.wire import BODY_STATUSES
from hasten._params.dependencies import (
    ASYNC,
    SYNC,
    AppDependencies,
    call_kind,
    collect,
    describe_dependency,
)
from hasten._params.descriptions import Parameter, describe, describe_handler, unwrap
from hasten._params.markers import REQUEST_SOURCES, Dependency
from hasten._params.models import DumpOptions, IncEx, ResponseModel, response_model_for
from hasten._params.plan import Plan, Run
from hasten._params.renderers import (
    ClassRenderer,
    ModelRenderer,
    Renderer,
    StreamRenderer,
    renderer_for,
)
from hasten._running.pools import Pools, call_in_child, waited
from hasten._running.threads import handoff
from hasten._settings import check_body_size, check_form_limits

__all__ = ["UNSET", "Endpoint", "Offload", "RouteOptions", "RunsOn", "check_dependencies"]

# ``response_model`` not given: the return annotation is the response model.
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()

RunsOn = Literal["event loop", "thread pool", "process pool", "executor"]
Offload = Literal["process"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteOptions:
    """How a route's handler runs, and how OpenAPI documents it, given as keywords to
    ``app.get(...)`` and friends."""

    status: int = 200
    # What url_for calls the route (None: its handler's name), as FastAPI's ``name=``.
    name: str | None = None
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
    callbacks: Sequence[Any] = ()
    generate_unique_id_function: Callable[[Any], str] | None = None
    # Depends() run before the handler (their values unused), as FastAPI's.
    dependencies: Sequence[Any] = ()
    # What the client may see of the result (None: as returned); UNSET: the return annotation.
    response_model: Any = UNSET
    validate_response: bool = False
    # The Response class a result that is not a Response is built into (FastAPI's
    # ``response_class=``); None: the router's or app's default, else JSON by the result's type.
    response_class: type[Response] | None = None
    # How the response model is dumped (FastAPI's names): by alias, and what to leave out.
    response_model_include: IncEx | None = None
    response_model_exclude: IncEx | None = None
    response_model_by_alias: bool = True
    response_model_exclude_unset: bool = False
    response_model_exclude_defaults: bool = False
    response_model_exclude_none: bool = False
    # The route's own limits (FastAPI's names; None and empty: its routers', else the app's).
    max_body_size: int | None = None
    form_limits: Mapping[str, int] = field(default_factory=dict)
    strict_content_type: bool | None = None

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
        check_body_size(self.max_body_size, "route")
        check_form_limits(self.form_limits, "route")


class Endpoint:
    """A route's handler, described and compiled; shared by every app that includes it."""

    __slots__ = (
        "_dependencies",
        "_path_types",
        "func",
        "name",
        "options",
        "parameters",
        "renderer",
        "request_parameters",
        "response_model",
        "security",
        "stream_item",
        "template",
    )

    def __init__(
        self, func: Callable[..., Any], template: PathTemplate, options: RouteOptions
    ) -> None:
        self.func = func
        self.options = options
        self.template = template
        self.name = describe_handler(func)
        path_types = {param.name: param.converter.python_type for param in template.params}
        self._path_types = path_types
        path_names = frozenset(path_types)
        self.parameters: tuple[Parameter, ...] = describe(func, path_names, takes_path=False)
        self._dependencies = check_dependencies(options.dependencies, self.name)
        # Every request value the handler and its dependencies read (deduplicated): what a
        # 422 can name and what OpenAPI documents; and the security schemes among them.
        self.request_parameters, self.security = collect(
            self.parameters, self._dependencies, path_names
        )
        _check_tree(self.name, self.parameters, self.request_parameters, path_names)
        if self.runs_on == "process pool":
            _check_offloadable(func, self.parameters)
        returns = _returns(func)
        # A generator handler streams what it yields; its annotation names one item.
        self.stream_item: Any = _stream_item(func, returns)
        if self.stream_item is not None:
            returns = self.stream_item
        model = returns if options.response_model is UNSET else options.response_model
        # The type of what is sent, for OpenAPI: the response model, else the annotation.
        self.response_model: Any = returns if model is None else model
        response = None
        if model:
            response = response_model_for(model, options.validate_response, _dump_options(options))
        self.renderer: Renderer = self._renderer(returns, response)

    def _renderer(self, returns: Any, response: ResponseModel | None) -> Renderer:
        options = self.options
        prepare = None if response is None or not _renders_json(returns) else response.prepare
        # Whether a result may hold bytes read from the request (see hasten._http.json_out).
        reads_bytes = any(_reads_bytes(parameter) for parameter in self.request_parameters)
        if self.stream_item is not None:
            # An item type not declared at all (no annotation, or a bare ``AsyncIterator``) is
            # written as FastAPI writes it; ``Any`` declared is written as any JSON.
            undeclared = not typing.get_args(_returns(self.func))
            encode = encoder_for(self.response_model, reads_bytes)
            encode = _item_encoder(returns, response, encode, undeclared=undeclared)
            return StreamRenderer(options.status, options.response_class, encode)
        if options.response_class is not None:
            # 200 is the default: a class with its own (a redirect's 307) keeps it.
            status = None if options.status == 200 else options.status
            str_as_is = response is not None and response.keeps(str)
            return ClassRenderer(status, options.response_class, prepare, str_as_is=str_as_is)
        if response is not None and prepare is not None:
            return ModelRenderer(options.status, response, reads_bytes)
        declared = "return" in getattr(unwrap(self.func), "__annotations__", {})
        return renderer_for(returns, options.status, self.name, reads_bytes, declared=declared)

    def under(self, template: PathTemplate, options: RouteOptions | None = None) -> Endpoint:
        """This endpoint at ``template`` (its path under a prefix), with ``options`` (what its
        routers gave it): described again where the prefix brings path parameters, which
        change where values come from, or where the options changed."""
        options = self.options if options is None else options
        if template.names == self.template.names and options is self.options:
            return self
        return Endpoint(self.func, template, options)

    def request_parameters_with(self, dependencies: Sequence[Dependency]) -> tuple[Parameter, ...]:
        """``request_parameters`` with ``dependencies`` (a router's, the app's) run first."""
        if not dependencies:
            return self.request_parameters
        return collect(self.parameters, (*dependencies, *self._dependencies), self._names())[0]

    def security_with(
        self, dependencies: Sequence[Dependency]
    ) -> list[tuple[Any, tuple[str, ...]]]:
        """``security`` with ``dependencies`` (a router's, the app's) run first."""
        if not dependencies:
            return self.security
        return collect(self.parameters, (*dependencies, *self._dependencies), self._names())[1]

    def _names(self) -> frozenset[str]:
        return frozenset(self._path_types)

    @property
    def runs_on(self) -> RunsOn:
        """Where the handler runs: decided by its kind and the route's options."""
        if self.options.offload == "process":
            return "process pool"
        if self.options.executor is not None:
            return "executor"
        return "event loop" if call_kind(self.func) == ASYNC else "thread pool"

    def bind(
        self,
        pools: Pools,
        label: str,
        dependencies: Sequence[Dependency] = (),
        app: AppDependencies | None = None,
        context: ServeContext | None = None,
        *,
        websocket: bool = False,
    ) -> Target:
        """The Target that serves this endpoint in one started app: its pools attached, its
        plan compiled (``dependencies``: its routers' and the app's, run first; ``app``: the
        app's overrides and app-scoped values), the route's own limits given to its requests
        (over ``context``, the app's), its timeout and concurrency limit (``label`` names it
        in a 503) wrapped around. ``websocket``: the endpoint serves a WebSocket route."""
        if self.runs_on == "process pool":
            _check_picklable(self.func)
        telemetry = None if context is None else context.telemetry
        plan = Plan(
            self.parameters,
            (*dependencies, *self._dependencies),
            path_types=self._path_types,
            app=app if app is not None else AppDependencies({}),
            threads=pools.threads,
            run=self._runner(pools, telemetry),
            label=label,
            # The request's guard encloses its dependencies' exits only where the plan runs
            # in the request's own task and scope, as an HTTP route without a timeout does.
            guard=not websocket and self.options.timeout is None,
        )
        invoke: Invoke = plan.invoke
        renderer = self.renderer
        render: Render = renderer.render
        plain = renderer.plain if renderer.status in BODY_STATUSES else frozenset()
        if telemetry is not None:  # each step in its span; no shortcut around them
            invoke = telemetry.invoke(invoke, self.func)
            render = telemetry.render(render, self.func)
            plain = frozenset()
        options = self.options
        if context is not None:
            own = context.of_route(
                options.max_body_size, options.form_limits, options.strict_content_type
            )
            if own is not context:
                invoke = InContext(invoke, own)
        if self.options.timeout is not None:
            invoke = Deadline(invoke, self.options.timeout)
        if self.options.max_concurrency is not None:
            invoke = ConcurrencyLimit(invoke, self.options.max_concurrency, label)
        target = Target(
            self.name,
            invoke,
            render,
            call=plan.call if invoke is plan.invoke else None,  # nothing wraps the plan
            # A status past 599 is framed by Response.send (see BODY_STATUSES).
            plain=plain,
            encode=renderer.encode,
            status=renderer.status,
            headers=renderer.headers,
        )
        target.guarded = plan.guarded
        return target

    def _runner(self, pools: Pools, telemetry: Instrumentation | None = None) -> Run:
        """How the plan calls the handler with its values, where it runs; with telemetry,
        the handler's span is current where it runs (a process's or an executor's is the
        wait for it, on the loop)."""
        run = self._run_where(pools, telemetry)
        if telemetry is None:
            return run
        around = self.runs_on not in ("event loop", "thread pool")
        return telemetry.run(run, self.func, around)

    def _run_where(self, pools: Pools, telemetry: Instrumentation | None) -> Run:
        func = self.func
        runs_on = self.runs_on
        if runs_on == "event loop":
            if telemetry is not None:
                return telemetry.endpoint(func, on_loop=True)
            return func  # perf: the plan calls the handler itself, no frame of ours between
        if runs_on == "thread pool":
            if telemetry is not None:
                func = telemetry.endpoint(func, on_loop=False)
            return handoff(pools.threads, func)
        executor = pools.processes if runs_on == "process pool" else self.options.executor
        assert executor is not None

        def run_elsewhere(**kwargs: Any) -> Awaitable[Any]:
            return asyncio.wrap_future(executor.submit(call_in_child, func, kwargs))

        def run_elsewhere_anyio(**kwargs: Any) -> Awaitable[Any]:
            return waited(executor.submit(call_in_child, func, kwargs))

        return run_elsewhere if pools.on_asyncio else run_elsewhere_anyio


def check_dependencies(items: Sequence[Any], where: str) -> tuple[Dependency, ...]:
    """``dependencies=[Depends(...)]`` checked: each a Depends(), its callable described."""
    checked = []
    for item in items:
        if not isinstance(item, Dependency) or item.dependency is None:
            raise TypeError(f"{where}: dependencies= takes Depends(callable) items, not {item!r}")
        describe_dependency(item.dependency, frozenset())
        checked.append(item)
    return tuple(checked)


def _check_tree(
    where: str,
    parameters: tuple[Parameter, ...],
    requested: tuple[Parameter, ...],
    path_names: frozenset[str],
) -> None:
    sources = {item.source for item in requested}
    if "body" in sources and sources & {"form", "file"}:
        raise TypeError(
            f"{where} and its dependencies read both a JSON body and a form: a request has "
            "one body. Read the JSON members as Form() fields, or the form's as Body() members."
        )
    taken = {item.alias for item in requested if item.source == "path"}
    missing = path_names - taken
    if missing and not any(item.source == "request" for item in parameters):
        raise TypeError(f"{where} takes no parameter for path parameter(s) {sorted(missing)}")


def _item_encoder(
    item: Any, response: ResponseModel | None, encode: Callable[[Any], bytes], *, undeclared: bool
) -> Callable[[Any], bytes]:
    """How a stream writes each item, as FastAPI does: by its declared type (its response
    model's, a pydantic model by pydantic; else ``encode``), or, undeclared, as
    ``encoders.untyped_json`` writes it."""
    if response is not None and _renders_json(item):
        return response.encode
    if undeclared:
        return _untyped_item
    return encode


def _untyped_item(value: Any) -> bytes:
    return untyped_json(value).encode()


def _renders_json(returns: Any) -> bool:
    """Whether a handler annotated ``-> returns`` has its result encoded as JSON."""
    return not (isinstance(returns, type) and issubclass(returns, Response))


def _reads_bytes(parameter: Parameter) -> bool:
    """Whether a request value may hand the handler bytes: a file (read or not), or bytes,
    a form model's fields included."""
    if parameter.source == "file":
        return True
    if parameter.source not in REQUEST_SOURCES:
        return False
    return _holds_bytes_or_file(parameter.annotation, set())


def _holds_bytes_or_file(annotation: Any, seen: set[int]) -> bool:
    if id(annotation) in seen:
        return False
    seen.add(id(annotation))
    if isinstance(annotation, type) and issubclass(annotation, UploadFile | bytes | bytearray):
        return True
    inner = list(typing.get_args(annotation))
    fields = getattr(annotation, "model_fields", None)  # a pydantic model's
    if isinstance(fields, Mapping):
        inner += [item.annotation for item in fields.values()]
    elif isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        inner += [item.type for item in dataclasses.fields(annotation)]
    return any(_holds_bytes_or_file(item, seen) for item in inner)


def _dump_options(options: RouteOptions) -> DumpOptions:
    return DumpOptions(
        include=options.response_model_include,
        exclude=options.response_model_exclude,
        by_alias=options.response_model_by_alias,
        exclude_unset=options.response_model_exclude_unset,
        exclude_defaults=options.response_model_exclude_defaults,
        exclude_none=options.response_model_exclude_none,
    )


def _stream_item(func: Callable[..., Any], returns: Any) -> Any:
    """What a generator handler yields, by its annotation (``Iterable[Item]``, ``AsyncIterator
    [Item]``...; Any without one); None when ``func`` is no generator."""
    if call_kind(func) in (ASYNC, SYNC):
        return None
    arguments = typing.get_args(returns)
    return arguments[0] if arguments else Any


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


class InContext:
    """A route's invoke, run with the route's own serve context: what it gives its requests
    (a body limit, form limits) before they read anything."""

    __slots__ = ("_context", "_invoke")

    def __init__(self, invoke: Invoke, context: ServeContext) -> None:
        self._invoke = invoke
        self._context = context

    async def __call__(self, request: Request) -> Any:
        request.enter_route(self._context)
        return await self._invoke(request)
