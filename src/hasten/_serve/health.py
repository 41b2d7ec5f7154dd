"""The endpoints operators and platforms poll, each opt-in by a setting: liveness, readiness,
Prometheus metrics, and the live stats ``hasten routes --live`` reads."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from hasten._http.errors import HTTPError
from hasten._http.requests import Request
from hasten._http.responses import JSONResponse, Response
from hasten._serve.routes import BaseRoute, Route
from hasten._settings import Settings

if TYPE_CHECKING:
    from hasten._serve.runtime import Runtime

__all__ = ["control_routes"]


def control_routes(settings: Settings, runtime: Runtime) -> list[BaseRoute]:
    """The routes ``settings`` ask for (none by default), answering about ``runtime``."""
    routes: list[BaseRoute] = []
    if settings.health_url is not None:
        routes.append(Route(settings.health_url, alive, include_in_schema=False))
    if settings.ready_url is not None:
        # Once shutdown begins the gate answers every request 503, this one included, while
        # requests in flight finish (see App.shutdown); before startup, so does
        # App.start_for.
        routes.append(Route(settings.ready_url, ready, include_in_schema=False))
    metrics = runtime.metrics
    if settings.metrics_url is not None and metrics is not None:

        async def exposition() -> Response:
            """The Prometheus exposition."""
            return metrics.respond()

        routes.append(Route(settings.metrics_url, exposition, include_in_schema=False))
    if settings.stats_token is not None:
        stats = Stats(settings.stats_token, runtime)
        routes.append(Route(settings.stats_url, stats, include_in_schema=False))
    return routes


async def alive() -> dict[str, str]:
    """The process answers: it is alive."""
    return {"status": "alive"}


async def ready() -> dict[str, str]:
    """The app is started and not shutting down: it takes requests."""
    return {"status": "ready"}


class Stats:
    """Requests by route and status class, event-loop stalls by route, in flight, refused,
    summed over the workers: for the bearer of ``stats_token`` only (401 without a token, 403
    with another)."""

    def __init__(self, token: str, runtime: Runtime) -> None:
        self.token = token
        self.runtime = runtime

    async def __call__(self, request: Request) -> Response:
        scheme, _, given = (request.headers.get("authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not given:
            raise HTTPError(401, "A bearer token is required", {"www-authenticate": "Bearer"})
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise HTTPError(403, "The token is not the stats token")
        counts = self.runtime.route_counts
        assert counts is not None  # counted whenever stats_token is set
        return JSONResponse(counts.summed())
