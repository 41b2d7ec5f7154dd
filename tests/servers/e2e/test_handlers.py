"""Handlers over the wire: errors, where handlers run, Request, Response kinds, middleware."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from tests.servers.e2e.app import MIDDLEWARE_HEADER, SLEEP_SECONDS

pytestmark = pytest.mark.server

CONCURRENT_REQUESTS = 20
CONCURRENCY_BOUND = 2.5  # seconds; run one after another they would take 20 x 0.2 = 4 s


def test_unhandled_exception_is_a_bare_500(client: httpx.Client) -> None:
    response = client.get("/fail")
    assert response.status_code == 500
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.content == b"Internal Server Error"
    assert b"secret" not in response.content
    assert b"Traceback" not in response.content
    assert b"RuntimeError" not in response.content


def test_http_error_sets_status_and_detail(client: httpx.Client) -> None:
    response = client.get("/teapot")
    assert response.status_code == 418
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"detail": "I'm a teapot"}


def test_sync_handler_runs_on_the_apps_thread_pool(client: httpx.Client) -> None:
    response = client.get("/thread/sync")
    assert response.json().startswith("hasten-thread")


def test_async_handler_runs_on_the_event_loop(client: httpx.Client) -> None:
    response = client.get("/thread/async")
    assert response.status_code == 200
    assert not response.json().startswith("hasten-thread")


async def sleep_concurrently(base_url: str) -> tuple[list[httpx.Response], float]:
    limits = httpx.Limits(max_connections=CONCURRENT_REQUESTS)
    async with httpx.AsyncClient(
        base_url=base_url, timeout=10.0, limits=limits, trust_env=False
    ) as http:
        started = time.perf_counter()
        responses = await asyncio.gather(*(http.get("/sleep") for _ in range(CONCURRENT_REQUESTS)))
        return responses, time.perf_counter() - started


def test_blocking_sync_handlers_run_concurrently(server: str) -> None:
    responses, elapsed = asyncio.run(sleep_concurrently(server))
    assert [response.status_code for response in responses] == [200] * CONCURRENT_REQUESTS
    assert all(response.json() == {"slept": SLEEP_SECONDS} for response in responses)
    assert SLEEP_SECONDS <= elapsed < CONCURRENCY_BOUND


def test_handler_reads_the_request(client: httpx.Client) -> None:
    client.cookies.set("session", "abc123")
    response = client.get(
        "/inspect", params=[("q", "one"), ("q", "two words")], headers={"X-Token": "t0k"}
    )
    assert response.status_code == 200
    seen = response.json()
    assert seen["method"] == "GET"
    assert seen["path"] == "/inspect"
    assert seen["token"] == "t0k"
    assert seen["cookies"] == {"session": "abc123"}
    assert seen["query"] == ["one", "two words"]
    host, port = seen["client"]
    assert host == "127.0.0.1"
    assert isinstance(port, int)
    assert 0 < port < 65536


def test_handler_returns_a_response_as_built(client: httpx.Client) -> None:
    response = client.get("/raw")
    assert response.status_code == 202
    assert response.content == b"raw-body"
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["x-custom"] == "1"
    assert response.headers["content-length"] == "8"  # headers set: the server adds it


def test_json_response_keeps_status_and_headers(client: httpx.Client) -> None:
    response = client.get("/json-response")
    assert response.status_code == 203
    assert response.json() == {"made": "by hand"}
    assert response.headers["x-custom"] == "2"


def test_redirect_response(client: httpx.Client) -> None:
    response = client.get("/old")
    assert response.status_code == 307
    assert response.headers["location"] == "/hello"
    assert client.get("/old", follow_redirects=True).json() == {"message": "hello"}


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/hello", 200),
        ("GET", "/nowhere", 404),
        ("DELETE", "/hello", 405),
        ("GET", "/fail", 500),
        ("GET", "/teapot", 418),
        ("GET", "/items/abc", 422),
        ("GET", "/thread/sync", 200),
        ("GET", "/raw", 202),
    ],
)
def test_middleware_tags_every_response(
    client: httpx.Client, method: str, path: str, status: int
) -> None:
    response = client.request(method, path)
    assert response.status_code == status
    assert response.headers[MIDDLEWARE_HEADER] == "1"
    assert response.headers["content-length"] == str(len(response.content))
