"""Loading the app that ``module:attribute`` names: here, or in a child process that reports
what ``hasten run`` needs to know of it.

A process that forks server workers must not import the app first: a thread the app's module
starts at import (a Dask client's IO loop, a database pool's, a metrics exporter's) does not
survive a fork, and a module with compiled parts cannot be imported twice in one process. So
``hasten run`` checks the app in a child process, which exits before the server starts; each
worker then imports the app afresh, where it runs.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import traceback
import types
from dataclasses import dataclass

import msgspec

from hasten._running.lifeline import die_with_parent
from hasten._switch import turn_on_if_asked
from hasten.app import Starlette

__all__ = ["AppFacts", "UsageError", "check_in_child", "load_app", "report"]

# Seconds the checking process may take to exit once it has reported (its atexit hooks close
# what the app's module opened); then it is killed.
CHECK_EXIT_TIMEOUT = 5.0


class UsageError(Exception):
    """The user asked for something that cannot be done: reported in one line, exit code 2."""


@dataclass(frozen=True, slots=True)
class AppFacts:
    """What ``hasten run`` needs to know of the app before its server starts: whether its
    workers share a metrics directory and a stats directory, and whether it serves
    WebSockets (Granian then serves it over ASGI)."""

    metrics: bool
    stats: bool
    websockets: bool

    @classmethod
    def of(cls, app: Starlette) -> AppFacts:
        settings = app.settings
        return cls(
            settings.metrics_url is not None,
            settings.stats_token is not None,
            app.serves_websockets(),
        )


def split_target(target: str) -> tuple[str, str]:
    """``module:attribute`` as its two parts; a UsageError if it is not of that shape."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"target {target!r} must look like module:attribute, e.g. pkg.main:app")
    return module_name, attribute


def load_app(target: str) -> Starlette:
    """Import ``module:attribute`` (the working directory first on the path); return the app."""
    module_name, attribute = split_target(target)
    turn_on_if_asked()  # before the app's module imports fastapi or starlette
    _put_cwd_on_path()
    found: object = _import(module_name)
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise UsageError(f"module {module_name!r} has no attribute {attribute!r}") from None
    if not isinstance(found, Starlette):
        raise UsageError(f"{target} is a {type(found).__name__}, not a hasten App")
    return found


def _put_cwd_on_path() -> None:
    # Like uvicorn: `hasten run pkg.main:app` finds pkg in the directory it is run from.
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)


def _import(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if name != missing and not name.startswith(f"{missing}."):
            raise  # the app itself imports something missing: its traceback says where
        raise UsageError(f"cannot import {name!r}: {exc}") from None


# The check in a child process.
_CHILD = "import sys; from hasten._cli.loading import report; report(*sys.argv[1:])"


class _Report(msgspec.Struct, frozen=True, omit_defaults=True):
    facts: AppFacts | None = None
    error: str | None = None  # a UsageError's message
    failed: str | None = None  # the app's module raised: its traceback is on stderr


def check_in_child(target: str) -> AppFacts:
    """Load the app in a child process (its output and any traceback go to ours); what it
    learnt, or a UsageError saying why the app cannot be served."""
    split_target(target)  # a malformed target needs no process to say so
    read, write = os.pipe()
    try:
        argv = [sys.executable, "-c", _CHILD, target, str(write), str(os.getpid())]
        process = subprocess.Popen(argv, pass_fds=(write,), stdin=subprocess.DEVNULL)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    try:
        process.wait(CHECK_EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()  # what the app's module started keeps it alive: it has reported
        process.wait()
    if not data:
        raise UsageError(f"checking {target} failed: its process exited with {process.returncode}")
    outcome = msgspec.json.decode(data, type=_Report)
    if outcome.error is not None:
        raise UsageError(outcome.error)
    if outcome.failed is not None:
        raise UsageError(f"importing {target} raised {outcome.failed} (its traceback is above)")
    assert outcome.facts is not None
    return outcome.facts


def report(target: str, descriptor: str, parent_pid: str) -> None:
    """In the child process: load the app, write what was learnt to ``descriptor``."""
    die_with_parent(int(parent_pid))
    try:
        outcome = _Report(facts=AppFacts.of(load_app(target)))
    except UsageError as exc:
        outcome = _Report(error=str(exc))
    except Exception as exc:
        traceback.print_exc()
        outcome = _Report(failed=f"{type(exc).__name__}: {exc}")
    with contextlib.suppress(BrokenPipeError), os.fdopen(int(descriptor), "wb") as pipe:
        pipe.write(msgspec.json.encode(outcome))
