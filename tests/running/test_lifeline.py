"""``die_with_parent`` (hasten._running.lifeline) in child processes: a tied child dies with its
parent, at once if the parent is already gone, and lives while the parent does. (That no
process outlives ``hasten run``, on Granian and uvicorn: tests/servers/test_lifeline.py.)"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]

# die_with_parent itself, in a child of a child.
TIED_CHILD = """
import os, sys, time
from hasten._running.lifeline import die_with_parent
die_with_parent(int(sys.argv[1]))
print("tied", flush=True)
time.sleep(30)
"""

PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(__import__("os").getpid())])
print(child.pid, flush=True)
time.sleep(30)
"""


def test_a_tied_child_dies_with_its_parent() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", PARENT, TIED_CHILD], stdout=subprocess.PIPE, cwd=ROOT
    ) as parent:
        assert parent.stdout is not None
        child = psutil.Process(int(parent.stdout.readline()))
        assert parent.stdout.readline() == b"tied\n"
        parent.kill()
    child.wait(5)  # psutil.TimeoutExpired if it lives on (not our child: no exit status)
    assert not child.is_running()


def test_a_child_whose_parent_is_already_gone_dies_at_once() -> None:
    code = (
        "from hasten._running.lifeline import die_with_parent; die_with_parent(1); print('alive')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, check=False)
    assert (done.returncode, done.stdout) == (-signal.SIGTERM, b"")


def test_die_with_parent_keeps_a_child_whose_parent_lives() -> None:
    code = "import os; from hasten._running.lifeline import die_with_parent;"
    code += " die_with_parent(os.getppid()); print('alive')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, check=False)
    assert (done.returncode, done.stdout) == (0, b"alive\n")
