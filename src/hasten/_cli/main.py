"""The command line: ``hasten run`` serves an app, ``routes`` lists it, ``bench`` measures it,
``openapi`` prints its OpenAPI document."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import json
import os
import resource
import socket
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hasten._cli import openapi
from hasten._cli.arguments import add_arguments, from_arguments
from hasten._cli.loading import AppFacts, UsageError, check_in_child, load_app
from hasten._cli.servers import INTERFACES, EventLoop, Interface, ServerName
from hasten._settings import (
    DEFAULT_STATS_URL,
    METRICS_DIRECTORY_ENV,
    STATS_DIRECTORY_ENV,
    STATS_TOKEN_ENV,
)
from hasten._switch import ENVIRONMENT_VARIABLE as SWITCH_VARIABLE
from hasten._version import __version__
from hasten.app import RouteInfo

__all__ = ["RunConfig", "UsageError", "build_parser", "format_routes", "load_app", "main", "serve"]

Command = Callable[[argparse.Namespace], int]
LIVE_TIMEOUT = 10.0

# What a server does with slow clients and idle connections, by default: each worker holds
# thousands of open connections (an idle one costs a few kB), so that clients that send
# nothing cannot lock the others out; one that starts a request and stalls is closed.
DEFAULT_BACKLOG = 2048
DEFAULT_MAX_CONNECTIONS = 10_000
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0
# Said once at startup when an app is served over ASGI for its WebSockets.
OVER_ASGI = (
    "hasten: over ASGI, as the app has WebSocket routes: Granian's RSGI sends no WebSocket "
    "close code (each close would reach the client as 1005); --interface rsgi serves it over "
    "RSGI"
)


def _parse_workers(text: str) -> int:
    if text == "auto":
        return os.cpu_count() or 1
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """How ``hasten run`` serves an app. Each field is one command-line option.

    A field without a default is a positional argument; the others are ``--flags``.
    """

    target: str = field(
        metadata={
            "help": "The app, as module:attribute (e.g. pkg.main:app).",
            "metavar": "MODULE:APP",
        }
    )
    host: str = field(default="127.0.0.1", metadata={"help": "Address to bind."})
    port: int = field(default=8000, metadata={"help": "Port to bind."})
    workers: int = field(
        default=1,
        metadata={
            "help": "Worker processes, or 'auto' for one per CPU; a worker that dies is replaced.",
            "metavar": "N|auto",
            "parse": _parse_workers,
        },
    )
    as_fastapi: bool = field(
        default=False,
        metadata={
            "help": "Serve the fastapi and starlette modules from hasten, to the app and every "
            "extension it imports: an unmodified FastAPI app runs on hasten."
        },
    )
    reload: bool = field(
        default=False,
        metadata={
            "help": "Start fresh workers when a source file changes (granian needs watchfiles)."
        },
    )
    # What --reload watches: uvicorn's options, with its rules on either server.
    reload_dir: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "With --reload: a directory to watch, repeatable (default: the working "
            "directory).",
            "metavar": "DIR",
        },
    )
    reload_include: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "With --reload: a glob of the files to watch besides *.py, repeatable "
            "(e.g. '*.html').",
            "metavar": "GLOB",
        },
    )
    reload_exclude: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "With --reload: a glob of files, or a directory, not to watch, repeatable "
            "(hidden files, editors' swap files and __pycache__ never are).",
            "metavar": "GLOB|DIR",
        },
    )
    interface: Interface | None = field(
        default=None,
        metadata={
            "help": "Protocol between server and app (default: asgi on uvicorn; on granian "
            "rsgi, or asgi for an app with WebSocket routes, whose close codes rsgi cannot "
            "send)."
        },
    )
    server: ServerName = field(default="granian", metadata={"help": "The HTTP server."})
    loop: EventLoop = field(
        default="auto",
        metadata={"help": "The event loop of each worker (auto: uvloop where it is installed)."},
    )
    # Slow clients and idle connections: what the server itself enforces (see the README).
    backlog: int = field(
        default=DEFAULT_BACKLOG,
        metadata={
            "help": "Connections the kernel queues until a worker accepts them "
            "(capped by net.core.somaxconn)."
        },
    )
    max_connections: int = field(
        default=DEFAULT_MAX_CONNECTIONS,
        metadata={
            "help": "Connections each worker holds open, idle ones included; past it a new one "
            "waits in the backlog (granian) or gets 503 (uvicorn)."
        },
    )
    header_timeout: float = field(
        default=DEFAULT_HEADER_TIMEOUT,
        metadata={
            "help": "Seconds a client has to send a request's headers once it has begun, and "
            "that an idle keep-alive connection stays open (granian only: uvicorn has no "
            "such timeout).",
            "metavar": "SECONDS",
        },
    )
    keep_alive_timeout: float = field(
        default=DEFAULT_KEEP_ALIVE_TIMEOUT,
        metadata={
            "help": "Seconds an idle keep-alive connection stays open (uvicorn; granian "
            "closes it after --header-timeout).",
            "metavar": "SECONDS",
        },
    )

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"port must be between 1 and 65535, got {self.port}")
        for name in ("workers", "backlog", "max_connections"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("header_timeout", "keep_alive_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.server == "uvicorn" and self.interface == "rsgi":
            raise ValueError("uvicorn speaks ASGI only: use interface asgi (or none), or granian")
        if self.server == "uvicorn" and self.reload and self.workers > 1:
            raise ValueError("uvicorn cannot reload with more than one worker")
        if not self.reload and (self.reload_dir or self.reload_include or self.reload_exclude):
            raise ValueError("--reload-dir, --reload-include and --reload-exclude go with --reload")

    @property
    def effective_interface(self) -> Interface:
        """The interface asked for, or the server's native one."""
        return self.interface or INTERFACES[self.server][0]

    @property
    def serves_here(self) -> bool:
        """Whether the app runs in this process: uvicorn with one worker and no reloader.
        Granian always starts workers, and uvicorn does to reload or to run several."""
        return self.server == "uvicorn" and self.workers == 1 and not self.reload

    @property
    def url(self) -> str:
        """Where the app is served."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def describe(self) -> str:
        """One line: what is served where, and how."""
        workers = f"{self.workers} worker{'s' if self.workers > 1 else ''}"
        how = [self.server, self.effective_interface, workers] + (["reload"] if self.reload else [])
        how += ["fastapi and starlette served by hasten"] if self.as_fastapi else []
        return f"{self.target} on {self.url} ({', '.join(how)})"


# Serving.
def serve(config: RunConfig) -> None:
    """Check that the app loads, then serve it with the configured server until it stops."""
    _require_extras(config)
    if config.as_fastapi:
        os.environ[SWITCH_VARIABLE] = "1"  # for the checking process and the workers too
    facts = _check_app(config)
    served = _interface_for(facts, config)
    _check_address(served)
    _raise_open_files_limit()
    print(f"hasten: serving {served.describe()}", file=sys.stderr, flush=True)
    if served.interface != config.interface:
        print(OVER_ASGI, file=sys.stderr, flush=True)
    with _shared_directories(facts, served):
        _SERVERS[served.server](served)


def _check_app(config: RunConfig) -> AppFacts:
    """Load the app where it will run: here if this process serves it, else in a child process
    (a server that forks its workers from this one must find it without the app imported)."""
    if config.serves_here:
        return AppFacts.of(load_app(config.target))
    return check_in_child(config.target)


def _interface_for(facts: AppFacts, config: RunConfig) -> RunConfig:
    """``config``, with ASGI for an app that serves WebSockets on Granian unless an interface
    was asked for: Granian's RSGI sends no WebSocket close code, so each close, the app's
    1000, 1008 or 4001 alike, would reach its clients as 1005."""
    if config.interface is not None or config.server != "granian" or not facts.websockets:
        return config
    return dataclasses.replace(config, interface="asgi")


@contextlib.contextmanager
def _shared_directories(facts: AppFacts, config: RunConfig) -> Iterator[None]:
    """With several workers, a fresh directory each for what the workers sum: metrics
    (prometheus-client's multiprocess mode) and live stats, so that /metrics and stats_url
    serve every worker's requests; removed when the server stops."""
    with contextlib.ExitStack() as stack:
        if config.workers > 1:
            if facts.metrics:
                stack.enter_context(_directory(METRICS_DIRECTORY_ENV, "hasten-metrics-"))
            if facts.stats:
                stack.enter_context(_directory(STATS_DIRECTORY_ENV, "hasten-stats-"))
        yield


@contextlib.contextmanager
def _directory(variable: str, prefix: str) -> Iterator[None]:
    """``$variable``, a fresh directory inherited by the workers (unless one is given)."""
    if os.environ.get(variable):
        yield  # the user's: they clear it between runs, as prometheus-client asks
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        os.environ[variable] = directory  # inherited by the workers
        try:
            yield
        finally:
            del os.environ[variable]


def _require_extras(config: RunConfig) -> None:
    if config.server == "uvicorn" and importlib.util.find_spec("uvicorn") is None:
        raise UsageError("--server uvicorn needs uvicorn: pip install 'hasten[uvicorn]'")
    if (
        config.reload
        and config.server == "granian"
        and importlib.util.find_spec("watchfiles") is None
    ):
        raise UsageError("--reload needs watchfiles: pip install 'hasten[reload]'")


def _check_address(config: RunConfig) -> None:
    # Granian reports a busy port with a Rust backtrace: say it in one line instead.
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    try:
        with socket.socket(family) as sock:
            # As the servers do, so that a port left in TIME_WAIT does not count as busy.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((config.host, config.port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {config.url}: {exc.strerror or exc}") from None


def _raise_open_files_limit() -> None:
    # Each connection is a file descriptor, and many systems start a process with a soft limit
    # of 1,024: raised to the hard limit (as nginx and Go's runtime do), the workers inherit
    # room for max_connections.
    # Where the hard limit cannot be the soft one (unlimited, on macOS), the soft one stays.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _serve_granian(config: RunConfig) -> None:
    from hasten._cli.granian import serve as serve_granian

    serve_granian(config)


def _serve_uvicorn(config: RunConfig) -> None:
    from hasten._cli.uvicorn import serve as serve_uvicorn

    serve_uvicorn(config)


_SERVERS: dict[ServerName, Callable[[RunConfig], None]] = {
    "granian": _serve_granian,
    "uvicorn": _serve_uvicorn,
}


# Routes.
def format_routes(routes: Iterable[RouteInfo]) -> str:
    """A column-aligned table of ``routes``, sorted by path, with a header row."""
    header = ("METHODS", "PATH", "HANDLER", "RUNS ON")
    return _table(
        header,
        [
            (",".join(route.methods), route.path, route.handler, route.runs_on)
            for route in sorted(routes, key=lambda route: (route.path, route.methods))
        ],
    )


def fetch_stats(url: str, token: str | None) -> dict[str, Any]:
    """A running server's live stats (``stats_url``), read with its ``stats_token``."""
    if not token:
        raise UsageError(f"--live needs the server's stats token: --token, or ${STATS_TOKEN_ENV}")
    parts = urllib.parse.urlsplit(url)
    if parts.path in ("", "/"):
        url = urllib.parse.urlunsplit(parts._replace(path=DEFAULT_STATS_URL))
    request = urllib.request.Request(url, headers={"authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=LIVE_TIMEOUT) as response:
            stats: dict[str, Any] = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise UsageError(f"{url} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise UsageError(f"cannot read {url}: {getattr(exc, 'reason', exc)}") from None
    return stats


def format_live(stats: dict[str, Any]) -> str:
    """``fetch_stats``' answer as a table: requests by status class and stalls, by route."""
    stalls: dict[tuple[str, str], dict[str, Any]] = {}
    for label, blocked in stats["blocked"].items():
        methods, _, path = label.partition(" ")
        for method in methods.split("|"):
            stalls[method, path] = blocked
    classes = ("2xx", "3xx", "4xx", "5xx")
    header = ("METHOD", "ROUTE", "REQUESTS", *(name.upper() for name in classes), "STALLS")
    rows = []
    for route in stats["routes"]:
        blocked = stalls.get((route["method"], route["route"]))
        rows.append(
            (
                route["method"],
                route["route"],
                str(route["requests"]),
                *(str(route["statuses"].get(name, 0)) for name in classes),
                f"{blocked['count']} ({blocked['max_ms']:.0f} ms max)" if blocked else "0",
            )
        )
    summary = f"in flight: {stats['in_flight']}, refused: {stats['refused']}"
    if stats.get("workers", 1) > 1:
        summary += f" (summed over {stats['workers']} workers)"
    return _table(header, rows) + "\n" + summary


def _table(header: tuple[str, ...], body: list[tuple[str, ...]]) -> str:
    rows = [header, *body]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    lines = (
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    )
    return "\n".join(line.rstrip() for line in lines)


# The parser, derived from RunConfig.
def build_parser() -> argparse.ArgumentParser:
    """The ``hasten`` argument parser; ``run``'s options come from RunConfig's fields."""
    parser = argparse.ArgumentParser(
        prog="hasten", description="Serve a hasten app, list its routes, or measure it under load."
    )
    parser.add_argument("--version", action="version", version=f"hasten {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run", help="serve an app", description="Serve an app over HTTP until interrupted."
    )
    add_arguments(run, RunConfig)
    run.set_defaults(handler=_run_command)
    routes = commands.add_parser(
        "routes",
        help="list an app's routes",
        description="List each route and how it runs, or a running server's counts by route.",
    )
    which = routes.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "target", nargs="?", metavar="MODULE:APP", help="The app, as module:attribute."
    )
    which.add_argument(
        "--live",
        metavar="URL",
        help=f"A running server (its stats_url, default {DEFAULT_STATS_URL}): requests and "
        "event-loop stalls by route, so far.",
    )
    routes.add_argument(
        "--token",
        default=os.environ.get(STATS_TOKEN_ENV),
        help=f"The server's stats_token (default: ${STATS_TOKEN_ENV}).",
    )
    routes.set_defaults(handler=_routes_command)
    # `hasten bench` is declared here and read by hasten.bench's own parser, imported only when
    # the command runs: `hasten run` and `routes` import neither hasten.bench nor psutil. With no
    # prefix character, argparse takes none of the words after `bench` for an option of its own,
    # so every one of them (--help included) reaches that parser untouched.
    bench = commands.add_parser(
        "bench", help="measure an app under load", add_help=False, prefix_chars="\0"
    )
    bench.add_argument("argv", nargs=argparse.REMAINDER)
    bench.set_defaults(handler=_bench_command)
    port = commands.add_parser(
        "port",
        help="rewrite a FastAPI app's imports to hasten's",
        description="Rewrite each fastapi and starlette import in these Python files (folders "
        "searched recursively) to hasten's, and nothing else; print what changed.",
    )
    port.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    port.add_argument(
        "--diff",
        action="store_true",
        help="Print the changes without writing them; exit 1 if there are any.",
    )
    port.set_defaults(handler=_port_command)
    openapi.add_parser(commands)
    return parser


# Commands.
def _run_command(args: argparse.Namespace) -> int:
    try:
        config = from_arguments(RunConfig, args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    serve(config)
    return 0


def _routes_command(args: argparse.Namespace) -> int:
    if args.live is not None:
        print(format_live(fetch_stats(args.live, args.token)))
    else:
        print(format_routes(load_app(args.target).describe_routes()))
    return 0


def _port_command(args: argparse.Namespace) -> int:
    from hasten._cli.port import port_paths

    missing = [str(path) for path in args.paths if not path.exists()]
    if missing:
        raise UsageError(f"No such file or folder: {', '.join(missing)}")
    diffs = port_paths(args.paths, write=not args.diff)
    for diff in diffs:
        print(diff, end="")
    return 1 if args.diff and diffs else 0


def _bench_command(args: argparse.Namespace) -> int:
    from hasten.bench import main as bench

    return bench(args.argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hasten`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = build_parser().parse_args(argv)
    handler: Command = args.handler
    try:
        return handler(args)
    except UsageError as exc:
        print(f"hasten: error: {exc}", file=sys.stderr)
        return 2
