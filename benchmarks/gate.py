"""How often ``hasten bench``'s gate cries wolf: the same code judged against itself, back to
back, as the CI recipe of docs/bench.md judges a pull request against its base branch.

    python benchmarks/gate.py                     # 20 runs (~30 min), then the summary
    python benchmarks/gate.py --runs 3 --duration 2

Each run is one ``hasten bench --compare main=... pr=... --root main=COPY --against main`` of
examples.hello:app, ``main`` served from a copy of examples/ (as the recipe serves the base
branch from a worktree), at the default --max-regression (5%). A run that exits 3 is a false
alarm. The summary prints each run's verdicts and the count, as benchmarks/RESULTS.md keeps it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "examples.hello:app"
REGRESSION_EXIT = 3


def command(copy: Path, out: Path, duration: float, rounds: int) -> list[str]:
    return [
        *(sys.executable, "-m", "hasten", "bench"),
        *("--compare", f"main={TARGET}", f"pr={TARGET}", "--root", f"main={copy}"),
        *("--against", "main", "--path", "/hello", "--rounds", str(rounds)),
        *("--duration", f"{duration:g}", "--warmup", "1", "--json", str(out)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=6)
    options = parser.parse_args()
    alarms = 0
    with tempfile.TemporaryDirectory(prefix="hasten-gate-") as folder:
        copy = Path(folder) / "main"
        shutil.copytree(ROOT / "examples", copy / "examples")
        shown = command(copy, Path(folder, "runN.json"), options.duration, options.rounds)
        print(f"$ {' '.join(shown)}")
        for number in range(1, options.runs + 1):
            out = Path(folder) / f"run{number}.json"
            began = time.monotonic()
            done = subprocess.run(
                command(copy, out, options.duration, options.rounds),
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode not in (0, REGRESSION_EXIT):
                print(done.stdout, done.stderr, file=sys.stderr)
                return done.returncode
            alarms += done.returncode == REGRESSION_EXIT
            checks = json.loads(out.read_text())["checks"]
            said = "; ".join(
                f"{check['metric']} {(check['change'] - 1) * 100:+.1f}% "
                f"[{(check['low'] - 1) * 100:+.1f}%, {(check['high'] - 1) * 100:+.1f}%] "
                f"{check['verdict']}"
                for check in checks
            )
            seconds = time.monotonic() - began
            print(f"run {number:2}: exit {done.returncode}, {seconds:.0f} s: {said}", flush=True)
    print(f"false alarms: {alarms} of {options.runs} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
