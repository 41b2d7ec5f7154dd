"""Live stats: each route's request counts by status class, kept while the app runs, for
``hasten routes --live`` (served at ``stats_url`` to holders of ``stats_token``).

With several workers (``$HASTEN_STATS_DIR``, which ``hasten run --workers N`` sets, as it sets
prometheus-client's directory for /metrics) each worker writes its stats to a file of its own
every second, and whichever worker answers sums every worker's: in flight counts the workers
still running, everything else every worker that ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from hasten._observing.tallies import Tallies
from hasten._settings import STATS_DIRECTORY_ENV

__all__ = ["FLUSH_SECONDS", "RouteCounts"]

FLUSH_SECONDS = 1.0  # how stale another worker's counts may be in a sum
Stats = dict[str, Any]


class RouteCounts:
    """Requests by (method, route) and status class, from the observer's ``tallies``, with
    the worker's own stats from ``worker_stats`` (requests in flight, refused, event-loop
    stalls)."""

    def __init__(self, worker_stats: Callable[[], Stats], tallies: Tallies) -> None:
        self.tallies = tallies
        self.worker_stats = worker_stats
        found = os.environ.get(STATS_DIRECTORY_ENV)
        self.directory = Path(found) if found else None
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """With a stats directory, write this worker's stats there every second (call from
        the loop's thread)."""
        if self.directory is not None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_SECONDS, self._flush)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def snapshot(self) -> Stats:
        """This worker's stats: in flight, refused, stalls by route, and each route seen with
        its requests by status class."""
        by_route: dict[tuple[str, str], Counter[str]] = {}
        for (method, template, status), tally in self.tallies.items():
            statuses = by_route.setdefault((method, template), Counter())
            statuses[f"{status // 100}xx" if status else "none"] += tally.requests
        routes = [
            {
                "method": method,
                "route": template,
                "requests": sum(statuses.values()),
                "statuses": dict(sorted(statuses.items())),
            }
            for (method, template), statuses in sorted(by_route.items())
        ]
        return {**self.worker_stats(), "routes": routes, "workers": 1}

    def summed(self) -> Stats:
        """Every worker's stats, summed (this worker's alone without a stats directory)."""
        total = self.snapshot()
        if self.directory is None:
            return total
        own = self._file(os.getpid())
        for path in self.directory.glob("*.json"):
            if path != own:
                with contextlib.suppress(OSError, msgspec.DecodeError, ValueError):
                    _add(total, msgspec.json.decode(path.read_bytes()), _running(path))
        return total

    def _file(self, pid: int) -> Path:
        assert self.directory is not None
        return self.directory / f"{pid}.json"

    def _flush(self) -> None:
        """Write this worker's stats where the others read them, then again in a second."""
        target = self._file(os.getpid())
        written = target.with_suffix(".tmp")
        with contextlib.suppress(OSError):  # the directory went with the server: stopping
            written.write_bytes(msgspec.json.encode(self.snapshot()))
            written.replace(target)  # whole, never half-written, for a reader
        self.start()


def _running(path: Path) -> bool:
    """Whether the worker that wrote ``path`` (named by its pid) still runs."""
    try:
        os.kill(int(path.stem), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _add(total: Stats, other: Stats, running: bool) -> None:
    """Add another worker's stats to ``total``."""
    total["workers"] += 1
    total["refused"] += other["refused"]
    if running:
        total["in_flight"] += other["in_flight"]
    blocked: dict[str, dict[str, float]] = total["blocked"]
    for label, theirs in other["blocked"].items():
        ours = blocked.setdefault(label, {"count": 0, "total_ms": 0.0, "max_ms": 0.0})
        ours["count"] += theirs["count"]
        ours["total_ms"] += theirs["total_ms"]
        ours["max_ms"] = max(ours["max_ms"], theirs["max_ms"])
    routes = {(route["method"], route["route"]): route for route in total["routes"]}
    for route in other["routes"]:
        key = (route["method"], route["route"])
        mine = routes.get(key)
        if mine is None:
            routes[key] = {**route, "statuses": dict(route["statuses"])}
            continue
        mine["requests"] += route["requests"]
        statuses = Counter(mine["statuses"]) + Counter(route["statuses"])
        mine["statuses"] = dict(sorted(statuses.items()))
    total["routes"] = [routes[key] for key in sorted(routes)]
