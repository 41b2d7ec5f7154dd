"""Prometheus metrics: what each observed request adds to them, and the route that serves them.

Names and labels follow prometheus-fastapi-instrumentator: ``http_requests_total`` (method,
handler, status class), ``http_request_duration_seconds``, ``http_requests_inprogress``; plus
hasten's own: requests shed with 503 or timed out with 504, event-loop stalls by route, and the
thread and process pools' queues. With several workers (``PROMETHEUS_MULTIPROC_DIR``, which
``hasten run --workers N`` sets) each worker writes its values to that directory and the
route serves their sum.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .observe import Exchange, RouteTag
from .responses import Response
from .settings import METRICS_DIRECTORY_ENV

if TYPE_CHECKING:
    from .pools import Pools

try:
    import prometheus_client
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
    from prometheus_client.multiprocess import MultiProcessCollector
except ImportError as exc:  # pragma: no cover - the dev install has it
    raise ImportError("metrics_url needs prometheus-client: pip install 'hasten[metrics]'") from exc

__all__ = ["Metrics"]

STATUS_CLASSES = {1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"}
SHED = (503, 504)  # refused under load (or while shutting down), and past a route's timeout


class Metrics:
    """One started app's metrics, in a registry of its own (so that apps, or restarts of
    one, never collide); ``respond`` serves them with the default registry's (the process's,
    and any the app defines)."""

    def __init__(self, pools: Pools) -> None:
        self.pools = pools
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
        # perf: the label children of each (method, route, status), resolved once.
        self._children: dict[tuple[str, str, int], tuple[Any, Any, Any]] = {}

    def record(
        self, method: str, path: str, tag: RouteTag, exchange: Exchange, seconds: float
    ) -> None:
        """Count one request (a Sink)."""
        key = (method, tag.template, exchange.status)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = self._resolve(*key)
        requests, duration, shed = children
        requests.inc()
        duration.observe(seconds)
        if shed is not None:
            shed.inc()
        if tag.runs_on in ("thread", "process"):
            self._sample_queues()

    def _resolve(self, method: str, template: str, status: int) -> tuple[Any, Any, Any]:
        status_class = STATUS_CLASSES.get(status // 100, "none")
        return (
            self.requests.labels(method, template, status_class),
            self.duration.labels(method, template),
            self.shed.labels(method, template, str(status)) if status in SHED else None,
        )

    def add_in_progress(self, change: int) -> None:
        """One more request in progress (``change`` 1), or one fewer (-1)."""
        self.in_progress.inc(change)

    def stalled(self, label: str, stall_ms: float) -> None:
        """The blocking monitor's report: ``label``'s route blocked the loop."""
        self.stalls.labels(label).inc()
        self.stall_seconds.labels(label).inc(stall_ms / 1000)

    def _sample_queues(self) -> None:
        for pool, depth in self.pools.queued().items():
            self.queued.labels(pool).set(depth)

    def respond(self) -> Response:
        """The exposition: every worker's metrics under multiprocess mode, else this app's and
        the default registry's."""
        self._sample_queues()
        if os.environ.get(METRICS_DIRECTORY_ENV):
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            body = prometheus_client.generate_latest(registry)
        else:
            body = prometheus_client.generate_latest(
                self.registry
            ) + prometheus_client.generate_latest(prometheus_client.REGISTRY)
        return Response(body, media_type=prometheus_client.CONTENT_TYPE_LATEST)

    def close(self) -> None:
        """This worker is stopping: under multiprocess mode, its gauges no longer count."""
        if os.environ.get(METRICS_DIRECTORY_ENV):
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
