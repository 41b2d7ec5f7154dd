"""The RSGI adapter (Granian's native protocol): scope and protocol object in, the serve step
out. Granian's protocol object is the Transport itself: it already speaks its words."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any

from ..connection import PathParams
from ..datastructures import Address
from ..requests import Request

if TYPE_CHECKING:
    from ..app import App

__all__ = ["RSGIRequest", "serve"]


class RSGIRequest(Request):
    """A Request read from an RSGI scope and protocol object."""

    __slots__ = ("_proto", "_scope")

    def __init__(  # perf: slots set directly, without super().__init__
        self, app: App, body_limit: int, scope: Any, proto: Any, path_params: PathParams
    ) -> None:
        self.app = app
        self.path = scope.path  # Granian has percent-decoded it, as ASGI servers do
        self.query_string = scope.query_string
        self.path_params = path_params
        self.method = scope.method
        self._body_limit = body_limit
        self._body = self._headers = self._query = self._cookies = self._state = None
        self._forwarded = None
        self._streamed = False
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

    def _client_disconnect(self) -> Awaitable[None]:
        done: Awaitable[None] = self._proto.client_disconnect()
        return done

    def _peer(self) -> Address | None:
        return peer(self._scope.client)

    def _scheme(self) -> str:
        return str(self._scope.scheme)


def peer(client: str) -> Address | None:
    """Granian's ``host:port`` (``[::1]:port`` for IPv6) as an Address."""
    host, _, port = client.rpartition(":")
    return Address(host.strip("[]"), int(port)) if port.isdigit() else None


def serve(app: App, scope: Any, proto: Any) -> Awaitable[None]:
    """``App.__rsgi__``: serve one RSGI connection scope."""
    runtime = app.runtime
    if runtime is not None and scope.proto == "http":
        # perf: a plain function handing back the serve step's coroutine (no frame of ours).
        return runtime.serve(scope.method, scope.path, scope, proto, RSGIRequest)
    if scope.proto != "http":
        return _refuse_websocket(proto)
    return app.serve_before_start(scope.method, scope.path, scope, proto, RSGIRequest)


async def _refuse_websocket(proto: Any) -> None:
    # WebSockets are not served yet: refuse the upgrade instead of hanging.
    proto.close(403)
