"""One measurement: serve a target (or reach its URL), warm it up, drive load, sample usage."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .measurement import LoadGenerator, Measurement
from .progress import Progress
from .scenario import RequestSpec, RequestTable, build_table, request_line
from .server import launched, probe
from .target import Target, UrlTarget
from .usage import PeakRss, ProcessTree

__all__ = ["Plan", "measure"]


def _warn(message: str) -> None:
    print(f"hasten bench: warning: {message}", file=sys.stderr)


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """How every measurement of a run is taken."""

    specs: Sequence[RequestSpec]
    generator: LoadGenerator
    duration: float
    warmup: float
    connections: int
    rounds: int
    ready_timeout: float
    progress: Progress = field(default_factory=Progress)
    warn: Callable[[str], None] = _warn


def measure(target: Target, plan: Plan, round_number: int) -> Measurement:
    """Measure ``target`` once; an app is served afresh and stopped before this returns."""
    if isinstance(target, UrlTarget):
        return _measure_at(
            target, plan, round_number, host=target.host, port=target.port, pid=target.pid
        )
    with launched(target, plan.ready_timeout) as server:
        return _measure_at(
            target, plan, round_number, host=server.host, port=server.port, pid=server.pid
        )


def _measure_at(
    target: Target, plan: Plan, round_number: int, *, host: str, port: int, pid: int | None
) -> Measurement:
    table = build_table(plan.specs, f"{host}:{port}")
    if round_number == 1:
        _check_statuses(target.label, host, port, table, plan.warn)
    tree = None if pid is None else ProcessTree(pid)
    generator = plan.generator
    with PeakRss(tree) as rss:
        if plan.warmup > 0:
            with plan.progress.phase(f"{target.label}: warm-up", plan.warmup):
                generator.run(table, host, port, plan.warmup, plan.connections)
        cpu_before = None if tree is None else tree.cpu_seconds()
        text = f"{target.label}: round {round_number}/{plan.rounds}"
        with plan.progress.phase(text, plan.duration):
            load = generator.run(table, host, port, plan.duration, plan.connections)
        cpu = None if tree is None or cpu_before is None else tree.cpu_seconds() - cpu_before
    return Measurement(
        label=target.label,
        round=round_number,
        load=load,
        server_cpu_seconds=cpu,
        server_peak_rss=rss.peak,
    )


def _check_statuses(
    label: str, host: str, port: int, table: RequestTable, warn: Callable[[str], None]
) -> None:
    """Warn about a request kind that does not answer 2xx: a benchmark of a 404 measures
    nothing useful."""
    for raw in table.samples:
        status = probe(host, port, raw)
        if status is None:
            warn(f"{label}: no answer to {request_line(raw)}")
        elif not 200 <= status < 300:
            warn(f"{label} answers {status} to {request_line(raw)}")
