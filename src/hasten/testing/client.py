"""TestClient: Starlette's TestClient, over hasten's RSGI or ASGI adapter."""

from __future__ import annotations

import asyncio
import functools
import logging
import warnings
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import httpx

from hasten._http.errors import StarletteDeprecationWarning
from hasten.app import Starlette
from hasten.testing.asgi import ASGIDriver
from hasten.testing.exchange import Pipe, Wire
from hasten.testing.loop import shared_loop
from hasten.testing.rsgi import RSGIDriver
from hasten.testing.server import ASGIServer, Driver, Exchange, Server, Serving
from hasten.testing.websocket import WebSocketTestSession

if TYPE_CHECKING:
    from hasten._cli.servers import Interface
    from hasten._flow.contracts import ASGIApp

__all__ = ["TestClient"]

REQUEST_TIMEOUT = 60.0  # a request the app never answers fails the test rather than hang it

logger = logging.getLogger("hasten")


class _Body(httpx.SyncByteStream):
    """A response's body, read from the app part by part as the test reads it; closing it
    ends the exchange (and raises what the app failed to handle)."""

    def __init__(self, transport: _Transport, exchange: Exchange, head: bool) -> None:
        self._transport = transport
        self._exchange = exchange
        self._head = head  # a server sends no body to a HEAD
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        run = self._transport.server.loop.run
        take = self._exchange.result.take
        while (part := run(take(), REQUEST_TIMEOUT)) is not None:
            if part and not self._head:
                yield part

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._transport.open_exchanges.discard(self._exchange)
        self._transport.server.loop.run(self._exchange.close(), REQUEST_TIMEOUT)
        self._transport.raise_failures(self._exchange)


class _Transport(httpx.BaseTransport):
    def __init__(self, server: Serving, client: tuple[str, int], raise_exceptions: bool) -> None:
        self.server = server
        self.client = client
        self.raise_server_exceptions = raise_exceptions
        self.open_exchanges: set[Exchange] = set()  # responses the test has not closed

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        wire = Wire(request, self.client)
        loop = self.server.loop
        exchange = loop.run(self.server.open(wire), REQUEST_TIMEOUT)
        result = exchange.result
        if not result.responded:
            loop.run(exchange.close(), REQUEST_TIMEOUT)
            self.raise_failures(exchange)
        # As the app sent it: a stream (not content=) keeps httpx from adding a
        # Content-Length the app did not send.
        self.open_exchanges.add(exchange)
        response = httpx.Response(
            result.status,
            headers=result.headers,
            stream=_Body(self, exchange, request.method == "HEAD"),
            request=request,
        )
        if result.templates:  # Starlette's: the template and context of the page sent
            response.template, response.context = result.templates[-1]  # type: ignore[attr-defined]
        if result.trailers is not None:  # filled as the app sends them
            response.extensions["http.response.trailers"] = result.trailers
        if result.debug is not None:
            response.extensions["http.response.debug"] = debug = result.debug
            if "template" in debug:
                response.template = debug["template"]  # type: ignore[attr-defined]
            if "context" in debug:
                response.context = debug["context"]  # type: ignore[attr-defined]
        return response

    def raise_failures(self, exchange: Exchange) -> None:
        if exchange.failures and self.raise_server_exceptions:
            raise exchange.failures[0]

    def close(self) -> None:
        """Cancel the apps of responses the test left open."""
        while self.open_exchanges:
            self.server.loop.run(self.open_exchanges.pop().abort(), REQUEST_TIMEOUT)


@functools.cache  # said once per process
def _say_once(message: str) -> None:
    logger.info(message)


def _interface_for(app: Starlette | ASGIApp, root_path: str) -> Interface:
    """The adapter a TestClient serves ``app`` over when none is asked for."""
    if root_path or not isinstance(app, Starlette):
        return "asgi"
    if app.serves_websockets():
        _say_once(
            "TestClient: an app with WebSocket routes is served over ASGI, since Granian's "
            "RSGI sends no WebSocket close code; TestClient(app, interface='rsgi') serves it "
            "over RSGI"
        )
        return "asgi"
    return "rsgi"


class TestClient(httpx.Client):
    """An httpx client that serves ``app`` in-process, as Starlette's TestClient does:
    ``TestClient(app).get("/items", params={"q": 1}).json()``.

    As Starlette's: redirects are followed, the client is ``("testclient", 50000)`` and its
    User-Agent ``testclient``, cookies persist between requests, and an exception the app
    did not handle (the one behind a 500) is raised in the test unless
    ``raise_server_exceptions=False``. ``with TestClient(app) as client:`` starts the app
    (a failure to start raises there) and stops it on exit; without ``with``, the first
    request starts it, and ``close()``, or the client's garbage collection, stops it.
    ``client.stream("GET", "/events")`` reads a response as it comes, as over a socket: the
    app runs no further than the test has read, and leaving the block before the end
    cancels it, as a client that leaves does (an endless SSE stream can be read in part).

    hasten's own: ``interface`` is the adapter, ``"rsgi"`` (Granian's) or ``"asgi"``, each
    served as strictly as Granian and uvicorn serve it. By default an app is served over
    RSGI, as ``hasten run`` serves it, and over ASGI when it serves WebSockets (Granian's
    RSGI sends no WebSocket close code: each close would reach the test as 1005) or is
    given a ``root_path`` (an ASGI notion: it serves the app as if mounted under that
    prefix). Any other ASGI callable (an ASGI middleware around an app, a Starlette app) is
    served over ASGI, as Starlette's TestClient serves it: its lifespan runs only within
    ``with``.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        app: Starlette | ASGIApp,
        *,
        base_url: str = "http://testserver",
        raise_server_exceptions: bool = True,
        root_path: str = "",
        backend: Literal["asyncio"] = "asyncio",
        backend_options: dict[str, Any] | None = None,
        cookies: httpx._types.CookieTypes | None = None,
        headers: dict[str, str] | None = None,
        follow_redirects: bool = True,
        client: tuple[str, int] = ("testclient", 50000),
        interface: Interface | None = None,
    ) -> None:
        if backend != "asyncio" or backend_options:
            raise ValueError("hasten apps run on asyncio: no other backend, nor its options")
        if interface is None:
            interface = _interface_for(app, root_path)
        if interface not in ("rsgi", "asgi"):
            raise ValueError(f"interface must be 'rsgi' or 'asgi', not {interface!r}")
        if root_path and interface != "asgi":
            raise ValueError("root_path is an ASGI notion: RSGI has none")
        self.app = app
        self.interface = interface
        self.raise_server_exceptions = raise_server_exceptions
        self._server: Serving
        if isinstance(app, Starlette):
            driver: Driver = RSGIDriver(app) if interface == "rsgi" else ASGIDriver(app, root_path)
            self._server = Server(app, driver, shared_loop())
        elif interface == "rsgi":
            raise ValueError("an ASGI callable that is no hasten app is served over ASGI only")
        else:
            self._server = ASGIServer(ASGIDriver(app, root_path), shared_loop())
        self._client_address = client
        self._in_process = _Transport(self._server, client, raise_server_exceptions)
        default_headers = httpx.Headers(headers)
        default_headers.setdefault("user-agent", "testclient")
        super().__init__(
            base_url=base_url,
            headers=default_headers,
            transport=self._in_process,
            follow_redirects=follow_redirects,
            cookies=cookies,
        )
        # Unclosed and unreachable, the client still stops the app it started.
        self._release = weakref.finalize(self, self._server.release)
        self._release.atexit = False

    def request(
        self,
        method: str,
        url: httpx._types.URLTypes,
        *,
        timeout: httpx._types.TimeoutTypes | httpx._client.UseClientDefault = (
            httpx.USE_CLIENT_DEFAULT
        ),
        **kwargs: Any,
    ) -> httpx.Response:
        """httpx's ``request``; a ``timeout`` warns, as in Starlette: the app is served
        in-process, where only the client's own limit on a request (60 s) applies."""
        if timeout is not httpx.USE_CLIENT_DEFAULT:
            warnings.warn(
                "You should not use the 'timeout' argument with the TestClient: the app is "
                "served in-process, where it does not apply",
                StarletteDeprecationWarning,
                stacklevel=2,
            )
        return super().request(method, url, timeout=timeout, **kwargs)

    def start(self) -> None:
        """Start the app now rather than on the first request."""
        self._server.loop.run(self._server.ensure_started())

    def shutdown(self) -> None:
        """Shut the app down as a server does on SIGTERM, whoever started it, keeping the
        client usable to see what its open WebSockets get (the next request starts it)."""
        self._server.loop.run(self._server.stop(whoever_started=True))

    def websocket_connect(
        self, url: str, subprotocols: list[str] | None = None, **kwargs: Any
    ) -> WebSocketTestSession:
        """Open a WebSocket to ``url`` (``headers=``, ``params=``, ``cookies=``, ``auth=`` as
        for a request). A refusal raises ``WebSocketDenialResponse`` (an HTTP response), a
        close before the handshake ``WebSocketDisconnect``."""
        auth = kwargs.pop("auth", httpx.USE_CLIENT_DEFAULT)
        headers = httpx.Headers(kwargs.pop("headers", None))
        headers.setdefault("connection", "upgrade")
        headers.setdefault("sec-websocket-key", "testserver==")
        headers.setdefault("sec-websocket-version", "13")
        if subprotocols is not None:
            headers.setdefault("sec-websocket-protocol", ", ".join(subprotocols))
        ws_url = httpx.URL("ws://testserver").join(url)
        request = self.build_request("GET", ws_url, headers=headers, **kwargs)
        # The request as the first step of httpx's auth flow sends it (the client's own auth
        # where none is given).
        request = next(self._build_request_auth(request, auth).auth_flow(request))
        wire = Wire(request, self._client_address)
        pipe = Pipe()
        failures: list[BaseException] = []
        loop = self._server.loop
        served: asyncio.Task[None] = loop.run(self._server.websocket(wire, pipe, failures))
        session = WebSocketTestSession(loop, pipe, served, failures, self.raise_server_exceptions)
        session.handshake()
        return session

    def close(self) -> None:
        """Cancel responses left open, and stop the app if this client started it (or
        entered it with ``with``)."""
        try:
            self._end_run()
        finally:
            super().close()

    @property
    def app_state(self) -> dict[str, Any]:
        """What the app's lifespans yielded, merged (Starlette's ``client.app_state``)."""
        return self.app.lifespan_state if isinstance(self.app, Starlette) else {}

    def __enter__(self) -> TestClient:
        self._server.loop.run(self._server.enter())
        return self

    def __exit__(self, *exc_info: object) -> None:
        # As Starlette's: the client stays usable (the next request starts the app again).
        self._end_run()

    def _end_run(self) -> None:
        """Cancel the responses left open, then stop the app this client started."""
        try:
            self._in_process.close()
        finally:
            self._server.loop.run(self._server.stop())
