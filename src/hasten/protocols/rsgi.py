"""The RSGI adapter (Granian's native protocol): scope and proto in, Response out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..datastructures import Address
from ..requests import Request

if TYPE_CHECKING:
    from ..app import App

__all__ = ["RSGIRequest", "serve"]


class RSGIRequest(Request):
    """A Request read from an RSGI scope and protocol object."""

    __slots__ = ("_proto", "_scope")

    def __init__(self, app: App, scope: Any, proto: Any) -> None:  # perf: slots set directly
        self.path = scope.path  # Granian has percent-decoded it, as ASGI servers do
        self.app = app
        self.method = scope.method
        self.query_string = scope.query_string
        self.path_params = {}
        self._headers = self._query = self._cookies = self._body = None
        self._scope = scope
        self._proto = proto

    def _raw_headers(self) -> list[tuple[str, str]]:
        return list(self._scope.headers.items())

    async def _read_whole(self) -> bytes | None:
        # The server holds a Content-Length body to its length: one read is enough.
        body: bytes = await self._proto()
        return body

    async def _body_chunks(self) -> AsyncIterator[bytes]:
        async for chunk in self._proto:
            yield chunk

    @property
    def client(self) -> Address | None:
        host, _, port = self._scope.client.rpartition(":")
        return Address(host, int(port)) if port.isdigit() else None

    @property
    def scheme(self) -> str:
        return str(self._scope.scheme)


async def serve(app: App, scope: Any, proto: Any) -> None:
    """``App.__rsgi__``: serve one RSGI connection scope."""
    if scope.proto != "http":
        # WebSockets are not served yet: refuse the upgrade instead of hanging.
        proto.close(403)
        return
    request = RSGIRequest(app, scope, proto)
    runtime = app.direct
    if runtime is None:
        response = await app.respond(request)
    elif (in_flight := runtime.in_flight).count >= in_flight.limit:
        response = in_flight.refuse()
    else:
        # perf: App.respond() inlined for the common case (started, no middleware): the
        # handler's coroutine is the only one awaited besides this (benchmarks/overhead.py).
        in_flight.count += 1
        try:
            target, request.path_params = runtime.matcher.match(request.method, request.path)
            response = target.render(await target.invoke(request))
        except Exception as exc:
            response = app.error_response(request, exc)
        finally:
            in_flight.leave()
    proto.response_bytes(response.status, response.raw_headers, response.body)
