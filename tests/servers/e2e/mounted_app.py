"""A hasten app mounted in another, each recording its startup hook, lifespan and shutdown
hook: what the servers must run, once and in order (``tests/servers/e2e/test_mounts.py`` reads the
record from ``$HASTEN_E2E_EVENTS`` after the server stops; ``tests/serve/test_mounts.py`` builds
the same apps in process).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

from hasten import App

EVENTS_ENV = "HASTEN_E2E_EVENTS"
STARTED = ["outer starts", "outer lifespan enters", "inner starts", "inner lifespan enters"]
STOPPED = ["inner lifespan exits", "inner stops", "outer lifespan exits", "outer stops"]


def lifecycle_app(name: str, events: list[str], record: Path | None = None) -> App:
    """An app that appends its startup hook, lifespan and shutdown hook to ``events`` (and
    writes them to ``record``); ``GET /events`` answers them."""

    def happened(event: str) -> None:
        events.append(f"{name} {event}")
        if record is not None:
            record.write_text("\n".join(events))

    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        happened("lifespan enters")
        yield
        happened("lifespan exits")

    app = App(lifespan=lifespan)
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


_record = os.environ.get(EVENTS_ENV)
app = mounting_apps(Path(_record) if _record else None)[0]
