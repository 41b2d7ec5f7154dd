"""The RSGI adapter (Granian's native protocol): scope and protocol object in, the serve step
out. Granian's protocol object is the Transport itself: it already speaks its words."""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable
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
        self._cleanup = self._form = None
        self._streamed = False
        self._scope = scope
        self._proto = proto

    def _raw_headers(self) -> list[tuple[str, str]]:
        return list(self._scope.headers.items())

    def _header(self, name: str) -> str | None:
        value: str | None = self._scope.headers.get(name)  # Granian looks it up in Rust
        return value

    def _read_whole(self) -> Awaitable[bytes]:
        # The server holds a Content-Length body to its length: one read is enough.
        reading: Awaitable[bytes] = self._proto()
        return reading

    def _body_chunks(self) -> AsyncIterable[bytes]:
        # The protocol object itself: Granian hands the body over on its (one) __aiter__().
        chunks: AsyncIterable[bytes] = self._proto
        return chunks

    @property
    def client(self) -> Address | None:
        host, _, port = self._scope.client.rpartition(":")
        return Address(host, int(port)) if port.isdigit() else None

    @property
    def scheme(self) -> str:
        return str(self._scope.scheme)


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
