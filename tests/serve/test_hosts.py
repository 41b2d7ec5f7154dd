"""The Host header's grammar (RFC 3986's host and port), which every URL hasten builds from it
and TrustedHostMiddleware read; through a server in tests/servers/hostile."""

from __future__ import annotations

import time

import pytest

from hasten import HTTPError
from hasten._http.hosts import HostPort, host_port, origin_of

VALID = {
    "example.com": HostPort("example.com", ""),
    "Example.COM:8080": HostPort("Example.COM", "8080"),
    "example.com:": HostPort("example.com", ""),  # an empty port, as RFC 3986 allows
    "127.0.0.1:0": HostPort("127.0.0.1", "0"),
    "localhost:65535": HostPort("localhost", "65535"),
    "a-b_c~d!$&'()*+,;=": HostPort("a-b_c~d!$&'()*+,;=", ""),
    "caf%C3%A9.example": HostPort("caf%C3%A9.example", ""),
    "[::1]": HostPort("[::1]", ""),
    "[2001:db8::7]:443": HostPort("[2001:db8::7]", "443"),
    "[v1.fe80::a+en1]": HostPort("[v1.fe80::a+en1]", ""),
    "": HostPort("", ""),
}

INVALID = {
    "example.com:@evil.com": "'@' may not appear in a host or port",
    "user@example.com": "'@' may not appear in a host or port",
    "example.com/evil": "'/' may not appear in a host or port",
    "example.com:80/evil": "'/' may not appear in a host or port",
    "example.com:80?x": "'?' may not appear in a host or port",
    "example.com#x": "'#' may not appear in a host or port",
    "example.com\\evil.com": "'\\\\' may not appear in a host or port",
    "exa mple.com": "' ' may not appear in a host or port",
    "café.example": "'é' may not appear in a host or port",
    "example.com:http": "its port is not a number",
    "example.com:80:80": "its port is not a number",
    "example.com:\u00b2": "'²' may not appear in a host or port",
    "example.com:65536": "its port is past 65535",
    "example.com:" + "9" * 5000: "its port is past 65535",
    "100%.example": "'%' not followed by two hex digits",
    "a%4": "'%' not followed by two hex digits",
    "[::1": "'[' without its ']'",
    "[::1]x": "only a port may follow ']'",
    "[::1]@evil.com": "only a port may follow ']'",
    "[::1]:http": "its port is not a number",
    "[evil.com]": "not an IPv6 address between '[' and ']'",
    "[fe80::1%eth0]": "not an IPv6 address between '[' and ']'",
    "[v1.]": "not an IPv6 address between '[' and ']'",
    "[vx.a]": "not an IPv6 address between '[' and ']'",
    "[]": "not an IPv6 address between '[' and ']'",
}


@pytest.mark.parametrize(("value", "parts"), VALID.items(), ids=list(VALID))
def test_a_host_and_port_are_read_as_sent(value: str, parts: HostPort) -> None:
    assert host_port(value) == parts


@pytest.mark.parametrize(("value", "why"), INVALID.items(), ids=list(INVALID))
def test_anything_else_is_a_400_saying_why(value: str, why: str) -> None:
    with pytest.raises(HTTPError) as raised:
        host_port(value)
    assert (raised.value.status, raised.value.detail) == (400, f"Invalid Host header: {why}")


def test_the_header_that_stood_for_host_is_named() -> None:
    with pytest.raises(HTTPError) as raised:
        host_port("a@b", "X-Forwarded-Host")
    assert raised.value.detail == (
        "Invalid X-Forwarded-Host header: '@' may not appear in a host or port"
    )


@pytest.mark.parametrize(
    ("scheme", "host", "server", "origin"),
    [
        ("http", "example.com:8080", ("10.0.0.1", 80), "http://example.com:8080"),
        ("http", None, ("10.0.0.1", 80), "http://10.0.0.1"),
        ("https", "", ("10.0.0.1", 8443), "https://10.0.0.1:8443"),
        ("wss", None, ("::1", 443), "wss://[::1]"),
    ],
)
def test_an_origin_comes_from_the_host_else_from_the_server(
    scheme: str, host: str | None, server: tuple[str, int | None], origin: str
) -> None:
    assert origin_of(scheme, host, server) == origin


@pytest.mark.parametrize("server", [None, ("/tmp/app.sock", None)])
def test_an_origin_without_a_host_nor_a_server_address_is_a_400(
    server: tuple[str, None] | None,
) -> None:
    with pytest.raises(HTTPError) as raised:
        origin_of("http", None, server)
    assert (raised.value.status, raised.value.detail) == (400, "The request has no Host header")


def test_reading_a_host_takes_linear_time() -> None:
    # A Host header is at most a few KB (the servers' head limits); 1 MB reads in milliseconds.
    longest = "a" * 1_000_000
    start = time.process_time()
    host_port(longest + ":80")
    with pytest.raises(HTTPError):
        host_port("%4" * 500_000)
    assert time.process_time() - start < 0.5
