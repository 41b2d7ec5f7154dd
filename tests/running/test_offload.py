"""offload="process" and executor=: handlers that run off this process, through both adapters."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from hasten import App, Request
from tests import offload_handlers as handlers
from tests.conftest import ClientFactory


def make_app() -> App:
    app = App(max_processes=2, debug=True)
    app.add_api_route("/fibo/{n}", handlers.compute, offload="process")
    app.add_api_route("/fibo-async/{n}", handlers.compute_async, offload="process")
    app.add_api_route("/crash/{code}", handlers.crash, offload="process")
    app.add_api_route("/die", handlers.die, offload="process")
    app.add_api_route("/pid", handlers.pid, offload="process")
    return app


def test_process_handler_runs_in_another_process(serve: ClientFactory) -> None:
    client = serve(make_app())
    for path in ("/fibo/20", "/fibo-async/20"):
        body = client.get(path).json()
        assert body["n"] == 20
        assert body["fibo"] == 6765
        assert body["pid"] != os.getpid()


def test_exception_in_the_child_is_a_500(serve: ClientFactory) -> None:
    response = serve(make_app(), raise_server_exceptions=False).get("/crash/7")
    assert response.status_code == 500
    assert response.json()["exception"] == "ValueError('child failed with 7')"


def test_a_dead_worker_process_is_replaced(serve: ClientFactory) -> None:
    client = serve(make_app(), raise_server_exceptions=False)
    first = client.get("/pid").json()
    assert client.get("/die").status_code == 500
    second = client.get("/pid").json()
    assert second != first
    assert client.get("/fibo/10").json()["fibo"] == 55


def test_process_pool_is_owned_by_the_app(interface: str) -> None:
    from hasten.testing import TestClient

    app = make_app()
    client = TestClient(app, interface=interface)  # type: ignore[arg-type]
    pids = {client.get("/pid").json() for _ in range(6)}
    assert pids
    assert all(_alive(pid) for pid in pids)
    client.close()
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_no_process_pool_without_process_routes(serve: ClientFactory) -> None:
    app = App()
    app.add_api_route("/", lambda: "x")
    serve(app).get("/")
    assert app.runtime is not None
    with pytest.raises(RuntimeError, match="no offload='process' route"):
        _ = app.runtime.pools.processes


def test_lambda_and_closure_are_rejected_at_registration() -> None:
    app = App()
    with pytest.raises(TypeError, match="a lambda, closure or nested function cannot be pickled"):
        app.add_api_route("/l", lambda: 1, offload="process")

    def nested() -> int:
        return 1

    with pytest.raises(TypeError, match="Define it at module level"):
        app.add_api_route("/n", nested, offload="process")


def test_process_handler_cannot_take_the_request() -> None:
    app = App()
    with pytest.raises(TypeError, match="take the values it needs as parameters"):
        app.add_api_route("/r", _takes_request, offload="process")


def _takes_request(request: Request) -> None: ...


def test_unpicklable_handler_is_rejected_at_startup() -> None:
    import asyncio

    app = App()
    shadow = _Shadowed()
    app.add_api_route("/s", shadow, offload="process")
    with pytest.raises(TypeError, match="cannot be pickled"):
        asyncio.run(app.startup())


class _Shadowed:
    """A callable instance holding a lock: it cannot travel by pickle."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self) -> int:
        return 1


def test_route_options_are_validated() -> None:
    app = App()
    executor = ThreadPoolExecutor(1)
    try:
        with pytest.raises(ValueError, match="not both"):
            app.add_api_route("/a", handlers.pid, offload="process", executor=executor)
    finally:
        executor.shutdown()
    with pytest.raises(ValueError, match="offload must be 'process'"):
        app.add_api_route("/b", handlers.pid, offload="thread")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"must be a concurrent\.futures\.Executor"):
        app.add_api_route("/c", handlers.pid, executor=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_concurrency must be at least 1"):
        app.add_api_route("/d", handlers.pid, max_concurrency=0)
    with pytest.raises(ValueError, match="timeout must be positive"):
        app.add_api_route("/e", handlers.pid, timeout=0)


def test_user_executor(serve: ClientFactory) -> None:
    executor = ThreadPoolExecutor(2, thread_name_prefix="user-pool")
    app = App()

    @app.get("/where", executor=executor)
    def where() -> str:
        return threading.current_thread().name

    @app.get("/where-async", executor=executor)
    async def where_async() -> str:
        return threading.current_thread().name

    try:
        client = serve(app)
        assert client.get("/where").json().startswith("user-pool")
        assert client.get("/where-async").json().startswith("user-pool")
        rows = {info.path: info.runs_on for info in app.describe_routes()}
        assert rows == {"/where": "executor", "/where-async": "executor"}
    finally:
        executor.shutdown()


def test_describe_routes_names_the_process_pool() -> None:
    rows = {info.path: info.runs_on for info in make_app().describe_routes()}
    assert rows["/fibo/{n}"] == "process pool"
