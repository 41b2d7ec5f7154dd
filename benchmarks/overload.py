"""Ten times a blocking route's capacity, on each server: what is admitted, what is refused.

Serves ``tests.servers.hostile.fault_app:app`` (20 requests in flight, a 50 ms ``def`` route) with
``hasten run`` on Granian RSGI, Granian ASGI and uvicorn, and drives ``/slow`` from 200
keep-alive connections for 3 s; a refused client waits 0.2 s before it sends again. Prints a
markdown row per server (``tests/servers/hostile/test_faults.py`` asserts the same without a
clock)::

    .venv/bin/python benchmarks/overload.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers.hostile.conftest import KINDS, hasten_run  # noqa: E402
from tests.servers.hostile.fault_app import CAPACITY  # noqa: E402
from tests.servers.hostile.load import percentile, run_load  # noqa: E402

SECONDS = 3.0
PAUSE = 0.2


HEADER = (
    "| server | admitted req/s | admitted p50 ms | p99 ms | refused (503) req/s | p50 ms "
    "| p99 ms | statuses |"
)


def row(kind: str, admitted: list[float], refused: list[float], statuses: list[int]) -> str:
    cells = [
        kind,
        f"{len(admitted) / SECONDS:,.0f}",
        f"{percentile(admitted, 0.5) * 1000:.0f}",
        f"{percentile(admitted, 0.99) * 1000:.0f}",
        f"{len(refused) / SECONDS:,.0f}",
        f"{percentile(refused, 0.5) * 1000:.1f}",
        f"{percentile(refused, 0.99) * 1000:.1f}",
        ", ".join(map(str, statuses)),
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    print(HEADER)
    print("| --- | --: | --: | --: | --: | --: | --: | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for kind in KINDS:
            log = Path(folder) / f"{kind}.log"
            with hasten_run(kind, log, target="tests.servers.hostile.fault_app:app") as served:
                load = run_load(served.port, "/slow", CAPACITY * 10, SECONDS, PAUSE)
            statuses = sorted(load.statuses())
            print(row(kind, load.latencies(200), load.latencies(503), statuses))


if __name__ == "__main__":
    main()
