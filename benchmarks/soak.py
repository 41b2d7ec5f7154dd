"""Soak: RSS over 300,000 requests of mixed valid, invalid, 404 and 422 traffic.

Serves ``tests.servers.hostile.app:app`` with ``hasten run`` (Granian RSGI unless told otherwise),
sends the mix from 32 keep-alive connections, and samples the server's RSS (its whole process
tree) every 10,000 requests. Prints a markdown table and the growth from the first sample
after warm-up to the last::

    .venv/bin/python benchmarks/soak.py [--requests 300000] [--server uvicorn | --interface asgi]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
CONNECTIONS = 32
SAMPLE_EVERY = 10_000
WARM_UP = 20_000  # requests before the baseline sample: caches and pools fill up first


def _request(method: str, target: str, body: bytes = b"") -> bytes:
    head = f"{method} {target} HTTP/1.1\r\nHost: {HOST}\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


# (request, expected status): valid, invalid, not found, unprocessable; in turn.
MIX = [
    (_request("GET", "/hello"), 200),
    (_request("GET", "/items/42"), 200),
    (_request("POST", "/orders", b'{"id": 1, "name": "pen"}'), 201),
    (_request("GET", "/search?q=abc&limit=5"), 200),
    (_request("POST", "/orders", b'{"id": 1, "name": '), 400),
    (_request("GET", "/no/such/route"), 404),
    (_request("GET", "/items/abc"), 422),
    (_request("POST", "/orders", b'{"id": "one", "name": 2}'), 422),
    (_request("GET", "/search?limit=many"), 422),
]


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> int:
    writer.write(data)
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    await reader.readexactly(length)
    return int(head.split(b" ", 2)[1])


class Soak:
    def __init__(self, port: int, server: psutil.Process, total: int) -> None:
        self.port = port
        self.server = server
        self.total = total
        self.sent = 0
        self.wrong = 0
        self.samples: list[tuple[int, float]] = []

    def rss_mb(self) -> float:
        processes = [self.server, *self.server.children(recursive=True)]
        return sum(process.memory_info().rss for process in processes) / 2**20

    async def client(self, index: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        turn = index
        while self.sent < self.total:
            self.sent += 1
            if self.sent % SAMPLE_EVERY == 0:
                self.samples.append((self.sent, self.rss_mb()))
            data, expected = MIX[turn % len(MIX)]
            turn += 1
            if await _exchange(reader, writer, data) != expected:
                self.wrong += 1
        writer.close()

    async def run(self) -> None:
        await asyncio.gather(*(self.client(index) for index in range(CONNECTIONS)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300_000)
    parser.add_argument("--server", default="granian", choices=["granian", "uvicorn"])
    parser.add_argument("--interface", default=None, choices=["rsgi", "asgi"])
    args = parser.parse_args()
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "hasten",
        "run",
        "tests.servers.hostile.app:app",
        "--port",
        str(port),
    ]
    argv += ["--server", args.server] + (["--interface", args.interface] if args.interface else [])
    process = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), 1):
                break
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        soak = Soak(port, psutil.Process(process.pid), args.requests)
        start = time.monotonic()
        asyncio.run(soak.run())
        seconds = time.monotonic() - start
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(15)
    how = args.server + (f" {args.interface}" if args.interface else "")
    rate = args.requests / seconds
    print(
        f"{args.requests:,} requests on {how} in {seconds:.0f} s ({rate:,.0f} req/s), "
        f"{soak.wrong} with an unexpected status; mix: "
        + ", ".join(
            f"{data.split(b' ')[0].decode()} {data.split(b' ')[1].decode()} -> {status}"
            for data, status in MIX
        )
    )
    print()
    print("| requests | RSS MB |")
    print("| --: | --: |")
    for sent, rss in soak.samples:
        print(f"| {sent:,} | {rss:.1f} |")
    baseline = next(rss for sent, rss in soak.samples if sent >= WARM_UP)
    print()
    last = soak.samples[-1][1]
    print(
        f"RSS after {WARM_UP:,} requests: {baseline:.1f} MB; at the end: {last:.1f} MB "
        f"({last - baseline:+.1f} MB)"
    )


if __name__ == "__main__":
    main()
