"""A hasten app mounted in another, each recording its startup hook, lifespan and shutdown
hook: what the servers must run, once and in order (``tests/servers/e2e/test_mounts.py`` reads the
record from ``$HASTEN_E2E_EVENTS`` after the server stops; ``tests/serve/test_mounts.py`` builds
the same apps in process). ``routed``: the inner app served by a route of Starlette's shape
with middleware of its own, and a thread the module starts as it is imported.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from hasten import App
from hasten.middleware import Middleware
from hasten.routing import BaseRoute, RequestRoute
from hasten.types import ASGIApp, Message, Receive, Scope, Send

EVENTS_ENV = "HASTEN_E2E_EVENTS"
STARTED = ["outer starts", "outer lifespan enters", "inner starts", "inner lifespan enters"]
STOPPED = ["inner lifespan exits", "inner stops", "outer lifespan exits", "outer stops"]


def lifecycle_app(
    name: str, events: list[str], record: Path | None = None, routes: Sequence[BaseRoute] = ()
) -> App:
    """An app that appends its startup hook, lifespan and shutdown hook to ``events`` (and
    writes them to ``record``); ``GET /events`` answers them, as its other ``routes`` do."""

    def happened(event: str) -> None:
        events.append(f"{name} {event}")
        if record is not None:
            record.write_text("\n".join(events))

    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        happened("lifespan enters")
        yield
        happened("lifespan exits")

    app = App(lifespan=lifespan, routes=routes)
    app.on_startup(lambda: happened("starts"))
    app.on_shutdown(lambda: happened("stops"))

    @app.get("/events")
    async def seen() -> list[str]:
        return events

    return app


def mounting_apps(record: Path | None = None) -> tuple[App, App, list[str]]:
    """The outer app, the inner one it mounts under ``/inner`` and ``/again``, and the
    events they record."""
    events: list[str] = []
    outer = lifecycle_app("outer", events, record)
    inner = lifecycle_app("inner", events, record)
    outer.mount("/inner", inner)
    outer.mount("/again", inner)  # one app under two prefixes: started once
    return outer, inner, events


class Marked:
    """A pure ASGI middleware: ``x-routed: yes`` on its responses."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def marking(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-routed", b"yes")]
            await send(message)

        await self.app(scope, receive, marking)


def routing_apps(record: Path | None = None) -> tuple[App, App, list[str]]:
    """The outer app, the inner one it serves through ``Route("/routed", inner,
    middleware=[...])`` (Starlette's shape: the inner app answers ``/routed`` too), and the
    events they record."""
    events: list[str] = []
    inner = lifecycle_app("inner", events, record)

    @inner.get("/routed")
    async def routed() -> dict[str, Any]:
        return {"events": events, "ticker alive": TICKER.is_alive()}

    route = RequestRoute("/routed", inner, middleware=[Middleware(Marked)])
    outer = lifecycle_app("outer", events, record, routes=[route])
    return outer, inner, events


# A thread started at import, as apps start a client or a pool: it must outlive the serving.
TICKER = threading.Thread(target=threading.Event().wait, name="ticker", daemon=True)
TICKER.start()

_record = os.environ.get(EVENTS_ENV)
app = mounting_apps(Path(_record) if _record else None)[0]
routed = routing_apps(Path(_record) if _record else None)[0]
