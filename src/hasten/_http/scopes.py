"""``request.scope``: a connection's ASGI scope, read-only, built only when asked for.

Under ASGI it is the server's scope (with the app's ``root_path`` and ``app``); under RSGI an
equivalent built from Granian's scope on first use. It also names the connection it came from,
so that a Request subclass made from it (Starlette's ``GzipRequest(request.scope,
request.receive)``) is a view of that same request.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hasten._http.connection import Connection
    from hasten._http.requests import Request

__all__ = ["ConnectionScope", "Receive"]


class ConnectionScope(Mapping[str, Any]):
    """A connection's ASGI scope as a read-only mapping (Starlette's ``request.scope``)."""

    __slots__ = ("_items", "connection")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._items: dict[str, Any] | None = None

    def _scope(self) -> dict[str, Any]:
        if self._items is None:
            connection = self.connection
            served = connection._asgi_scope()
            if connection.app is None:  # Starlette's Request(scope) outside an app: as given
                self._items = dict(served)
                return self._items
            self._items = {
                **served,
                "root_path": connection.root_path,
                "app": connection.app,
                # An app mounted under a prefix with parameters is given their values in
                # its scope (Starlette's Mount): its route's own come after them.
                "path_params": {**served.get("path_params", {}), **connection.path_params},
            }
            # The outermost app's router, as Starlette's router sets it where none has.
            router = getattr(connection.app, "router", None)
            if router is not None:
                self._items.setdefault("router", router)
            # The route that matched, and its handler (Starlette's keys), where one did.
            target = connection._target
            if target is not None and target.scope_items is not None:
                self._items.update(target.scope_items)
        return self._items

    def __getitem__(self, key: str) -> Any:
        return self._scope()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scope())

    def __len__(self) -> int:
        return len(self._scope())

    def __repr__(self) -> str:
        return f"ConnectionScope({self._scope()!r})"


class Receive:
    """``request.receive``: the request's body as one ASGI ``http.request`` message, for code
    written against Starlette's Request (hasten reads the body itself)."""

    __slots__ = ("request",)

    def __init__(self, request: Request) -> None:
        self.request = request

    async def __call__(self) -> dict[str, Any]:
        return {"type": "http.request", "body": await self.request.body(), "more_body": False}
