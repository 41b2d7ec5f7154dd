"""Hostile requests, as raw bytes, on the surfaces of ``tests/servers/hostile/surfaces_app.py``: one
list for the suite and for the red-team table (its second part).

Each case is one request on a new connection; what needs more (several connections, a
client that hangs up, memory) is in ``tests/servers/hostile/scenarios.py``.
"""

from __future__ import annotations

import gzip

from tests.servers.hostile.cases import Case, request
from tests.servers.hostile.websocket import handshake

__all__ = ["BOUNDARY", "PRECOMPRESSED", "SURFACE_CASES", "multipart", "part"]

BOUNDARY = "hostile-boundary"
STATS_TOKEN = "hostile-stats-token-7f3a"  # as tests/servers/hostile/surfaces_app.py has it
# A body the app compressed itself, sent with its Content-Encoding: never compressed again.
PRECOMPRESSED = gzip.compress(b"compressed by the app " * 100, mtime=0)


def part(
    name: str = "file",
    data: bytes = b"data",
    *,
    filename: str | None = "a.txt",
    headers: tuple[str, ...] = (),
) -> bytes:
    """One multipart part: its Content-Disposition (``filename`` as given, unescaped), then
    ``headers``, then ``data``."""
    disposition = f'Content-Disposition: form-data; name="{name}"'
    if filename is not None:
        disposition += f'; filename="{filename}"'
    head = "\r\n".join([disposition, *headers])
    return head.encode("latin-1") + b"\r\n\r\n" + data


def multipart(
    target: str = "/upload",
    parts: tuple[bytes, ...] = (),
    *,
    boundary: str = BOUNDARY,
    content_type: str | None = None,
    end: bool = True,
) -> bytes:
    """A multipart POST of ``parts``; ``end=False`` leaves out the closing delimiter."""
    delimiter = f"--{boundary}".encode("latin-1")
    body = b"".join(delimiter + b"\r\n" + item + b"\r\n" for item in parts)
    if end:
        body += delimiter + b"--\r\n"
    media = content_type or f"multipart/form-data; boundary={boundary}"
    headers = (("Content-Type", media), ("Content-Length", str(len(body))))
    return request(target, method="POST", headers=headers, body=body)


def gzip_asked(target: str, accept_encoding: str) -> bytes:
    return request(target, headers=(("Accept-Encoding", accept_encoding),))


def tiny_parts(count: int) -> bytes:
    """``count`` parts of one byte each, in one body."""
    one = f"--{BOUNDARY}\r\n".encode() + part("f", b"x", filename=None) + b"\r\n"
    body = one * count + f"--{BOUNDARY}--\r\n".encode()
    media = f"multipart/form-data; boundary={BOUNDARY}"
    headers = (("Content-Type", media), ("Content-Length", str(len(body))))
    return request("/form", method="POST", headers=headers, body=body)


def urlencoded(body: bytes) -> bytes:
    headers = (
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Content-Length", str(len(body))),
    )
    return request("/form", method="POST", headers=headers, body=body)


def hosted(host: str, target: str = "/hello") -> bytes:
    """GET ``target`` with ``Host: host``."""
    return f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()


def ranged(*headers: tuple[str, str], target: str = "/static/small.txt") -> bytes:
    return request(target, headers=headers)


# UTF-8 as a client sends it, spelled so that ``request`` (latin-1) puts its bytes on the wire.
UTF8 = "café".encode().decode("latin-1")
DIGITS = "9" * 5000  # past int()'s 4,300
MANY_RANGES = ",".join(f"{index}-{index}" for index in range(5000))
ETAGS = ", ".join(f'"{index:x}-400"' for index in range(10_000))
WS_ORIGIN = (("Origin", "https://evil.example"),)

SURFACE_CASES: list[Case] = [
    # Forms and uploads.
    Case("multipart: no boundary", multipart(content_type="multipart/form-data")),
    Case("multipart: boundary of 200 characters", multipart(parts=(part(),), boundary="b" * 200)),
    Case("multipart: the boundary never comes", multipart(parts=(), end=False) + b"garbage"),
    Case(
        "multipart: the delimiter's prefix inside the data",
        multipart(parts=(part(data=f"--{BOUNDARY}\r\n--{BOUNDARY[:-1]}".encode()),)),
    ),
    Case("multipart: no closing delimiter", multipart(parts=(part(),), end=False)),
    Case(
        "multipart: a part header of 1 MB",
        multipart(parts=(part(headers=(f"X-Big: {'a' * 1_000_000}",)),)),
    ),
    Case(
        "multipart: 10,000 part headers",
        multipart(parts=(part(headers=tuple(f"X-{n}: v" for n in range(10_000))),)),
    ),
    Case("multipart: a million tiny parts", tiny_parts(1_000_000), wait=10.0),
    Case("multipart: a part that never ends", multipart(parts=(part(data=b"z" * (33 << 20)),))),
    Case(
        "multipart: filename ../../etc/passwd",
        multipart(parts=(part(filename="../../etc/passwd"),)),
    ),
    Case("multipart: filename with a NUL", multipart(parts=(part(filename="a\x00.txt"),))),
    Case(
        "multipart: filename with CR LF",
        multipart(parts=(part(filename="a.txt\r\nContent-Type: text/html"),)),
    ),
    Case("multipart: a part without a name", multipart(parts=(part(name=""),))),
    Case(
        "multipart: a part declaring 1 TB",
        multipart(parts=(part(headers=("Content-Length: 1099511627776",)),)),
    ),
    Case("urlencoded: 1,001 fields", urlencoded(b"&".join(b"f%d=1" % n for n in range(1001)))),
    # Files and static.
    Case("range: 5,000 ranges", ranged(("Range", f"bytes={MANY_RANGES}"))),
    Case("range: overlapping", ranged(("Range", "bytes=0-500,100-600"))),
    Case("range: the last 5 bytes", ranged(("Range", "bytes=-5"))),
    Case("range: the last 0 bytes", ranged(("Range", "bytes=-0"))),
    Case("range: end before start", ranged(("Range", "bytes=500-100"))),
    Case("range: past the end", ranged(("Range", "bytes=99999999999999999999-"))),
    Case("range: end past the end", ranged(("Range", "bytes=1000-99999999999999999999"))),
    Case("range: not bytes", ranged(("Range", "lines=1-2"))),
    Case("If-Range: a weak ETag", ranged(("Range", "bytes=0-1"), ("If-Range", 'W/"x"'))),
    Case("If-Range: garbage date", ranged(("Range", "bytes=0-1"), ("If-Range", "yesterday"))),
    Case("If-None-Match: *", ranged(("If-None-Match", "*"))),
    Case("If-None-Match: 10,000 ETags", ranged(("If-None-Match", ETAGS))),
    Case("If-Match: another ETag", ranged(("If-Match", '"other"'))),
    Case("If-Modified-Since: garbage", ranged(("If-Modified-Since", "not a date"))),
    Case("static: a symlink out of the folder", request("/static/outside.txt")),
    Case("static: a folder symlinked out", request("/static/up/secret.txt")),
    Case("static: ..%2f", request("/static/..%2fsecret.txt")),
    Case("static: %00", request("/static/small.txt%00.png")),
    Case("static: POST", request("/static/small.txt", method="POST")),
    # WebSocket upgrades.
    Case("upgrade: from another site's page", handshake(headers=WS_ORIGIN)),
    Case("upgrade: no Sec-WebSocket-Key", handshake(headers=(("Sec-WebSocket-Key", ""),))),
    Case("upgrade: version 8", handshake(headers=(("Sec-WebSocket-Version", "8"),))),
    Case("upgrade: POST", handshake(method="POST")),
    Case("upgrade: to an HTTP route", handshake("/hello")),
    Case("upgrade: to no route", handshake("/nowhere")),
    # Control endpoints.
    Case("stats: the token in the query string", request(f"/_hasten/stats?token={STATS_TOKEN}")),
    Case(
        "stats: another bearer token",
        request("/_hasten/stats", headers=(("Authorization", "Bearer guess"),)),
    ),
    Case(
        "stats: the token as Basic credentials",
        request("/_hasten/stats", headers=(("Authorization", f"Basic {STATS_TOKEN}"),)),
    ),
    Case("metrics: an invented method", request("/metrics", method="BREW")),
    # Middleware.
    Case("Host with a port", hosted("app.example:8443")),
    Case("Host with a trailing dot", hosted("app.example.")),
    Case("Host of another site", hosted("evil.example")),
    Case("Host of an empty subdomain", hosted(".app.example")),
    Case("absolute-form target to another site", hosted("app.example", "http://evil.example/who")),
    Case(
        "absolute-form target, Host of another site",
        hosted("evil.example", "http://app.example/who"),
    ),
    Case(
        "X-Forwarded-For from an untrusted peer",
        request(
            "/who", headers=(("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Proto", "https"))
        ),
    ),
    Case(
        "CORS preflight from another site",
        request(
            "/hello",
            method="OPTIONS",
            headers=(("Origin", "https://evil.example"), ("Access-Control-Request-Method", "GET")),
        ),
    ),
    Case("gzip: an image", gzip_asked("/image", "gzip")),
    Case("gzip: a body with its own Content-Encoding", gzip_asked("/precompressed", "gzip")),
    Case("gzip: Accept-Encoding gzip;q=0", gzip_asked("/text?size=1024", "gzip;q=0")),
    Case("gzip: Accept-Encoding identity;q=0", gzip_asked("/text?size=1024", "identity;q=0")),
    Case(
        "gzip: Accept-Encoding of 1,000 codings, gzip;q=0 last",
        gzip_asked("/text?size=1024", ", ".join(f"c{n}" for n in range(1000)) + ", gzip;q=0"),
    ),
    # Dependencies and exception handlers.
    Case("a handler that raises with a yield dependency", request("/deps/raise")),
    Case("an exception handler that raises", request("/exception-handler-fails")),
    # The third pass.
    Case("range: a first position of 5,000 digits", ranged(("Range", f"bytes={DIGITS}-"))),
    Case("range: a last position of 5,000 digits", ranged(("Range", f"bytes=1000-{DIGITS}"))),
    Case("range: a suffix of 5,000 digits", ranged(("Range", f"bytes=-{DIGITS}"))),
    Case("range: a superscript digit", ranged(("Range", "bytes=\u00b2-"))),
    Case(
        "multipart: a filename in latin-1",
        multipart(parts=(part(filename="r\u00e9sum\u00e9.txt"),)),
    ),
    Case(
        "multipart: a part header in latin-1",
        multipart(parts=(part(headers=("X-Note: caf\u00e9",)),)),
    ),
    Case("header: UTF-8 in a Header() value", request("/header", headers=(("X-Note", UTF8),))),
    Case("header: UTF-8 in a cookie", request("/cookies", headers=(("Cookie", f"a=1; b={UTF8}"),))),
    Case(
        "header: UTF-8 in a cookie, on a static file",
        ranged(("Cookie", f"b={UTF8}"), ("Range", "bytes=0-1")),
    ),
    Case(
        "response header: CR LF from the client's input",
        request("/echo-header?value=a%0d%0aSet-Cookie:%20evil=1"),
    ),
    Case("response header: NUL from the client's input", request("/echo-header?value=a%00b")),
    # The fourth pass: the URLs hasten builds from the Host header (redirects, url_for).
    Case("www redirect: to the allowed www host", hosted("shop.example")),
    Case("www redirect: Host with user information", hosted("shop.example:@evil.example")),
    Case("www redirect: Host with a path", hosted("shop.example:/@evil.example")),
    Case("www redirect: Host with a space", hosted("shop.example: x")),
    Case("www redirect: Host with a port past 65535", hosted("shop.example:99999")),
    Case("www redirect: Host with a port of letters", hosted("shop.example:http")),
    Case("HTTPS redirect: Host with a default port", hosted("app.example:80", "/secure/hello")),
    Case(
        "HTTPS redirect: an allowed host, then user information",
        hosted("127.0.0.1:@evil.example", "/secure/hello"),
    ),
    Case(
        "trailing slash: an allowed host, then user information",
        hosted("127.0.0.1:@evil.example", "/hello/"),
    ),
    Case(
        "url_for: an allowed host, then user information",
        hosted("127.0.0.1:@evil.example", "/link"),
    ),
]
