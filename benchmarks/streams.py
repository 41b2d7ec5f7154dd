"""The streams benchmarks, side by side in one run, as ratios:

- ``files``: a 10 MB file (``FileResponse``) and a 4 KB static asset (``StaticFiles``), hasten
  against Starlette, and against Granian serving the same files itself
  (``--static-path-mount``), with ``hasten bench --compare`` (wrk);
- ``websocket``: WebSocket echo, 64 clients, 1 KB text messages: messages/s;
- ``sse``: 100 concurrent Server-Sent Event streams: events/s, against Starlette with
  sse-starlette;
- ``asgi-middleware``: ``GET /hello`` under Granian RSGI with and without one ASGI
  middleware (under RSGI, the app then goes through its ASGI stack over the bridge).

    benchmarks/.venv-peers/bin/python benchmarks/streams.py                # all, ~12 min
    benchmarks/.venv-peers/bin/python benchmarks/streams.py --only websocket --duration 2

Run it from the peers venv (``python benchmarks/suite.py`` builds it): every server then uses
the same uvicorn, Granian and websockets. Results go to ``benchmarks/results/streams-*.json``
and a Markdown table to stdout, for RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from benchmarks.apps.streams_data import ASSET_NAME, BIG_NAME, ensure  # noqa: E402
from hasten.bench.targets import HOST, AppTarget, free_port, launched, stop  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
HASTEN = "benchmarks.apps.streams_hasten"
STARLETTE = "benchmarks.apps.streams_starlette"
MESSAGE = b"x" * 1024
SCENARIOS = ("files", "websocket", "sse", "asgi-middleware")


@dataclass(frozen=True)
class Settings:
    duration: float = 5.0
    warmup: float = 1.0
    rounds: int = 3


def target(label: str, module: str, where: str, app: str = "app") -> AppTarget:
    server, _, interface = where.partition("/")
    return AppTarget(label, f"{module}:{app}", server, interface or "asgi", 1)  # type: ignore[arg-type]


RAW = "benchmarks.apps.streams_raw"
WS_FLOORS = [
    AppTarget("raw@granian/rsgi", f"{RAW}:rsgi", "granian", "rsgi", 1),
    AppTarget("raw@granian/asgi", f"{RAW}:asgi", "granian", "asgi", 1),
    AppTarget("raw@uvicorn", f"{RAW}:asgi", "uvicorn", "asgi", 1),
]
WS_SSE_TARGETS = [
    target("hasten@granian/rsgi", HASTEN, "granian/rsgi"),
    target("hasten@granian/asgi", HASTEN, "granian/asgi"),
    target("hasten@uvicorn", HASTEN, "uvicorn"),
    target("starlette@granian/asgi", STARLETTE, "granian/asgi"),
    target("starlette@uvicorn", STARLETTE, "uvicorn"),
]


# ------------------------------------------------------------------ WebSocket echo


def _frame(payload: bytes) -> bytes:
    """A masked text frame, as a client sends it (the mask is fixed: nothing here needs it
    unpredictable)."""
    mask = b"\x01\x02\x03\x04"
    masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    return b"\x81\xfe" + len(payload).to_bytes(2, "big") + mask + masked


async def _ws_client(port: int, until: float, counts: list[int], index: int) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /echo HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(f"handshake refused: {head[:80]!r}")
    frame = _frame(MESSAGE)
    reply = 4 + len(MESSAGE)
    loop = asyncio.get_running_loop()
    try:
        while loop.time() < until:
            writer.write(frame)
            data = await reader.readexactly(reply)
            if data[0] != 0x81:
                raise RuntimeError(f"unexpected frame {data[:4]!r}")
            counts[index] += 1
        writer.write(b"\x88\x82\x00\x00\x00\x00\x03\xe8")  # close 1000, mask 0
        await writer.drain()
    finally:
        writer.close()


async def _ws_load(port: int, clients: int, seconds: float) -> int:
    counts = [0] * clients
    until = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(*(_ws_client(port, until, counts, i) for i in range(clients)))
    return sum(counts)


def websocket_echo(port: int, pid: int, settings: Settings) -> Measured:
    """Messages per second over 64 clients, and what each side spent."""
    asyncio.run(_ws_load(port, 64, settings.warmup))
    return measured(pid, settings, lambda: asyncio.run(_ws_load(port, 64, settings.duration)))


@dataclass(frozen=True)
class Measured:
    rate: float  # per second
    client_cpu: float  # the load generator's share of one CPU
    server_cpu: float  # the server's CPU seconds (whole process tree) per 10k units


def _tree_cpu(pid: int) -> float:
    root = psutil.Process(pid)
    total = 0.0
    for process in (root, *root.children(recursive=True)):
        times = process.cpu_times()
        total += times.user + times.system
    return total


def measured(pid: int, settings: Settings, run: Callable[[], int]) -> Measured:
    client, server = time.process_time(), _tree_cpu(pid)
    total = run()
    client, server = time.process_time() - client, _tree_cpu(pid) - server
    return Measured(total / settings.duration, client / settings.duration, server / total * 1e4)


# ------------------------------------------------------------------ Server-Sent Events


async def _sse_client(port: int, until: float, counts: list[int], index: int) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(f"GET /events HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
        tail = b""
        try:
            while loop.time() < until:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                data = tail + chunk
                counts[index] += data.count(b"id:") - tail.count(b"id:")
                tail = data[-2:]
        finally:
            writer.close()


async def _sse_load(port: int, streams: int, seconds: float) -> int:
    counts = [0] * streams
    until = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(*(_sse_client(port, until, counts, i) for i in range(streams)))
    return sum(counts)


def sse_events(port: int, pid: int, settings: Settings) -> Measured:
    """Events per second over 100 concurrent streams, and what each side spent."""
    asyncio.run(_sse_load(port, 100, settings.warmup))
    return measured(pid, settings, lambda: asyncio.run(_sse_load(port, 100, settings.duration)))


# ------------------------------------------------------------------ running


def alternating(
    name: str,
    targets: Sequence[AppTarget],
    measure: Callable[[int, int, Settings], Measured],
    settings: Settings,
    unit: str,
) -> dict[str, dict[str, float]]:
    """Each target once per round, in turn; the medians."""
    runs: dict[str, list[Measured]] = {t.label: [] for t in targets}
    for round_number in range(1, settings.rounds + 1):
        for item in targets:
            with launched(item, 30) as server:
                result = measure(server.port, server.pid, settings)
            runs[item.label].append(result)
            print(
                f"  round {round_number} {item.label}: {result.rate:,.0f} {unit}, "
                f"server {result.server_cpu:.3f} CPU s/10k, client {result.client_cpu:.0%}",
                flush=True,
            )
    medians = {
        label: {
            "median": statistics.median(run.rate for run in values),
            "server_cpu": statistics.median(run.server_cpu for run in values),
            "client_cpu": statistics.median(run.client_cpu for run in values),
        }
        for label, values in runs.items()
    }
    data = {
        "unit": unit,
        "settings": settings.__dict__,
        "runs": {label: [run.__dict__ for run in values] for label, values in runs.items()},
        "medians": medians,
    }
    (RESULTS / f"streams-{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    return medians


@contextmanager
def granian_static(folder: Path) -> Iterator[int]:
    """Granian serving ``folder`` at /static itself (the app behind it answers the rest)."""
    port = free_port()
    command = [
        sys.executable, "-m", "granian", "--interface", "rsgi", "--host", HOST,
        "--port", str(port), "--static-path-route", "/static",
        "--static-path-mount", str(folder), f"{HASTEN}:app",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with __import__("socket").create_connection((HOST, port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        stop(process)


def bench_compare(
    name: str, targets: list[str], path: str, settings: Settings, connections: int
) -> None:
    out = RESULTS / f"streams-{name}.json"
    argv = [
        sys.executable, "-m", "hasten", "bench", "--compare", *targets, "--path", path,
        "--duration", f"{settings.duration:g}", "--warmup", f"{settings.warmup:g}",
        "--rounds", str(settings.rounds), "--connections", str(connections),
        "--loadgen", "wrk", "--json", str(out),
    ]  # fmt: skip
    print("+", " ".join(argv), flush=True)
    subprocess.run(argv, check=True, cwd=ROOT)


def files(settings: Settings) -> None:
    folder = ensure()
    with granian_static(folder) as port:
        for name, path, connections in (
            ("file-10mb", f"/static/{BIG_NAME}", 16),
            ("static-4kb", f"/static/{ASSET_NAME}", 64),
        ):
            targets = [
                "hasten=benchmarks.apps.streams_hasten:app@granian/rsgi",
                "hasten-asgi=benchmarks.apps.streams_hasten:app@granian/asgi",
                "hasten-uvicorn=benchmarks.apps.streams_hasten:app@uvicorn",
                "starlette=benchmarks.apps.streams_starlette:app@granian/asgi",
                "starlette-uvicorn=benchmarks.apps.streams_starlette:app@uvicorn",
                f"granian-static=http://{HOST}:{port}{path}",
            ]
            bench_compare(name, targets, path, settings, connections)


def asgi_middleware(settings: Settings) -> None:
    targets = [
        "plain=benchmarks.apps.streams_hasten:app@granian/rsgi",
        "asgi-mw=benchmarks.apps.streams_hasten:app_asgi_mw@granian/rsgi",
        "plain-asgi=benchmarks.apps.streams_hasten:app@granian/asgi",
    ]
    bench_compare("asgi-middleware", targets, "/hello", settings, 64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--duration", type=float, default=Settings.duration)
    parser.add_argument("--warmup", type=float, default=Settings.warmup)
    parser.add_argument("--rounds", type=int, default=Settings.rounds)
    args = parser.parse_args()
    settings = Settings(args.duration, args.warmup, args.rounds)
    RESULTS.mkdir(parents=True, exist_ok=True)
    ensure()
    if "files" in args.only:
        files(settings)
    if "websocket" in args.only:
        print("== websocket echo, 64 clients, 1 KB messages ==", flush=True)
        targets = [*WS_SSE_TARGETS, *WS_FLOORS]
        report(alternating("websocket", targets, websocket_echo, settings, "msg/s"), "msg/s")
    if "sse" in args.only:
        print("== server-sent events, 100 streams ==", flush=True)
        report(alternating("sse", WS_SSE_TARGETS, sse_events, settings, "events/s"), "events/s")
    if "asgi-middleware" in args.only:
        asgi_middleware(settings)
    return 0


def report(medians: dict[str, dict[str, float]], unit: str) -> None:
    """A Markdown table: rates and the server's CPU per 10k, both against Starlette on the
    same server (the CPU ratio is what counts when the client is the bottleneck)."""
    wheres = ("granian/asgi", "uvicorn")
    base = {where: medians[f"starlette@{where}"] for where in wheres}
    print(
        f"| target | {unit} | vs Starlette | server CPU s/10k | vs Starlette (less is better) "
        "| client CPU |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for label, values in medians.items():
        where = label.split("@", 1)[1]
        peer = base.get(where)
        rate = f"{values['median'] / peer['median']:.2f}" if peer else "-"
        cpu = f"{values['server_cpu'] / peer['server_cpu']:.2f}" if peer else "-"
        print(
            f"| {label} | {values['median']:,.0f} | {rate} | {values['server_cpu']:.3f} | {cpu} "
            f"| {values['client_cpu']:.0%} |"
        )


if __name__ == "__main__":
    sys.exit(main())
