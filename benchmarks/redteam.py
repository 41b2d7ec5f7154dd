"""The red-team table: tests/servers/hostile's cases against hasten on each server, and FastAPI.

Runs every hostile request of ``tests/servers/hostile/cases.py``, then a few scenarios one request
cannot show (thousands of idle connections, slow uploads, a huge JSON body, ``kill -9`` of the
server), against ``hasten run tests.servers.hostile.app:app`` on Granian RSGI, Granian ASGI and
uvicorn
(h11, this venv; and httptools, from .venv-peers, as FastAPI gets it) and against FastAPI on
uvicorn (``benchmarks/apps/fastapi_hostile.py``, from .venv-peers). Prints the table as
markdown. Everything runs on 127.0.0.1 and stops by itself::

    .venv/bin/python benchmarks/redteam.py > redteam.md

``--surfaces`` prints the second table: ``tests/servers/hostile/surface_cases.py`` and
``tests/servers/hostile/scenarios.py`` (forms, files, WebSockets, streams, control endpoints,
middleware, dependencies) against ``tests.servers.hostile.surfaces_app:app`` on the three servers
and
against FastAPI's twin, ``benchmarks/apps/fastapi_surfaces.py``, on uvicorn::

    .venv/bin/python benchmarks/redteam.py --surfaces > surfaces.md

``--only TEXT`` runs only the rows whose name holds TEXT (the others are left out of the
table), to measure a few rows again::

    .venv/bin/python benchmarks/redteam.py --only "Transfer-Encoding"
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from tests.servers.hostile import scenarios  # noqa: E402
from tests.servers.hostile.cases import CASES, NORMAL, Case, json_post  # noqa: E402
from tests.servers.hostile.surface_cases import SURFACE_CASES  # noqa: E402
from tests.servers.hostile.wire import HOST, exchange  # noqa: E402

# The peers' venv (python benchmarks/suite.py builds it), or another one named in the environment.
PEERS = (
    Path(os.environ.get("HASTEN_PEERS_VENV", ROOT / "benchmarks" / ".venv-peers"))
    / "bin"
    / "python"
)
MAIN = ROOT / ".venv" / "bin" / "python"
HASTEN = ["-m", "hasten", "run", "tests.servers.hostile.app:app"]
FASTAPI = ["-m", "uvicorn", "benchmarks.apps.fastapi_hostile:app", "--no-access-log"]
SURFACES = ["-m", "hasten", "run", "tests.servers.hostile.surfaces_app:app"]
# uvicorn's WebSocket limit set to the hasten app's websocket_max_size (64 KiB).
FASTAPI_SURFACES = [
    "-m",
    "uvicorn",
    "benchmarks.apps.fastapi_surfaces:app",
    "--no-access-log",
    "--ws-max-size",
    "65536",
]


@dataclass(frozen=True)
class Target:
    label: str
    python: Path
    argv: list[str]

    def command(self, port: int, workers: int) -> list[str]:
        return [str(self.python), *self.argv, "--port", str(port), "--workers", str(workers)]


def targets(peers: Path) -> list[Target]:
    found = [
        Target("hasten Granian RSGI", MAIN, [*HASTEN, "--interface", "rsgi"]),
        Target("hasten Granian ASGI", MAIN, [*HASTEN, "--interface", "asgi"]),
        Target("hasten uvicorn (h11)", MAIN, [*HASTEN, "--server", "uvicorn"]),
    ]
    if peers.exists():
        found.append(Target("hasten uvicorn (httptools)", peers, [*HASTEN, "--server", "uvicorn"]))
        found.append(Target("FastAPI uvicorn (httptools)", peers, FASTAPI))
    else:
        print(f"<!-- {peers} is missing: no FastAPI column (python benchmarks/suite.py) -->")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(
    target: Target, workers: int = 1, environment: dict[str, str] | None = None
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    # This branch's hasten, whichever venv runs it.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(environment or {})}
    process = subprocess.Popen(
        target.command(port, workers),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError):
                if exchange(port, NORMAL, wait=1.0).status == 200:
                    break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"{target.label} did not start")
            time.sleep(0.1)
        yield port, process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def next_ok(port: int) -> bool:
    try:
        return exchange(port, NORMAL).status == 200
    except OSError:
        return False


# Scenarios.
def open_connections(port: int, count: int, first: bytes = b"") -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex((HOST, port))
        sockets.append(sock)
    if first:
        time.sleep(0.5)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.send(first)
    return sockets


def timed_hello(port: int) -> str:
    try:
        outcome = exchange(port, NORMAL, wait=3.0)
    except OSError as exc:
        return type(exc).__name__
    return f"{outcome} in {outcome.seconds:.2f} s"


def idle_connections(port: int) -> str:
    """2,000 silent and 2,000 trickling connections, then a new client's /hello."""
    sockets = open_connections(port, 2000) + open_connections(port, 2000, b"G")
    try:
        time.sleep(1.0)
        return timed_hello(port)
    finally:
        for sock in sockets:
            sock.close()


def slow_uploads(port: int) -> str:
    """1,050 POSTs that send 3 of 100 body bytes, then a new client's /hello."""
    head = b"POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"
    sockets = open_connections(port, 1050, head)
    try:
        time.sleep(1.0)
        return timed_hello(port)
    finally:
        for sock in sockets:
            sock.close()


def huge_json(port: int) -> str:
    """A million JSON keys (7 MB) to request.json(): the slowest /hello meanwhile."""
    body = b"{" + b",".join(b'"%d":0' % index for index in range(1_000_000)) + b"}"
    done = threading.Event()
    result: list[str] = []

    def post() -> None:
        result.append(str(exchange(port, json_post("/echo", body), wait=20.0)))
        done.set()

    thread = threading.Thread(target=post)
    thread.start()
    slowest = 0.0
    while not done.is_set():
        slowest = max(slowest, exchange(port, NORMAL, wait=10.0).seconds)
        time.sleep(0.02)
    thread.join()
    return f"{result[0]}; /hello waited up to {slowest:.2f} s"


def killed(target: Target) -> str:
    """``kill -9`` of the server's main process (2 workers): what is left 3 s later."""
    with serving(target, workers=2) as (port, process):
        time.sleep(1.0)
        tree = psutil.Process(process.pid).children(recursive=True)
        process.kill()
        process.wait()
        time.sleep(3.0)
        left = [item for item in tree if item.is_running() and item.status() != "zombie"]
        answering = next_ok(port)
        for item in left:
            item.kill()
    return f"{len(left)} processes left, port {'answers' if answering else 'closed'}"


KILLED = "kill -9 of the server (2 workers)"
SCENARIOS: list[tuple[str, Callable[[int], str]]] = [
    ("2,000 idle + 2,000 trickling connections, then /hello", idle_connections),
    ("1,050 slow uploads (3 of 100 bytes), then /hello", slow_uploads),
    ("a million JSON keys, /hello meanwhile", huge_json),
]


def chosen(names: list[str], only: str | None) -> list[str]:
    """The rows measured: those whose name holds ``only`` (all without it)."""
    return [name for name in names if only is None or only in name]


def run(target: Target, rows: list[str]) -> dict[str, str]:
    cells: dict[str, str] = {}
    with serving(target) as (port, process):
        for case in (case for case in CASES if case.name in rows):
            try:
                outcome = exchange(port, case.data, half_close=case.half_close, wait=case.wait)
                cell = str(outcome)
                if outcome.status in (301, 307, 308):
                    cell += f" → {outcome.headers.get('location')}"
            except OSError as exc:
                cell = type(exc).__name__
            if not next_ok(port) or process.poll() is not None:
                cell += " (server down!)"
            cells[case.name] = cell
        for name, scenario in SCENARIOS:
            if name in rows:
                cells[name] = scenario(port)
    if KILLED in rows:
        cells[KILLED] = killed(target)
    return cells


# What a cell says when the server did badly: an error, a refusal of a client it should have
# served, a hang, a process left behind, or a wait of more than a quarter of a second.
BAD = ("500", "503", "silent", "reset", "Timeout", "Refused", "server down", "port answers")


def bad(cell: str) -> bool:
    if "waited up to" in cell:
        return float(cell.rsplit(" ", 2)[-2]) > 0.25
    return any(mark in cell for mark in BAD)


def verdict(hasten: str, fastapi: str) -> str:
    hasten_bad, fastapi_bad = bad(hasten), bad(fastapi)
    if hasten == fastapi:
        return "same"
    if fastapi_bad and not hasten_bad:
        return "**hasten**"
    if hasten_bad and not fastapi_bad:
        return "FastAPI"
    return "both bad" if hasten_bad else "differs"


def surface_targets(peers: Path) -> list[Target]:
    found = [
        Target("hasten Granian RSGI", MAIN, [*SURFACES, "--interface", "rsgi"]),
        Target("hasten Granian ASGI", MAIN, [*SURFACES, "--interface", "asgi"]),
        Target("hasten uvicorn (h11)", MAIN, [*SURFACES, "--server", "uvicorn"]),
    ]
    if peers.exists():
        found.append(Target("FastAPI uvicorn (httptools)", peers, FASTAPI_SURFACES))
    else:
        print(f"<!-- {peers} is missing: no FastAPI column (python benchmarks/suite.py) -->")
    return found


def run_surfaces(target: Target, rows: list[str]) -> dict[str, str]:
    """The surface cases and scenarios in ``rows`` against ``target``, its files in a folder
    of its own."""
    cells: dict[str, str] = {}
    folder = Path(tempfile.mkdtemp(prefix="hasten-redteam-"))
    spool = folder / "spool"
    spool.mkdir()
    site = folder / "files"
    environment = {"HOSTILE_SITE": str(site), "TMPDIR": str(spool)}
    with serving(target, environment=environment) as (port, _):
        for case in (case for case in SURFACE_CASES if case.name in rows):
            cells[case.name] = surface_cell(port, case)
        for name, scenario in scenarios.SCENARIOS:
            if name in rows:
                cells[name] = scenario_cell(port, scenario, site / "site")
    return cells


def surface_cell(port: int, case: Case) -> str:
    """The answer to ``case``, and whether the server still answered after it."""
    try:
        outcome = exchange(port, case.data, half_close=case.half_close, wait=case.wait)
    except OSError as exc:
        return type(exc).__name__
    cell = str(outcome)
    if outcome.body.startswith(b'{"client":'):  # /who: whom the app believed
        cell += f" (client {json.loads(outcome.body)['client']})"
    if "content-encoding" in outcome.headers:  # what GZip did
        cell += f" ({outcome.headers['content-encoding']})"
    return cell + ("" if next_ok(port) else " (server down!)")


def scenario_cell(port: int, scenario: Callable[..., scenarios.Seen], site: Path) -> str:
    """What ``scenario`` saw, and whether the server still answered after it."""
    arguments: list[object] = [port]
    if "site" in inspect.signature(scenario).parameters:
        arguments.append(site)
    try:
        cell = str(scenario(*arguments))
    except (OSError, KeyError, ValueError) as exc:
        cell = f"{type(exc).__name__}: {exc}"[:80]
    return cell + ("" if next_ok(port) else " (server down!)")


def print_table(header: list[str], rows: list[list[str]]) -> None:
    """A markdown table: ``header``, then each row (its first cell names it)."""
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for row in rows:
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


def main_surfaces(only: str | None) -> None:
    names = [case.name for case in SURFACE_CASES] + [name for name, _ in scenarios.SCENARIOS]
    names = chosen(names, only)
    columns = surface_targets(PEERS)
    results = {}
    for target in columns:
        print(f"<!-- {target.label} -->", file=sys.stderr, flush=True)
        results[target.label] = run_surfaces(target, names)
    header = ["case", *(target.label for target in columns)]
    print_table(header, [[name, *(results[t.label][name] for t in columns)] for name in names])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--surfaces", action="store_true", help="the surfaces' table")
    parser.add_argument("--only", metavar="TEXT", help="only the rows whose name holds TEXT")
    options = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # room for the scenarios' sockets
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if options.surfaces:
        main_surfaces(options.only)
        return
    rows = [case.name for case in CASES] + [name for name, _ in SCENARIOS] + [KILLED]
    rows = chosen(rows, options.only)
    columns = targets(PEERS)
    results = {}
    for target in columns:
        print(f"<!-- {target.label} -->", file=sys.stderr, flush=True)
        results[target.label] = run(target, rows)
    compare = "hasten uvicorn (httptools)", "FastAPI uvicorn (httptools)"
    has_peer = all(label in results for label in compare)
    header = ["case", *(target.label for target in columns)]
    header += ["better on uvicorn"] if has_peer else []
    table = []
    for row in rows:
        cells = [results[target.label][row] for target in columns]
        if has_peer:
            cells.append(verdict(results[compare[0]][row], results[compare[1]][row]))
        table.append([row, *cells])
    print_table(header, table)


if __name__ == "__main__":
    main()
