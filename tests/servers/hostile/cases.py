"""The hostile requests, as raw bytes: one list for the suite and for the red-team table."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CASES", "MANY_PARAMETERS", "NORMAL", "Case", "json_post", "request"]


@dataclass(frozen=True)
class Case:
    """One hostile request: its bytes, and how the client behaves after sending them."""

    name: str
    data: bytes
    half_close: bool = False  # end the client's side after sending: "that is all there is"
    wait: float = 2.0  # how long to wait for each read of the answer


def request(
    target: str = "/hello",
    *,
    method: str = "GET",
    headers: tuple[tuple[str, str], ...] = (),
    body: bytes = b"",
    version: str = "HTTP/1.1",
    host: str = "127.0.0.1",
) -> bytes:
    """A request with Host and Connection: close, then ``headers`` as given (nothing added)."""
    lines = [f"{method} {target} {version}", f"Host: {host}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def json_post(target: str, body: bytes, *extra: tuple[str, str]) -> bytes:
    headers = (("Content-Type", "application/json"), ("Content-Length", str(len(body))), *extra)
    return request(target, method="POST", headers=headers, body=body)


def chunked_post(target: str, chunks: bytes) -> bytes:
    headers = (("Content-Type", "application/json"), ("Transfer-Encoding", "chunked"))
    return request(target, method="POST", headers=headers, body=chunks)


ORDER = b'{"id": 1, "name": "x"}'
DEEP = b"[" * 100_000 + b"]" * 100_000
ESCAPED_QUOTES = b"[" * 65 + b'"' + b'\\"' * 16_000
MANY_HEADERS = tuple((f"X-H{index}", "v") for index in range(10_000))
MANY_PARAMETERS = "&".join(f"p{index}" for index in range(100_000))

CASES: list[Case] = [
    # The request line and the version.
    Case("request line: garbage", b"GARBAGE\r\n\r\n"),
    Case("request line: no version", b"GET /hello\r\n\r\n"),
    Case("request line: HTTP/9.9", request(version="HTTP/9.9")),
    Case("request line: HTTP/1.1x", request(version="HTTP/1.1x")),
    Case("request line: lowercase http/1.1", request(version="http/1.1")),
    Case("request line: method with (", request(method="G(T")),
    Case("request line: two spaces", b"GET  /hello HTTP/1.1\r\nHost: x\r\n\r\n"),
    Case("HTTP/1.0 without Host", b"GET /hello HTTP/1.0\r\n\r\n"),
    # Sizes of the head.
    Case("URL of 100 KB", request("/search?q=" + "a" * 100_000)),
    Case("URL of 1 MB", request("/search?q=" + "a" * 1_000_000)),
    Case("10,000 headers", request(headers=MANY_HEADERS)),
    Case("header value of 1 MB", request(headers=(("X-Big", "a" * 1_000_000),))),
    # Header values.
    Case("NUL in a header value", request(headers=(("X-A", "a\x00b"),))),
    Case("bare CR in a header value", request(headers=(("X-A", "a\rb"),))),
    Case("bare LF in a header value", request(headers=(("X-A", "a\nb"),))),
    Case("space before the colon", request(headers=(("X-A ", "b"),))),
    # Framing of the body.
    Case(
        "two different Content-Lengths",
        request(
            "/orders",
            method="POST",
            headers=(("Content-Length", "22"), ("Content-Length", "5")),
            body=ORDER,
        ),
    ),
    Case(
        "Content-Length with Transfer-Encoding",
        request(
            "/orders",
            method="POST",
            headers=(
                ("Content-Type", "application/json"),
                ("Content-Length", "22"),
                ("Transfer-Encoding", "chunked"),
            ),
            body=b"16\r\n" + ORDER + b"\r\n0\r\n\r\n",
        ),
    ),
    Case(
        "negative Content-Length",
        request("/orders", method="POST", headers=(("Content-Length", "-1"),), body=ORDER),
    ),
    Case(
        "non-numeric Content-Length",
        request("/orders", method="POST", headers=(("Content-Length", "abc"),), body=ORDER),
    ),
    Case("chunk size not hex", chunked_post("/orders", b"zz\r\n" + ORDER + b"\r\n0\r\n\r\n")),
    Case("chunk size huge", chunked_post("/orders", b"ffffffffffffffffffff\r\n" + ORDER), wait=1.0),
    Case("chunks never terminated", chunked_post("/orders", b"16\r\n" + ORDER + b"\r\n"), True),
    Case("body shorter than declared", json_post("/orders", ORDER)[:-5], half_close=True),
    Case("body longer than declared", json_post("/orders", ORDER) + b"trailing bytes"),
    # Paths.
    Case("path: ..", request("/files/../../etc/passwd")),
    Case("path: %2e%2e%2f", request("/files/%2e%2e%2f%2e%2e%2fetc/passwd")),
    Case("path: %252e", request("/files/%252e%252e%252fetc")),
    Case("path: overlong UTF-8", request("/files/%c0%ae%c0%ae/etc")),
    Case("path: //", request("//hello")),
    Case("path: %00", request("/files/a%00b")),
    Case("path: invalid UTF-8", request("/names/%ff%fe")),
    Case("redirect: encoded ?", request("/names/a%3fb=c/")),
    Case("redirect: space", request("/names/a%20b/")),
    Case("redirect: non-ASCII", request("/names/%C3%A9t%C3%A9/")),
    # ... and from the Host header, when it is one (a userinfo "@" would send it elsewhere).
    Case(
        "redirect: Host with user information", request("/names/a/", host="127.0.0.1:@evil.example")
    ),
    Case("redirect: Host of an IPv6 address and a port", request("/names/a/", host="[::1]:8000")),
    Case("redirect: HTTP/1.0 without Host", b"GET /names/a/ HTTP/1.0\r\n\r\n"),
    # Bodies the app parses.
    Case("JSON: duplicate keys", json_post("/orders", b'{"id": 1, "id": 2, "name": "x"}')),
    Case("JSON: nested 100,000 deep", json_post("/echo", DEEP)),
    Case("JSON: invalid UTF-8 in a string", json_post("/echo", b'{"a": "\xff\xfe"}')),
    Case("JSON: lone surrogate escape", json_post("/echo", b'{"a": "\\ud800"}')),
    # Took the depth check's regex quadratic time: 8 s of a frozen event loop for 32 KB.
    Case("JSON: unterminated string of escaped quotes", json_post("/echo", ESCAPED_QUOTES)),
    Case(
        "JSON: truncated chunked body",
        chunked_post("/orders", b"5\r\n" + ORDER[:5] + b"\r\n"),
        True,
    ),
    # Values the app converts.
    Case("int of 4,300 digits in the path", request("/items/" + "9" * 4_301)),
    Case("int of 4,300 digits in the query", request("/search?limit=" + "9" * 4_301)),
    Case("query of 100,000 parameters", request("/query?" + MANY_PARAMETERS)),
    Case("query value of 1 MB", request("/search?q=" + "b" * 1_000_000)),
    # The app's own limits, within what the servers let through.
    Case("query of 1,001 parameters", request("/query?" + "&".join(f"p{n}" for n in range(1001)))),
    Case("101 headers, read by the route", request("/agent", headers=MANY_HEADERS[:99])),
    Case("JSON nested 65 deep", json_post("/echo", b"[" * 65 + b"]" * 65)),
]

NORMAL = request("/hello")
