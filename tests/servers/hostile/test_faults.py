"""Load and faults, as tests that stop by themselves: ten times the capacity of a blocking
route, and a process-pool worker killed under load."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from tests.servers.hostile.cases import request
from tests.servers.hostile.conftest import KINDS, hasten_run
from tests.servers.hostile.fault_app import CAPACITY, GATE_ENV, HELD_AT_MOST
from tests.servers.hostile.load import run_load
from tests.servers.hostile.wire import exchange

pytestmark = pytest.mark.server

FAULT_APP = "tests.servers.hostile.fault_app:app"
LOAD_SECONDS = 3.0
REFUSED = b'{"detail":"The server is at its limit of %d requests in flight"}' % CAPACITY
# A refused client waits a fifth of the Retry-After (1 s) before it tries again: impatient,
# yet not a loop that only measures how fast two shared cores can say 503.
RETRY_PAUSE = 0.2


@pytest.mark.parametrize("kind", ["granian-rsgi", "uvicorn"])
def test_ten_times_the_capacity_of_a_blocking_route(kind: str, tmp_path: Path) -> None:
    """CAPACITY requests hold every slot; nine times as many clients keep asking meanwhile.
    Nothing finishes while the slots are held, so each answer that comes then is a refusal
    made at once, not a request queued for a slot: no clock is needed to tell them apart."""
    gate = tmp_path / "gate"
    (gate / "entered").mkdir(parents=True)
    log = tmp_path / "server.log"
    with (
        hasten_run(kind, log, target=FAULT_APP, environment={GATE_ENV: str(gate)}) as served,
        ThreadPoolExecutor(CAPACITY) as pool,
    ):
        held = [
            pool.submit(exchange, served.port, request("/held"), wait=HELD_AT_MOST)
            for _ in range(CAPACITY)
        ]
        # Admitted requests run at once: all CAPACITY of them are in their handlers together.
        deadline = time.monotonic() + HELD_AT_MOST
        while len(list((gate / "entered").iterdir())) < CAPACITY:
            assert time.monotonic() < deadline, "the admitted requests never all ran"
            time.sleep(0.01)
        load = run_load(
            served.port, "/held", CAPACITY * 9, LOAD_SECONDS, pause_after_503=RETRY_PAUSE
        )
        # Every one of them was answered while the slots were held: refused with 503 at once
        # (none admitted past the capacity, none queued until the end, none failed).
        assert load.statuses() == {503: len(load.answers)}
        assert len(load.answers) >= CAPACITY * 9
        assert {answer.body for answer in load.answers} == {REFUSED}
        assert len(list((gate / "entered").iterdir())) == CAPACITY
        assert not any(future.done() for future in held)
        (gate / "open").touch()
        # The held requests are served once let go, and the server takes new ones at once.
        assert [str(future.result()) for future in held] == ["200"] * CAPACITY
        after = exchange(served.port, request("/held"))
        assert (after.status, after.body) == (200, b'{"released":true}')
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


# What a process-pool handler sends back that cannot come back: the cause each 500 logs.
THROWN_BACK = {
    "/thrown-back/exception": "The exception a worker process sent back for this task cannot be "
    "unpickled: TypeError(\"Refusal.__init__() missing 1 required positional argument: 'reason'\")",
    "/thrown-back/result": "The result a worker process sent back for this task cannot be "
    "unpickled: TypeError(\"Refusal.__init__() missing 1 required positional argument: 'reason'\")",
    "/thrown-back/lock": "The result of this task cannot be pickled: "
    "TypeError(\"cannot pickle '_thread.lock' object\")",
}
STOPPED_WITHIN = 10.0  # seconds from SIGTERM, nothing in flight
# Who logs a 500's exception: hasten, and an ASGI server too (hasten raises it to the server
# after the response, as Starlette's ServerErrorMiddleware does).
LOGGED_BY = {"granian-rsgi": 1, "granian-asgi": 2, "uvicorn": 2}


def worker_pids(port: int) -> set[int]:
    """The pool workers that serve four /work requests sent at once (each takes 0.1 s)."""
    with ThreadPoolExecutor(4) as clients:
        answers = list(clients.map(lambda _: exchange(port, request("/work")), range(4)))
    assert [answer.status for answer in answers] == [200] * 4
    return {int(answer.body) for answer in answers}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_process_handler_sends_back_what_cannot_come_back(kind: str, tmp_path: Path) -> None:
    """Before: the first such exception or result killed the worker's reader thread, and every
    request sent to that worker afterwards waited for good; under uvicorn SIGTERM no longer
    stopped the server. Now each is a 500 with its cause logged, the pool serves on, and the
    server stops at once."""
    log = tmp_path / "server.log"
    with hasten_run(kind, log, target=FAULT_APP) as served:
        workers = worker_pids(served.port)
        assert len(workers) == 2
        # Each route three times: more than the pool's two workers.
        for path in [*THROWN_BACK] * 3:
            outcome = exchange(served.port, request(path), wait=5.0)
            assert (outcome.status, outcome.body) == (500, b"Internal Server Error"), path
        assert worker_pids(served.port) == workers  # both serve on: nothing broke in them
        time.sleep(0.2)  # the log is written after the answer
        logged = log.read_text(errors="replace")
        for cause in THROWN_BACK.values():
            assert logged.count(cause) == 3 * LOGGED_BY[kind], cause
        os.killpg(served.process.pid, signal.SIGTERM)
        served.process.wait(STOPPED_WITHIN)
