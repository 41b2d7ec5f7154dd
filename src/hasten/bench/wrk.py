"""wrk as the load generator, driven by a Lua script that cycles through a prebuilt table.

Each wrk thread reads the whole request table once, in ``init``; ``request()`` then only
returns the next entry, so Lua costs almost nothing per request. No ``response()`` hook is
defined (it makes wrk parse every response for Lua, measurably slower): statuses come from
wrk's summary, which counts responses with a status of 400 or more.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

from .measurement import LoadResult
from .scenario import RequestTable
from .stats import PERCENTILES

__all__ = ["LoadError", "WrkGenerator", "find_wrk", "lua_script", "parse_summary", "wrk_version"]

REQUEST_TIMEOUT = 5.0
_MARKER = "HASTEN_BENCH "
# wrk stops on its own after the duration; this is only a guard against a hung wrk.
_GRACE = 30.0

_SCRIPT = """\
-- hasten bench: cycle through raw requests read once per thread from the file in args[1].
local entries, count, index = {}, 0, 0
local threads = 0

function setup(thread)
  thread:set("hasten_offset", threads)
  threads = threads + 1
end

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local data = file:read("*a")
  file:close()
  local position = 1
  while position <= #data do
    local newline = data:find("\\n", position, true)
    local size = tonumber(data:sub(position, newline - 1))
    count = count + 1
    entries[count] = data:sub(newline + 1, newline + size)
    position = newline + size + 1
  end
  -- threads start at different places of the table
  index = ((hasten_offset or 0) * 997) % count
end

function request()
  index = index + 1
  if index > count then index = 1 end
  return entries[index]
end

function done(summary, latency, requests)
  local errors = summary.errors
  local points = {}
  for _, p in ipairs({PERCENTILES}) do
    points[#points + 1] = string.format('"%s": %d', p, latency:percentile(p))
  end
  io.write(string.format(
    '\\nMARKER{"requests": %d, "duration_us": %d, "connect": %d, "read": %d, "write": %d, '
      .. '"timeout": %d, "status": %d, "max_us": %d, "mean_us": %f, "percentiles": {%s}}\\n',
    summary.requests, summary.duration, errors.connect, errors.read, errors.write,
    errors.timeout, errors.status, latency.max, latency.mean, table.concat(points, ", ")))
end
"""


class LoadError(RuntimeError):
    """The load generator failed: the message says how."""


def find_wrk() -> str | None:
    """The path of wrk, or None when it is not installed."""
    return shutil.which("wrk")


class WrkGenerator:
    """Drives load with wrk; its CPU time is read from this process's reaped children."""

    name = "wrk"

    def __init__(self, executable: str, threads: int = 1) -> None:
        self.executable = executable
        self.threads = threads
        self.version = wrk_version(executable)

    def describe(self) -> str:
        """One line for the report."""
        plural = "s" if self.threads > 1 else ""
        return f"wrk {self.version} ({self.threads} thread{plural})"

    def run(
        self, table: RequestTable, host: str, port: int, seconds: float, connections: int
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds`` (wrk counts
        whole seconds: rounded, at least 1)."""
        whole = max(1, round(seconds))
        threads = min(self.threads, connections)
        with tempfile.TemporaryDirectory(prefix="hasten-bench-") as folder:
            script, data = Path(folder, "table.lua"), Path(folder, "table.bin")
            script.write_text(lua_script())
            data.write_bytes(b"".join(b"%d\n%s" % (len(raw), raw) for raw in table.entries))
            command = [
                self.executable,
                *("-t", str(threads), "-c", str(connections), "-d", f"{whole}s"),
                *("--timeout", f"{REQUEST_TIMEOUT:g}s", "-s", str(script)),
                f"http://{host}:{port}/",
                *("--", str(data)),
            ]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            output = _run(command, whole + _GRACE)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return parse_summary(output, cpu, min(threads, os.cpu_count() or 1))


def lua_script() -> str:
    """The Lua script given to wrk with ``-s``."""
    points = ", ".join(f"{p:g}" for p in PERCENTILES)
    return _SCRIPT.replace("{PERCENTILES}", "{" + points + "}").replace("MARKER", _MARKER)


def parse_summary(output: str, cpu_seconds: float, cores: float) -> LoadResult:
    """The result from wrk's standard output, where the script's ``done`` wrote one line."""
    line = next((line for line in output.splitlines() if line.startswith(_MARKER)), None)
    if line is None:
        raise LoadError(f"wrk printed no summary:\n{output}")
    summary = json.loads(line[len(_MARKER) :])
    errors = sum(summary[kind] for kind in ("connect", "read", "write", "timeout"))
    return LoadResult(
        requests=summary["requests"],
        seconds=summary["duration_us"] / 1e6,
        errors=errors,
        non_2xx=summary["status"],
        latency_ms={float(p): us / 1000 for p, us in summary["percentiles"].items()},
        max_ms=summary["max_us"] / 1000,
        mean_ms=summary["mean_us"] / 1000,
        client_cpu_seconds=cpu_seconds,
        client_cores=cores,
    )


def _run(command: list[str], timeout: float) -> str:
    # subprocess.run kills wrk on any exception, Ctrl-C included.
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise LoadError(f"wrk did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        raise LoadError(f"wrk failed ({done.returncode}): {done.stderr.strip() or done.stdout}")
    return done.stdout


def wrk_version(executable: str) -> str:
    """The version wrk reports, e.g. ``4.1.0``."""
    done = subprocess.run([executable, "-v"], capture_output=True, text=True, check=False)
    words = (done.stdout or done.stderr).split()
    # "wrk debian/4.1.0-3+b2 [epoll] ...": the version, without a distribution's prefix
    return words[1].rpartition("/")[2] if len(words) > 1 else "unknown"
