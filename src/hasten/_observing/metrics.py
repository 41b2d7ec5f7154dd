"""Prometheus metrics: what each observed request adds to them, and their exposition.

Names and labels follow prometheus-fastapi-instrumentator: ``http_requests_total`` (method,
handler, status class), ``http_request_duration_seconds``, ``http_requests_inprogress``; plus
hasten's own: requests shed with 503 or timed out with 504, event-loop stalls by route, and the
thread and process pools' queues.

A request only adds to the observer's tallies (hasten._observing.tallies: prometheus-client's metric
objects take a lock per call, several microseconds a request); what they gained since the last
flush is added to prometheus-client's metrics when scraped. With several workers
(``PROMETHEUS_MULTIPROC_DIR``, which ``hasten run --workers N`` sets) each worker also flushes
every second, into the files prometheus-client's multiprocess mode sums, so that any worker's
scrape serves every worker's requests.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from hasten._http.responses import Response
from hasten._observing.tallies import DURATION_BOUNDS, Tallies, Tally
from hasten._settings import METRICS_DIRECTORY_ENV

if TYPE_CHECKING:
    from hasten._flow.in_flight import InFlight
    from hasten._running.pools import Pools

try:
    import prometheus_client
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
    from prometheus_client.multiprocess import MultiProcessCollector
except ImportError as exc:  # pragma: no cover - the dev install has it
    raise ImportError("metrics_url needs prometheus-client: pip install 'hasten[metrics]'") from exc

__all__ = ["Metrics"]

STATUS_CLASSES = {1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"}
SHED = (503, 504)  # refused under load (or while shutting down), and past a route's timeout
FLUSH_SECONDS = 1.0  # multiprocess mode: how stale another worker's scrape may find ours


def check_histogram_internals() -> None:
    """Fail at startup, saying why, if prometheus-client moved the histogram cells ``flush``
    adds to: it has no public call that adds many observations at once (``observe()`` adds
    one, under a lock), so hasten adds to a histogram's ``_sum`` and ``_buckets``, one cell per
    upper bound (``_upper_bounds``), as they are from prometheus-client 0.20 to 0.26 at least:
    a tally's buckets are added cell by cell."""
    probe: Any = Histogram("hasten_probe", "", registry=None, buckets=DURATION_BOUNDS)
    cells = (getattr(probe, "_sum", None), *getattr(probe, "_buckets", ()))
    bounds = tuple(getattr(probe, "_upper_bounds", ()))
    if (
        not all(hasattr(cell, "inc") for cell in cells)
        or bounds != DURATION_BOUNDS
        or len(cells) != 1 + len(bounds)
    ):
        raise RuntimeError(
            f"prometheus-client {_version()} changed the Histogram internals "
            "hasten._observing.metrics adds to (_sum, _buckets, _upper_bounds): install a "
            "release that has them (0.20 to 0.26 do), or a hasten that knows this one"
        )


def _version() -> str:
    from importlib.metadata import version

    return version("prometheus-client")


class Metrics:
    """One started app's metrics, in a registry of its own (so that apps, or restarts of
    one, never collide), read from ``tallies``; ``respond`` serves them with the default
    registry's (the process's, and any the app defines). Used from the event loop's thread
    only."""

    def __init__(self, pools: Pools, in_flight: InFlight, tallies: Tallies) -> None:
        check_histogram_internals()
        self.pools = pools
        self.in_flight = in_flight
        self.tallies = tallies
        # Each tally as it was at the last flush: the next one adds what it gained since.
        self.flushed: dict[tuple[str, str, int], Tally] = {}
        self.multiprocess = bool(os.environ.get(METRICS_DIRECTORY_ENV))
        self.registry = CollectorRegistry(auto_describe=True)
        labels = ("method", "handler", "status")
        self.requests = Counter(
            "http_requests_total",
            "Requests by method, route and status class.",
            labels,
            registry=self.registry,
        )
        self.duration = Histogram(
            "http_request_duration_seconds",
            "Seconds from the request's arrival at the app until its response was sent.",
            ("method", "handler"),
            registry=self.registry,
            buckets=DURATION_BOUNDS,
        )
        self.in_progress = Gauge(
            "http_requests_inprogress",
            "Requests being served.",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.shed = Counter(
            "hasten_requests_shed_total",
            "Requests answered 503 (overload, shutdown) or 504 (a route's timeout).",
            labels,
            registry=self.registry,
        )
        self.stalls = Counter(
            "hasten_event_loop_stalls_total",
            "Times a route blocked the event loop past block_threshold.",
            ("route",),
            registry=self.registry,
        )
        self.stall_seconds = Counter(
            "hasten_event_loop_stall_seconds_total",
            "Seconds the event loop was blocked, by the route blamed.",
            ("route",),
            registry=self.registry,
        )
        self.queued = Gauge(
            "hasten_pool_queue_depth",
            "Calls waiting for a free thread or worker process.",
            ("pool",),
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self._timer: asyncio.TimerHandle | None = None

    def stalled(self, label: str, stall_ms: float) -> None:
        """The blocking monitor's report: ``label``'s route blocked the loop."""
        self.stalls.labels(label).inc()
        self.stall_seconds.labels(label).inc(stall_ms / 1000)

    def flush(self) -> None:
        """Move what requests added since the last flush into prometheus-client's metrics,
        and sample the gauges."""
        for key, tally in self.tallies.items():
            before = self.flushed.get(key)
            if before is None:
                before = self.flushed[key] = Tally()
            requests = tally.requests - before.requests
            if not requests:
                continue
            method, template, status = key
            status_class = STATUS_CLASSES.get(status // 100, "none")
            self.requests.labels(method, template, status_class).inc(requests)
            if status in SHED:
                self.shed.labels(method, template, str(status)).inc(requests)
            histogram: Any = self.duration.labels(method, template)
            # The histogram's own cells (observe() adds one request at a time, under a lock).
            histogram._sum.inc(tally.seconds - before.seconds)
            for cell, now, then in zip(
                histogram._buckets, tally.buckets, before.buckets, strict=True
            ):
                if now > then:
                    cell.inc(now - then)
            self.flushed[key] = tally.copy()
        self.in_progress.set(self.in_flight.count)
        for pool, depth in self.pools.queued().items():
            self.queued.labels(pool).set(depth)

    def start(self) -> None:
        """Under multiprocess mode, flush every second (call from the loop's thread)."""
        if self.multiprocess:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_SECONDS, self._tick)

    def _tick(self) -> None:
        self.flush()
        self.start()

    def respond(self) -> Response:
        """The exposition: every worker's metrics under multiprocess mode, else this app's and
        the default registry's."""
        self.flush()
        if self.multiprocess:
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            body = prometheus_client.generate_latest(registry)
        else:
            body = prometheus_client.generate_latest(
                self.registry
            ) + prometheus_client.generate_latest(prometheus_client.REGISTRY)
        return Response(body, media_type=prometheus_client.CONTENT_TYPE_LATEST)

    def close(self) -> None:
        """This worker is stopping: under multiprocess mode, its last requests are written
        and its gauges no longer count."""
        if self._timer is not None:
            self._timer.cancel()
        if self.multiprocess:
            self.flush()
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
