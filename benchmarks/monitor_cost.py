"""What the blocking monitor costs a busy event loop, in instructions (callgrind): an upper bound.

    python benchmarks/monitor_cost.py

The same fixed work (64 coroutines at a time doing a little arithmetic between awaits, 300
times) runs on an asyncio loop with the monitor off, then on (threshold 0.1 s), each under
callgrind; every thread's instructions are summed (the watchdog's too), less those of a run
without the work (the interpreter's start). The monitor runs no
code per request: its cost is a heartbeat every 50 ms, the loop's check of its timer on each
iteration, and the watchdog's wakes. Under callgrind the work takes about 50 times as long as
natively, so the heartbeat and the watchdog run about 50 times as often per unit of work as
they would: the share printed is an upper bound of the real one.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THRESHOLD = 0.1
BATCHES = 300


async def request() -> None:
    """Stands for a handler: a little Python work between awaits."""
    total = 0
    for _ in range(3):
        for number in range(60):
            total += number * number
        await asyncio.sleep(0)


async def work(mode: str) -> None:
    """``mode``: "none" (no work: the start alone), "off" or "on" (the monitor)."""
    from hasten._running.monitor import LoopMonitor

    monitor = LoopMonitor(THRESHOLD, {}) if mode == "on" else None
    if monitor is not None:
        monitor.start()
    for _ in range(0 if mode == "none" else BATCHES):
        await asyncio.gather(*(request() for _ in range(64)))
    if monitor is not None:
        monitor.stop()


def instructions(mode: str) -> int:
    """Every thread's instructions for ``work(mode)``, under callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            *("valgrind", "--tool=callgrind", "--separate-threads=yes"),
            f"--callgrind-out-file={folder}/cg.%p",
            *(sys.executable, __file__, "--run", mode),
        ]
        environment = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, env=environment, capture_output=True, cwd=ROOT)
        total = 0
        for dump in Path(folder).glob("cg.*"):
            found = re.search(r"^totals: (\d+)", dump.read_text(), re.MULTILINE)
            if found is not None:
                total += int(found.group(1))
        return total


def main() -> int:
    if sys.argv[1:2] == ["--run"]:
        asyncio.run(work(sys.argv[2]))
        return 0
    start = instructions("none")
    off, on = instructions("off") - start, instructions("on") - start
    print(f"the work, monitor off: {off:,} instructions")
    print(f"the work, monitor on:  {on:,} instructions ({on / off - 1:+.2%}, an upper bound)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
