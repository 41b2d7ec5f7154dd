"""What observability costs on the wire, in server CPU seconds per 10k requests (Granian RSGI):

- the blocking monitor, off and on, on the TFB ``db`` test: ``benchmarks.tfb.app:app`` (the
  monitor off, as the TFB runs have it) against ``benchmarks.tfb.app_monitored:app`` (the same
  routes, the monitor on, as every app has it by default); 2 workers, 256 connections;
- metrics, off and on, on hello: ``benchmarks.apps.hasten_app:app`` against
  ``benchmarks.apps.hasten_observed``'s ``app_metrics`` (and ``app_all``: metrics, the live
  stats and the JSON access log, its logger at WARNING); 1 worker, 64 connections.

    benchmarks/tfb/pg.sh start                            # PostgreSQL for /db
    python benchmarks/observability.py                    # 7 rounds of 5 s each
    python benchmarks/observability.py --duration 3 --rounds 3 --tfb-path /json

Each is one ``hasten bench --compare`` run, the targets in alternating rounds (so that load on
the machine falls on each alike); what is compared is the median of the rounds. The JSON goes
to ``benchmarks/results/observability-monitor.json`` and ``observability.json``. CPU per
request moves less with machine load than req/s does, but still moves: run it on a quiet
machine. For a figure that does not move at all, ``python benchmarks/overhead.py --count``
counts the instructions of ``hello`` and ``hello, metrics on`` in-process (the monitor runs no
code per request: its cost is a heartbeat and a watchdog's wakes, 20 a second each).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


@dataclass(frozen=True)
class Comparison:
    name: str
    targets: tuple[str, ...]  # the first is "off", what the others are compared with
    path: str
    workers: int
    connections: int


def comparisons(tfb_path: str) -> list[Comparison]:
    return [
        Comparison(
            "monitor",
            (
                "off=benchmarks.tfb.app:app@granian/rsgi",
                "monitor=benchmarks.tfb.app_monitored:app@granian/rsgi",
            ),
            tfb_path,
            workers=2,
            connections=256,
        ),
        Comparison(
            "metrics",
            (
                "off=benchmarks.apps.hasten_app:app@granian/rsgi",
                "metrics=benchmarks.apps.hasten_observed:app_metrics@granian/rsgi",
                "all=benchmarks.apps.hasten_observed:app_all@granian/rsgi",
            ),
            "/hello",
            workers=1,
            connections=64,
        ),
    ]


def run(comparison: Comparison, args: argparse.Namespace) -> list[str]:
    """One ``hasten bench --compare`` run; a line per target: its median CPU and req/s."""
    suffix = "" if comparison.name == "metrics" else f"-{comparison.name}"
    json_path = RESULTS / f"observability{suffix}.json"
    command = [
        sys.executable,
        *("-m", "hasten", "bench", "--compare", *comparison.targets),
        *("--path", comparison.path, "--workers", str(comparison.workers)),
        *("--connections", str(comparison.connections)),
        *("--duration", str(args.duration), "--rounds", str(args.rounds)),
        *("--json", str(json_path)),
    ]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=HERE.parent, env=_environment())
    medians = {
        target["label"]: target["median"] for target in json.loads(json_path.read_text())["targets"]
    }
    off = medians["off"]
    return [
        f"{comparison.name:<8} {label:<8} GET {comparison.path:<7} "
        f"{median['cpu_s_per_10k']:.3f} CPU s/10k ({_against(median, off, 'cpu_s_per_10k')})  "
        f"{median['rps']:,.0f} req/s ({_against(median, off, 'rps')})"
        for label, median in medians.items()
    ]


def _against(median: dict[str, float], off: dict[str, float], metric: str) -> str:
    return f"{median[metric] / off[metric] - 1:+.1%}"


def _environment() -> dict[str, str]:
    """The TFB apps find PostgreSQL at DATABASE_URL: pg.sh's, when it runs and none is set."""
    environment = dict(os.environ)
    if "DATABASE_URL" not in environment:
        found = subprocess.run(
            [str(HERE / "tfb" / "pg.sh"), "url"], capture_output=True, text=True, check=False
        )
        if found.returncode == 0 and found.stdout.strip():
            environment["DATABASE_URL"] = found.stdout.strip()
    return environment


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--tfb-path", default="/db", help="the TFB test the monitor is measured on (/db, /json)"
    )
    parser.add_argument(
        "--only", choices=("monitor", "metrics"), help="run one of the two comparisons"
    )
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    lines = []
    for comparison in comparisons(args.tfb_path):
        if args.only in (None, comparison.name):
            lines += run(comparison, args)
    print("\nmedians of alternating rounds, against off:")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
