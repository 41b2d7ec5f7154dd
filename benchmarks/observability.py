"""What observability costs: hello with it off and on, side by side, on Granian RSGI.

    python benchmarks/observability.py                        # 5 rounds of 5 s
    python benchmarks/observability.py --duration 3 --rounds 3
    python benchmarks/observability.py --count                # instructions, whole server

One ``hasten bench --compare`` run, the targets in alternating rounds (so that load on the
machine falls on each alike): ``benchmarks.apps.hasten_app:app`` (off), and
``benchmarks.apps.hasten_observed``'s ``app_metrics`` and ``app_all``. The JSON goes to
``benchmarks/results/observability.json``; the cost of each against off is printed. For a
figure that does not move with machine load, ``--count`` counts the instructions a whole
Granian RSGI server (every process, under callgrind) spends per ``GET /hello``, off and with
metrics: the difference between serving FEW and MANY requests, over MANY - FEW. (In-process,
without the server, ``python benchmarks/overhead.py --count`` has ``hello, metrics on``.)
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TARGETS = (
    "off=benchmarks.apps.hasten_app:app@granian/rsgi",
    "metrics=benchmarks.apps.hasten_observed:app_metrics@granian/rsgi",
    "all=benchmarks.apps.hasten_observed:app_all@granian/rsgi",
)


FEW, MANY = 200, 2200
COUNTED = {
    "off": "benchmarks.apps.hasten_app:app",
    "metrics": "benchmarks.apps.hasten_observed:app_metrics",
}


def server_instructions(target: str, requests: int) -> int:
    """Instructions of every process of a Granian RSGI server started, sent ``requests``
    GET /hello on one connection, and stopped (callgrind, children traced)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [
                *("valgrind", "--tool=callgrind", "--trace-children=yes"),
                f"--callgrind-out-file={folder}/callgrind.%p",
                *(sys.executable, "-m", "granian", "--interface", "rsgi"),
                *("--host", "127.0.0.1", "--port", str(port), target),
            ],
            cwd=HERE.parent,
            env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        connection = _connect(port)
        for _ in range(requests):
            connection.request("GET", "/hello")
            connection.getresponse().read()
        connection.close()
        server.send_signal(signal.SIGTERM)
        server.wait()
        totals = (
            re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), re.MULTILINE)
            for dump in Path(folder).glob("callgrind.*")
        )
        return sum(int(found.group(1)) for found in totals if found)


def _connect(port: int) -> http.client.HTTPConnection:
    deadline = time.monotonic() + 300  # a server under callgrind starts slowly
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        try:
            connection.request("GET", "/hello")
            connection.getresponse().read()
            return connection  # that request counts in both runs alike
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def count() -> None:
    for label, target in COUNTED.items():
        with ThreadPoolExecutor(2) as runs:  # the two runs at once, one per core
            few, many = runs.map(server_instructions, (target, target), (FEW, MANY))
        per_request = (many - few) / (MANY - FEW)
        print(f"{label}: {per_request:,.0f} instructions per request", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--count", action="store_true", help="count instructions (callgrind)")
    args = parser.parse_args()
    if args.count:
        count()
        return 0
    RESULTS.mkdir(exist_ok=True)
    json_path = RESULTS / "observability.json"
    command = [
        sys.executable,
        *("-m", "hasten", "bench", "--compare", *TARGETS, "--path", "/hello"),
        *("--duration", str(args.duration), "--rounds", str(args.rounds)),
        *("--connections", str(args.connections), "--json", str(json_path)),
    ]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=HERE.parent)
    rps = {
        target["label"]: target["median"]["rps"]
        for target in json.loads(json_path.read_text())["targets"]
    }
    for label, value in rps.items():
        print(f"{label}: {value:,.0f} req/s ({value / rps['off'] - 1:+.1%} against off)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
