"""Instructions per request in a real Granian worker, by thread: where a request's work goes.

    benchmarks/.venv-peers/bin/python benchmarks/tfb/worker_counts.py        # json, three apps
    benchmarks/.venv-peers/bin/python benchmarks/tfb/worker_counts.py --loop uvloop raw hasten
    benchmarks/.venv-peers/bin/python benchmarks/tfb/worker_counts.py --path /deps \
        --header x-token:abc benchmarks.apps.di_hasten:app benchmarks.apps.di_hasten:app_called

``counts.py`` counts a framework alone, in-process; this counts everything a Granian worker
executes for a request on 127.0.0.1: its Rust threads (HTTP parsing, the socket), and the
Python thread (the event loop, the crossing into Python, the app). Each app is served by one
Granian worker under callgrind (``--separate-threads``); after a warm-up its counters are
zeroed, ``--requests`` requests are sent on ``--connections`` keep-alive connections at once
(each one request after another; 1 connection: the event loop runs a whole iteration for every
request, many: one iteration serves many requests, as under load), and the counters dumped:
steady to about a percent, unlike req/s on a shared machine.
The TFB apps need PostgreSQL at startup (``pg.sh start``): they open their pools. Any other
RSGI app is named as ``module:attribute``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
APPS = {"raw": "raw_rsgi", "hasten": "app", "emmett": "emmett_app"}
HEADERS: dict[str, str] = {}  # sent with every request (--header)
WARMUP = 200


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def connect(
    server: subprocess.Popen[bytes], port: int, path: str, seconds: float = 300.0
) -> http.client.HTTPConnection:
    """A keep-alive connection once the server (slow under callgrind) answers ``path``."""
    deadline = time.monotonic() + seconds
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            get(connection, path)
        except OSError:
            connection.close()
            if server.poll() is not None:
                raise RuntimeError(
                    f"the server exited ({server.returncode}) before answering {path}: the TFB "
                    "apps need PostgreSQL when they start (benchmarks/tfb/pg.sh start)"
                ) from None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
        else:
            return connection


def get(connection: http.client.HTTPConnection, path: str) -> None:
    connection.request("GET", path, headers=HEADERS)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"{path} answered {response.status}: {body[:200]!r}")


def thread_totals(folder: Path, pid: int) -> list[int]:
    """The instructions of each thread of ``pid``'s first dump, largest first."""
    totals = []
    for dump in folder.glob(f"cg.{pid}.1-*"):
        found = re.search(r"^totals: (\d+)", dump.read_text(), re.MULTILINE)
        if found is not None and int(found.group(1)):
            totals.append(int(found.group(1)))
    return sorted(totals, reverse=True)


def count(name: str, path: str, requests: int, loop: str, connections: int) -> list[int]:
    """Per-request instructions of each busy thread of the worker serving ``name``."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="hasten-counts-") as folder:
        server = subprocess.Popen(
            [
                *("valgrind", "--tool=callgrind", "--trace-children=yes"),
                *("--separate-threads=yes", f"--callgrind-out-file={folder}/cg.%p"),
                *(sys.executable, "-m", "granian", "--interface", "rsgi", "--workers", "1"),
                *("--port", str(port), "--no-ws", "--log-level", "warning", "--loop", loop),
                f"benchmarks.tfb.{APPS[name]}:app" if name in APPS else name,
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": "0"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            opened = [connect(server, port, path) for _ in range(connections)]
            for _ in range(WARMUP):
                get(opened[0], path)
            # Granian's supervisor has one child: the worker, itself under callgrind.
            worker = int(subprocess.check_output(["pgrep", "-P", str(server.pid)]).split()[0])
            subprocess.run(
                ["callgrind_control", "-z", str(worker)], check=True, capture_output=True
            )
            each = requests // connections
            with ThreadPoolExecutor(connections) as pool:
                sent = pool.map(lambda c: [get(c, path) for _ in range(each)], opened)
                requests = sum(len(done) for done in sent)
            subprocess.run(
                ["callgrind_control", "-d", str(worker)], check=True, capture_output=True
            )
            for connection in opened:
                connection.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
        return [total // requests for total in thread_totals(Path(folder), worker)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "apps", nargs="*", metavar="APP", help=f"of {list(APPS)} (all), or module:attribute"
    )
    parser.add_argument("--path", default="/json")
    parser.add_argument("--header", action="append", default=[], metavar="NAME:VALUE")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--loop", default="asyncio", help="Granian's --loop")
    args = parser.parse_args(argv)
    HEADERS.update(header.split(":", 1) for header in args.header)
    unknown = {app for app in args.apps if app not in APPS and ":" not in app}
    if unknown:
        parser.error(f"no app named {', '.join(sorted(unknown))}: one of {list(APPS)}")
    print(
        f"Granian RSGI, 1 worker, --loop {args.loop}, GET {args.path} on {args.connections}"
        " connection(s), instructions per request"
    )
    print("| app | Python thread | Granian's other threads | worker |\n| --- | --: | --: | --: |")
    for name in args.apps or APPS:
        python, *others = count(name, args.path, args.requests, args.loop, args.connections)
        print(f"| {name} | {python:,} | {sum(others):,} | {python + sum(others):,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
