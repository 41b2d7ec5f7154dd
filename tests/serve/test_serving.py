"""How ``hasten run`` starts each server: its options become the server's settings, and each
worker the server starts loads the app tied to ``hasten run`` (see hasten._running.lifeline).

In-process, with the servers' entry points replaced: tests/servers/test_lifeline.py and
tests/servers/hostile/test_connections.py check the same on real servers."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import granian._signals
import pytest
import uvicorn
import uvloop

from hasten._cli import granian as _granian
from hasten._cli import uvicorn as _uvicorn
from hasten._observing.drain import _remembered
from hasten.cli import RunConfig


def limited(**options: Any) -> RunConfig:
    """A RunConfig whose limits are all different from the defaults."""
    return RunConfig(
        target="m:app",
        backlog=512,
        max_connections=300,
        header_timeout=2.5,
        keep_alive_timeout=4.0,
        **options,
    )


class Recorder:
    """Stands for a server class: records how it was made and run."""

    def __init__(self) -> None:
        self.made: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.ran: list[dict[str, Any]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Recorder:
        self.made.append((args, kwargs))
        return self

    def serve(self, **kwargs: Any) -> None:
        self.ran.append(kwargs)

    def run(self, **kwargs: Any) -> None:
        self.ran.append(kwargs)


def test_granian_gets_the_limits_and_a_tied_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    import granian

    granian_class = Recorder()
    monkeypatch.setattr(granian, "Granian", granian_class)
    config = limited(workers=2, interface="asgi")

    _granian.serve(config)

    ((target,), options) = granian_class.made[0]
    assert target == "m:app"
    assert (options["backlog"], options["backpressure"]) == (512, 300)
    assert options["http1_settings"].header_read_timeout == 2500
    assert (options["workers"], options["interface"].value) == (2, "asgi")
    assert options["respawn_failed_workers"] is True
    (run,) = granian_class.ran
    loader = run["target_loader"]
    assert loader.func is _granian.load_tied
    assert loader.args == (os.getpid(), Path.cwd())


@pytest.fixture
def signal_handlers() -> Iterator[None]:
    """This process's SIGTERM and SIGINT handlers, put back after the test (a worker's are
    set in it)."""
    kept = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    yield
    for signum, handler in kept.items():
        signal.signal(signum, handler)


@pytest.mark.usefixtures("signal_handlers")
def test_a_granian_worker_ties_itself_then_loads_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    tied: list[tuple[int, ...]] = []
    monkeypatch.setattr(_granian, "die_with_parent", lambda *args: tied.append(args))
    # Not this process's: its exit would end at once, whatever the tests' outcome.
    ending: list[int] = []
    monkeypatch.setattr(_granian, "end_if_orphaned", ending.append)
    monkeypatch.setattr(granian._signals, "set_loop_signals", granian._signals.set_loop_signals)

    app = _granian.load_tied(1234, Path(__file__).parents[2], "tests.servers.e2e.bare_app:app")

    assert tied == [(1234, signal.SIGKILL)]  # at once while the app loads and starts
    assert ending == [1234]
    from tests.servers.e2e.bare_app import app as expected

    assert app is expected
    # Granian then puts its signal handlers on the worker's loop: the drain knows them, on
    # uvloop too (which keeps them out of reach).
    loop = uvloop.new_event_loop()
    try:
        granian._signals.set_loop_signals(loop)  # type: ignore[no-untyped-call]  # Granian: untyped
        assert set(_remembered[loop]) == {signal.SIGINT, signal.SIGTERM}
        assert loop.run_until_complete(asyncio.sleep(0, "started")) == "started"
        assert tied == [(1234, signal.SIGKILL), (1234,)]  # gently once the app has started
        loop.run_until_complete(asyncio.sleep(0))
        assert len(tied) == 2
    finally:
        loop.close()


@pytest.mark.parametrize(
    ("options", "runner"),
    [({}, "server"), ({"workers": 2}, "Multiprocess"), ({"reload": True}, "ChangeReload")],
)
def test_uvicorn_gets_the_limits(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, Any], runner: str
) -> None:
    server, multiprocess, reload = Recorder(), Recorder(), Recorder()
    monkeypatch.setattr(uvicorn, "Server", server)
    monkeypatch.setattr(_uvicorn, "Multiprocess", multiprocess)
    monkeypatch.setattr(_uvicorn, "ChangeReload", reload)
    monkeypatch.setattr(_uvicorn.TiedConfig, "bind_socket", lambda self: "socket")
    server.started = True  # type: ignore[attr-defined]
    config = limited(server="uvicorn", **options)

    _uvicorn.serve(config)

    ((settings,), _) = server.made[0]
    assert isinstance(settings, _uvicorn.TiedConfig)
    assert (settings.backlog, settings.limit_concurrency) == (512, 300)
    assert (settings.timeout_keep_alive, settings.access_log) == (4, False)
    used = {"server": server, "Multiprocess": multiprocess, "ChangeReload": reload}
    assert [name for name, recorder in used.items() if recorder.ran] == [runner]


def test_uvicorn_that_fails_to_start_exits_with_its_startup_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = Recorder()
    server.started = False  # type: ignore[attr-defined]
    monkeypatch.setattr(uvicorn, "Server", server)

    with pytest.raises(SystemExit) as exited:
        _uvicorn.serve(RunConfig(target="m:app", server="uvicorn"))
    assert exited.value.code == _uvicorn.STARTUP_FAILURE


def test_a_uvicorn_worker_ties_itself_and_the_main_process_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tied: list[tuple[int, ...]] = []
    monkeypatch.setattr(_uvicorn, "die_with_parent", lambda *args: tied.append(args))
    here = _uvicorn.TiedConfig("tests.servers.e2e.bare_app:app")
    here.load()  # in the process that made it: uvicorn with one worker
    assert tied == []

    elsewhere = _uvicorn.TiedConfig("tests.servers.e2e.bare_app:app")
    elsewhere.parent_pid = 1234  # as if unpickled in a worker that process spawned
    elsewhere.load()
    assert tied == [(1234, signal.SIGKILL)]  # at once while the app starts
    assert elsewhere.loaded
    lifespan = elsewhere.lifespan_class(elsewhere)

    async def start_and_stop() -> list[tuple[int, ...]]:
        await lifespan.startup()
        started = list(tied)
        await lifespan.shutdown()
        return started

    # Gently once the app has started.
    assert asyncio.run(start_and_stop()) == [(1234, signal.SIGKILL), (1234,)]
