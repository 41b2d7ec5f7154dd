"""Load generation: the requests a run sends, and the two generators that send them.

A scenario is a list of requests, each written ``[METHOD] PATH [weight=N] [body=TEXT |
body=@FILE] [header=NAME:VALUE]...`` (split like a shell line, so quote a value that holds
spaces). ``{A..B}`` in the path, query or body is replaced by a whole number drawn from A to B
for each entry of the table, e.g. ``GET /items/{1..1000}?page={1..50}``. A TOML scenario lists
the same fields::

    [[request]]
    method = "POST"                     # default GET
    path = "/orders"
    weight = 2                          # default 1
    headers = { content-type = "application/json" }
    body = '{"id": {1..100}, "name": "x"}'   # or body_file = "order.json", beside the TOML

The scenario expands into a RequestTable of raw requests, which a generator cycles through:
wrk when installed, driven by a Lua script; else the built-in client, keep-alive connections
on one asyncio loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import resource
import shlex
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hasten.bench.measurement import PERCENTILES, Histogram, LoadResult

__all__ = [
    "FAILURES",
    "REQUEST_TIMEOUT",
    "TABLE_SIZE",
    "BuiltinGenerator",
    "Connection",
    "LoadError",
    "LoadGenerator",
    "ProtocolError",
    "RequestSpec",
    "RequestTable",
    "ScenarioError",
    "WrkGenerator",
    "build_table",
    "describe",
    "find_wrk",
    "load_scenario",
    "lua_script",
    "parse_request",
    "parse_summary",
    "request_line",
    "wrk_version",
]

# A request still unanswered this long counts as a timeout (wrk: --timeout).
REQUEST_TIMEOUT = 5.0
# Entries in a table with ranges or several requests: enough to spread values and weights,
# small enough to build in milliseconds and to hold in wrk's Lua.
TABLE_SIZE = 4096
_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)\}")
_BODY_RANGE = re.compile(rb"\{(-?\d+)\.\.(-?\d+)\}")
_METHOD = re.compile(r"[A-Z]+")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TOML_KEYS = {"method", "path", "weight", "headers", "body", "body_file"}
# After a failed connect, wait this long before the next attempt: no busy loop on a dead port.
_RECONNECT_PAUSE = 0.05
_HEAD_END = b"\r\n\r\n"
_NO_BODY = (204, 304)


class LoadGenerator(Protocol):
    """Drives load at one address: wrk, or the built-in asyncio client."""

    @property
    def name(self) -> str:
        """Short, for the report: wrk or builtin."""
        ...

    def describe(self) -> str:
        """One line for the report: which generator, its version and threads."""
        ...

    def run(
        self,
        table: RequestTable,
        host: str,
        port: int,
        seconds: float,
        connections: int,
        *,
        requests: int | None = None,
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds``; or, given
        ``requests``, send exactly that many, however long they take."""
        ...


# Scenarios.
class ScenarioError(ValueError):
    """A request or scenario file that cannot be sent as written."""


@dataclass(frozen=True, slots=True)
class RequestSpec:
    """One kind of request of a scenario; ``path`` and ``body`` may hold ``{A..B}`` ranges."""

    path: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not _METHOD.fullmatch(self.method):
            raise ScenarioError(f"method {self.method!r} must be upper-case letters, e.g. GET")
        if not self.path.startswith("/") or any(char.isspace() for char in self.path):
            raise ScenarioError(f"path {self.path!r} must start with / and hold no spaces")
        if not self.weight > 0:
            raise ScenarioError(f"weight must be positive, got {self.weight}")
        for name, value in self.headers:
            if not _TOKEN.fullmatch(name) or "\r" in value or "\n" in value:
                raise ScenarioError(f"header {name}:{value} is not a valid HTTP header")
        bounds = [(m[1], m[2]) for m in _RANGE.finditer(self.path)]
        bounds += [(m[1].decode(), m[2].decode()) for m in _BODY_RANGE.finditer(self.body)]
        for low, high in bounds:
            if int(low) > int(high):
                raise ScenarioError(f"range {{{low}..{high}}} ends before it starts")

    def describe(self) -> str:
        """``METHOD PATH``, with the weight when it is not 1."""
        weight = "" if self.weight == 1 else f" weight={self.weight:g}"
        return f"{self.method} {self.path}{weight}"

    @property
    def varies(self) -> bool:
        """Whether the path or body holds a range."""
        return bool(_RANGE.search(self.path) or _BODY_RANGE.search(self.body))

    def render(self, host: str, rng: random.Random) -> bytes:
        """The raw HTTP/1.1 request, ranges drawn from ``rng``."""
        path = _RANGE.sub(lambda match: str(rng.randint(int(match[1]), int(match[2]))), self.path)
        body = _BODY_RANGE.sub(
            lambda match: str(rng.randint(int(match[1]), int(match[2]))).encode(), self.body
        )
        lines = [f"{self.method} {path} HTTP/1.1", f"Host: {host}"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        if body or self.method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass(frozen=True, slots=True)
class RequestTable:
    """Raw requests, in the order a load generator cycles through them."""

    entries: tuple[bytes, ...]
    samples: tuple[bytes, ...]  # the first entry of each request kind: to check its status

    def __len__(self) -> int:
        return len(self.entries)


def parse_request(text: str, base: Path | None = None) -> RequestSpec:
    """A request from its command-line form; ``body=@FILE`` is read relative to ``base``."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ScenarioError(f"request {text!r}: {exc}") from None
    if not words:
        raise ScenarioError("empty request: write e.g. 'GET /hello'")
    method = "GET" if words[0].startswith("/") else words.pop(0).upper()
    if not words or ("=" in words[0] and not words[0].startswith("/")):
        raise ScenarioError(f"request {text!r} has no path: write e.g. 'GET /hello'")
    path = words.pop(0)
    headers: list[tuple[str, str]] = []
    options: dict[str, Any] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or key not in ("weight", "body", "header"):
            raise ScenarioError(
                f"request {text!r}: {word!r} is not weight=N, body=TEXT, body=@FILE "
                "or header=NAME:VALUE"
            )
        if key == "header":
            headers.append(_header_spec(value))
        else:
            options[key] = value
    body = _body(options.get("body", ""), base or Path.cwd())
    weight = _weight(options.get("weight", "1"))
    return RequestSpec(path, method, tuple(headers), body, weight)


def load_scenario(path: Path) -> list[RequestSpec]:
    """The ``[[request]]`` tables of a TOML scenario file."""
    try:
        document = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc}") from None
    items = document.get("request")
    if not isinstance(items, list) or not items or set(document) != {"request"}:
        raise ScenarioError(f"{path} must hold [[request]] tables and nothing else")
    return [_from_toml(item, path) for item in items]


def build_table(
    specs: Sequence[RequestSpec], host: str, size: int = TABLE_SIZE, seed: int = 0
) -> RequestTable:
    """Expand ``specs`` into a shuffled table: each kind in proportion to its weight, each
    entry with its own values drawn from the ranges. ``host`` is the Host header."""
    if not specs:
        raise ScenarioError("a scenario needs at least one request")
    rng = random.Random(seed)
    if len(specs) == 1 and not specs[0].varies:
        size = 1
    counts = _apportion([spec.weight for spec in specs], size)
    kinds = [index for index, count in enumerate(counts) for _ in range(count)]
    rng.shuffle(kinds)
    entries = tuple(specs[kind].render(host, rng) for kind in kinds)
    samples = tuple(entries[kinds.index(kind)] for kind in range(len(specs)))
    return RequestTable(entries, samples)


def request_line(raw: bytes) -> str:
    """The first line of a raw request, e.g. ``GET /items/7 HTTP/1.1``."""
    return raw.split(b"\r\n", 1)[0].decode("latin-1")


def _apportion(weights: Sequence[float], size: int) -> list[int]:
    """Split ``size`` in proportion to ``weights`` (largest remainder), at least 1 each."""
    size = max(size, len(weights))
    total = sum(weights)
    exact = [weight / total * size for weight in weights]
    counts = [max(1, int(share)) for share in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: exact[i] - counts[i], reverse=True)
    for index in by_remainder[: max(0, size - sum(counts))]:
        counts[index] += 1
    return counts


def _header_spec(value: str) -> tuple[str, str]:
    name, colon, content = value.partition(":")
    if not colon or not name:
        raise ScenarioError(f"header {value!r} must look like NAME:VALUE")
    return name.strip(), content.strip()


def _body(value: str, base: Path) -> bytes:
    if not value.startswith("@"):
        return value.encode()
    file = base / value[1:]
    try:
        return file.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"cannot read body file {file}: {exc.strerror or exc}") from None


def _weight(value: object) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            return float(value)
        except ValueError:
            pass
    raise ScenarioError(f"weight {value!r} is not a number")


def _from_toml(item: object, path: Path) -> RequestSpec:
    if not isinstance(item, dict) or "path" not in item or set(item) - _TOML_KEYS:
        raise ScenarioError(
            f"{path}: each [[request]] needs a path and may have only {sorted(_TOML_KEYS)}"
        )
    if "body" in item and "body_file" in item:
        raise ScenarioError(f"{path}: a request has body or body_file, not both")
    body = _body("@" + str(item["body_file"]), path.parent) if "body_file" in item else b""
    headers = _toml_headers(item.get("headers", {}), path)
    return RequestSpec(
        str(item["path"]),
        str(item.get("method", "GET")).upper(),
        headers,
        str(item["body"]).encode() if "body" in item else body,
        _weight(item.get("weight", 1)),
    )


def _toml_headers(headers: object, path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(headers, Mapping):
        raise ScenarioError(f"{path}: headers must be a table, e.g. {{ accept = 'text/plain' }}")
    return tuple((str(name), str(value)) for name, value in headers.items())


def describe(specs: Iterable[RequestSpec]) -> str:
    """The scenario in one line, e.g. ``GET /hello, POST /orders weight=2``."""
    return ", ".join(spec.describe() for spec in specs)


# The built-in client: one connection.
class ProtocolError(Exception):
    """The server answered something that is not HTTP/1.x."""


# What ends a request as an error: the connection is then dropped and opened again.
FAILURES = (
    OSError,
    ValueError,  # a status, length or chunk size that is not a number
    asyncio.IncompleteReadError,
    asyncio.LimitOverrunError,
    ProtocolError,
)


class Connection:
    """One keep-alive connection; ``exchange`` sends a request and returns the status."""

    __slots__ = ("_reader", "_writer", "reusable")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self.reusable = True

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        """Connect to ``host:port``."""
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def exchange(self, raw: bytes) -> int:
        """Send ``raw``, read the whole response, return its status code."""
        self._writer.write(raw)
        head = await self._reader.readuntil(_HEAD_END)
        if not head.startswith(b"HTTP/1.") or len(head) < 12:
            raise ProtocolError(f"not an HTTP/1.x response: {head[:40]!r}")
        status = int(head[9:12])
        lower = head.lower()
        if head.startswith(b"HTTP/1.0") or b"close" in _header_value(lower, b"connection"):
            self.reusable = False
        if status in _NO_BODY or status < 200 or raw.startswith(b"HEAD "):
            return status
        await self._read_body(lower)
        return status

    async def _read_body(self, lower_head: bytes) -> None:
        if b"chunked" in _header_value(lower_head, b"transfer-encoding"):
            await self._read_chunks()
            return
        length = _header_value(lower_head, b"content-length")
        if length:
            await self._reader.readexactly(int(length))
        else:
            await self._reader.read()  # no length: the body ends with the connection
            self.reusable = False

    async def _read_chunks(self) -> None:
        while True:
            size = int((await self._reader.readline()).split(b";", 1)[0], 16)
            if size == 0:
                break
            await self._reader.readexactly(size + 2)
        while (await self._reader.readline()) not in (b"\r\n", b""):
            pass  # trailers

    def close(self) -> None:
        """Close the connection without waiting."""
        self._writer.close()


def _header_value(lower_head: bytes, name: bytes) -> bytes:
    """The value of header ``name`` in a lower-cased head, or b"" when it is absent."""
    start = lower_head.find(b"\r\n" + name + b":")
    if start < 0:
        return b""
    start += len(name) + 3
    return lower_head[start : lower_head.find(b"\r\n", start)].strip()


# The built-in client: N connections on one asyncio loop, one core.
class BuiltinGenerator:
    """Drives load from this process; its CPU time is this process's (``time.process_time``)."""

    name = "builtin"

    def describe(self) -> str:
        """One line for the report."""
        return "built-in asyncio client (1 core)"

    def run(
        self,
        table: RequestTable,
        host: str,
        port: int,
        seconds: float,
        connections: int,
        *,
        requests: int | None = None,
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds``; or, given
        ``requests``, send exactly that many: each is then answered or counted as an error."""
        return asyncio.run(_drive(table, host, port, seconds, connections, requests=requests))


class _Run:
    """What the connections of one run share: the next request, how many may still be sent,
    and what they recorded."""

    __slots__ = ("entries", "errors", "histogram", "host", "index", "left", "port", "statuses")

    def __init__(self, table: RequestTable, host: str, port: int, requests: int | None) -> None:
        self.entries = table.entries
        self.host = host
        self.port = port
        self.index = 0
        self.left = requests
        self.histogram = Histogram()
        self.statuses: dict[int, int] = {}
        self.errors = 0

    @property
    def finished(self) -> int:
        """The requests answered or failed so far."""
        return self.histogram.count + self.errors

    def take(self) -> bool:
        """Whether one more request may be sent (always, when no count was given)."""
        if self.left is None:
            return True
        if self.left == 0:
            return False
        self.left -= 1
        return True

    def next_request(self) -> bytes:
        """The next entry of the table, cycling."""
        raw = self.entries[self.index]
        self.index = (self.index + 1) % len(self.entries)
        return raw


async def _drive(
    table: RequestTable,
    host: str,
    port: int,
    seconds: float,
    connections: int,
    *,
    requests: int | None,
) -> LoadResult:
    run = _Run(table, host, port, requests)
    cpu_start, start = time.process_time(), time.perf_counter()
    workers = [asyncio.create_task(_connection_loop(run)) for _ in range(connections)]
    try:
        if requests is None:
            await asyncio.sleep(seconds)
        else:
            await _until_finished(run, workers)
    finally:
        elapsed = time.perf_counter() - start
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return LoadResult.from_histogram(
        run.histogram,
        seconds=elapsed,
        # Every one of a count of requests is answered or an error: those a stalled server never
        # answered, and those never sent for it, are errors too.
        errors=run.errors if requests is None else requests - run.histogram.count,
        statuses=run.statuses,
        client_cpu_seconds=time.process_time() - cpu_start,
    )


async def _until_finished(run: _Run, workers: list[asyncio.Task[None]]) -> None:
    """Wait until the connections have sent every request, or until none has finished for
    REQUEST_TIMEOUT: a count of requests is never waited for without end."""
    pending = set(workers)
    while pending:
        before = run.finished
        _, pending = await asyncio.wait(pending, timeout=REQUEST_TIMEOUT)
        if run.finished == before:
            return


async def _connection_loop(run: _Run) -> None:
    connection: Connection | None = None
    try:
        while run.take():
            if connection is None:
                connection = await _connect(run)
            if connection is not None and not await _exchange(run, connection):
                connection.close()
                connection = None
    finally:
        if connection is not None:
            connection.close()


async def _connect(run: _Run) -> Connection | None:
    try:
        return await Connection.open(run.host, run.port)
    except OSError:
        run.errors += 1
        await asyncio.sleep(_RECONNECT_PAUSE)
        return None


async def _exchange(run: _Run, connection: Connection) -> bool:
    """One request and its response; False when the connection cannot be used again."""
    raw = run.next_request()
    started = time.perf_counter_ns()
    try:
        status = await connection.exchange(raw)
    except FAILURES:
        run.errors += 1
        return False
    except asyncio.CancelledError:
        if time.perf_counter_ns() - started > REQUEST_TIMEOUT * 1e9:
            run.errors += 1
        raise
    run.histogram.record((time.perf_counter_ns() - started) // 1000)
    run.statuses[status] = run.statuses.get(status, 0) + 1
    return connection.reusable


# wrk: each thread reads the whole request table once, in init; request() then only returns
# the next entry, so Lua costs almost nothing per request. No response() hook is defined (it
# makes wrk parse every response for Lua, measurably slower): statuses come from wrk's
# summary, which counts responses with a status of 400 or more.
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
        self,
        table: RequestTable,
        host: str,
        port: int,
        seconds: float,
        connections: int,
        *,
        requests: int | None = None,
    ) -> LoadResult:
        """Send ``table``'s requests, cycling, over ``connections`` for ``seconds`` (wrk counts
        whole seconds: rounded, at least 1). wrk cannot send a count of ``requests``."""
        if requests is not None:
            raise LoadError("wrk has no request-count mode: -n needs the built-in client")
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
