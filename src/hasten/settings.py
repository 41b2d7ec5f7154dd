"""App settings, defined once: the App's keyword arguments and their documentation."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import TypedDict

__all__ = ["Settings", "SettingsKeywords"]

DEFAULT_MAX_BODY_SIZE = 1_048_576
DEFAULT_MAX_THREADS = 128
DEFAULT_MAX_PROCESSES = os.cpu_count() or 1
DEFAULT_PROCESS_THREADS = 4
DEFAULT_MAX_IN_FLIGHT = 1000
DEFAULT_SHUTDOWN_TIMEOUT = 30.0
DEFAULT_BLOCK_THRESHOLD = 0.1
DEFAULT_WEBSOCKET_MAX_SIZE = 1_048_576


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """What an App is configured with. Each field is an ``App(...)`` keyword argument."""

    debug: bool = field(
        default=False,
        metadata={"help": "Put the exception and traceback of a 500 in its response body."},
    )
    max_body_size: int = field(
        default=DEFAULT_MAX_BODY_SIZE,
        metadata={"help": "Largest request body in bytes; a larger one gets 413."},
    )
    max_threads: int = field(
        default=DEFAULT_MAX_THREADS,
        metadata={"help": "Threads in the pool that runs plain `def` handlers."},
    )

    max_processes: int = field(
        default=DEFAULT_MAX_PROCESSES,
        metadata={
            "help": "Worker processes for offload='process' routes (default: the CPU count).",
            "default": "os.cpu_count()",
        },
    )
    process_threads: int = field(
        default=DEFAULT_PROCESS_THREADS,
        metadata={
            "help": "Handlers each worker process runs at once, so that their blocking parts "
            "overlap (their CPU-bound parts share the process's core)."
        },
    )
    max_in_flight: int = field(
        default=DEFAULT_MAX_IN_FLIGHT,
        metadata={"help": "Requests served at once; past it a request gets 503 + Retry-After."},
    )
    shutdown_timeout: float = field(
        default=DEFAULT_SHUTDOWN_TIMEOUT,
        metadata={"help": "Seconds shutdown waits for requests in flight before its hooks run."},
    )
    block_threshold: float | None = field(
        default=DEFAULT_BLOCK_THRESHOLD,
        metadata={
            "help": "Seconds the event loop may stall before the route is reported "
            "(None turns the monitor off)."
        },
    )
    websocket_max_size: int = field(
        default=DEFAULT_WEBSOCKET_MAX_SIZE,
        metadata={
            "help": "Largest WebSocket message in bytes (characters for text) a handler "
            "receives; a larger one closes the socket with 1009."
        },
    )
    websocket_idle_timeout: float | None = field(
        default=None,
        metadata={
            "help": "Seconds a WebSocket handler waits in receive before the socket is "
            "closed with 1001 (None: it waits as long as the client stays)."
        },
    )

    def __post_init__(self) -> None:
        for name in (
            "max_body_size",
            "websocket_max_size",
            "max_threads",
            "max_processes",
            "process_threads",
            "max_in_flight",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.shutdown_timeout < 0:
            raise ValueError(f"shutdown_timeout cannot be negative, got {self.shutdown_timeout}")
        if self.block_threshold is not None and self.block_threshold <= 0:
            raise ValueError(f"block_threshold must be positive, got {self.block_threshold}")
        if self.websocket_idle_timeout is not None and self.websocket_idle_timeout <= 0:
            raise ValueError(
                f"websocket_idle_timeout must be positive, got {self.websocket_idle_timeout}"
            )

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """(name, default, help) for every setting: the README table is generated from this."""
        return [
            (
                item.name,
                str(item.metadata.get("default", repr(item.default))),
                str(item.metadata.get("help", "")),
            )
            for item in fields(cls)
        ]


class SettingsKeywords(TypedDict, total=False):
    """``App(**settings)`` for type checkers; a test holds it to Settings' fields."""

    debug: bool
    max_body_size: int
    max_threads: int
    max_processes: int
    process_threads: int
    max_in_flight: int
    shutdown_timeout: float
    block_threshold: float | None
    websocket_max_size: int
    websocket_idle_timeout: float | None
