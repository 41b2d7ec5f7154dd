"""Before an app is ready, its handlers' modules are imported where the handlers will run.

``offload="process"``: each worker of the app's process pool imports the modules of the
handlers it runs, so that no request pays for the import (seconds, for a module that makes a
client or a cluster). Python cannot give a spawned process what the server's modules made (a
fork of a threaded server is unsafe; a pickled function is found by importing its module), so
each worker makes again what those modules make at import: startup says so, and how to
avoid it, when that is threads or processes (a client, a cluster, an exporter).

``executor=``: each executor is asked to import the modules of its handlers, so that a Dask
cluster whose workers lack the app's code fails the startup, with the reason, rather than
each request with a 500.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from hasten._params.descriptions import unwrap
from hasten._running.pools import Pools, call_in_child, waited

if TYPE_CHECKING:
    from hasten._serve.routes import BaseRoute

__all__ = ["EXECUTOR_CHECK_TIMEOUT", "Imported", "import_modules", "warm_up"]

logger = logging.getLogger("hasten.offload")
# Seconds an executor has to say whether it can import its handlers' modules; a cluster with
# no worker yet never answers, so past this startup goes on, with a warning.
EXECUTOR_CHECK_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Imported:
    """What a process holds once it has imported the handlers' modules, beside hasten's own:
    its threads, its child processes, and the modules among them that made an App."""

    pid: int
    threads: tuple[str, ...]
    processes: int
    apps: tuple[str, ...]


def import_modules(names: Sequence[str], app_type: type) -> Imported:
    """In a worker: import ``names``; what the process holds then (``app_type``: App, given
    rather than imported, as every module under hasten.app does)."""
    modules = [importlib.import_module(name) for name in names]
    threads = tuple(
        thread.name
        for thread in threading.enumerate()
        if thread is not threading.main_thread() and not thread.name.startswith("hasten-")
    )
    apps = tuple(
        module.__name__
        for module in modules
        if any(isinstance(value, app_type) for value in vars(module).values())
    )
    return Imported(os.getpid(), threads, len(multiprocessing.active_children()), apps)


class _Routed:
    """The handlers of one place they run, by module: which routes need each module."""

    def __init__(self) -> None:
        self.routes: dict[str, list[str]] = {}

    def add(self, module: str, label: str) -> None:
        self.routes.setdefault(module, []).append(label)

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(self.routes)

    def describe(self) -> str:
        return "; ".join(
            f"{module} ({', '.join(labels)})" for module, labels in self.routes.items()
        )


async def warm_up(pools: Pools, routes: Iterable[BaseRoute], app_type: type) -> None:
    """Import the handlers' modules in each process worker and ask each executor to: return
    once done; raise, saying why, if a worker or an executor cannot."""
    in_processes = _Routed()
    executors: dict[int, tuple[Executor, _Routed]] = {}
    for route in routes:
        endpoint = route.compiled
        module = getattr(unwrap(endpoint.func), "__module__", None)
        if module is None:
            continue
        if endpoint.runs_on == "process pool":
            in_processes.add(module, route.label)
        elif endpoint.runs_on == "executor" and endpoint.options.executor is not None:
            executor = endpoint.options.executor
            executors.setdefault(id(executor), (executor, _Routed()))[1].add(module, route.label)
    if in_processes.routes:
        await _warm_processes(pools, in_processes, app_type)
    for executor, routed in executors.values():
        await _check_executor(executor, routed, app_type, pools.on_asyncio)


async def _warm_processes(pools: Pools, routed: _Routed, app_type: type) -> None:
    futures = pools.submit_to_each_process(import_modules, routed.modules, app_type)
    if not futures:  # no process pool: off asyncio, such handlers run on the threads
        return
    try:
        reports: list[Imported] = await asyncio.gather(*map(asyncio.wrap_future, futures))
    except Exception as exc:
        raise RuntimeError(
            f"offload='process': a worker process could not import {routed.describe()}: "
            f"{exc}{_main_hint(app_type)}"
        ) from exc
    _say_what_was_made_again(reports, routed)


def _main_hint(app_type: type) -> str:
    """Why a worker may die before it runs anything: it imports the script that started the
    server (as Python's spawn does), and a script that serves the app when imported serves it
    again there."""
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None)
    if script is None or not any(isinstance(value, app_type) for value in vars(main).values()):
        return ""
    return (
        f". Each worker process imports {script} first: if it starts the server when "
        'imported, put that under `if __name__ == "__main__":`'
    )


def _say_what_was_made_again(reports: Sequence[Imported], routed: _Routed) -> None:
    made = reports[0]
    things = []
    if made.apps:
        things.append(f"an App ({', '.join(made.apps)})")
    if made.threads:
        things.append(f"{len(made.threads)} thread(s) ({', '.join(sorted(made.threads))})")
    if made.processes:
        things.append(f"{made.processes} process(es)")
    if not (made.threads or made.processes):
        return  # an App and plain objects cost an import, paid now, once per worker
    logger.warning(
        "offload='process': each of the %d worker processes imported %s to run its handlers, "
        "and that import made %s again in each of them. Move the handlers that run in "
        "processes to a module that makes nothing when imported (the app's module imports "
        "them from it), or make those objects where they are used (functools.cache on a "
        "function that returns the client) rather than at import.",
        len(reports),
        routed.describe(),
        ", ".join(things),
    )


async def _check_executor(
    executor: Executor, routed: _Routed, app_type: type, on_asyncio: bool
) -> None:
    arguments = {"names": routed.modules, "app_type": app_type}
    submitted = executor.submit(call_in_child, import_modules, arguments)
    try:
        if on_asyncio:
            await asyncio.wait_for(asyncio.wrap_future(submitted), EXECUTOR_CHECK_TIMEOUT)
        else:  # another event loop than asyncio's (trio)
            with anyio.fail_after(EXECUTOR_CHECK_TIMEOUT):
                await waited(submitted)
    except TimeoutError:
        logger.warning(
            "executor=: %r did not answer within %g s whether it can import %s: the routes "
            "are served unchecked",
            executor,
            EXECUTOR_CHECK_TIMEOUT,
            routed.describe(),
        )
    except Exception as exc:
        raise RuntimeError(
            f"executor=: the executor's workers cannot import {routed.describe()} ({exc}). "
            "A Dask cluster's workers run a handler by importing its module: give them the "
            "app's code and packages (the same image, or PYTHONPATH; client.upload_file for a "
            "single module)."
        ) from exc
