"""The app the load and fault tests drive: blocking routes with a small capacity (one of
50 ms, for ``benchmarks/overload.py``; one held until the test lets it go), and routes that
run in the process pool (one of them sending back what cannot come back).

``$HOSTILE_GATE`` is a folder the test shares with the server: each ``/held`` request marks
its arrival in ``entered/`` and blocks its thread until the file ``open`` appears there.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from pathlib import Path

from hasten import App
from tests import offload_handlers as handlers

CAPACITY = 20  # requests in flight, and threads for the blocking routes
SLOW_SECONDS = 0.05
WORK_SECONDS = 0.1
GATE_ENV = "HOSTILE_GATE"
HELD_AT_MOST = 30.0  # seconds a held request waits for the gate, should a test never open it

GATE = Path(os.environ.get(GATE_ENV) or tempfile.mkdtemp(prefix="hasten-hostile-gate-"))
(GATE / "entered").mkdir(exist_ok=True)

app = App(max_in_flight=CAPACITY, max_threads=CAPACITY, max_processes=2, process_threads=4)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/slow")
def slow() -> dict[str, float]:
    time.sleep(SLOW_SECONDS)
    return {"slept": SLOW_SECONDS}


@app.get("/held")
def held() -> dict[str, bool]:
    """Holds its thread (and its in-flight slot) until the gate opens."""
    (GATE / "entered" / uuid.uuid4().hex).touch()
    deadline = time.monotonic() + HELD_AT_MOST
    while not (GATE / "open").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {"released": (GATE / "open").exists()}


def work() -> int:
    """Runs in the process pool: says which worker process served it."""
    time.sleep(WORK_SECONDS)
    return os.getpid()


app.add_api_route("/work", work, offload="process")
# What cannot come back from a worker process (tests/offload_handlers.py).
app.add_api_route("/thrown-back/exception", handlers.refuse, offload="process")
app.add_api_route("/thrown-back/result", handlers.refusal, offload="process")
app.add_api_route("/thrown-back/lock", handlers.lock, offload="process")
