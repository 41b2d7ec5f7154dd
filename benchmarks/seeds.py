"""The seed experiments side by side: each route of examples/seeds.py against FastAPI's.

    benchmarks/.venv-peers/bin/python benchmarks/seeds.py [--duration 5 --rounds 3]

Runs one ``hasten bench --compare`` per route (hasten on Granian RSGI, FastAPI on uvicorn,
100 connections) and prints a Markdown table of the medians: the README's seeds section.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ROUTES = ["/wait", "/asyncwait", "/fib/20", "/asyncfib/20", "/fibo_sleep/20"]
TARGETS = ["hasten=examples.seeds:app", "fastapi=benchmarks.apps.fastapi_seeds:app@uvicorn"]


def bench(path: str, options: argparse.Namespace, out: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "hasten",
        "bench",
        "--path",
        path,
        "--connections",
        "100",
        "--duration",
        str(options.duration),
        "--warmup",
        "1",
        "--rounds",
        str(options.rounds),
        "--json",
        str(out),
        "--compare",
        *TARGETS,
    ]
    subprocess.run(command, cwd=ROOT, check=True)
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def rows(path: str, data: dict[str, Any]) -> list[str]:
    lines = []
    for target in data["targets"]:
        median = target["median"]
        lines.append(
            f"| `{path}` | {target['label']} | {median['rps']:,.0f} "
            f"| {median['p50_ms']:.1f} | {median['p95_ms']:.1f} | {median['p99_ms']:.1f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    table = [
        "| route | framework | req/s | p50 ms | p95 ms | p99 ms |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for number, path in enumerate(ROUTES):
            table += rows(path, bench(path, options, Path(folder) / f"{number}.json"))
    print("\n".join(table))


if __name__ == "__main__":
    main()
