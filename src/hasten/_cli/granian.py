"""``hasten run --server granian``: Granian with hasten's limits, its workers tied to it.

Granian runs in this process and starts its workers from its main thread; each worker loads
the app through ``load_tied``, which first ties the worker to this process (see
``_lifeline``): killed outright, ``hasten run`` takes its workers, and through them their
process pools, down with it.
"""

from __future__ import annotations

import asyncio
import os
import signal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hasten._cli.watching import SourceFiles, source_filter
from hasten._observing.drain import remember_signal_handlers
from hasten._running.lifeline import STARTING_SIGNAL, die_with_parent, end_if_orphaned
from hasten._switch import turn_on_if_asked

if TYPE_CHECKING:
    from hasten._cli.main import RunConfig

__all__ = ["load_tied", "serve"]


def load_tied(parent_pid: int, working_dir: Path, target: str) -> Any:
    """In a Granian worker: tie it to ``parent_pid``, have Granian note the signal handlers it
    puts on the worker's loop (for the drain, which goes in front of them), then load the app
    as Granian would."""
    from granian._internal import load_target

    # The worker is forked with the parent's signal handlers, and Granian sets its own only
    # once the app is loaded: a stop asked for while the app's module is imported (seconds,
    # for a large app) would be lost, and the worker left serving. It has nothing in flight
    # yet: it stops at once.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop_loading)
    die_with_parent(parent_pid, STARTING_SIGNAL)  # until the app has started (see _lifeline)
    end_if_orphaned(parent_pid)
    _note_loop_signals(parent_pid)
    turn_on_if_asked()  # hasten run --as-fastapi: before the app imports fastapi
    return load_target(target, wd=working_dir)


def _stop_loading(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _note_loop_signals(parent_pid: int) -> None:
    """Have Granian's worker note the signal handlers it is about to put on its loop: it
    puts them (``granian._signals.set_loop_signals``, looked up as it calls it) after
    loading the app, so the drain can stand in front of them on any loop, uvloop's too; and
    have the worker stop gently once the app has started, should ``parent_pid`` die."""
    from granian import _signals

    original = getattr(_signals, "set_loop_signals", None)
    if original is None:  # another Granian: the drain says so where it cannot help
        die_with_parent(parent_pid)
        return

    def set_loop_signals(loop: asyncio.AbstractEventLoop) -> Any:
        remember_signal_handlers(loop)
        _die_gently_once_started(loop, parent_pid)
        return original(loop)

    _signals.set_loop_signals = set_loop_signals


def _die_gently_once_started(loop: asyncio.AbstractEventLoop, parent_pid: int) -> None:
    """After the loop's first run, the app's startup (Granian's worker runs it before it
    serves, under either interface), the parent's death sends SIGTERM: the worker stops as on
    a normal shutdown, its requests in flight finished."""
    run = loop.run_until_complete

    def run_until_complete(future: Any) -> Any:
        try:
            return run(future)
        finally:
            loop.run_until_complete = run  # type: ignore[method-assign]  # once
            die_with_parent(parent_pid)

    loop.run_until_complete = run_until_complete  # type: ignore[method-assign]


def _holding_its_socket(granian: type[Any]) -> type[Any]:
    """Granian's server, its listening socket bound once by this process and handed to each
    worker, as uvicorn's reloader holds its own.

    On Linux Granian has each worker bind the address itself (SO_REUSEPORT): while a reload
    replaced the worker (4 to 5 s, the new one importing the app), nothing listened, and every
    connection was refused. Bound here, the socket outlives the workers: a connection made
    during a reload waits in its backlog, and the new worker serves it. Granian's own path for
    the platforms without SO_REUSEPORT, taken on Linux too: its server class hands a socket
    held by the main process to the workers when ``_init_shared_socket`` leaves one (``_shd``).
    """
    from granian.server.common import AbstractServer

    class ListeningHere(AbstractServer[Any]):
        def _init_shared_socket(self) -> None:
            super()._init_shared_socket()  # type: ignore[no-untyped-call]  # Granian's
            spec: Any = self._ssp  # on Linux, what each worker would bind for itself
            if self._shd is None:
                holder = spec.build()
                self._shd, self._sfd, self._ssp = holder, holder.get_fd(), None

    # Before Granian's AbstractServer in the method order, after its server class, which
    # keeps the socket open in this process (``_sso``) once the base has made it.
    return type(granian.__name__, (granian, ListeningHere), {})


def serve(config: RunConfig) -> None:
    """Serve ``config.target`` on Granian until it stops."""
    from granian import Granian
    from granian.constants import Interfaces, Loops
    from granian.http import HTTP1Settings

    working_dir = Path.cwd()
    reloading: dict[str, Any] = {}
    if config.reload:
        files = SourceFiles.of(config.reload_include, config.reload_exclude)
        reloading = {
            "reload_paths": [Path(item) for item in config.reload_dir] or [working_dir],
            "reload_filter": source_filter(files),
            # A change that breaks the app stops the worker, not the reloader: the next
            # change starts a fresh one, as uvicorn's reloader does.
            "reload_ignore_worker_failure": True,
        }
    server = _holding_its_socket(Granian) if config.reload else Granian
    server(
        config.target,
        address=config.host,
        port=config.port,
        interface=Interfaces(config.effective_interface),
        loop=Loops(config.loop),
        workers=config.workers,
        reload=config.reload,
        respawn_failed_workers=True,
        working_dir=working_dir,
        backlog=config.backlog,
        backpressure=config.max_connections,
        # Granian has one timer for both: the headers of a request, and an idle keep-alive
        # connection waiting for the next one.
        http1_settings=HTTP1Settings(header_read_timeout=round(config.header_timeout * 1000)),
        **reloading,
    ).serve(target_loader=partial(load_tied, os.getpid(), working_dir))
