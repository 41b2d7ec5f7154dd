"""Dependencies described: ``Security()``, the tree OpenAPI documents, the overrides and the
``scope="app"`` dependencies of one app. ``plan.py`` compiles the tree a request runs.

Each dependency is described once (``params.describe``, cached), like a handler. A generator
dependency's code after ``yield`` runs after the response is sent (background tasks first),
in reverse order; when the handler (or a later dependency) raises, the exception is thrown
into each generator first, as FastAPI does, and the error response comes after. A sync
dependency runs on the app's thread pool (one under a limit on AnyIO's worker threads, as
FastAPI runs it: see ``limited``), and a sync generator's setup and teardown are two separate
thread tasks: no thread is held across the handler (FastAPI #3205).

``scope="app"`` dependencies are created once when the app starts and closed when it stops.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Any, Protocol, TypeVar

import anyio

from hasten._http.errors import DependencyScopeError
from hasten._params.descriptions import Parameter, describe, describe_handler
from hasten._params.markers import REQUEST_SOURCES, Dependency
from hasten._running.concurrency import DependencyConcurrency
from hasten._running.pools import WorkerThreads
from hasten._running.threads import Exit, advance, resume, submit

__all__ = [
    "ASYNC",
    "ASYNC_GEN",
    "ON_LOOP",
    "SYNC",
    "SYNC_GEN",
    "AppDependencies",
    "DependencyOverrides",
    "Security",
    "SecurityScopes",
    "call_kind",
    "collect",
    "describe_dependency",
    "generator_function",
    "limited",
    "read_now",
    "reads_now",
    "with_scopes",
]

logger = logging.getLogger("hasten.error")
T = TypeVar("T")

# How a dependency is called; ON_LOOP: a plain call on the event loop (``read_now``).
ASYNC, SYNC, ASYNC_GEN, SYNC_GEN, ON_LOOP = range(5)

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


def with_scopes(scopes: tuple[str, ...], more: Sequence[str]) -> tuple[str, ...]:
    """The OAuth2 scopes required down to a dependency: those of every ``Security()`` above
    it, outermost first, then its own; each once (FastAPI's order)."""
    return (*scopes, *(scope for scope in dict.fromkeys(more) if scope not in scopes))


def describe_dependency(
    func: Callable[..., Any], path_names: frozenset[str]
) -> tuple[Parameter, ...]:
    """``describe`` for a dependency, once per callable and route shape."""
    key = (func, path_names)
    found = _described.get(key)
    if found is None:
        found = _described[key] = describe(func, path_names, takes_path=False)
    return found


def reads_now(call: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Mark an ``async def __call__`` that only returns ``self.read_now(...)``: the solver then
    calls ``read_now`` itself, on the event loop (see ``read_now``)."""
    call.reads_now = True  # type: ignore[attr-defined]  # a function's attribute, read below
    return call


def read_now(func: Callable[..., Any]) -> Callable[..., Any] | None:
    """perf: the plain ``read_now`` of a dependency (a built-in security scheme) whose class
    keeps the ``__call__`` marked by ``reads_now``: called without a coroutine of its own, as
    that ``__call__`` would call it; None for any other dependency (a subclass with a
    ``__call__`` of its own among them)."""
    if getattr(type(func).__call__, "reads_now", False):
        read: Callable[..., Any] = func.read_now  # type: ignore[attr-defined]  # with the mark
        return read
    return None


def call_kind(func: Callable[..., Any]) -> int:
    """How a handler or dependency is called: ASYNC, SYNC (on a thread), ASYNC_GEN or
    SYNC_GEN. As FastAPI tells it: by the callable, or what it wraps (``functools.wraps``, a
    partial), or their ``__call__``, an async generator before a generator before a
    coroutine, so that a wrapper of another kind than what it wraps is called as it is."""
    candidates = _kind_candidates(func)
    for kind, test in _KINDS:
        if any(test(candidate) for candidate in candidates):
            return kind
    return SYNC


def generator_function(func: Callable[..., Any]) -> Callable[..., Any]:
    """The async generator function an ASYNC_GEN dependency's call runs (``func``, what it
    wraps, or their ``__call__``): the code its ``yield`` is in."""
    return next(filter(inspect.isasyncgenfunction, _kind_candidates(func)), func)


_KINDS = (
    (ASYNC_GEN, inspect.isasyncgenfunction),
    (SYNC_GEN, inspect.isgeneratorfunction),
    (ASYNC, inspect.iscoroutinefunction),
)


def _kind_candidates(func: Callable[..., Any]) -> list[Any]:
    """The callable, and what it wraps; where neither is a class, their ``__call__`` too."""
    while isinstance(func, functools.partial):
        func = func.func
    wrapped = inspect.unwrap(func)
    if inspect.isclass(wrapped):
        return [func, wrapped]
    candidates = [func, wrapped]
    for owner in (func, wrapped):
        call = getattr(owner, "__call__", None)  # noqa: B004 - its __call__, not callable()
        if call is not None:
            while isinstance(call, functools.partial):
                call = call.func
            candidates += [call, inspect.unwrap(call)]
    return candidates


# Where a sync dependency under a limit runs, as FastAPI runs it: on AnyIO's worker threads,
# taking one of AnyIO's default limiter's tokens (the app's own threads would hand back a
# cancelled request's slot while its call still ran there). Its slot is taken before it
# waits for a thread; a request cancelled while it waits gives the slot back, the dependency
# never entered; one cancelled while it runs keeps the slot until its call ends (AnyIO's
# cancellation: asyncio's own task.cancel(), which a route's timeout uses, is not held off,
# in FastAPI neither).
_WORKER_THREADS = WorkerThreads(abandon_on_cancel=False)


def limited(func: Callable[..., Any], concurrency: DependencyConcurrency) -> Callable[..., Any]:
    """``func`` called under its declaration's limit (``Depends(max_concurrency=n)``): the
    call waits for the semaphore on the event loop (a sync one only then takes a thread),
    and a generator holds it until its code after ``yield`` is done. An ``async def``, or an
    async generator function, that the solver calls as it calls any dependency of that kind.
    """
    kind = call_kind(func)
    name = describe_handler(func)
    if kind == ASYNC:

        async def call_limited(**kwargs: Any) -> Any:
            async with concurrency.get_semaphore():
                return await func(**kwargs)

        return call_limited
    if kind == SYNC:

        async def call_limited_in_thread(**kwargs: Any) -> Any:
            async with concurrency.get_semaphore():
                return await submit(_WORKER_THREADS, func, **kwargs)

        return call_limited_in_thread
    entered = (
        contextlib.asynccontextmanager(func)
        if kind == ASYNC_GEN
        else lambda **kwargs: _on_worker_threads(func(**kwargs), name)
    )

    async def generate_limited(**kwargs: Any) -> AsyncIterator[Any]:
        async with concurrency.get_semaphore(), entered(**kwargs) as value:
            yield value

    return generate_limited


@contextlib.asynccontextmanager
async def _on_worker_threads(generator: Iterator[Any], name: str) -> AsyncIterator[Any]:
    """A sync generator dependency under a limit as an async context manager: its code before
    ``yield`` on AnyIO's worker threads (``_WORKER_THREADS``), its code after on a thread that
    waits for no free one (a generator holding a pool of its own could otherwise wait for
    ever, as FastAPI says) and that no cancellation cuts short; what it yields is the value,
    an exception is thrown into it, as a ``yield`` dependency gets it unlimited (see
    lifecycle.advance)."""
    try:
        value = await resume(_WORKER_THREADS, generator)
    except StopAsyncIteration:
        raise RuntimeError(f"Dependency {name} did not yield a value") from None
    ending = WorkerThreads(anyio.CapacityLimiter(1), abandon_on_cancel=False)
    try:
        yield value
    except BaseException as exc:
        try:
            with anyio.CancelScope(shield=True):
                await resume(ending, generator, exc)
        except StopAsyncIteration:
            return  # it swallowed the exception
        raise RuntimeError(f"Dependency {name} yielded again after an exception") from exc
    try:
        with anyio.CancelScope(shield=True):
            await resume(ending, generator)
    except StopAsyncIteration:
        return
    raise RuntimeError(f"Dependency {name} yielded more than once")


def collect(
    parameters: tuple[Parameter, ...],
    dependencies: Iterable[Dependency],
    path_names: frozenset[str],
) -> tuple[tuple[Parameter, ...], list[tuple[Any, tuple[str, ...]]]]:
    """Every request parameter of a handler's tree (deduplicated, in the order a request is
    read), and the security schemes in it with their scopes: what OpenAPI documents."""
    found: dict[tuple[Any, ...], Parameter] = {}
    schemes: list[tuple[Any, tuple[str, ...]]] = []
    seen: set[Any] = set()

    def walk(items: tuple[Parameter, ...], scopes: tuple[str, ...]) -> None:
        for item in items:
            if item.source in REQUEST_SOURCES:
                found.setdefault(_key(item), item)
            elif item.dependency is not None:
                visit(item.dependency, scopes)

    def visit(dependency: Dependency, scopes: tuple[str, ...] = ()) -> None:
        # A scheme requires the scopes of every Security() above it, outermost first (FastAPI's).
        func, scopes = dependency.dependency, with_scopes(scopes, dependency.scopes)
        if hasattr(func, "security_scheme"):
            schemes.append((func, scopes))
        if (func, scopes) in seen:
            return
        seen.add((func, scopes))
        assert func is not None
        if dependency.scope == "app":
            app_dependency_parameters(func)  # refused now if it takes request values
        described = describe_dependency(func, path_names)
        _check_scopes(func, dependency, described)
        walk(described, scopes)

    for dependency in dependencies:
        visit(dependency)
    walk(parameters, ())
    return tuple(found.values()), schemes


def _check_scopes(
    func: Callable[..., Any], dependency: Dependency, described: tuple[Parameter, ...]
) -> None:
    """A ``yield`` dependency ending after the response cannot take one that ends before it
    (``scope="function"``): FastAPI's DependencyScopeError, at registration."""
    if dependency.scope not in (None, "request") or call_kind(func) in (ASYNC, SYNC):
        return
    for item in described:
        if item.dependency is not None and item.dependency.scope == "function":
            name = getattr(func, "__name__", "<unnamed_callable>")
            raise DependencyScopeError(
                f'The dependency "{name}" has a scope of "request", it cannot depend on '
                'dependencies with scope "function".'
            )


def _key(parameter: Parameter) -> tuple[Any, ...]:
    """What makes two request parameters of a tree one: their source and name, and for a
    form's values their type too (a file read as a list by one and as bytes by another is
    documented twice, as FastAPI does)."""
    if parameter.source not in ("form", "file"):
        return (parameter.source, parameter.alias)
    try:
        hash(parameter.annotation)
    except TypeError:
        return (parameter.source, parameter.alias, id(parameter))
    return (parameter.source, parameter.alias, parameter.annotation)


class Retirable(Protocol):
    """A plan's solver, as the app retires it (hasten._params.solver.Solver)."""

    def retire(self) -> None: ...


class AppDependencies:
    """What the dependencies of one started app share: the overrides in force, and the
    values of its ``scope="app"`` dependencies, created at startup and closed at shutdown."""

    def __init__(self, overrides: Mapping[Any, Callable[..., Any]]) -> None:
        self.overrides = dict(overrides)
        self.values: dict[Any, Any] = {}
        self._order: list[tuple[Callable[..., Any], tuple[tuple[str, Any], ...]]] = []
        self._registered: set[Any] = set()
        self._exits: list[Exit] = []
        # The solvers made with these overrides (see ``use``).
        self._solvers: list[Retirable] = []

    def resolve(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found: Callable[..., Any] = self.overrides.get(func, func)
        return found

    def solving(self, solver: Retirable) -> None:
        """Note a solver made with the overrides in force, to retire it when they change."""
        self._solvers.append(solver)

    def use(self, overrides: Mapping[Any, Callable[..., Any]]) -> None:
        """Put ``overrides`` in force. A request already in the dependencies of a route goes
        on with them from its next dependency, as in FastAPI, which looks each override up
        as it reaches it: the solvers made before are retired (hasten._params.solver)."""
        self.overrides = dict(overrides)
        retired, self._solvers = self._solvers, []
        for solver in retired:
            solver.retire()

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

    def not_created(self) -> list[str]:
        """The app dependencies registered that have no value (registered after ``open``)."""
        return [describe_handler(func) for func, _ in self._order if func not in self.values]

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
        kind = call_kind(func)
        name = describe_handler(func)
        if kind in (ASYNC_GEN, SYNC_GEN):
            started = (func(**kwargs), kind == ASYNC_GEN, name)
            value = await advance(started, None)
            self._exits.append(started)
            return value
        if kind == ASYNC:
            return await func(**kwargs)
        return await submit(None, func, **kwargs)

    async def close(self) -> None:
        """Close the app dependencies (last created first); failures are logged."""
        while self._exits:
            done = self._exits.pop()
            _, _, name = done
            try:
                await advance(done, None)
            except StopAsyncIteration:
                continue
            except Exception as exc:
                logger.error("Closing app dependency %s failed", name, exc_info=exc)
                continue
            logger.error("App dependency %s yielded more than once", name)
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


class DependencyOverrides(dict[Any, Callable[..., Any]]):
    """``app.dependency_overrides``: a dict that tells its app of every change (``changed``),
    so that a running app compiles its plans again before the next request."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__()
        self._changed = changed

    def __setitem__(self, key: Any, value: Callable[..., Any]) -> None:
        super().__setitem__(key, value)
        self._changed()

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self._changed()

    def clear(self) -> None:
        super().clear()
        self._changed()

    def pop(self, key: Any, *default: Any) -> Any:
        value = super().pop(key, *default)
        self._changed()
        return value

    def popitem(self) -> tuple[Any, Callable[..., Any]]:
        item = super().popitem()
        self._changed()
        return item

    def setdefault(self, key: Any, default: Any = None) -> Any:
        value = super().setdefault(key, default)
        self._changed()
        return value

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._changed()

    def __ior__(self, other: Any) -> DependencyOverrides:  # type: ignore[override,misc]
        self.update(other)
        return self

    def replace(self, overrides: Mapping[Any, Callable[..., Any]]) -> None:
        """``app.dependency_overrides = {...}``."""
        super().clear()
        super().update(overrides)
        self._changed()


class SecurityScopes:
    """Take it as a parameter of a dependency used with ``Security(..., scopes=[...])``: the
    OAuth2 scopes required along the way to it, from the route down (FastAPI's)."""

    def __init__(self, scopes: list[str] | None = None) -> None:
        self.scopes: list[str] = scopes or []
        self.scope_str = " ".join(self.scopes)

    def __repr__(self) -> str:
        return f"SecurityScopes({self.scopes!r})"
