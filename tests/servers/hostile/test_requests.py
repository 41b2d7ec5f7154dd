"""Hostile requests, as raw bytes, against hasten on Granian (RSGI, ASGI) and uvicorn.

Each case asserts exactly what comes back (a status, or how the connection ends), who answers
(the server before the app, or the app), that the server stays up, and that the next normal
request on a new connection succeeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import msgspec
import psutil
import pytest

from tests.servers.hostile.cases import CASES, Case, json_post, request
from tests.servers.hostile.conftest import KINDS, Served
from tests.servers.hostile.wire import exchange

pytestmark = pytest.mark.server


@dataclass(frozen=True)
class Expect:
    """What one kind of server does with a case."""

    outcome: str  # the status, or "closed", "reset", "silent"
    by: str = "server"  # who answers: "server" (before the app) or "app"
    body: bytes | None = None  # exactly this body, where it matters
    location: str | None = None  # for a redirect; {port} is the server's


def everywhere(expect: Expect) -> dict[str, Expect]:
    return dict.fromkeys(KINDS, expect)


def server_400() -> dict[str, Expect]:
    return everywhere(Expect("400"))


def app_answers(status: str, body: bytes | None = None) -> dict[str, Expect]:
    return everywhere(Expect(status, "app", body))


BROKEN_CHUNKS = (
    b'{"detail":"Request body incomplete: its chunked encoding was malformed or cut short"}'
)
DISCONNECTED = b'{"detail":"Client disconnected while sending the body"}'
ORDER = b'{"id":1,"name":"x"}'
OUT_OF_RANGE = (
    b'{"detail":[{"type":"int_parsing_size","loc":["%s"],"msg":"Unable to parse input string '
    b'as an integer, exceeded maximum size","input":"%s"}]}'
)

EXPECTED: dict[str, dict[str, Expect]] = {
    "request line: garbage": server_400(),
    "request line: no version": server_400(),
    # h11 reads any HTTP/d.d as HTTP/1.1; Granian refuses it.
    "request line: HTTP/9.9": {
        "granian-rsgi": Expect("400"),
        "granian-asgi": Expect("400"),
        "uvicorn": Expect("200", "app"),
    },
    "request line: HTTP/1.1x": server_400(),
    "request line: lowercase http/1.1": server_400(),
    "request line: method with (": server_400(),
    "request line: two spaces": server_400(),
    "HTTP/1.0 without Host": app_answers("200", b'{"message":"hello"}'),
    # Granian limits a URL to 64 KB and its whole head to about 400 KB; uvicorn (h11) lets a
    # 100 KB URL and 10,000 small headers through, and refuses a head of 1 MB.
    "URL of 100 KB": {
        "granian-rsgi": Expect("414"),
        "granian-asgi": Expect("414"),
        "uvicorn": Expect("200", "app", b'{"q":100000,"limit":10}'),
    },
    "URL of 1 MB": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("400"),
    },
    "10,000 headers": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("200", "app", b'{"message":"hello"}'),
    },
    "header value of 1 MB": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("400"),
    },
    "NUL in a header value": server_400(),
    "bare CR in a header value": server_400(),
    "bare LF in a header value": server_400(),
    "space before the colon": server_400(),
    "two different Content-Lengths": server_400(),
    # RFC 9112 §6.1: refused, the connection closed after (uvicorn with httptools refuses it
    # itself). Granian drops the Content-Length before the app sees it, reads the chunked
    # body and closes the connection after the answer (tests/servers/hostile/test_granian.py): the
    # app cannot tell. h11 hands both over, and the app refuses them (before: 201).
    "Content-Length with Transfer-Encoding": {
        "granian-rsgi": Expect("201", "app", ORDER),
        "granian-asgi": Expect("201", "app", ORDER),
        "uvicorn": Expect(
            "400", "app", b'{"detail":"The request has both Content-Length and Transfer-Encoding"}'
        ),
    },
    "negative Content-Length": server_400(),
    "non-numeric Content-Length": server_400(),
    "chunk size not hex": {
        "granian-rsgi": Expect("400", "app", BROKEN_CHUNKS),
        "granian-asgi": Expect("400", "app", DISCONNECTED),
        "uvicorn": Expect("400"),
    },
    # uvicorn waits for the chunk's 10^24 bytes, until body_timeout (30 s) makes it a 408.
    "chunk size huge": {
        "granian-rsgi": Expect("400", "app", BROKEN_CHUNKS),
        "granian-asgi": Expect("400", "app", DISCONNECTED),
        "uvicorn": Expect("silent"),
    },
    "chunks never terminated": {
        "granian-rsgi": Expect("400", "app", BROKEN_CHUNKS),
        "granian-asgi": Expect("400", "app", DISCONNECTED),
        "uvicorn": Expect("closed"),
    },
    "body shorter than declared": {
        "granian-rsgi": Expect("400", "app", DISCONNECTED),
        "granian-asgi": Expect("400", "app", DISCONNECTED),
        "uvicorn": Expect("closed"),
    },
    # The declared length is read; the rest would be the next request, but the client asked
    # to close the connection.
    "body longer than declared": app_answers("201", ORDER),
    # Paths reach the handler decoded once, as they do in Starlette: `..` is a value like any
    # other (never join it to a directory unchecked), %25 stays an escape, invalid UTF-8
    # becomes U+FFFD, and a NUL is a character.
    "path: ..": app_answers("200", b'{"path":"../../etc/passwd"}'),
    "path: %2e%2e%2f": app_answers("200", b'{"path":"../../etc/passwd"}'),
    "path: %252e": app_answers("200", b'{"path":"%2e%2e%2fetc"}'),
    "path: overlong UTF-8": app_answers("200", '{"path":"\ufffd\ufffd\ufffd\ufffd/etc"}'.encode()),
    "path: //": app_answers("404", b'{"detail":"Not Found"}'),
    "path: %00": app_answers("200", b'{"path":"a\\u0000b"}'),
    "path: invalid UTF-8": app_answers("200", '{"name":"\ufffd\ufffd"}'.encode()),
    # The trailing-slash redirect is built from the path as it was sent.
    "redirect: encoded ?": everywhere(
        Expect("307", "app", location="http://127.0.0.1/names/a%3Fb=c")
    ),
    "redirect: space": everywhere(Expect("307", "app", location="http://127.0.0.1/names/a%20b")),
    "redirect: non-ASCII": everywhere(
        Expect("307", "app", location="http://127.0.0.1/names/%C3%A9t%C3%A9")
    ),
    # Before: 307 to http://127.0.0.1:@evil.example/names/a (evil.example, to a browser), and
    # without a Host to http:///names/a (a browser reads "names" as the host).
    "redirect: Host with user information": app_answers(
        "400", b'{"detail":"Invalid Host header: \'@\' may not appear in a host or port"}'
    ),
    "redirect: Host of an IPv6 address and a port": everywhere(
        Expect("307", "app", location="http://[::1]:8000/names/a")
    ),
    "redirect: HTTP/1.0 without Host": everywhere(
        Expect("307", "app", location="http://127.0.0.1:{port}/names/a")
    ),
    "JSON: duplicate keys": app_answers("201", b'{"id":2,"name":"x"}'),  # the last one wins
    "JSON: nested 100,000 deep": app_answers(
        "400", b'{"detail":"JSON body nested deeper than 64 levels"}'
    ),
    "JSON: invalid UTF-8 in a string": app_answers(
        "400", b'{"detail":"Malformed JSON body: invalid UTF-8"}'
    ),
    "JSON: lone surrogate escape": app_answers(
        "400", b'{"detail":"Malformed JSON body: invalid surrogate escape"}'
    ),
    "JSON: unterminated string of escaped quotes": app_answers(
        "400", b'{"detail":"Malformed JSON body: Input data was truncated"}'
    ),
    "JSON: truncated chunked body": {
        "granian-rsgi": Expect("400", "app", BROKEN_CHUNKS),
        "granian-asgi": Expect("400", "app", DISCONNECTED),
        "uvicorn": Expect("closed"),
    },
    "int of 4,300 digits in the path": app_answers(
        "422", OUT_OF_RANGE % (b'path","item_id', b"9" * 4301)
    ),
    "int of 4,300 digits in the query": app_answers(
        "422", OUT_OF_RANGE % (b'query","limit', b"9" * 4301)
    ),
    # Too long a URL for either server: the app never sees it (see test_in_process.py).
    "query of 100,000 parameters": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("400"),
    },
    "query of 1,001 parameters": app_answers(
        "414", b'{"detail":"The query string has more than 1000 parameters"}'
    ),
    # Granian refuses more than 100 headers itself; the app holds uvicorn to the same.
    "101 headers, read by the route": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("431", "app", b'{"detail":"The request has more than 100 headers"}'),
    },
    "JSON nested 65 deep": app_answers(
        "400", b'{"detail":"JSON body nested deeper than 64 levels"}'
    ),
    "query value of 1 MB": {
        "granian-rsgi": Expect("431"),
        "granian-asgi": Expect("431"),
        "uvicorn": Expect("400"),
    },
}


def test_every_case_has_an_expectation_on_every_server() -> None:
    assert sorted(EXPECTED) == sorted(case.name for case in CASES)
    assert all(sorted(expected) == sorted(KINDS) for expected in EXPECTED.values())


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_hostile_request(served: Served, case: Case) -> None:
    expect = EXPECTED[case.name][served.kind]
    outcome = exchange(served.port, case.data, half_close=case.half_close, wait=case.wait)

    assert str(outcome) == expect.outcome, outcome.body[:300]
    if expect.body is not None:
        assert outcome.body == expect.body
    if expect.location is not None:
        assert outcome.headers["location"] == expect.location.format(port=served.port)
    if outcome.status is not None:
        # hasten answers in JSON (or redirects); a server that refuses a request before the
        # app does neither.
        from_app = "location" in outcome.headers
        from_app |= outcome.headers.get("content-type") == "application/json"
        assert from_app == (expect.by == "app"), outcome.headers
    served.check_alive()


# What one request cannot show.
def keys(count: int) -> bytes:
    """A JSON object of ``count`` distinct keys: the costliest document to decode per byte."""
    return b"{" + b",".join(b'"%d":0' % index for index in range(count)) + b"}"


MILLION_KEYS = keys(1_000_000)  # 10.9 MB, under the app's max_body_size (16 MiB)
LARGEST_DECODED = keys(100_000)  # 0.99 MB, just under max_json_size (1 MiB)
# The CPU a request for the largest JSON body decoded may cost the server: its decode (about
# 25 ms) is one C call that holds the event loop, and every other request on the worker waits
# that long. Measured as CPU time, not wall-clock time: a loaded machine stretches the wait,
# but not what hasten made the loop do.
HELD_AT_MOST = 0.25


def server_cpu(served: Served) -> float:
    """The CPU seconds (user and system) the server's processes, its workers included, used."""
    main = psutil.Process(served.process.pid)
    times = [item.cpu_times() for item in (main, *main.children(recursive=True))]
    return sum(item.user + item.system for item in times)


def posted(served: Served, data: bytes) -> tuple[tuple[str, bytes], float]:
    """Send ``data`` (and nothing else meanwhile): the answer, and the CPU it cost the server."""
    before = server_cpu(served)
    outcome = exchange(served.port, data, wait=10.0)
    return (str(outcome), outcome.body), server_cpu(served) - before


def test_a_json_body_past_max_json_size_is_refused_undecoded(served: Served) -> None:
    answer, spent = posted(served, json_post("/echo", MILLION_KEYS))
    assert answer == ("413", b'{"detail":"JSON body exceeds 1048576 bytes (max_json_size)"}')
    # Decoding it would have held the server's event loop for what it costs here.
    start = time.process_time()
    msgspec.json.decode(MILLION_KEYS)
    decoding = time.process_time() - start
    assert spent < decoding / 2, f"{spent:.3f} s of CPU to refuse, {decoding:.3f} s to decode"
    served.check_alive()


def test_the_largest_json_body_decoded_holds_the_loop_briefly(served: Served) -> None:
    answer, spent = posted(served, json_post("/echo", LARGEST_DECODED))
    assert answer == ("200", b'{"type":"dict"}')
    assert spent < HELD_AT_MOST, f"{spent:.3f} s of CPU"
    served.check_alive()


# The costliest bodies for the checks around the decode, each with its answer: the first took
# the depth check 8 s of CPU at 32 KB (quadratic in its length) before the check was linear.
TRUNCATED = ("400", b'{"detail":"Malformed JSON body: Input data was truncated"}')
COSTLIEST_TO_CHECK = {
    "unterminated string of escaped quotes": (
        b"[" * 64 + b'"' + b'\\"' * 500_000,
        TRUNCATED,
    ),
    "brackets, each pair empty": (b"[" + b"[]," * 349_000 + b"[]]", ("200", b'{"type":"list"}')),
    "surrogate pairs, then cut short": (
        b"[" * 64 + b'"' + b"\\ud800\\udc00" * 87_000,
        TRUNCATED,
    ),
}


@pytest.mark.parametrize("case", COSTLIEST_TO_CHECK.values(), ids=list(COSTLIEST_TO_CHECK))
def test_the_costliest_bodies_to_check_hold_the_loop_briefly(
    served: Served, case: tuple[bytes, tuple[str, bytes]]
) -> None:
    body, expected = case
    assert len(body) <= 1_048_576  # max_json_size
    answer, spent = posted(served, json_post("/echo", body))
    assert answer == expected
    assert spent < HELD_AT_MOST, f"{spent:.3f} s of CPU"
    served.check_alive()


def test_hang_ups_mid_body_log_no_traceback(served: Served, request: pytest.FixtureRequest) -> None:
    before = served.log.read_text(errors="replace").count("Traceback")
    hang_up = json_post("/orders", b'{"id": 1, "name": "x"}')[:-5]
    for _ in range(5):
        exchange(served.port, hang_up, half_close=True)
    served.check_alive()
    time.sleep(0.2)  # the log is written after the answer
    assert served.log.read_text(errors="replace").count("Traceback") == before


LONGEST_LOG_LINE = 1000


def test_log_lines_are_bounded(served: Served) -> None:
    # A long path to a route that answers, to one that fails, and one no route has.
    for target in ("/names/" + "n" * 60_000, "/items/" + "9" * 60_000, "/" + "x" * 60_000):
        exchange(served.port, request(target))
    served.check_alive()
    time.sleep(0.2)
    lines = served.log.read_text(errors="replace").splitlines()
    assert max(len(line) for line in lines) <= LONGEST_LOG_LINE
