"""Load generation: requests from the command line and from TOML and the tables they expand
into, the built-in client's HTTP/1.1 reading against canned responses, and both generators
against a real hasten app on Granian (RSGI), for a second each."""

from __future__ import annotations

import asyncio
import re
import socket
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hasten.bench import load
from hasten.bench.load import (
    FAILURES,
    BuiltinGenerator,
    Connection,
    LoadError,
    ProtocolError,
    RequestSpec,
    ScenarioError,
    WrkGenerator,
    build_table,
    describe,
    load_scenario,
    parse_request,
    request_line,
)
from hasten.bench.targets import free_port

# Scenarios.
HOST = "127.0.0.1:9"


# The command-line form.
def test_a_path_alone_is_a_get() -> None:
    assert parse_request("/hello") == RequestSpec("/hello")


def test_every_part_of_a_request() -> None:
    spec = parse_request(
        "post /orders weight=2.5 body='{\"id\": 1}' header=content-type:application/json "
        "header='x-note: a b'"
    )
    assert spec == RequestSpec(
        "/orders",
        "POST",
        (("content-type", "application/json"), ("x-note", "a b")),
        b'{"id": 1}',
        2.5,
    )
    assert spec.describe() == "POST /orders weight=2.5"


def test_body_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "order.json").write_bytes(b'{"id": 7}')
    assert parse_request("PUT /orders body=@order.json", tmp_path).body == b'{"id": 7}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty request"),
        ("GET", "has no path"),
        ("GET weight=2", "has no path"),
        ("GET hello", "must start with /"),
        ("GET /a color=red", "is not weight=N"),
        ("GET /a weight=heavy", "is not a number"),
        ("GET /a weight=0", "must be positive"),
        ("GET /a header=novalue", "NAME:VALUE"),
        ("GET /a header='bad name:1'", "not a valid HTTP header"),
        ("G3T /a", "upper-case letters"),
        ("GET /items/{9..1}", "ends before it starts"),
        ("GET /a 'unclosed", "No closing quotation"),
        ("POST /a body=@missing.json", "cannot read body file"),
    ],
)
def test_malformed_requests_say_what_is_wrong(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=re.escape(message)):
        parse_request(text, tmp_path)


# TOML.
def test_toml_scenario(tmp_path: Path) -> None:
    (tmp_path / "order.json").write_text('{"id": {1..9}}')
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(
        """
        [[request]]
        path = "/items/{1..1000}"
        weight = 3

        [[request]]
        method = "post"
        path = "/orders"
        headers = { content-type = "application/json" }
        body_file = "order.json"

        [[request]]
        method = "PUT"
        path = "/notes"
        body = "hi"
        """
    )
    assert load_scenario(scenario) == [
        RequestSpec("/items/{1..1000}", weight=3),
        RequestSpec("/orders", "POST", (("content-type", "application/json"),), b'{"id": {1..9}}'),
        RequestSpec("/notes", "PUT", body=b"hi"),
    ]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("path = '/a'", "must hold [[request]] tables"),
        ("[[request]]\nmethod = 'GET'", "needs a path"),
        ("[[request]]\npath = '/a'\ncolour = 'red'", "needs a path"),
        ("[[request]]\npath = '/a'\nbody = 'x'\nbody_file = 'y'", "not both"),
        ("[[request]]\npath = '/a'\nheaders = 'accept'", "headers must be a table"),
        ("[[request]]\npath = '/a'\nweight = true", "is not a number"),
        ("[[request]\n", "cannot read scenario"),
    ],
)
def test_malformed_toml_says_what_is_wrong(toml: str, message: str, tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(toml)
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario(scenario)


# Expansion.
def test_one_fixed_request_is_a_table_of_one() -> None:
    table = build_table([RequestSpec("/hello")], HOST)
    assert table.entries == (b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n",)
    assert table.samples == table.entries


def test_weights_set_the_share_of_each_request() -> None:
    specs = [RequestSpec("/a", weight=3), RequestSpec("/b"), RequestSpec("/c", weight=0.001)]
    table = build_table(specs, HOST, size=4000)
    lines = Counter(request_line(raw) for raw in table.entries)
    assert lines == {"GET /a HTTP/1.1": 2999, "GET /b HTTP/1.1": 1000, "GET /c HTTP/1.1": 1}
    assert [request_line(raw) for raw in table.samples] == [
        "GET /a HTTP/1.1",
        "GET /b HTTP/1.1",
        "GET /c HTTP/1.1",
    ]
    # shuffled, not in blocks
    assert len({request_line(raw) for raw in table.entries[:20]}) > 1


def test_ranges_draw_values_within_bounds_for_each_entry() -> None:
    table = build_table([RequestSpec("/items/{1..1000}?page={-2..2}")], HOST, size=2000)
    pairs = [re.findall(r"-?\d+", request_line(raw).split(" ")[1]) for raw in table.entries]
    items = {int(item) for item, _ in pairs}
    pages = {int(page) for _, page in pairs}
    assert len(table) == 2000
    assert min(items) >= 1
    assert max(items) <= 1000
    assert len(items) > 800
    assert pages == {-2, -1, 0, 1, 2}


def test_the_same_seed_builds_the_same_table() -> None:
    specs = [RequestSpec("/items/{1..1000}"), RequestSpec("/b")]
    assert build_table(specs, HOST, seed=4) == build_table(specs, HOST, seed=4)
    assert build_table(specs, HOST, seed=4) != build_table(specs, HOST, seed=5)


def test_a_body_gets_its_length_and_may_hold_ranges() -> None:
    spec = RequestSpec("/orders", "POST", (("content-type", "application/json"),), b"[{5..5}]")
    (raw,) = build_table([spec, spec], HOST, size=2).entries[:1]
    assert raw == (
        b"POST /orders HTTP/1.1\r\nHost: 127.0.0.1:9\r\ncontent-type: application/json\r\n"
        b"Content-Length: 3\r\n\r\n[5]"
    )


def test_a_post_without_body_says_so() -> None:
    (raw,) = build_table([RequestSpec("/ping", "POST")], HOST).entries
    assert raw.endswith(b"Content-Length: 0\r\n\r\n")


def test_a_scenario_needs_a_request() -> None:
    with pytest.raises(ScenarioError, match="at least one request"):
        build_table([], HOST)


def test_describe() -> None:
    assert describe([RequestSpec("/a"), RequestSpec("/b", "POST", weight=2)]) == (
        "GET /a, POST /b weight=2"
    )


def test_a_query_string_is_part_of_the_path() -> None:
    spec = parse_request("GET /query?page={1..50}&size=20 weight=2")
    assert spec.path == "/query?page={1..50}&size=20"
    assert spec.weight == 2.0


# The built-in client's connection.
GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
Exchange = Callable[[Connection], Awaitable[object]]


async def against(answers: list[bytes], use: Exchange, close_after: bool = False) -> object:
    """Serve ``answers`` one per request on a loopback port; run ``use`` on a connection."""

    handlers: list[asyncio.Task[Any]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.append(task)
        try:
            for answer in answers:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(answer)
                await writer.drain()
            if not close_after:
                await reader.read()  # until the client closes
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    connection = await Connection.open("127.0.0.1", port)
    try:
        return await use(connection)
    finally:
        connection.close()
        server.close()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()


def exchange_all(answers: list[bytes], close_after: bool = False) -> object:
    async def use(connection: Connection) -> list[tuple[int, bool]]:
        results = []
        for _ in answers:
            results.append((await connection.exchange(GET), connection.reusable))
        return results

    return asyncio.run(against(answers, use, close_after))


def test_content_length_and_chunked_bodies_keep_the_connection() -> None:
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n"
        b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 201 Created\r\ncontent-length:0\r\n\r\n",
    ]
    assert exchange_all(answers) == [(200, True), (404, True), (204, True), (201, True)]


def test_connection_close_and_unframed_bodies_end_the_connection() -> None:
    assert exchange_all(
        [b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx"]
    ) == [(200, False)]
    assert exchange_all([b"HTTP/1.0 200 OK\r\n\r\nuntil the end"], close_after=True) == [
        (200, False)
    ]


def test_a_head_response_has_no_body() -> None:
    async def use(connection: Connection) -> int:
        return await connection.exchange(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")

    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
    assert asyncio.run(against([answer], use)) == 200


@pytest.mark.parametrize(
    "answer",
    [
        b"SSH-2.0-OpenSSH\r\n\r\n",
        b"HTTP/1.1 abc\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab",
    ],
)
def test_garbage_and_short_bodies_are_failures(answer: bytes) -> None:
    with pytest.raises(FAILURES):
        exchange_all([answer], close_after=True)


def test_protocol_error_is_a_failure() -> None:
    assert issubclass(ProtocolError, FAILURES)


# -n: a count of requests, with the built-in client.


def test_a_count_on_a_dead_port_is_all_errors() -> None:
    port = free_port()
    table = build_table([RequestSpec("/")], f"127.0.0.1:{port}")
    result = BuiltinGenerator().run(table, "127.0.0.1", port, 0.001, 2, requests=10)
    assert (result.requests, result.errors) == (0, 10)


def test_a_count_ends_when_the_server_stops_answering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load, "REQUEST_TIMEOUT", 0.2)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts connections, never answers
        port = silent.getsockname()[1]
        table = build_table([RequestSpec("/")], f"127.0.0.1:{port}")
        result = BuiltinGenerator().run(table, "127.0.0.1", port, 0.001, 4, requests=100)
    assert (result.requests, result.errors) == (0, 100)
    assert result.seconds < 2


def test_wrk_cannot_count_requests() -> None:
    table = build_table([RequestSpec("/")], HOST)
    with pytest.raises(LoadError, match="no request-count mode"):
        WrkGenerator("/bin/true").run(table, "127.0.0.1", 9, 1.0, 1, requests=5)
