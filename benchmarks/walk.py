"""The request walk: which of hasten's functions one request runs, traced on real Granian (RSGI).

    .venv/bin/python benchmarks/walk.py [--calls]

Serves ``async def item(item_id: int, q: str | None = None)`` at ``/items/{item_id}`` on
Granian's RSGI interface (one worker, 127.0.0.1), warms it up, then traces one request
``GET /items/5?q=a`` in the worker with ``sys.setprofile``, from Granian's call of
``__rsgi__`` to its return. It prints what a reader follows: the functions of hasten entered
(a coroutine resumed counts once), the files they are in, the jumps between hasten's packages
from one call to the next, and the largest function on the path (its lines). ``--calls``
lists the calls in order.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = str(ROOT / "src" / "hasten")
OUTPUT = "HASTEN_WALK_OUTPUT"
GENERATED = "(generated)"


def _app() -> Any:
    from hasten.app import App

    app = App()

    @app.get("/items/{item_id}")
    async def item(item_id: int, q: str | None = None) -> dict[str, Any]:
        return {"item_id": item_id, "q": q}

    return app


class Traced:
    """The app, as Granian sees it: a request with ``x-walk`` is traced to $HASTEN_WALK_OUTPUT."""

    def __init__(self) -> None:
        self.app = _app()

    def __rsgi_init__(self, loop: Any) -> None:
        self.app.__rsgi_init__(loop)

    def __rsgi_del__(self, loop: Any) -> None:
        self.app.__rsgi_del__(loop)

    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        traced = scope.proto == "http" and "x-walk" in scope.headers
        if not traced:
            await self.app.__rsgi__(scope, protocol)
            return
        calls: list[dict[str, Any]] = []
        seen: set[int] = set()
        frames: list[FrameType] = []  # held, so that no id is reused while tracing

        def profile(frame: FrameType, event: str, _arg: object) -> None:
            if event != "call" or id(frame) in seen:
                return
            code = frame.f_code
            generated = code.co_filename.startswith("<hasten ")  # a route's solver (solver.py)
            if not generated and not code.co_filename.startswith(SOURCE):
                return
            seen.add(id(frame))
            frames.append(frame)
            lines = [line for _, _, line in code.co_lines() if line is not None]
            calls.append(
                {
                    "file": GENERATED if generated else os.path.relpath(code.co_filename, SOURCE),
                    "function": code.co_qualname,
                    "lines": max(lines, default=code.co_firstlineno) - code.co_firstlineno + 1,
                }
            )

        sys.setprofile(profile)
        try:
            await self.app.__rsgi__(scope, protocol)
        finally:
            sys.setprofile(None)
        Path(os.environ[OUTPUT]).write_text(json.dumps(calls))


traced = Traced()


def _package(file: str) -> str:
    if file == GENERATED:
        return "_values"  # made by hasten._values.solver
    parts = file.split(os.sep)
    return parts[0] if len(parts) > 1 else "hasten"


def report(calls: list[dict[str, Any]], *, listed: bool) -> dict[str, Any]:
    files = sorted({call["file"] for call in calls})
    packages = [_package(call["file"]) for call in calls]
    jumps = sum(1 for before, after in itertools.pairwise(packages) if before != after)
    largest = max(calls, key=lambda call: call["lines"])
    summary = {
        "calls": len(calls),
        "files": len(files),
        "jumps between packages": jumps,
        "largest function": f"{largest['file']} {largest['function']} ({largest['lines']} lines)",
    }
    for name, value in summary.items():
        print(f"{name}: {value}")
    print("files:", ", ".join(files))
    if listed:
        for call in calls:
            print(f"  {call['file']:34} {call['function']} ({call['lines']})")
    return summary


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", action="store_true", help="list the calls in order")
    args = parser.parse_args()
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "walk.json"
        env = {**os.environ, OUTPUT: str(output), "PYTHONPATH": str(ROOT)}
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "granian"),
                "--interface",
                "rsgi",
                "--workers",
                "1",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
                "benchmarks.walk:traced",
            ],
            env=env,
            cwd=ROOT,
        )
        try:
            url = f"http://127.0.0.1:{port}/items/5?q=a"
            for _ in range(100):
                try:
                    urllib.request.urlopen(url, timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            for _ in range(50):  # warm: what the first requests set up is not the walk
                urllib.request.urlopen(url, timeout=1).read()
            traced_request = urllib.request.Request(url, headers={"x-walk": "1"})
            body = urllib.request.urlopen(traced_request, timeout=5).read()
            assert body == b'{"item_id":5,"q":"a"}', body
            for _ in range(50):
                if output.exists() and output.stat().st_size:
                    break
                time.sleep(0.1)
            report(json.loads(output.read_text()), listed=args.calls)
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
