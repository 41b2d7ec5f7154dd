"""Hostile input on the surfaces added since the first pass (forms and uploads, files and static,
WebSockets, streams and SSE, control endpoints, middleware, dependencies and background tasks),
against ``tests/servers/hostile/surfaces_app.py`` on Granian (RSGI, ASGI) and uvicorn.

Each case asserts the exact answer (status and body), that the server stays up and that the
next normal request succeeds; each scenario asserts what the worker kept afterwards (spooled
files, generators, tasks, memory), with bounds on memory rather than on time.
"""

from __future__ import annotations

import inspect
from typing import Any

import msgspec
import pytest

from tests.servers.hostile.cases import NORMAL
from tests.servers.hostile.conftest import KINDS, Surfaces
from tests.servers.hostile.scenarios import FILE_SIZE, SCENARIOS
from tests.servers.hostile.surface_cases import PRECOMPRESSED, SURFACE_CASES
from tests.servers.hostile.wire import exchange

pytestmark = pytest.mark.server

SMALL = bytes(range(256)) * 4  # /static/small.txt
NOT_FOUND = b'{"detail":"Not Found"}'
HELLO = b'{"message":"hello"}'
SERVER_ERROR = b"Internal Server Error"
BAD_HOST = b"Invalid host header"
UNFINISHED = (
    b'{"detail":"Invalid multipart data: Unexpected end of multipart stream (parser closed)"}'
)
TOO_MANY_FIELDS = b'{"detail":"Too many fields. Maximum number of fields is 1000."}'
FILE_TOO_BIG = b'{"detail":"File \'a.txt\' exceeds 33554432 bytes (max_file_size)"}'
NO_TOKEN = b'{"detail":"A bearer token is required"}'
PNG = b"\x89PNG\r\n\x1a\n" + bytes(100_000)
TEXT = bytes(range(256)) * 4  # /text?size=1024

Answer = tuple[int | None, bytes]


def granian_or_uvicorn(granian: Answer, uvicorn: Answer) -> dict[str, Answer]:
    return {"granian-rsgi": granian, "granian-asgi": granian, "uvicorn": uvicorn}


def rsgi_or_asgi(rsgi: Answer, asgi: Answer) -> dict[str, Answer]:
    return {"granian-rsgi": rsgi, "granian-asgi": asgi, "uvicorn": asgi}


def bad_host(why: str, header: str = "Host") -> bytes:
    return msgspec.json.encode({"detail": f"Invalid {header} header: {why}"})


def unreadable(header: str) -> bytes:
    return (
        f'{{"detail":"The {header} header holds bytes other than visible ASCII, which '
        "Granian's RSGI interface does not hand over to the app\"}"
    ).encode()


# Status and exact body, the same on every server unless given per server.
EXPECTED: dict[str, Answer | dict[str, Answer]] = {
    "multipart: no boundary": (
        400,
        b'{"detail":"Missing boundary in multipart."}',
    ),
    "multipart: boundary of 200 characters": (200, b'{"filename":"a.txt","size":4,"note":0}'),
    # No body at all is an empty form, as Starlette reads it: the file is missing.
    "multipart: the boundary never comes": (
        422,
        b'{"detail":[{"type":"missing","loc":["body","file"],'
        b'"msg":"Field required","input":null}]}',
    ),
    "multipart: the delimiter's prefix inside the data": (
        200,
        b'{"filename":"a.txt","size":37,"note":0}',
    ),
    "multipart: no closing delimiter": (400, UNFINISHED),
    "multipart: a part header of 1 MB": (
        400,
        b'{"detail":"Invalid multipart data: Maximum segment header length exceeded"}',
    ),
    "multipart: 10,000 part headers": (
        400,
        b'{"detail":"Invalid multipart data: Maximum segment header count exceeded"}',
    ),
    "multipart: a million tiny parts": (400, TOO_MANY_FIELDS),
    "multipart: a part that never ends": (413, FILE_TOO_BIG),
    # The client's filename is given to the handler as sent, as Starlette does: it is the
    # client's word, never a path to write to (docs/from-fastapi.md says so).
    "multipart: filename ../../etc/passwd": (
        200,
        b'{"filename":"../../etc/passwd","size":4,"note":0}',
    ),
    "multipart: filename with a NUL": (200, b'{"filename":"a\\u0000.txt","size":4,"note":0}'),
    # The CR LF ends the Content-Disposition line inside its quotes: the part has no filename
    # left, so it is a field, not the file the handler asks for.
    "multipart: filename with CR LF": (
        422,
        b'{"detail":[{"type":"value_error","loc":["body","file"],'
        b'"msg":"Value error, Expected UploadFile, received: <class \'str\'>","input":"data",'
        b'"ctx":{"error":{}}}]}',
    ),
    "multipart: a part without a name": (
        400,
        b'{"detail":"The Content-Disposition header field \\"name\\" must be provided."}',
    ),
    "multipart: a part declaring 1 TB": (413, FILE_TOO_BIG),
    "urlencoded: 1,001 fields": (400, TOO_MANY_FIELDS),
    # Ranges are read as Starlette reads them: more than 100 are ignored (the whole file),
    # overlapping ones merged, a malformed header a 400 in Starlette's words; another unit
    # than bytes is ignored, as RFC 9110 says.
    "range: 5,000 ranges": (200, SMALL),
    "range: overlapping": (206, SMALL[:601]),
    "range: the last 5 bytes": (206, SMALL[-5:]),
    "range: the last 0 bytes": (416, b""),
    "range: end before start": (400, b"Range header: start must be less than end"),
    "range: past the end": (416, b""),
    "range: end past the end": (206, SMALL[1000:]),
    "range: not bytes": (200, SMALL),
    "If-Range: a weak ETag": (200, SMALL),
    "If-Range: garbage date": (200, SMALL),
    "If-None-Match: *": (304, b""),
    "If-None-Match: 10,000 ETags": (200, SMALL),
    "If-Match: another ETag": (412, b""),
    "If-Modified-Since: garbage": (200, SMALL),
    "static: a symlink out of the folder": (404, NOT_FOUND),
    "static: a folder symlinked out": (404, NOT_FOUND),
    "static: ..%2f": (404, NOT_FOUND),
    "static: %00": (404, NOT_FOUND),
    "static: POST": (405, b'{"detail":"Method Not Allowed"}'),
    "upgrade: from another site's page": (403, b""),
    "upgrade: no Sec-WebSocket-Key": granian_or_uvicorn(
        (400, b'No "Sec-WebSocket-Key" header'),
        (400, b"Failed to open a WebSocket connection: missing Sec-WebSocket-Key header.\n"),
    ),
    "upgrade: version 8": granian_or_uvicorn(
        (400, b'No "Sec-WebSocket-Version: 13" header'),
        (400, b"Failed to open a WebSocket connection: invalid Sec-WebSocket-Version header: 8.\n"),
    ),
    # Granian upgrades a POST (RFC 6455 asks for GET); no browser sends one, and the Origin
    # check holds all the same. An ASGI app is not told the method of a handshake.
    "upgrade: POST": granian_or_uvicorn(
        (101, b""),
        (405, b"Failed to open a WebSocket connection: unsupported HTTP method: POST.\n"),
    ),
    "upgrade: to an HTTP route": (403, b""),
    "upgrade: to no route": (404, b""),
    "stats: the token in the query string": (401, NO_TOKEN),
    "stats: another bearer token": (403, b'{"detail":"The token is not the stats token"}'),
    "stats: the token as Basic credentials": (401, NO_TOKEN),
    "metrics: an invented method": (405, b'{"detail":"Method Not Allowed"}'),
    "Host with a port": (200, HELLO),
    "Host with a trailing dot": (400, BAD_HOST),
    "Host of another site": (400, BAD_HOST),
    "Host of an empty subdomain": (400, BAD_HOST),
    # Granian routes an absolute-form target by its path and keeps the Host header's host
    # (the one TrustedHost checked); uvicorn takes the whole URL as the path.
    "absolute-form target to another site": granian_or_uvicorn(
        (200, b'{"client":"127.0.0.1","scheme":"http","url":"http://app.example/who"}'),
        (404, NOT_FOUND),
    ),
    "absolute-form target, Host of another site": (400, BAD_HOST),
    "X-Forwarded-For from an untrusted peer": (
        200,
        b'{"client":"127.0.0.1","scheme":"http","url":"http://127.0.0.1/who"}',
    ),
    "CORS preflight from another site": (400, b"Disallowed CORS origin"),
    "gzip: an image": (200, PNG),  # not compressed again
    "gzip: a body with its own Content-Encoding": (200, PRECOMPRESSED),
    # A client that refuses gzip gets the body as it is (Starlette compresses it all the same).
    "gzip: Accept-Encoding gzip;q=0": (200, TEXT),
    "gzip: Accept-Encoding identity;q=0": (200, TEXT),  # nothing acceptable: as it is
    "gzip: Accept-Encoding of 1,000 codings, gzip;q=0 last": (200, TEXT),
    "a handler that raises with a yield dependency": (500, SERVER_ERROR),
    "an exception handler that raises": (500, SERVER_ERROR),  # its secret not in the body
    # The third pass. Before it: a 500 for the first (int() of 5,000 digits), and for the
    # superscript digit under ASGI (int("\u00b2")).
    "range: a first position of 5,000 digits": (416, b""),
    "range: a last position of 5,000 digits": (206, SMALL[1000:]),
    "range: a suffix of 5,000 digits": (206, SMALL),
    # Granian's RSGI does not hand a value beyond visible ASCII over; the app says so. Under
    # ASGI the header names no range it can read: Starlette's 400.
    "range: a superscript digit": rsgi_or_asgi(
        (400, unreadable("range")), (400, b"Range header: range must be requested")
    ),
    # Before: 400 with Python's UnicodeDecodeError in the body. Read as latin-1 now, as
    # Starlette reads it.
    "multipart: a filename in latin-1": (
        200,
        '{"filename":"résumé.txt","size":4,"note":0}'.encode(),
    ),
    "multipart: a part header in latin-1": (200, b'{"filename":"a.txt","size":4,"note":0}'),
    # Before, under RSGI: the Header() parameter's default, and no cookies at all (200).
    # ASGI servers hand the bytes over, read as latin-1 (as Starlette reads them).
    "header: UTF-8 in a Header() value": rsgi_or_asgi(
        (400, unreadable("x-note")), (200, '{"note":"cafÃ©"}'.encode())
    ),
    "header: UTF-8 in a cookie": rsgi_or_asgi(
        (400, unreadable("cookie")), (200, '{"a":"1","b":"cafÃ©"}'.encode())
    ),
    "header: UTF-8 in a cookie, on a static file": (206, SMALL[:2]),
    # Before: 200 without the header under Granian RSGI, Granian ASGI's own empty 500, and
    # uvicorn dropped the connection. Now the header is refused as it is set: a logged 500.
    "response header: CR LF from the client's input": (500, SERVER_ERROR),
    "response header: NUL from the client's input": (500, SERVER_ERROR),
    # The fourth pass. Before it, each Host below was pasted into the URL: the www redirect
    # went to http://www.shop.example:@evil.example/hello (evil.example, to a browser), and a
    # Host that TrustedHost allowed by what came before its ":" (127.0.0.1) sent the HTTPS
    # and trailing-slash redirects and url_for to evil.example.
    "www redirect: to the allowed www host": (301, b""),
    "www redirect: Host with user information": (
        400,
        bad_host("'@' may not appear in a host or port"),
    ),
    "www redirect: Host with a path": (400, bad_host("'/' may not appear in a host or port")),
    "www redirect: Host with a space": (400, bad_host("' ' may not appear in a host or port")),
    "www redirect: Host with a port past 65535": (400, bad_host("its port is past 65535")),
    "www redirect: Host with a port of letters": (400, bad_host("its port is not a number")),
    "HTTPS redirect: Host with a default port": (307, b""),
    "HTTPS redirect: an allowed host, then user information": (
        400,
        bad_host("'@' may not appear in a host or port"),
    ),
    "trailing slash: an allowed host, then user information": (
        400,
        bad_host("'@' may not appear in a host or port"),
    ),
    "url_for: an allowed host, then user information": (
        400,
        bad_host("'@' may not appear in a host or port"),
    ),
}
# Where a redirect sends the client.
LOCATIONS = {
    "www redirect: to the allowed www host": "http://www.shop.example/hello",
    "HTTPS redirect: Host with a default port": "https://app.example/secure/hello",
}


def expected(name: str, kind: str) -> Answer:
    found = EXPECTED[name]
    return found if isinstance(found, tuple) else found[kind]


def test_every_surface_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(case.name for case in SURFACE_CASES)
    for found in EXPECTED.values():
        assert isinstance(found, tuple) or sorted(found) == sorted(KINDS)


@pytest.mark.parametrize("case", SURFACE_CASES, ids=lambda case: case.name)
def test_hostile_surface_request(surfaces: Surfaces, case: Any) -> None:
    outcome = exchange(surfaces.port, case.data, half_close=case.half_close, wait=case.wait)
    assert (outcome.status, outcome.body) == expected(case.name, surfaces.kind)
    assert outcome.headers.get("location") == LOCATIONS.get(case.name)
    surfaces.check_alive()
    assert exchange(surfaces.port, NORMAL).status == 200


# What each scenario must leave: facts equal to these (per server where they differ), and
# memory the worker grew by under ``MEMORY_MIB``.
CODE_1009 = {"code": 1009, "ending": "close frame"}
# Granian's RSGI closes a WebSocket without a code (the client reads 1005).
NO_CODE_ON_RSGI = {**dict.fromkeys(KINDS, CODE_1009), "granian-rsgi": {"code": None}}


def apart_on_rsgi(rsgi: dict[str, Any], others: dict[str, Any]) -> dict[str, Any]:
    return {"granian-rsgi": rsgi, "granian-asgi": others, "uvicorn": others}


def closed_with(code: int, reason: str) -> dict[str, Any]:
    """A close frame with ``code`` and ``reason`` (none under Granian RSGI), then the TCP
    connection closed at once, and no socket left in CLOSE-WAIT, on every server."""
    ending = {"tcp": "closed", "close_wait": 0}
    return apart_on_rsgi(
        {"code": None, "reason": "", **ending}, {"code": code, "reason": reason, **ending}
    )


FACTS: dict[str, dict[str, Any]] = {
    "upload of 1 MiB: spooled files left": {"status": "200", "spooled": 0},
    "upload to a handler that raises: spooled files left": {"status": "500", "spooled": 0},
    "client hangs up mid-upload: spooled files left": {"spooled": 0},
    "client hangs up in the handler: spooled files left": {"spooled": 0},
    "4 concurrent uploads of 16 MiB": {"statuses": ["200"] * 4, "spooled": 0},
    # The client is not told a file was cut short but can tell: fewer bytes than declared.
    "a file truncated while it is sent": {"status": "200", "ending": "closed"},
    # An open file outlives its name: the client gets all of it.
    "a file deleted while it is sent": {
        "status": "200",
        "body": FILE_SIZE,
        "declared": FILE_SIZE,
        "ending": "closed",
    },
    "WebSocket: a 70 KB message (limit 64 KiB)": NO_CODE_ON_RSGI,
    # Granian refuses a frame past its own limit itself, without a code.
    "WebSocket: a frame claiming 2^60 bytes": {
        "granian-rsgi": {"code": None, "ending": "close frame"},
        "granian-asgi": {"code": None, "ending": "close frame"},
        "uvicorn": CODE_1009,
    },
    "WebSocket: 100 fragments of 1 KB": NO_CODE_ON_RSGI,
    "WebSocket: 100,000 fragments of 1 byte": NO_CODE_ON_RSGI,
    "WebSocket: 100,000 pings, pongs unread": {"echoed": True},
    # Granian's ASGI does not tell a handler that only sends that its client left: it sends
    # on until its own deadline.
    "WebSocket: fast sender, client reads nothing for 2 s": {
        "granian-rsgi": {"ended": True},
        "granian-asgi": {"ended": False},
        "uvicorn": {"ended": True},
    },
    "WebSocket: 1,000 idle sockets, then /hello": {"held": 1000, "hello": 200},
    "stream: client reads nothing for 1.5 s": {},
    "SSE: client reads nothing for 1.5 s": {},
    "mounted ASGI app's stream: client reads nothing": {},
    "stream: client vanishes mid-stream": {"closed": 1, "generators": 0, "tasks": 0},
    "gzip stream: client reads nothing for 1.5 s": {},
    "gzip stream: read as it comes, then the client vanishes": {
        "encoding": "gzip",
        "ticks": 5,
        "closed": 1,
        "generators": 0,
        "tasks": 0,
    },
    "metrics: invented paths and methods": {"invented": 0},
    "X-Forwarded-For from the trusted proxy": {"client": "203.0.113.9"},
    "X-Forwarded-Host from the trusted proxy": {
        "status": 200,
        "body": b'{"url":"http://app.example/hello"}',
    },
    # Before: 200 with http://app.example:@evil.example/hello.
    "X-Forwarded-Host with user information, from the trusted proxy": {
        "status": 400,
        "body": bad_host("'@' may not appear in a host or port", "X-Forwarded-Host"),
    },
    "yield dependency: client hangs up in the handler": {"entered": 1, "cleaned": 1},
    "yield dependency under overload (6 at once, 1 allowed)": {
        "statuses": {"200": 1, "503": 5},
        "entered": 1,
        "cleaned": 1,
    },
    "background tasks: the first one raises": {"status": 200, "ran": 1},
    # The third pass. Before it, under Granian RSGI, the socket was left open after the close
    # frame, and in CLOSE-WAIT once the client left, until the garbage collector ran.
    # Granian's RSGI (2.8.9) sends no code nor reason, and passes the client's on to no one:
    # a limit of Granian's (README), which these facts notice if it changes.
    "WebSocket: the handler raises": closed_with(1011, ""),
    "WebSocket: invalid JSON to receive_json": closed_with(1007, "invalid JSON"),
    "WebSocket: the handler closes with 4000 'asked to'": closed_with(4000, "asked to"),
    # Granian's ASGI passes the client's code on, not its reason (2.8.9: a limit of Granian's).
    "WebSocket: the client closes with 4001 'done'": {
        "granian-rsgi": {"code": 1005, "reason": ""},
        "granian-asgi": {"code": 4001, "reason": ""},
        "uvicorn": {"code": 4001, "reason": "done"},
    },
    # RSGI's handshake cannot carry a subprotocol: accept(subprotocol=...) raises, and the
    # handshake is refused with 500 (the error, logged, says to serve over ASGI).
    "WebSocket: subprotocols v1, v2 offered, v2 taken": apart_on_rsgi(
        {"status": 500, "subprotocol": None, "said": None},
        {"status": 101, "subprotocol": "v2", "said": "chosen"},
    ),
}
# Bounds, where a scenario measures memory or how far a source ran ahead of its client.
MEMORY_MIB: dict[str, float] = {
    "4 concurrent uploads of 16 MiB": 32,  # of 64 MiB sent: they spool to disk
    "WebSocket: 100,000 pings, pongs unread": 32,  # of 10 MB of pings
    "WebSocket: fast sender, client reads nothing for 2 s": 16,
    "WebSocket: 1,000 idle sockets, then /hello": 300,  # Granian's: about 150 KiB a socket
    "stream: client reads nothing for 1.5 s": 16,  # of a 64 MiB source
    "SSE: client reads nothing for 1.5 s": 16,
    "mounted ASGI app's stream: client reads nothing": 16,
    "gzip stream: client reads nothing for 1.5 s": 16,  # of 64 MiB that gzip cannot shrink
}
# A source held back by its client runs a few MiB ahead of it, not through all 64 MiB: how
# many chunks of 64 KiB it produced (of 1,000), or messages it sent.
RAN_AHEAD_AT_MOST: dict[str, tuple[str, int]] = {
    "WebSocket: fast sender, client reads nothing for 2 s": ("sent", 200),
    "stream: client reads nothing for 1.5 s": ("produced", 200),
    "SSE: client reads nothing for 1.5 s": ("produced", 200),
    "mounted ASGI app's stream: client reads nothing": ("produced", 200),
    "gzip stream: client reads nothing for 1.5 s": ("produced", 200),
}
# Series /metrics' http_requests_total adds for 300 invented paths and methods: one for each
# method label (GET, POST, the one for every other method) on the unmatched route, and one for
# /metrics itself.
SERIES_ADDED_AT_MOST = 4


def test_every_scenario_has_facts() -> None:
    assert sorted(FACTS) == sorted(name for name, _ in SCENARIOS)
    assert set(MEMORY_MIB) <= set(FACTS)
    assert set(RAN_AHEAD_AT_MOST) <= set(FACTS)


@pytest.mark.parametrize(("name", "scenario"), SCENARIOS, ids=[name for name, _ in SCENARIOS])
def test_hostile_surface_scenario(surfaces: Surfaces, name: str, scenario: Any) -> None:
    arguments: list[Any] = [surfaces.port]
    if "site" in inspect.signature(scenario).parameters:
        arguments.append(surfaces.site)
    seen = scenario(*arguments)
    wanted = FACTS[name]
    if surfaces.kind in wanted:
        wanted = wanted[surfaces.kind]
    assert {key: seen.facts.get(key) for key in wanted} == wanted, seen.cell
    if name in MEMORY_MIB:
        assert seen.facts["grew_mib"] < MEMORY_MIB[name], seen.cell
    if name in RAN_AHEAD_AT_MOST:
        key, most = RAN_AHEAD_AT_MOST[name]
        assert seen.facts[key] < most, seen.cell
    if "added" in seen.facts:
        assert seen.facts["added"] <= SERIES_ADDED_AT_MOST, seen.cell
    if name == "a file truncated while it is sent":
        assert seen.facts["body"] < seen.facts["declared"] == FILE_SIZE, seen.cell
    surfaces.check_alive()
    assert exchange(surfaces.port, NORMAL).status == 200
