"""Live stats: each route's request counts by status class, kept while the app runs, for
``hasten routes --live`` (served at ``stats_url`` to holders of ``stats_token``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .observe import Exchange, RouteTag

__all__ = ["RouteCounts"]


class RouteCounts:
    """Requests by (method, route) and status class (a Sink); one worker's, in memory."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], Counter[str]] = {}

    def record(
        self, method: str, path: str, tag: RouteTag, exchange: Exchange, seconds: float
    ) -> None:
        key = (method, tag.template)
        counts = self.counts.get(key)
        if counts is None:
            counts = self.counts[key] = Counter()
        counts[f"{exchange.status // 100}xx" if exchange.status else "none"] += 1

    def snapshot(self) -> list[dict[str, Any]]:
        """Each route seen: method, route, requests, and requests by status class."""
        return [
            {
                "method": method,
                "route": template,
                "requests": sum(counts.values()),
                "statuses": dict(sorted(counts.items())),
            }
            for (method, template), counts in sorted(self.counts.items())
        ]
