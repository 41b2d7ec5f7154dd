"""The built-in load generator: N keep-alive connections on one asyncio loop, one core."""

from __future__ import annotations

import asyncio
import time

from .connection import FAILURES, Connection
from .measurement import LoadResult
from .scenario import RequestTable
from .stats import Histogram

__all__ = ["BuiltinGenerator"]

# A request still unanswered this long when the run ends counts as a timeout.
REQUEST_TIMEOUT = 5.0
# After a failed connect, wait this long before the next attempt: no busy loop on a dead port.
_RECONNECT_PAUSE = 0.05


class BuiltinGenerator:
    """Drives load from this process; its CPU time is this process's (``time.process_time``)."""

    name = "builtin"

    def describe(self) -> str:
        """One line for the report."""
        return "built-in asyncio client (1 core)"

    def run(
        self, table: RequestTable, host: str, port: int, seconds: float, connections: int
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds``."""
        return asyncio.run(_drive(table, host, port, seconds, connections))


class _Run:
    """What the connections of one run share: the next request, and what they recorded."""

    __slots__ = ("entries", "errors", "histogram", "host", "index", "port", "statuses")

    def __init__(self, table: RequestTable, host: str, port: int) -> None:
        self.entries = table.entries
        self.host = host
        self.port = port
        self.index = 0
        self.histogram = Histogram()
        self.statuses: dict[int, int] = {}
        self.errors = 0

    def next_request(self) -> bytes:
        """The next entry of the table, cycling."""
        raw = self.entries[self.index]
        self.index = (self.index + 1) % len(self.entries)
        return raw


async def _drive(
    table: RequestTable, host: str, port: int, seconds: float, connections: int
) -> LoadResult:
    run = _Run(table, host, port)
    cpu_start, start = time.process_time(), time.perf_counter()
    workers = [asyncio.create_task(_connection_loop(run)) for _ in range(connections)]
    try:
        await asyncio.sleep(seconds)
    finally:
        elapsed = time.perf_counter() - start
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return LoadResult.from_histogram(
        run.histogram,
        seconds=elapsed,
        errors=run.errors,
        statuses=run.statuses,
        client_cpu_seconds=time.process_time() - cpu_start,
    )


async def _connection_loop(run: _Run) -> None:
    connection: Connection | None = None
    try:
        while True:
            if connection is None:
                connection = await _connect(run)
                continue
            if not await _exchange(run, connection):
                connection.close()
                connection = None
    finally:
        if connection is not None:
            connection.close()


async def _connect(run: _Run) -> Connection | None:
    try:
        return await Connection.open(run.host, run.port)
    except OSError:
        run.errors += 1
        await asyncio.sleep(_RECONNECT_PAUSE)
        return None


async def _exchange(run: _Run, connection: Connection) -> bool:
    """One request and its response; False when the connection cannot be used again."""
    raw = run.next_request()
    started = time.perf_counter_ns()
    try:
        status = await connection.exchange(raw)
    except FAILURES:
        run.errors += 1
        return False
    except asyncio.CancelledError:
        if time.perf_counter_ns() - started > REQUEST_TIMEOUT * 1e9:
            run.errors += 1
        raise
    run.histogram.record((time.perf_counter_ns() - started) // 1000)
    run.statuses[status] = run.statuses.get(status, 0) + 1
    return connection.reusable
