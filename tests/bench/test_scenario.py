"""Requests from the command line and from TOML, and their expansion into a request table."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from hasten.bench.scenario import (
    RequestSpec,
    ScenarioError,
    build_table,
    describe,
    load_scenario,
    parse_request,
    request_line,
)

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
    from hasten.bench.scenario import parse_request

    spec = parse_request("GET /query?page={1..50}&size=20 weight=2")
    assert spec.path == "/query?page={1..50}&size=20"
    assert spec.weight == 2.0
