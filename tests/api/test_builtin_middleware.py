"""The built-in middleware through both adapters: CORS, GZip, TrustedHost, ProxyHeaders."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from hasten import (
    App,
    EventSourceResponse,
    FileResponse,
    HTTPException,
    PlainTextResponse,
    Request,
    Response,
    StreamingResponse,
)
from hasten.middleware import (
    CORSMiddleware,
    GZipMiddleware,
    HTTPSRedirectMiddleware,
    ProxyHeadersMiddleware,
    TrustedHostMiddleware,
)
from hasten.middleware.headers import HeaderMiddleware
from hasten.testing import TestClient
from hasten.types import CallNext, Receive, Scope, Send
from tests.conftest import ClientFactory


def app_with(cls: Any, **options: Any) -> App:
    app = App()
    app.add_middleware(cls, **options)

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.post("/hello")
    async def post_hello() -> str:
        return "posted"

    @app.get("/who")
    async def who(request: Request) -> dict[str, Any]:
        client = request.client
        return {
            "client": None if client is None else [client.host, client.port],
            "scheme": request.scheme,
            "host": request.headers.get("host"),
            "url": request.url,
        }

    return app


# CORS.
def test_cors_simple_request_with_explicit_origins(serve: ClientFactory) -> None:
    client = serve(app_with(CORSMiddleware, allow_origins=["https://a.example"]))
    allowed = client.get("/hello", headers={"origin": "https://a.example"})
    assert allowed.headers["access-control-allow-origin"] == "https://a.example"
    assert allowed.headers["vary"] == "Origin"
    other = client.get("/hello", headers={"origin": "https://b.example"})
    assert "access-control-allow-origin" not in other.headers
    plain = client.get("/hello")
    assert "access-control-allow-origin" not in plain.headers
    assert plain.json() == {"message": "hello"}
    # Without an Origin too: a shared cache must not give this answer to a browser's request.
    assert (other.headers["vary"], plain.headers["vary"]) == ("Origin", "Origin")


def test_cors_any_origin(serve: ClientFactory) -> None:
    client = serve(app_with(CORSMiddleware, allow_origins=["*"], expose_headers=["x-a", "x-b"]))
    response = client.get("/hello", headers={"origin": "https://any.example"})
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-expose-headers"] == "x-a, x-b"
    assert response.headers["vary"] == "Origin"
    # Without credentials allowed, cookies or not, any origin is "*" (Starlette 1.x).
    with_cookie = client.get("/hello", headers={"origin": "https://c.example", "cookie": "a=1"})
    assert with_cookie.headers["access-control-allow-origin"] == "*"


def test_cors_regex_and_credentials(serve: ClientFactory) -> None:
    client = serve(
        app_with(
            CORSMiddleware,
            allow_origin_regex=r"https://.*\.example\.org",
            allow_credentials=True,
        )
    )
    response = client.get("/hello", headers={"origin": "https://x.example.org"})
    assert response.headers["access-control-allow-origin"] == "https://x.example.org"
    assert response.headers["access-control-allow-credentials"] == "true"
    evil = client.get("/hello", headers={"origin": "https://x.example.org.evil.com"})
    assert "access-control-allow-origin" not in evil.headers


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"allow_origins": ["*"]}, 'allow_origins=["*"]'),
        ({"allow_origins": ["https://a.example", "null"]}, 'allow_origins with "null"'),
        ({"allow_origin_regex": "https://.*"}, "allow_origin_regex='https://.*', which matches"),
        ({"allow_origin_regex": ".*"}, "allow_origin_regex='.*', which matches any origin"),
    ],
)
def test_cors_refuses_credentials_for_any_site(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(ValueError, match=r"^CORSMiddleware: allow_credentials=True with ") as no:
        App().add_middleware(CORSMiddleware, allow_credentials=True, **options)
    assert str(no.value).startswith(f"CORSMiddleware: allow_credentials=True with {reason}")
    assert str(no.value).endswith(
        "lets every site read your users' responses with their cookies; list the origins you trust"
    )
    CORSMiddleware(allow_credentials=False, **options)  # without credentials: as Starlette


def test_cors_preflight(serve: ClientFactory) -> None:
    client = serve(
        app_with(
            CORSMiddleware,
            allow_origins=["https://a.example"],
            allow_methods=["GET", "POST"],
            allow_headers=["X-Token"],
            allow_credentials=True,
            max_age=99,
        )
    )
    ok = client.options(
        "/hello",
        headers={
            "origin": "https://a.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "x-token, content-type",
        },
    )
    assert (ok.status_code, ok.text) == (200, "OK")
    assert ok.headers["access-control-allow-origin"] == "https://a.example"
    assert ok.headers["access-control-allow-methods"] == "GET, POST"
    assert ok.headers["access-control-allow-headers"] == (
        "Accept, Accept-Language, Content-Language, Content-Type, X-Token"
    )
    assert ok.headers["access-control-max-age"] == "99"
    assert ok.headers["access-control-allow-credentials"] == "true"
    assert ok.headers["vary"] == (
        "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, "
        "Access-Control-Request-Private-Network"
    )
    bad = client.options(
        "/hello",
        headers={
            "origin": "https://b.example",
            "access-control-request-method": "DELETE",
            "access-control-request-headers": "x-other",
        },
    )
    assert (bad.status_code, bad.text) == (400, "Disallowed CORS origin, method, headers")
    # An OPTIONS without Access-Control-Request-Method is not a preflight: it is routed.
    assert client.options("/hello", headers={"origin": "https://a.example"}).status_code == 405


CORS_CONFIGS = [
    {"allow_origins": ["https://a.example"]},
    {"allow_origins": ["*"], "expose_headers": ["x-a"]},
    {"allow_origin_regex": r"https://.*\.example\.org", "allow_credentials": True},
    {
        "allow_origins": ["https://a.example"],
        "allow_methods": ["GET", "POST"],
        "allow_headers": ["X-Token"],
        "allow_credentials": True,
        "allow_private_network": True,
        "max_age": 99,
    },
    {"allow_origins": ["*"], "allow_methods": ["*"], "allow_headers": ["*"]},
]
CORS_REQUESTS: list[tuple[str, dict[str, str]]] = [
    ("GET", {}),
    ("GET", {"origin": "https://a.example"}),
    ("GET", {"origin": "https://x.example.org", "cookie": "a=1"}),
    ("GET", {"origin": "https://evil.example"}),
    ("OPTIONS", {"origin": "https://a.example", "access-control-request-method": "POST"}),
    (
        "OPTIONS",
        {
            "origin": "https://a.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "x-token, content-type",
            "access-control-request-private-network": "true",
        },
    ),
    (
        "OPTIONS",
        {
            "origin": "https://evil.example",
            "access-control-request-method": "DELETE",
            "access-control-request-headers": "x-other",
        },
    ),
]


def _cors_headers(response: Any) -> dict[str, str]:
    return {
        name: value
        for name, value in response.headers.items()
        if name.startswith("access-control-") or name == "vary"
    }


@pytest.mark.parametrize("config", CORS_CONFIGS)
def test_cors_answers_as_starlette(serve: ClientFactory, config: dict[str, Any]) -> None:
    """Every CORS header, for each kind of request, as Starlette's own CORSMiddleware sends."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware as StarletteCORS
    from starlette.responses import JSONResponse
    from starlette.routing import Route as StarletteRoute
    from starlette.testclient import TestClient as StarletteClient

    async def hello(request: Any) -> JSONResponse:
        return JSONResponse({"message": "hello"})

    reference = Starlette(
        routes=[StarletteRoute("/hello", hello, methods=["GET", "POST"])],
        middleware=[Middleware(StarletteCORS, **config)],
    )
    client = serve(app_with(CORSMiddleware, **config))
    with StarletteClient(reference) as starlette:
        for method, headers in CORS_REQUESTS:
            expected = starlette.request(method, "/hello", headers=headers)
            response = client.request(method, "/hello", headers=headers)
            assert (response.status_code, _cors_headers(response)) == (
                expected.status_code,
                _cors_headers(expected),
            ), (method, headers)


def cors_app_of_every_kind(*inner: Any) -> App:
    """CORS (outermost) over routes of every kind of answer, and ``inner`` middlewares."""
    app = App()
    app.add_middleware(CORSMiddleware, allow_origins=["https://a.example"], expose_headers=["x-a"])
    for middleware in inner:
        app.middleware(middleware)

    @app.get("/plain")
    async def plain() -> dict[str, str]:
        return {"message": "hello"}

    @app.get("/own")
    async def own() -> Response:
        return Response("own", headers={"vary": "Cookie", "x-a": "1"})

    @app.get("/cookie")
    async def cookie(response: Response) -> str:
        response.set_cookie("a", "1")
        return "cookie"

    @app.get("/missing")
    async def missing() -> None:
        raise HTTPException(404, "no such thing")

    @app.get("/fails")
    async def fails() -> None:
        raise RuntimeError("boom")

    @app.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield b"a"
            yield b"b"

        return StreamingResponse(chunks(), media_type="text/plain")

    return app


CORS_KINDS = [
    ("GET", "/plain"),
    ("HEAD", "/plain"),
    ("GET", "/own"),
    ("GET", "/cookie"),
    ("GET", "/missing"),
    ("GET", "/fails"),
    ("GET", "/stream"),
    ("OPTIONS", "/plain"),
    ("POST", "/plain"),
]
CORS_ASKED = [
    {},
    {"origin": "https://a.example"},
    {"origin": "https://evil.example"},
    {"origin": "https://a.example", "access-control-request-method": "GET"},
]


def _answer_of(response: Any) -> tuple[int, list[tuple[str, str]], bytes]:
    framing = ("content-length", "transfer-encoding", "date", "server")
    headers = [(name, value) for name, value in response.headers.items() if name not in framing]
    return response.status_code, headers, response.content


def test_cors_answers_every_kind_of_response(serve: ClientFactory) -> None:
    """The CORS headers go on what the app answers (a handler's error included, as it reaches
    a middleware), not on a preflight's own answer nor on what the server sends for a
    failure."""
    client = serve(cors_app_of_every_kind(), raise_server_exceptions=False)
    origin = {"origin": "https://a.example"}
    allowed = [
        ("access-control-expose-headers", "x-a"),
        ("access-control-allow-origin", "https://a.example"),
    ]
    json = ("content-type", "application/json")
    assert _answer_of(client.get("/plain", headers=origin)) == (
        200,
        [json, *allowed, ("vary", "Origin")],
        b'{"message":"hello"}',
    )
    assert _answer_of(client.get("/plain")) == (
        200,
        [json, ("vary", "Origin")],
        b'{"message":"hello"}',
    )
    assert _answer_of(client.get("/own", headers=origin)) == (
        200,
        [
            ("content-type", "text/plain; charset=utf-8"),
            ("x-a", "1"),
            *allowed,
            ("vary", "Cookie, Origin"),
        ],
        b"own",
    )
    cookie = client.get("/cookie", headers=origin)
    assert (cookie.status_code, cookie.headers["set-cookie"], cookie.headers["vary"]) == (
        200,
        "a=1; Path=/; SameSite=lax",
        "Origin",
    )
    assert _answer_of(client.get("/missing", headers=origin)) == (
        404,
        [json, *allowed, ("vary", "Origin")],
        b'{"detail":"no such thing"}',
    )
    assert _answer_of(client.get("/stream", headers=origin)) == (
        200,
        [("content-type", "text/plain; charset=utf-8"), *allowed, ("vary", "Origin")],
        b"ab",
    )
    failed = client.get("/fails", headers=origin)
    assert (failed.status_code, failed.headers["access-control-allow-origin"]) == (
        500,
        "https://a.example",
    )


def test_cors_alone_answers_as_cors_in_a_chain(serve: ClientFactory) -> None:
    """CORS alone runs as the serve step's own steps (HeaderMiddleware); with another
    middleware, as a link of the chain: every answer is the same."""

    async def passes(request: Request, call_next: CallNext) -> Response:
        return await call_next(request)

    alone_app, chained_app = cors_app_of_every_kind(), cors_app_of_every_kind(passes)
    alone = serve(alone_app, raise_server_exceptions=False)
    chained = serve(chained_app, raise_server_exceptions=False)
    for method, path in CORS_KINDS:
        for asked in CORS_ASKED:
            expected = _answer_of(chained.request(method, path, headers=asked))
            assert _answer_of(alone.request(method, path, headers=asked)) == expected, (
                method,
                path,
                asked,
            )
    assert alone_app.runtime is not None
    assert chained_app.runtime is not None
    shapes = (type(alone_app.runtime.step).__name__, type(chained_app.runtime.step).__name__)
    assert shapes == ("Headed", "Chained")


class _Failing(HeaderMiddleware):
    def __init__(self, where: str) -> None:
        self.where = where

    def answer(self, request: Request) -> Response | None:
        if self.where == "answer":
            raise RuntimeError("answer")
        if request.method == "OPTIONS":
            return PlainTextResponse("inner's own")
        return None

    def finish(self, request: Request, headers: list[tuple[str, str]]) -> None:
        if self.where == "finish":
            raise RuntimeError("finish")
        headers.append(("x-inner", "1"))


@pytest.mark.parametrize("where", ["answer", "finish"])
def test_a_header_middleware_that_fails_is_a_500(serve: ClientFactory, where: str) -> None:
    app = App()
    app.add_middleware(CORSMiddleware, allow_origins=["*"])
    app.add_middleware(_Failing, where)

    @app.get("/plain")
    async def plain() -> dict[str, str]:
        return {"message": "hello"}

    client = serve(app, raise_server_exceptions=False)
    failed = client.get("/plain", headers={"origin": "https://a.example"})
    assert (failed.status_code, failed.text) == (500, "Internal Server Error")


def test_an_inner_header_middleware_s_own_answer_is_finished_by_the_outer_ones(
    serve: ClientFactory,
) -> None:
    app = App()
    app.add_middleware(CORSMiddleware, allow_origins=["*"])
    app.add_middleware(_Failing, "nowhere")

    @app.get("/plain")
    async def plain() -> dict[str, str]:
        return {"message": "hello"}

    client = serve(app)
    own = client.options("/plain", headers={"origin": "https://a.example"})
    assert _answer_of(own) == (
        200,
        [
            ("content-type", "text/plain; charset=utf-8"),
            ("access-control-allow-origin", "*"),
            ("vary", "Origin"),
        ],
        b"inner's own",
    )
    answered = client.get("/plain", headers={"origin": "https://a.example"})
    assert _answer_of(answered) == (
        200,
        [
            ("content-type", "application/json"),
            ("x-inner", "1"),
            ("access-control-allow-origin", "*"),
            ("vary", "Origin"),
        ],
        b'{"message":"hello"}',
    )


def test_cors_preflight_with_anything_allowed(serve: ClientFactory) -> None:
    client = serve(
        app_with(CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"])
    )
    response = client.options(
        "/hello",
        headers={
            "origin": "https://z.example",
            "access-control-request-method": "PATCH",
            "access-control-request-headers": "x-anything",
        },
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-allow-headers"] == "x-anything"
    assert response.headers["vary"].startswith("Origin, ")  # a preflight, whatever it allows


# GZip.
def gzip_app(**options: Any) -> App:
    app = App()
    app.add_middleware(GZipMiddleware, **options)

    @app.get("/big")
    async def big() -> str:
        return "x" * 1000

    @app.get("/small")
    async def small() -> str:
        return "tiny"

    @app.get("/encoded")
    async def encoded() -> Response:
        return Response(b"y" * 1000, headers={"content-encoding": "br"})

    @app.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[str]:
            for number in range(100):
                yield f"line {number}\n"

        return StreamingResponse(chunks(), media_type="text/plain")

    @app.get("/sync-stream")
    async def sync_stream() -> StreamingResponse:
        def chunks() -> Iterator[bytes]:
            yield b"a" * 600
            yield b"b" * 600

        return StreamingResponse(chunks())

    @app.get("/events")
    async def events() -> EventSourceResponse:
        return EventSourceResponse(["x" * 1000], ping=None)

    @app.get("/file")
    async def file() -> FileResponse:
        return FileResponse(__file__)

    return app


def test_gzip_compresses_big_bodies(serve: ClientFactory) -> None:
    client = serve(gzip_app())
    response = client.get("/big", headers={"accept-encoding": "gzip, deflate"})
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["vary"] == "Accept-Encoding"
    assert int(response.headers["content-length"]) < 100
    assert response.json() == "x" * 1000
    head = client.head("/big", headers={"accept-encoding": "gzip"})
    assert head.headers["content-length"] == response.headers["content-length"]


def test_gzip_leaves_what_it_should(serve: ClientFactory) -> None:
    client = serve(gzip_app(minimum_size=500))
    gz = {"accept-encoding": "gzip"}
    small = client.get("/small", headers=gz)
    assert "content-encoding" not in small.headers
    assert "vary" not in small.headers
    assert client.get("/encoded", headers=gz).headers["content-encoding"] == "br"
    events = client.get("/events", headers=gz)
    assert "content-encoding" not in events.headers
    assert events.text.startswith("data: xxx")
    file = client.get("/file", headers=gz)
    assert "content-encoding" not in file.headers
    plain = client.get("/big", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"


# Accept-Encoding values, and whether they ask for gzip (RFC 9110, 12.5.3).
ACCEPT_ENCODINGS = [
    ("gzip", True),
    ("GZIP;Q=1", True),
    ("x-gzip", True),
    ("br, gzip;q=0.5", True),
    ("*", False),  # as Starlette: identity is always acceptable
    ("gzip;q=0", False),
    ("gzip;q=0.000", False),
    ("gzip;q=0, *", False),
    ("identity;q=0", False),  # nothing acceptable: sent as it is (RFC 9110 says so)
    ("gzip;q=abc", False),  # a weight that is not a number gives nothing
    ("gzipped, ungzip", False),  # the word inside other codings
    ("", False),
    (", ".join(f"coding{number}" for number in range(10_000)) + ", gzip;q=0", False),
    (", ".join(f"coding{number}" for number in range(10_000)) + ", gzip", True),
]


@pytest.mark.parametrize(("accept", "compressed"), ACCEPT_ENCODINGS, ids=lambda v: str(v)[:40])
def test_gzip_follows_the_weights_of_accept_encoding(
    serve: ClientFactory, accept: str, compressed: bool
) -> None:
    response = serve(gzip_app()).get("/big", headers={"accept-encoding": accept})
    assert (response.headers.get("content-encoding"), response.json()) == (
        "gzip" if compressed else None,
        "x" * 1000,
    )
    assert response.headers["vary"] == "Accept-Encoding"


def test_gzip_compresses_streams_chunk_by_chunk(serve: ClientFactory) -> None:
    client = serve(gzip_app())
    response = client.get("/stream", headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert "content-length" not in response.headers
    expected = "".join(f"line {number}\n" for number in range(100))
    assert response.text == expected
    raw = client.get("/sync-stream", headers={"accept-encoding": "gzip"})
    assert raw.content == b"a" * 600 + b"b" * 600


def test_gzip_stream_flushes_each_chunk() -> None:
    import asyncio

    from hasten.middleware.gzip import _compressed

    async def chunks() -> AsyncIterator[bytes]:
        yield b"first"
        yield b"second"

    async def collect() -> list[bytes]:
        return [part async for part in _compressed(chunks(), 6, None)]

    parts = asyncio.run(collect())
    decompressor = zlib.decompressobj(31)
    assert decompressor.decompress(parts[0]) == b"first"  # readable before the end
    assert gzip.decompress(b"".join(parts)) == b"firstsecond"


def test_gzip_leaves_compressed_media_types_alone(serve: ClientFactory) -> None:
    app = App()
    app.add_middleware(GZipMiddleware)
    png = b"\x89PNG" + b"\0" * 2000

    @app.get("/image")
    async def image() -> Response:
        return Response(png, media_type="image/png")

    @app.get("/archive")
    async def archive() -> Response:
        return Response(b"PK" + b"\0" * 2000, media_type="application/zip")

    @app.get("/svg")
    async def svg() -> Response:
        return Response(b"<svg>" + b" " * 2000 + b"</svg>", media_type="image/svg+xml")

    client = serve(app)
    gz = {"accept-encoding": "gzip"}
    assert "content-encoding" not in client.get("/image", headers=gz).headers
    assert client.get("/image", headers=gz).content == png
    assert "content-encoding" not in client.get("/archive", headers=gz).headers
    assert client.get("/svg", headers=gz).headers["content-encoding"] == "gzip"  # text


@pytest.mark.usefixtures("no_gc_pauses")
def test_gzip_of_a_large_body_does_not_stall_the_event_loop(serve: ClientFactory) -> None:
    import time

    app = App(block_threshold=0.05)
    app.add_middleware(GZipMiddleware)
    body = bytes(range(256)) * 16384  # 4 MiB that compress poorly: about 150 ms at level 9

    @app.get("/big")
    async def big() -> Response:
        return Response(body, media_type="application/octet-stream")

    @app.get("/big-stream")
    async def big_stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield body

        return StreamingResponse(chunks(), media_type="application/octet-stream")

    client = serve(app)
    for path in ("/big", "/big-stream"):
        response = client.get(path, headers={"accept-encoding": "gzip"})
        assert response.headers["content-encoding"] == "gzip"
        assert response.content == body
    time.sleep(0.1)  # a stall is reported at the loop's next heartbeat
    assert app.stats()["blocked"] == {}


# TrustedHost.
def test_trusted_host(serve: ClientFactory) -> None:
    client = serve(app_with(TrustedHostMiddleware, allowed_hosts=["example.com", "*.example.org"]))
    assert client.get("http://example.com/hello").status_code == 200
    assert client.get("http://example.com:8000/hello").status_code == 200
    assert client.get("http://api.example.org/hello").status_code == 200
    bad = client.get("http://evil.com/hello")
    assert (bad.status_code, bad.text) == (400, "Invalid host header")
    assert client.get("http://example.org/hello").status_code == 400


def test_trusted_host_ports_trailing_dots_and_empty_labels(serve: ClientFactory) -> None:
    client = serve(app_with(TrustedHostMiddleware, allowed_hosts=["example.com", "*.example.org"]))
    statuses = {
        host: client.get("/hello", headers={"host": host}).status_code
        for host in (
            "example.com:8443",
            "EXAMPLE.com",
            "example.com.",  # the same host for DNS, not the name allowed: refused, as Starlette
            "example.com.evil.net",
            "evil.net:example.com",
            "example.com@evil.net",
            ".example.org",  # an empty label is no subdomain
            "a.b.example.org:1",
            "example.com:100000",  # any port, as Starlette's: only a URL needs one < 65536
            "example.com:",
            "",
        )
    }
    assert statuses == {
        "example.com:8443": 200,
        "EXAMPLE.com": 200,
        "example.com.": 400,
        "example.com.evil.net": 400,
        "evil.net:example.com": 400,
        "example.com@evil.net": 400,
        ".example.org": 400,
        "a.b.example.org:1": 200,
        "example.com:100000": 200,
        "example.com:": 400,
        "": 400,
    }


def test_trusted_host_www_redirect(serve: ClientFactory) -> None:
    client = serve(app_with(TrustedHostMiddleware, allowed_hosts=["www.example.com"]))
    response = client.get("http://example.com/hello?a=1", follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == "http://www.example.com/hello?a=1"
    off = serve(
        app_with(TrustedHostMiddleware, allowed_hosts=["www.example.com"], www_redirect=False)
    )
    assert off.get("http://example.com/hello").status_code == 400


USER_INFORMATION = {"detail": "Invalid Host header: '@' may not appear in a host or port"}


@pytest.mark.parametrize(
    ("allowed", "path"),
    [
        (["example.com"], "/hello"),  # allowed by what comes before ":", then /who's URL
        (["example.com"], "/who"),
        (["www.example.com"], "/hello"),  # was a 301 to www.example.com:@evil.com (evil.com)
    ],
)
def test_trusted_host_refuses_a_malformed_host_saying_why(
    serve: ClientFactory, allowed: list[str], path: str
) -> None:
    client = serve(app_with(TrustedHostMiddleware, allowed_hosts=allowed), follow_redirects=False)
    response = client.get(path, headers={"host": "example.com:@evil.com"})
    assert (response.status_code, response.json()) == (400, USER_INFORMATION)


def test_trusted_host_any_and_invalid_patterns(serve: ClientFactory) -> None:
    assert serve(app_with(TrustedHostMiddleware)).get("http://x.y/hello").status_code == 200
    with pytest.raises(ValueError, match="Invalid host pattern"):
        TrustedHostMiddleware(allowed_hosts=["ex*ample.com"])


# ProxyHeaders: the TestClient's peer is a proxy on the same host.
PROXY = ("127.0.0.1", 50000)
FORWARDED = {
    "x-forwarded-for": "203.0.113.7, 10.0.0.2",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "public.example",
}


def test_proxy_headers_from_a_trusted_proxy(serve: ClientFactory) -> None:
    client = serve(
        app_with(ProxyHeadersMiddleware, trusted_hosts=["127.0.0.1", "10.0.0.0/8"]), client=PROXY
    )
    response = client.get("/who?x=1", headers=FORWARDED).json()
    assert response == {
        "client": ["203.0.113.7", 0],
        "scheme": "https",
        "host": "public.example",
        "url": "https://public.example/who?x=1",
    }


def test_proxy_headers_refuse_a_malformed_forwarded_host(serve: ClientFactory) -> None:
    client = serve(app_with(ProxyHeadersMiddleware, trusted_hosts=["127.0.0.1"]), client=PROXY)
    response = client.get("/who", headers={"x-forwarded-host": "public.example:@evil.com"})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Invalid X-Forwarded-Host header: '@' may not appear in a host or port"},
    )


def test_proxy_headers_from_an_untrusted_peer_are_ignored(serve: ClientFactory) -> None:
    client = serve(app_with(ProxyHeadersMiddleware, trusted_hosts="10.0.0.1"), client=PROXY)
    response = client.get("/who", headers=FORWARDED).json()
    assert response["client"] == ["127.0.0.1", 50000]
    assert response["scheme"] == "http"
    assert response["host"] == "testserver"


def test_proxy_headers_all_hops_trusted_and_star(serve: ClientFactory) -> None:
    client = serve(app_with(ProxyHeadersMiddleware, trusted_hosts="*"), client=PROXY)
    response = client.get("/who", headers={"x-forwarded-for": "10.0.0.5, 10.0.0.6"}).json()
    assert response["client"] == ["10.0.0.5", 0]  # every hop trusted: the first
    middleware = ProxyHeadersMiddleware(trusted_hosts=["127.0.0.1, 10.0.0.0/8", "unix:sock"])
    assert middleware.trusts("10.1.2.3")
    assert middleware.trusts("unix:sock")
    assert not middleware.trusts("not-an-ip")
    assert not middleware.trusts("192.168.0.1")
    everything = serve(app_with(ProxyHeadersMiddleware, trusted_hosts=["127.0.0.1"]), client=PROXY)
    trusted = everything.get("/who", headers={"x-forwarded-for": "127.0.0.1"}).json()
    assert trusted["client"] == ["127.0.0.1", 0]
    odd = everything.get("/who", headers={"x-forwarded-proto": "gopher"}).json()
    assert odd["scheme"] == "http"


# HTTPSRedirect.
@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("http://example.com/hello?a=1", "https://example.com/hello?a=1"),
        ("http://example.com:80/hello", "https://example.com/hello"),
        ("http://example.com:8080/hello", "https://example.com:8080/hello"),
        ("http://[::1]:80/hello", "https://[::1]/hello"),
    ],
)
def test_https_redirect(serve: ClientFactory, url: str, location: str) -> None:
    client = serve(app_with(HTTPSRedirectMiddleware))
    response = client.get(url, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (307, location)
    assert response.content == b""
    assert client.get("https://example.com/hello").json() == {"message": "hello"}


def test_https_redirect_sends_a_malformed_host_to_the_servers_address(
    serve: ClientFactory,
) -> None:
    # Was a 307 to https://example.com:@evil.com/hello: evil.com, to a browser. As
    # Starlette's, the server's address takes the Host's place (Granian's is an address).
    client = serve(app_with(HTTPSRedirectMiddleware), follow_redirects=False)
    server = "127.0.0.1" if client.interface == "rsgi" else "testserver"
    for host in ("example.com:@evil.com", "example.com:65536", "[:::]"):
        response = client.get("/hello?a=1", headers={"host": host})
        assert (response.status_code, response.headers["location"]) == (
            307,
            f"https://{server}/hello?a=1",
        )
    # The path stays a path: its encoded "?" and "#" are not read as the query or fragment.
    response = client.get("/hel%3Flo%23x?a=1", headers={"host": "[:::]"})
    assert response.headers["location"] == f"https://{server}/hel%3Flo%23x?a=1"


def test_https_redirect_without_a_server_address_refuses_a_malformed_host() -> None:
    redirecting = HTTPSRedirectMiddleware(app=App())

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        scope.pop("server", None)
        await redirecting(scope, receive, send)

    with TestClient(app) as client:  # its lifespan stops the app it starts
        response = client.get("/", headers={"host": "[:::]"}, follow_redirects=False)
    assert (response.status_code, response.text) == (400, "Invalid host header")


def test_cors_adds_origin_to_every_vary_line_the_response_has(serve: ClientFactory) -> None:
    app = App()
    app.add_middleware(CORSMiddleware, allow_origins=["*"])

    @app.get("/")
    async def page() -> Response:
        response = PlainTextResponse("page", headers={"Vary": "Accept-Encoding"})
        response.headers.append("Vary", "Accept-Language")
        return response

    response = serve(app).get("/", headers={"Origin": "https://a.example"})
    assert (response.status_code, response.headers.get_list("vary")) == (
        200,
        ["Accept-Encoding, Accept-Language, Origin"],
    )


def test_the_chains_middleware_wrap_an_asgi_app_as_starlettes_do() -> None:
    # Starlette's way to put a middleware around a whole app, errors and mounts included.
    inner = App()

    @inner.get("/hello")
    async def hello() -> str:
        return "hi"

    cors: Any = CORSMiddleware  # typed for add_middleware's options, not this call
    wrapped = cors(inner, allow_origins=["https://a.example"])
    redirecting = HTTPSRedirectMiddleware(app=inner)
    with TestClient(wrapped) as client:
        response = client.get("/hello", headers={"Origin": "https://a.example"})
        assert (response.status_code, response.json()) == (200, "hi")
        assert response.headers["access-control-allow-origin"] == "https://a.example"
    with TestClient(redirecting) as client:
        response = client.get("/hello", follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (
            307,
            "https://testserver/hello",
        )
    assert isinstance(CORSMiddleware(allow_origins=["*"]), CORSMiddleware)  # as before


def test_https_redirect_reads_a_port_of_any_length(serve: ClientFactory) -> None:
    client = serve(app_with(HTTPSRedirectMiddleware), follow_redirects=False)
    host = "example.com:" + "0" * 5000 + "80"  # port 80, past int()'s 4,300 digits
    response = client.get("/hello", headers={"host": host})
    assert (response.status_code, response.headers["location"]) == (
        307,
        "https://example.com/hello",
    )
