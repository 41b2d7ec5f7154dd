"""The endpoints operators and platforms poll, each opt-in by a setting: liveness, readiness,
Prometheus metrics, and the live stats ``hasten routes --live`` reads."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from .errors import HTTPError
from .requests import Request
from .responses import JSONResponse, Response
from .routing import Route, Router

if TYPE_CHECKING:
    from .app import App
    from .runtime import Runtime

__all__ = ["health_routes"]


def health_routes(app: App) -> list[Route]:
    """The routes ``app``'s settings ask for (none by default)."""
    settings = app.settings
    router = Router()
    if settings.health_url is not None:
        router.add_route(settings.health_url, alive, include_in_schema=False)
    if settings.ready_url is not None:
        # Once shutdown begins the gate answers every request 503, this one included, while
        # requests in flight finish (see App.shutdown); before startup, so does
        # serve_before_start.
        router.add_route(settings.ready_url, ready, include_in_schema=False)
    if settings.metrics_url is not None:
        router.add_route(settings.metrics_url, metrics, include_in_schema=False)
    if settings.stats_token is not None:
        router.add_route(settings.stats_url, stats, include_in_schema=False)
    return router.routes


async def alive() -> dict[str, str]:
    """The process answers: it is alive."""
    return {"status": "alive"}


async def ready() -> dict[str, str]:
    """The app is started and not shutting down: it takes requests."""
    return {"status": "ready"}


async def metrics(request: Request) -> Response:
    """The Prometheus exposition."""
    runtime = _runtime(request)
    assert runtime.metrics is not None
    return runtime.metrics.respond()


async def stats(request: Request) -> Response:
    """Requests by route and status class, event-loop stalls by route, in flight, refused,
    summed over the workers: for the bearer of ``stats_token`` only (401 without a token, 403
    with another)."""
    token = request.app.settings.stats_token
    assert token is not None
    scheme, _, given = (request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HTTPError(401, "A bearer token is required", {"www-authenticate": "Bearer"})
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise HTTPError(403, "The token is not the stats token")
    runtime = _runtime(request)
    assert runtime.route_counts is not None
    return JSONResponse(runtime.route_counts.summed())


def _runtime(request: Request) -> Runtime:
    runtime = request.app.runtime
    assert runtime is not None  # a route is served by a started app
    return runtime
