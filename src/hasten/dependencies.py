"""Dependency injection, compiled: a handler's ``Depends()`` tree becomes one plan at startup.

Each dependency is described once (``params.describe``, cached), like a handler. A plan lists
the request values the whole tree reads (extracted first, so that one 422 names every bad
one, and before any dependency runs), then the dependencies to call in order (each once per
request with ``use_cache``: the cache is decided when the plan is built), then the handler.
Nothing is inspected per request.

A generator dependency's code after ``yield`` runs after the response is sent (background
tasks first), in reverse order; when the handler (or a later dependency) raises, the exception
is thrown into each generator first, as FastAPI does, and the error response comes after. A
sync dependency runs on the app's thread pool, and a sync generator's setup and teardown are
two separate thread tasks: no thread is held across the handler (FastAPI #3205).

``scope="app"`` dependencies are created once when the app starts and closed when it stops.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Final

from .background import BackgroundTasks
from .errors import RequestValidationError
from .extractors import BodyReader, Errors, Extractor, extractor
from .lifecycle import Exit, cleanup_of, submit
from .params import Dependency, Parameter, describe, describe_handler, unwrap

if TYPE_CHECKING:
    from .requests import Request

__all__ = [
    "AppDependencies",
    "DependencyOverrides",
    "Plan",
    "Security",
    "collect",
    "describe_dependency",
]

logger = logging.getLogger("hasten.error")

Run = Callable[[dict[str, Any]], Awaitable[Any]]
# A body reader: every body (or form) parameter, read at once; ``read(request, errors)``.
BodyReaders = Callable[[list[Parameter]], Any]

REQUEST_SOURCES: Final = frozenset({"path", "query", "header", "cookie", "body", "form", "file"})

# How a step is called.
_ASYNC, _SYNC, _ASYNC_GEN, _SYNC_GEN = range(4)

_described: dict[tuple[Any, frozenset[str]], tuple[Parameter, ...]] = {}


def Security(
    dependency: Callable[..., Any] | None = None,
    *,
    scopes: Sequence[str] | None = None,
    use_cache: bool = True,
) -> Any:
    """``Depends()`` for a security scheme, with the OAuth2 ``scopes`` the route requires
    (OpenAPI lists them on the operation)."""
    return Dependency(dependency, use_cache=use_cache, scopes=tuple(scopes or ()))


def describe_dependency(
    func: Callable[..., Any], path_names: frozenset[str]
) -> tuple[Parameter, ...]:
    """``describe`` for a dependency, once per callable and route shape."""
    key = (func, path_names)
    found = _described.get(key)
    if found is None:
        found = _described[key] = describe(func, path_names, takes_path=False)
    return found


def _kind(func: Callable[..., Any]) -> int:
    target = unwrap(func)
    if inspect.isasyncgenfunction(target):
        return _ASYNC_GEN
    if inspect.isgeneratorfunction(target):
        return _SYNC_GEN
    if inspect.iscoroutinefunction(target):
        return _ASYNC
    return _SYNC


def collect(
    parameters: tuple[Parameter, ...],
    dependencies: Iterable[Dependency],
    path_names: frozenset[str],
) -> tuple[tuple[Parameter, ...], list[tuple[Any, tuple[str, ...]]]]:
    """Every request parameter of a handler's tree (deduplicated, in the order a request is
    read), and the security schemes in it with their scopes: what OpenAPI documents."""
    found: dict[tuple[str, str], Parameter] = {}
    schemes: list[tuple[Any, tuple[str, ...]]] = []
    seen: set[Any] = set()

    def walk(items: tuple[Parameter, ...]) -> None:
        for item in items:
            if item.source in REQUEST_SOURCES:
                found.setdefault((item.source, item.alias), item)
            elif item.dependency is not None:
                visit(item.dependency)

    def visit(dependency: Dependency) -> None:
        func = dependency.dependency
        if hasattr(func, "security_scheme"):
            schemes.append((func, dependency.scopes))
        if func in seen:
            return
        seen.add(func)
        assert func is not None
        if dependency.scope == "app":
            app_dependency_parameters(func)  # refused now if it takes request values
        walk(describe_dependency(func, path_names))

    for dependency in dependencies:
        visit(dependency)
    walk(parameters)
    return tuple(found.values()), schemes


class Step:
    """One dependency called per request: its arguments are slots of the values list."""

    __slots__ = ("args", "func", "index", "kind", "name")

    def __init__(self, func: Callable[..., Any], args: tuple[tuple[str, int], ...], index: int):
        self.func = func
        self.args = args
        self.index = index
        self.kind = _kind(func)
        self.name = describe_handler(func)


class AppDependencies:
    """What the dependencies of one started app share: the overrides in force, and the
    values of its ``scope="app"`` dependencies, created at startup and closed at shutdown."""

    def __init__(self, overrides: Mapping[Any, Callable[..., Any]]) -> None:
        self.overrides = dict(overrides)
        self.values: dict[Any, Any] = {}
        self._order: list[tuple[Callable[..., Any], tuple[tuple[str, Any], ...]]] = []
        self._registered: set[Any] = set()
        self._exits: list[Exit] = []

    def resolve(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found: Callable[..., Any] = self.overrides.get(func, func)
        return found

    def register(self, func: Callable[..., Any], chain: tuple[Any, ...] = ()) -> None:
        """Create ``func`` at startup (after the app dependencies it takes)."""
        if func in self._registered:
            return
        if func in chain:
            raise TypeError(f"Dependency cycle through {describe_handler(func)}")
        args = []
        for item in app_dependency_parameters(func):
            assert item.dependency is not None
            assert item.dependency.dependency is not None
            inner = self.resolve(item.dependency.dependency)
            self.register(inner, (*chain, func))
            args.append((item.name, inner))
        self._registered.add(func)
        self._order.append((func, tuple(args)))

    async def open(self) -> None:
        """Create every app dependency, in order; on failure, close those created."""
        try:
            for func, args in self._order:
                kwargs = {name: self.values[inner] for name, inner in args}
                self.values[func] = await self._create(func, kwargs)
        except BaseException:
            await self.close()
            raise

    async def _create(self, func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        kind = _kind(func)
        name = describe_handler(func)
        if kind in (_ASYNC_GEN, _SYNC_GEN):
            started = Exit(func(**kwargs), kind == _ASYNC_GEN, name)
            value = await started.resume(None)
            self._exits.append(started)
            return value
        if kind == _ASYNC:
            return await func(**kwargs)
        return await submit(None, func, **kwargs)

    async def close(self) -> None:
        """Close the app dependencies (last created first); failures are logged."""
        while self._exits:
            done = self._exits.pop()
            try:
                await done.resume(None)
            except StopAsyncIteration:
                continue
            except Exception as exc:
                logger.error("Closing app dependency %s failed", done.name, exc_info=exc)
                continue
            logger.error("App dependency %s yielded more than once", done.name)
        self.values.clear()


def app_dependency_parameters(func: Callable[..., Any]) -> tuple[Parameter, ...]:
    """The parameters of an app dependency: other app dependencies only (checked)."""
    where = describe_handler(func)
    described = describe_dependency(func, frozenset())
    for item in described:
        if item.dependency is None or item.dependency.scope != "app":
            raise TypeError(
                f"{where} is an app dependency (scope='app'): it is created once, at startup, "
                f"so it cannot take {item.name!r}, which comes from a request; it may take "
                "only other app dependencies"
            )
    return described


class _Builder:
    """Walks a handler's tree once: each request value gets a slot (shared where two
    parameters read the same), each dependency a step (one per callable with ``use_cache``)."""

    def __init__(
        self, path_types: Mapping[str, type], app: AppDependencies, background: Extractor
    ) -> None:
        self.path_types = path_types
        self.path_names = frozenset(path_types)
        self.app = app
        self.background = background
        self.size = 0
        self.leaves: list[tuple[int, Extractor]] = []
        self.steps: list[Step] = []
        self.bodies: dict[str, tuple[Parameter, int]] = {}
        self._by_key: dict[Any, int] = {}

    def slot(self) -> int:
        self.size += 1
        return self.size - 1

    def leaf(self, key: Any, make: Callable[[], Extractor]) -> int:
        index = self._by_key.get(key)
        if index is None:
            index = self._by_key[key] = self.slot()
            self.leaves.append((index, make()))
        return index

    def arguments(
        self, items: tuple[Parameter, ...], chain: tuple[Any, ...]
    ) -> tuple[tuple[str, int], ...]:
        return tuple((item.name, self.value_of(item, chain)) for item in items)

    def value_of(self, item: Parameter, chain: tuple[Any, ...]) -> int:
        source = item.source
        if source == "dependency":
            assert item.dependency is not None
            return self.call_of(item.dependency, chain)
        if source == "background":
            return self.leaf(("background",), lambda: self.background)
        if source in ("body", "form", "file"):
            if item.name not in self.bodies:
                self.bodies[item.name] = (item, self.slot())
            return self.bodies[item.name][1]
        path_type = self.path_types.get(item.name)
        key: Any = item
        try:
            hash(item)
        except TypeError:  # an unhashable default: not shared
            key = id(item)
        return self.leaf(key, lambda: extractor(item, path_type))

    def call_of(self, dependency: Dependency, chain: tuple[Any, ...]) -> int:
        assert dependency.dependency is not None
        func = self.app.resolve(dependency.dependency)
        if dependency.scope == "app":
            self.app.register(func)
            values = self.app.values
            return self.leaf(("app", func), lambda: lambda request, errors: values[func])
        key = ("call", func, dependency.scopes)
        if dependency.use_cache and key in self._by_key:
            return self._by_key[key]
        if func in chain:
            raise TypeError(f"Dependency cycle through {describe_handler(func)}")
        args = self.arguments(describe_dependency(func, self.path_names), (*chain, func))
        step = Step(func, args, self.slot())
        self.steps.append(step)
        if dependency.use_cache:
            self._by_key[key] = step.index
        return step.index


class Plan:
    """One endpoint's dependency tree, compiled for one started app (its overrides, app
    dependencies and thread pool): request values first, then the dependencies, then the
    handler."""

    __slots__ = (
        "_body",
        "_body_slots",
        "_handler_args",
        "_leaves",
        "_run",
        "_size",
        "_steps",
        "_threads",
    )

    def __init__(
        self,
        parameters: tuple[Parameter, ...],
        dependencies: Iterable[Dependency],
        *,
        path_types: Mapping[str, type],
        app: AppDependencies,
        threads: Executor,
        body_reader: BodyReaders,
        run: Run,
    ) -> None:
        self._threads = threads
        self._run = run
        builder = _Builder(path_types, app, self._background_tasks)
        for dependency in dependencies:
            builder.call_of(dependency, ())
        self._handler_args = builder.arguments(parameters, ())
        self._leaves = tuple(builder.leaves)
        self._steps = tuple(builder.steps)
        self._size = builder.size
        read = [item for item, _ in builder.bodies.values()]
        self._body = body_reader(read) if read else None
        self._body_slots = tuple((name, index) for name, (_, index) in builder.bodies.items())

    def _background_tasks(self, request: Request, errors: Errors) -> BackgroundTasks:
        cleanup = cleanup_of(request)
        if cleanup.tasks is None:
            cleanup.tasks = BackgroundTasks()
        return cleanup.tasks

    async def invoke(self, request: Request) -> Any:
        """Read every request value, call the dependencies, then the handler: its result."""
        values = await self._read(request)
        try:
            for step in self._steps:
                kwargs = {}
                for name, index in step.args:
                    kwargs[name] = values[index]
                if step.kind == _ASYNC:
                    values[step.index] = await step.func(**kwargs)
                else:
                    values[step.index] = await self._call(step, kwargs, request)
            kwargs = {}
            for name, index in self._handler_args:
                kwargs[name] = values[index]
            return await self._run(kwargs)
        except BaseException as exc:
            cleanup = request._cleanup
            if cleanup is None:
                raise
            final = await cleanup.unwind(exc)  # no task nor generator is left after it
            if final is exc:
                raise
            raise final from exc

    async def _read(self, request: Request) -> list[Any]:
        """Every request value of the tree, in its slot; one 422 names every bad one."""
        values: list[Any] = [None] * self._size
        errors: Errors = []
        # perf: plain loops, no comprehension (a call of its own on Python 3.11).
        for index, extract in self._leaves:
            values[index] = extract(request, errors)
        if self._body is not None:
            read = await self._body.read(request, errors)
            for name, index in self._body_slots:
                values[index] = read[name]
        if errors:
            raise RequestValidationError(errors)
        return values

    async def _call(self, step: Step, kwargs: dict[str, Any], request: Request) -> Any:
        kind = step.kind
        if kind == _SYNC:
            return await submit(self._threads, step.func, **kwargs)
        started = Exit(step.func(**kwargs), kind == _ASYNC_GEN, step.name)
        try:
            value = await started.resume(self._threads)
        except StopAsyncIteration:
            raise RuntimeError(f"Dependency {step.name} did not yield a value") from None
        cleanup_of(request).exits.append(started)
        return value


def read_bodies(parameters: list[Parameter]) -> BodyReader:
    """The JSON body reader of a plan's body parameters."""
    return BodyReader(parameters)


class DependencyOverrides(dict[Any, Callable[..., Any]]):
    """``app.dependency_overrides``: a dict that refuses changes while its app runs
    (``started()`` says when), since the plans that apply it were compiled at startup."""

    def __init__(self, started: Callable[[], bool]) -> None:
        super().__init__()
        self._started = started

    def _check(self) -> None:
        if self._started():
            raise RuntimeError(
                "dependency_overrides apply when the app starts, and it has started: set them "
                "before the first request (or stop the app, e.g. close the TestClient, first)"
            )

    def __setitem__(self, key: Any, value: Callable[..., Any]) -> None:
        self._check()
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        self._check()
        super().__delitem__(key)

    def clear(self) -> None:
        self._check()
        super().clear()

    def pop(self, key: Any, *default: Any) -> Any:
        self._check()
        return super().pop(key, *default)

    def popitem(self) -> tuple[Any, Callable[..., Any]]:
        self._check()
        return super().popitem()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._check()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._check()
        super().update(*args, **kwargs)

    def replace(self, overrides: Mapping[Any, Callable[..., Any]]) -> None:
        """``app.dependency_overrides = {...}``."""
        self._check()
        super().clear()
        super().update(overrides)
