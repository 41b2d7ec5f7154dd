"""The request's guard (hasten._params.cleanup_guard): a ``yield`` dependency holding a cancel
scope or a task group across its ``yield``, or whose cleanup waits, ends as FastAPI's do when
the request is cancelled; the guard is entered only on the routes that need it."""

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Annotated, Any

import anyio
import httpx
import pytest

from hasten import App, Depends, Request, Response
from hasten._cli.servers import Interface
from hasten._params.cleanup_guard import needs_guard
from hasten.testing.asgi import ASGIDriver
from hasten.testing.exchange import Result, Wire
from hasten.testing.rsgi import RSGIDriver
from hasten.types import CallNext

Scope = str  # a dependency's scope: "function" or "request"


async def _request(app: App, interface: Interface, result: Result) -> None:
    """One GET / through the adapter, as its server calls the app (the app started): what
    the app sends goes to ``result``."""
    wire = Wire(httpx.Request("GET", "http://test/"), ("127.0.0.1", 50000))
    driver = RSGIDriver(app) if interface == "rsgi" else ASGIDriver(app, "")
    await driver.send(wire, result)


def _run(app: App, work: Callable[[], Awaitable[Any]]) -> Any:
    async def running() -> Any:
        async with app.running():
            return await work()

    return anyio.run(running)


@pytest.mark.parametrize("scope", ["function", "request"])
def test_a_task_group_held_across_yield_ends_in_its_task_when_cancelled(
    interface: Interface, scope: Scope
) -> None:
    # The handler cancels the scope around the request: the dependency's task group (and
    # the cancel scope in it) is left inside the request's guard, in the request's task,
    # with the contextvar it set still set; its cleanup runs to its end (it waits).
    events: list[str] = []
    tasks: list[object] = []
    value: ContextVar[str] = ContextVar("value", default="outside")
    outer: list[anyio.CancelScope] = []  # made on the loop
    app = App()

    async def child() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            events.append("child stopped")

    async def dependency() -> AsyncIterator[None]:
        tasks.append(anyio.get_current_task().id)
        token = value.set("inside")
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(child)
                try:
                    yield
                finally:
                    group.cancel_scope.cancel()
        finally:
            await anyio.sleep(0)
            value.reset(token)
            tasks.append(anyio.get_current_task().id)
            events.append("cleanup end")

    @app.get("/")
    async def endpoint(_: Annotated[None, Depends(dependency, scope=scope)]) -> str:
        assert value.get() == "inside"
        outer[0].cancel()
        await anyio.sleep(0)
        return "not sent"

    async def cancelled() -> bool:
        with anyio.CancelScope() as cancel:
            outer.append(cancel)
            await _request(app, interface, Result())
        return cancel.cancelled_caught

    assert _run(app, cancelled)
    assert events == ["child stopped", "cleanup end"]
    assert len(tasks) == 2
    assert len(set(tasks)) == 1


@pytest.mark.parametrize("scope", ["function", "request"])
def test_a_cleanup_that_waits_holds_the_request_until_it_ends(
    interface: Interface, scope: Scope
) -> None:
    # A cancellation that comes while the cleanup waits does not end the request before the
    # cleanup does; it comes once the cleanup has ended (the response was sent before).
    events: list[str] = []
    started, release = anyio.Event(), anyio.Event()
    app = App()

    async def dependency() -> AsyncIterator[None]:
        try:
            yield
        finally:
            events.append("cleanup start")
            started.set()
            await release.wait()
            events.append("cleanup end")

    @app.get("/")
    async def endpoint(_: Annotated[None, Depends(dependency, scope=scope)]) -> str:
        return "ok"

    result = Result()

    async def cancelled_in_cleanup() -> bool:
        async with anyio.create_task_group() as group:
            cancel = anyio.CancelScope()

            async def request() -> None:
                with cancel:
                    await _request(app, interface, result)
                events.append("request over")

            group.start_soon(request)
            await started.wait()
            cancel.cancel()
            await anyio.wait_all_tasks_blocked()
            events.append("released")
            release.set()
        return cancel.cancelled_caught

    assert _run(app, cancelled_in_cleanup)
    assert events == ["cleanup start", "released", "cleanup end", "request over"]
    # Function scoped: the cleanup ran before the response, which the cancellation then
    # took (Granian's empty 500 stands for none); request scoped: it went out before.
    sent = (200, b'"ok"') if scope == "request" else (500, b"")
    assert (result.responded, result.status, result.body) == (scope == "request", *sent)


def test_a_guarded_route_under_a_middleware_holding_a_cancel_scope(
    interface: Interface,
) -> None:
    # Behind middleware the guard is entered before the chain: a middleware's own cancel
    # scope around call_next ends inside it, and the dependency's exit comes after both.
    events: list[str] = []
    app = App()

    async def dependency() -> AsyncIterator[int]:
        try:
            yield 1
        finally:
            await anyio.sleep(0)
            events.append("cleanup")

    @app.middleware("http")
    async def deadline(request: Request, call_next: CallNext) -> Response:
        with anyio.fail_after(5):
            return await call_next(request)

    @app.get("/")
    async def endpoint(value: Annotated[int, Depends(dependency)]) -> dict[str, int]:
        return {"value": value}

    result = Result()
    _run(app, lambda: _request(app, interface, result))
    assert (result.status, result.body) == (200, b'{"value":1}')
    assert events == ["cleanup"]


@pytest.mark.parametrize("scope", ["function", "request"])
def test_a_cleanup_error_goes_to_the_dependencies_before_it(
    interface: Interface, scope: Scope
) -> None:
    # FastAPI's exit stacks: what a cleanup raises is thrown into those before it, which
    # all end; the client gets the 500, which names nothing.
    seen: list[str] = []
    app = App()

    async def outer() -> AsyncIterator[None]:
        try:
            yield
        except RuntimeError as exc:
            seen.append(f"outer saw {exc}")
            raise

    async def inner(_: Annotated[None, Depends(outer, scope=scope)]) -> AsyncIterator[None]:
        yield
        raise RuntimeError("cleanup failed")

    @app.get("/")
    async def endpoint(_: Annotated[None, Depends(inner, scope=scope)]) -> str:
        return "ok"

    result = Result()

    async def request() -> None:
        try:
            await _request(app, interface, result)
        except RuntimeError as exc:  # raised to the ASGI server, as Starlette's
            seen.append(f"server saw {exc}")

    _run(app, request)
    if scope == "request":  # after the response
        assert (result.status, result.body) == (200, b'"ok"')
    else:
        assert (result.status, result.body) == (500, b"Internal Server Error")
    raised = ["server saw cleanup failed"] if interface == "asgi" else []
    assert seen == ["outer saw cleanup failed", *raised]


def test_the_guard_is_entered_only_where_a_dependency_needs_it() -> None:
    async def settled() -> AsyncIterator[int]:
        yield 1

    async def closes(_: Annotated[int, Depends(settled)]) -> AsyncIterator[int]:
        connection = {"open": True}
        try:
            yield 2
        finally:
            connection["open"] = False

    async def waits() -> AsyncIterator[int]:
        yield 3
        await anyio.sleep(0)

    def sync_generator() -> Iterator[int]:
        yield 4

    app = App()

    @app.get("/settled")
    async def plain(
        a: Annotated[int, Depends(closes)], b: Annotated[int, Depends(sync_generator)]
    ) -> int:
        return a + b

    @app.get("/waits")
    async def waiting(value: Annotated[int, Depends(waits)]) -> int:
        return value

    @app.get("/waits-with-a-timeout", timeout=5)
    async def timed(value: Annotated[int, Depends(waits)]) -> int:
        return value

    @app.get("/limited")
    async def limited(value: Annotated[int, Depends(settled, max_concurrency=2)]) -> int:
        return value

    async def guards() -> dict[str, bool]:
        runtime = app.runtime
        assert runtime is not None
        targets = {
            path: runtime.match("GET", path)[0]
            for path in ("/settled", "/waits", "/waits-with-a-timeout", "/limited")
        }
        return {path: target.guarded for path, target in targets.items()}

    # A route timeout runs the plan in a task (or scope) of its own: no guard there.
    assert _run(app, guards) == {
        "/settled": False,
        "/waits": True,
        "/waits-with-a-timeout": False,
        "/limited": True,
    }


async def _yields() -> AsyncIterator[int]:
    yield 1


async def _cleans_up() -> AsyncIterator[int]:
    resource = [1]
    try:
        yield resource[0]
    finally:
        resource.clear()


async def _waits_before() -> AsyncIterator[int]:
    await anyio.sleep(0)
    async with contextlib.AsyncExitStack():
        pass
    yield 1


async def _waits_after() -> AsyncIterator[int]:
    yield 1
    await anyio.sleep(0)


async def _waits_in_finally() -> AsyncIterator[int]:
    try:
        yield 1
    finally:
        await anyio.sleep(0)


async def _holds_a_scope() -> AsyncIterator[int]:
    with anyio.CancelScope():
        yield 1


async def _holds_a_task_group() -> AsyncIterator[int]:
    async with anyio.create_task_group():
        yield 1


async def _iterates_after() -> AsyncIterator[int]:
    yield 1
    async for _ in _yields():
        pass


async def _defines_a_waiting_function() -> AsyncIterator[int]:
    yield 1

    async def later() -> None:
        await anyio.sleep(0)

    del later


class _Callable:
    async def __call__(self) -> AsyncIterator[int]:
        try:
            yield 1
        finally:
            await anyio.sleep(0)


@pytest.mark.parametrize(
    ("generator", "needed"),
    [
        (_yields, False),
        (_cleans_up, False),
        (_waits_before, False),
        (_defines_a_waiting_function, False),
        (_waits_after, True),
        (_waits_in_finally, True),
        (_holds_a_scope, True),
        (_holds_a_task_group, True),
        (_iterates_after, True),
        (_Callable().__call__, True),
    ],
)
def test_what_needs_the_guard_is_read_from_the_code(
    generator: Callable[..., AsyncIterator[int]], needed: bool
) -> None:
    assert needs_guard(generator) is needed


def test_a_generator_without_source_needs_the_guard() -> None:
    namespace: dict[str, Any] = {}
    exec("async def made():\n    yield 1\n", namespace)
    assert needs_guard(namespace["made"]) is True
