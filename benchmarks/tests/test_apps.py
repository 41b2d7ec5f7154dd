"""Every benchmark app, served for real on 127.0.0.1, answers every scenario the same way.

Each app module in ``benchmarks/apps`` is started under uvicorn and Granian's ASGI interface
(Granian's RSGI interface for hasten and the raw RSGI app), its ``app`` and its ``app_mw`` side
by side on free ports. Every scenario's status, content type and body must equal the expected
ones byte for byte, so all frameworks answer identically; ``/blocking`` is checked for status
and body only. Bad input must get a 4xx, never a 500 or a 200, and unknown paths a 404.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0

SERVERS: dict[str, list[str]] = {
    "uvicorn": [sys.executable, "-m", "uvicorn", "--log-level", "warning"],
    "granian-asgi": [sys.executable, "-m", "granian", "--interface", "asgi"],
    "granian-rsgi": [sys.executable, "-m", "granian", "--interface", "rsgi"],
}
ASGI_SERVERS = ("uvicorn", "granian-asgi")
APPS: dict[str, tuple[str, ...]] = {
    "hasten_app": (*ASGI_SERVERS, "granian-rsgi"),
    "raw_rsgi": ("granian-rsgi",),
    "raw_asgi": ASGI_SERVERS,
    "starlette_app": ASGI_SERVERS,
    "fastapi_app": ASGI_SERVERS,
    "litestar_app": ASGI_SERVERS,
    "blacksheep_app": ASGI_SERVERS,
}
TARGETS = [
    pytest.param((module, server), id=f"{module}-{server}")
    for module, servers in APPS.items()
    for server in servers
]

JSON = "application/json"
ORDER = b'{"id":7,"name":"widget","price":9.99,"quantity":3,"tags":["a","b"],"active":true}'


class Scenario(NamedTuple):
    method: str
    path: str
    body: bytes | None
    status: int
    response: bytes


SCENARIOS = {
    "hello": Scenario("GET", "/hello", None, 200, b'{"message":"hello"}'),
    "item": Scenario("GET", "/items/42", None, 200, b'{"id":42}'),
    "first-route": Scenario("GET", "/r0/5", None, 200, b'{"route":0,"id":5}'),
    "last-route": Scenario("GET", "/r999/5", None, 200, b'{"route":999,"id":5}'),
    "query": Scenario(
        "GET",
        "/query?page=3&size=20&ratio=0.5&active=true&q=text",
        None,
        200,
        b'{"page":3,"size":20,"ratio":0.5,"active":true,"q":"text"}',
    ),
    "query-defaults": Scenario(
        "GET", "/query", None, 200, b'{"page":1,"size":10,"ratio":1.0,"active":false,"q":""}'
    ),
    "orders": Scenario("POST", "/orders", ORDER, 201, ORDER),
    "sync": Scenario("GET", "/sync", None, 200, b'{"message":"hello"}'),
}
NOT_FOUND = ["/nope", "/items", "/items/5/extra", "/r1000/5", "/r5", "/hello/extra"]
REJECTED = {400, 422}
UNMATCHED = {400, 404, 422}  # a path convertor (Starlette's, Litestar's) may not match at all
BAD_INPUT = {
    "path-int": ("GET", "/items/abc", None, UNMATCHED),
    "route-int": ("GET", "/r999/abc", None, UNMATCHED),
    "query-int": ("GET", "/query?page=abc", None, REJECTED),
    "query-bool": ("GET", "/query?active=maybe", None, REJECTED),
    "body-type": ("POST", "/orders", ORDER.replace(b'"id":7', b'"id":"seven"'), REJECTED),
    "body-missing-field": ("POST", "/orders", b'{"id":7}', REJECTED),
    "body-malformed": ("POST", "/orders", b'{"id":', REJECTED),
}
MIDDLEWARE_HEADERS = {"x-mw-1": "1", "x-mw-2": "2", "x-mw-3": "3"}


@dataclass(frozen=True)
class Served:
    """One app module under one server: ``app`` at ``url`` and ``app_mw`` at ``url_mw``."""

    module: str
    server: str
    url: str
    url_mw: str


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def client(base_url: str) -> httpx.Client:
    """An httpx client that ignores proxy settings: traffic stays on loopback."""
    return httpx.Client(base_url=base_url, timeout=10.0, trust_env=False)


def start(server: str, target: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [*SERVERS[server], "--host", HOST, "--port", str(port), target]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=log_file, stderr=subprocess.STDOUT
        )
    return process, f"http://{HOST}:{port}"


def wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    """Poll ``/hello`` until it answers 200; fail with the server's output if it never does."""
    deadline = time.monotonic() + READY_TIMEOUT
    last = "no answer"
    with client(base_url) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(
                    f"{process.args!r} exited with {process.returncode}:\n{log.read_text()}"
                )
            try:
                response = http.get("/hello", timeout=1.0)
            except httpx.TransportError as exc:
                last = repr(exc)
            else:
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text!r}"
            time.sleep(0.1)
    pytest.fail(f"{process.args!r} not ready in {READY_TIMEOUT} s ({last}):\n{log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)


@pytest.fixture(scope="module", params=TARGETS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """``app`` and ``app_mw`` of one module, started together under one kind of server."""
    module, server = request.param
    logs = tmp_path_factory.mktemp(f"{module}-{server}")
    with contextlib.ExitStack() as stack:
        started = {}
        for name in ("app", "app_mw"):  # both start before either is waited for
            log = logs / f"{name}.log"
            process, url = start(server, f"benchmarks.apps.{module}:{name}", log)
            stack.callback(stop, process)
            started[name] = (process, url, log)
        for process, url, log in started.values():
            wait_until_ready(process, url, log)
        yield Served(module, server, started["app"][1], started["app_mw"][1])


def send(http: httpx.Client, method: str, path: str, body: bytes | None) -> httpx.Response:
    headers = {"content-type": JSON} if body is not None else None
    return http.request(method, path, content=body, headers=headers)


def answer(response: httpx.Response) -> tuple[int, str | None, bytes]:
    return response.status_code, response.headers.get("content-type"), response.content


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(served: Served, name: str) -> None:
    scenario = SCENARIOS[name]
    with client(served.url) as http:
        response = send(http, scenario.method, scenario.path, scenario.body)
    assert answer(response) == (scenario.status, JSON, scenario.response)
    assert not MIDDLEWARE_HEADERS.keys() & response.headers.keys()


def test_blocking(served: Served) -> None:
    with client(served.url) as http:
        response = http.get("/blocking")
    assert (response.status_code, response.content) == (200, b'{"slept":0.05}')


@pytest.mark.parametrize("name", ["hello", "last-route", "orders"])
def test_middleware(served: Served, name: str) -> None:
    """``app_mw`` serves the same answers, plus one header from each of its three middlewares."""
    scenario = SCENARIOS[name]
    with client(served.url_mw) as http:
        response = send(http, scenario.method, scenario.path, scenario.body)
    assert answer(response) == (scenario.status, JSON, scenario.response)
    assert {name: response.headers.get(name) for name in MIDDLEWARE_HEADERS} == MIDDLEWARE_HEADERS


@pytest.mark.parametrize("path", NOT_FOUND)
def test_not_found(served: Served, path: str) -> None:
    with client(served.url) as http:
        assert http.get(path).status_code == 404


@pytest.mark.parametrize("name", list(BAD_INPUT))
def test_bad_input(served: Served, name: str) -> None:
    """A 4xx, whichever the framework picks, never a 500 or a 200."""
    method, path, body, allowed = BAD_INPUT[name]
    with client(served.url) as http:
        response = send(http, method, path, body)
    assert response.status_code in allowed, response.text
