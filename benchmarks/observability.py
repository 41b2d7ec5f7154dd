"""What observability costs: hello with it off and on, side by side, on Granian RSGI.

    python benchmarks/observability.py                        # 5 rounds of 5 s
    python benchmarks/observability.py --duration 3 --rounds 3

One ``hasten bench --compare`` run, the targets in alternating rounds (so that load on the
machine falls on each alike): ``benchmarks.apps.hasten_app:app`` (off), and
``benchmarks.apps.hasten_observed``'s ``app_metrics`` and ``app_all``. The JSON goes to
``benchmarks/results/observability.json``; the cost of each against off is printed. For a
figure that does not move with machine load, ``python benchmarks/overhead.py --count``
counts the instructions of ``hello`` and ``hello, metrics on`` in-process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TARGETS = (
    "off=benchmarks.apps.hasten_app:app@granian/rsgi",
    "metrics=benchmarks.apps.hasten_observed:app_metrics@granian/rsgi",
    "all=benchmarks.apps.hasten_observed:app_all@granian/rsgi",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
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
