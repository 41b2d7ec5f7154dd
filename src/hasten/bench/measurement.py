"""What one run measures: the load generator's result, and the server's usage beside it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .scenario import RequestTable
from .stats import PERCENTILES, Histogram

__all__ = [
    "CLIENT_BOUND",
    "LoadGenerator",
    "LoadResult",
    "Measurement",
    "Metrics",
    "curve_key",
]

# A load generator using this share of the CPU it may use was the bottleneck, not the server.
CLIENT_BOUND = 0.9

Metrics = dict[str, float | None]


def curve_key(p: float) -> str:
    """The metrics key of the ``p``-th latency percentile, e.g. ``p99.9_ms``."""
    return f"p{p:g}_ms"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadResult:
    """What a load generator saw: requests, failures, latencies (ms) and its own CPU time."""

    requests: int
    seconds: float
    errors: int
    non_2xx: int
    latency_ms: dict[float, float]
    max_ms: float
    mean_ms: float
    client_cpu_seconds: float
    client_cores: float
    statuses: dict[int, int] = field(default_factory=dict)

    @classmethod
    def from_histogram(
        cls,
        histogram: Histogram,
        *,
        seconds: float,
        errors: int,
        statuses: dict[int, int],
        client_cpu_seconds: float,
    ) -> LoadResult:
        """A result from latencies recorded in microseconds by a single-core generator."""
        return cls(
            requests=histogram.count,
            seconds=seconds,
            errors=errors,
            non_2xx=sum(count for status, count in statuses.items() if not 200 <= status < 300),
            latency_ms={p: histogram.percentile(p) / 1000 for p in PERCENTILES},
            max_ms=histogram.maximum / 1000,
            mean_ms=histogram.mean / 1000,
            client_cpu_seconds=client_cpu_seconds,
            client_cores=1.0,
            statuses=dict(sorted(statuses.items())),
        )

    @property
    def rps(self) -> float:
        """Requests per second."""
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def client_share(self) -> float:
        """The share of the CPU the generator may use (its threads, at most the cores) used."""
        allowed = self.seconds * self.client_cores
        return self.client_cpu_seconds / allowed if allowed > 0 else 0.0


class LoadGenerator(Protocol):
    """Drives load at one address: wrk, or the built-in asyncio client."""

    @property
    def name(self) -> str:
        """Short, for the report: wrk or builtin."""
        ...

    def describe(self) -> str:
        """One line for the report: which generator, its version and threads."""
        ...

    def run(
        self, table: RequestTable, host: str, port: int, seconds: float, connections: int
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds``."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurement:
    """One round of one target: the load result and the server's CPU time and peak RSS."""

    label: str
    round: int
    load: LoadResult
    server_cpu_seconds: float | None
    server_peak_rss: int | None

    @property
    def cpu_per_10k(self) -> float | None:
        """The server's CPU seconds per 10,000 requests."""
        if self.server_cpu_seconds is None or self.load.requests == 0:
            return None
        return self.server_cpu_seconds / self.load.requests * 10_000

    def metrics(self) -> Metrics:
        """Every figure of the round, flat: what medians, reports and baselines compare."""
        load = self.load
        curve: Metrics = {curve_key(p): ms for p, ms in load.latency_ms.items()}
        rss = self.server_peak_rss
        return {
            "rps": load.rps,
            "requests": float(load.requests),
            "seconds": load.seconds,
            **curve,
            "max_ms": load.max_ms,
            "mean_ms": load.mean_ms,
            "errors": float(load.errors),
            "non_2xx": float(load.non_2xx),
            "server_cpu_seconds": self.server_cpu_seconds,
            "cpu_s_per_10k": self.cpu_per_10k,
            "peak_rss_mb": None if rss is None else rss / 2**20,
            "client_cpu_seconds": load.client_cpu_seconds,
            "client_share": load.client_share,
        }
