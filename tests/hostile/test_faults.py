"""Load and faults, as tests that stop by themselves: ten times the capacity of a blocking
route, and a process-pool worker killed under load."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from tests.hostile.cases import request
from tests.hostile.conftest import hasten_run
from tests.hostile.fault_app import CAPACITY, SLOW_SECONDS
from tests.hostile.load import percentile, run_load
from tests.hostile.wire import exchange

pytestmark = pytest.mark.server

FAULT_APP = "tests.hostile.fault_app:app"
LOAD_SECONDS = 3.0
# A refused client waits a fifth of the Retry-After (1 s) before it tries again: impatient,
# yet not a loop that only measures how fast two shared cores can say 503.
RETRY_PAUSE = 0.2


@pytest.mark.parametrize("kind", ["granian-rsgi", "uvicorn"])
def test_ten_times_the_capacity_of_a_blocking_route(kind: str, tmp_path: Path) -> None:
    with hasten_run(kind, tmp_path / "server.log", target=FAULT_APP) as served:
        load = run_load(
            served.port, "/slow", CAPACITY * 10, LOAD_SECONDS, pause_after_503=RETRY_PAUSE
        )
        admitted, refused = load.latencies(200), load.latencies(503)
        # Every request is either served or refused with 503 (and Retry-After): none fails.
        assert set(load.statuses()) == {200, 503}
        # Admitted requests run at once: their latency stays near the handler's own time (the
        # p99 also holds the noise of two cores shared with the load and other work).
        assert percentile(admitted, 0.5) < 3 * SLOW_SECONDS
        assert percentile(admitted, 0.99) < 1.0
        # The rest are refused at once, not queued: queued, they would wait about
        # (CAPACITY * 9 / CAPACITY) * SLOW_SECONDS = 0.45 s each.
        assert percentile(refused, 0.5) < SLOW_SECONDS
        assert percentile(refused, 0.99) < 0.5
        # The server kept working at its capacity: CAPACITY handlers of SLOW_SECONDS at once.
        assert len(admitted) > 0.5 * CAPACITY / SLOW_SECONDS * LOAD_SECONDS
        # And it recovers at once.
        after = exchange(served.port, request("/slow"))
        assert after.status == 200
        assert after.seconds < 0.3
        served.check_alive()


def pool_workers(server_worker: psutil.Process) -> list[psutil.Process]:
    children = server_worker.children()
    return [child for child in children if "resource_tracker" not in " ".join(child.cmdline())]


def test_a_process_pool_worker_killed_under_load(tmp_path: Path) -> None:
    with hasten_run("granian-rsgi", tmp_path / "server.log", target=FAULT_APP) as served:
        (server_worker,) = psutil.Process(served.process.pid).children()
        victim, survivor = pool_workers(server_worker)
        with ThreadPoolExecutor(1) as background:
            running = background.submit(run_load, served.port, "/work", 8, LOAD_SECONDS)
            time.sleep(1.0)
            victim.kill()
            killed_at = time.monotonic()
            load = running.result()
        statuses = load.statuses()
        assert set(statuses) <= {200, 500}
        # Only what the killed worker held fails (a 500, see process_pool.py): at most the
        # requests in flight, and the other worker's clients go on being served.
        assert 1 <= statuses.get(500, 0) <= 8
        after_kill = killed_at - load.start + 0.2  # past what the victim sent as it died
        served_after = {int(a.body) for a in load.answers if a.status == 200 and a.at > after_kill}
        assert survivor.pid in served_after
        assert victim.pid not in served_after
        # The worker is reaped (no zombie) and replaced, and the other never stopped.
        deadline = time.monotonic() + 5
        while True:
            workers = pool_workers(server_worker)
            if victim.pid not in [w.pid for w in workers] and len(workers) == 2:
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert all(worker.status() != psutil.STATUS_ZOMBIE for worker in server_worker.children())
        served.check_alive()
