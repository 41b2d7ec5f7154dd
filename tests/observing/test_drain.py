"""SIGTERM, taken ahead of the server's own handler wherever the server put it (the drain of
``ready_url`` and the stop's deadline), and never in a way that would keep the server from
stopping.

asyncio has no public way to read a handler that ``loop.add_signal_handler`` took: the drain
reads the loop's private ``_signal_handlers``. The first test fails loudly if a Python
release moves them; the others send real signals to this process, on asyncio's loop and on
uvloop's, which keeps its handlers out of reach unless ``hasten run`` noted them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Iterator

import pytest
import uvloop

from hasten._flow.in_flight import InFlight
from hasten._observing.drain import (
    Stopping,
    _loop_handler,
    remember_signal_handlers,
    stop_on_sigterm,
)


async def nothing() -> None: ...


def draining(gate: InFlight, timeout: float = 5.0) -> Stopping:
    """An app with ``ready_url``: it drains first."""
    return Stopping(gate, timeout, drains=True, close=nothing, cut=nothing)


@pytest.fixture(autouse=True)
def restore_sigterm() -> Iterator[None]:
    previous = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_asyncio_keeps_a_loops_signal_handler_where_the_drain_reads_it() -> None:
    def stop(reason: str) -> None: ...

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop, "sigterm")
        handler = _loop_handler(loop)
        assert handler is not None, (
            "asyncio moved its signal handlers: hasten._observing.drain needs a fix"
        )
        assert handler == (stop, ("sigterm",))

    asyncio.run(scenario())


async def sigterm_while_one_request_is_in_flight(gate: InFlight, stopped: list[str]) -> None:
    gate.count = 1
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.sleep(0.05)
    assert (gate.closed, stopped) == (True, [])  # draining: the server still listens
    gate.count = 0
    await asyncio.sleep(0.2)


def test_a_loop_handler_gets_sigterm_once_requests_in_flight_are_done() -> None:
    stopped: list[str] = []
    gate = InFlight(10)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stopped.append, "server stops")
        stop_on_sigterm(draining(gate))
        await sigterm_while_one_request_is_in_flight(gate, stopped)

    asyncio.run(scenario())
    assert stopped == ["server stops"]


def test_a_signal_module_handler_gets_sigterm_once_requests_in_flight_are_done() -> None:
    stopped: list[str] = []
    gate = InFlight(10)
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped.append("server stops"))

    async def scenario() -> None:
        stop_on_sigterm(draining(gate))
        await sigterm_while_one_request_is_in_flight(gate, stopped)

    asyncio.run(scenario())
    assert stopped == ["server stops"]


def test_on_uvloop_a_handler_noted_as_it_was_put_gets_sigterm_once_requests_are_done() -> None:
    """What ``hasten run`` does in each Granian worker: note the handlers, then Granian
    puts its own on the loop, then the app starts and the drain goes in front."""
    stopped: list[str] = []
    gate = InFlight(10)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        assert not hasattr(loop, "_signal_handlers")  # uvloop's are out of reach
        loop.add_signal_handler(signal.SIGTERM, stopped.append, "server stops")
        stop_on_sigterm(draining(gate))
        await sigterm_while_one_request_is_in_flight(gate, stopped)

    loop = uvloop.new_event_loop()
    remember_signal_handlers(loop)
    with asyncio.Runner(loop_factory=lambda: loop) as runner:
        runner.run(scenario())
    assert stopped == ["server stops"]


def test_a_loop_that_hides_its_handlers_keeps_the_drain_off_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """uvloop keeps its handlers in a C attribute: unless they were noted, the drain must
    not stand in front of a handler it could never call (the server would then not stop
    when it should)."""
    stopped: list[str] = []
    gate = InFlight(10)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stopped.append, "server stops")
        with caplog.at_level(logging.WARNING, logger="hasten.error"):
            stop_on_sigterm(draining(gate))
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())
    assert (gate.closed, stopped) == (False, ["server stops"])
    [record] = [r for r in caplog.records if r.name == "hasten.error"]
    assert record.getMessage() == (
        "SIGTERM cannot be taken ahead of the server on uvloop, which keeps its signal handlers "
        "out of reach: shutdown_timeout will not bound the stop, nor will readiness turn 503 "
        "before the server stops listening (serve with hasten run, or on asyncio's loop)"
    )


def test_without_ready_url_the_server_hears_at_once_and_the_deadline_cuts_after_timeout() -> None:
    """WebSockets are closed before the server hears of SIGTERM (it would drop them), then
    it stops listening at once; ``timeout`` after the signal, what is left is cut."""
    said: list[tuple[str, bool]] = []
    gate = InFlight(10)
    gate.count = 1  # an endless stream

    async def close() -> None:
        said.append(("websockets closed", gate.closed))

    async def cut() -> None:
        said.append(("cut", gate.closed))

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: said.append(("server stops", gate.closed)))
        stop_on_sigterm(Stopping(gate, 0.2, drains=False, close=close, cut=cut))
        signalled = loop.time()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)
        assert said == [("websockets closed", False), ("server stops", False)]
        await asyncio.sleep(0.25)
        assert gate.deadline is not None
        return gate.deadline - signalled

    assert 0.2 <= asyncio.run(scenario()) < 0.25
    assert said == [("websockets closed", False), ("server stops", False), ("cut", False)]
