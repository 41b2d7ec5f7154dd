"""What a run measures, and the statistics over it.

A round of a target yields a Measurement: what the load generator saw (a LoadResult, its
latencies kept in a Histogram) beside the server's CPU time and peak RSS, sampled from its whole
process tree, and with --profile where its time went, recorded by py-spy. Each target's figures
are the medians of its rounds, and ratios compare them with the first target's.
"""

from __future__ import annotations

import math
import os
import selectors
import shutil
import signal
import statistics
import subprocess
import sysconfig
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import psutil

from hasten.bench.targets import Target

__all__ = [
    "CLIENT_BOUND",
    "PERCENTILES",
    "RATIO_METRICS",
    "Histogram",
    "LoadResult",
    "Measurement",
    "Metrics",
    "PeakRss",
    "ProcessTree",
    "Profile",
    "Recording",
    "TargetResult",
    "curve_key",
    "find_py_spy",
    "median",
    "percentile",
    "ratio",
    "ratios",
]

# The points of the latency curve that every load generator reports and the HTML plot draws.
PERCENTILES: tuple[float, ...] = (50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99)
# A load generator using this share of the CPU it may use was the bottleneck, not the server.
CLIENT_BOUND = 0.9
# The metrics that are shown relative to the first target.
RATIO_METRICS = ("rps", "p50_ms", "p99_ms", "cpu_s_per_10k", "peak_rss_mb")

# Values below _EXACT microseconds have a bucket each; above, every power of two is split into
# _HALF buckets, so a bucket is at most 1/_HALF (1.6%) wide and its midpoint is within 0.8%.
_HALF = 64
_EXACT = 2 * _HALF
_SHIFT_BITS = _EXACT.bit_length() - 1
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied)
# py-spy's default rate. Sampling a server and its worker costs py-spy about 15% of a core at it.
PROFILE_RATE = 100
# How long py-spy may take to attach (it retries), to settle once it samples, and to write its
# file once stopped.
_PY_SPY_START_TIMEOUT, _PY_SPY_SETTLE, _PY_SPY_WRITE_TIMEOUT = 10.0, 0.2, 30.0

Metrics = dict[str, float | None]


# Statistics.
def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile of ``values``: the smallest value that at least
    ``p`` percent of them do not exceed."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be within 0..100, got {p}")
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None, or None when there are none."""
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def ratio(value: float | None, reference: float | None) -> float | None:
    """``value / reference``, or None when either is missing or the reference is zero."""
    if value is None or not reference:
        return None
    return value / reference


class Histogram:
    """Latencies in integer microseconds, in log-linear buckets: constant memory, < 1% error.

    Below 128 µs every value is exact; the minimum, maximum and mean are always exact.
    """

    __slots__ = ("_counts", "count", "maximum", "minimum", "total")

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}
        self.count = 0
        self.total = 0
        self.minimum = 0
        self.maximum = 0

    def record(self, micros: int) -> None:
        """Count one latency of ``micros`` microseconds."""
        index = _bucket(micros)
        self._counts[index] = self._counts.get(index, 0) + 1
        if self.count == 0 or micros < self.minimum:
            self.minimum = micros
        self.maximum = max(self.maximum, micros)
        self.count += 1
        self.total += micros

    def merge(self, other: Histogram) -> None:
        """Add every latency counted by ``other``."""
        if other.count == 0:
            return
        for index, count in other._counts.items():
            self._counts[index] = self._counts.get(index, 0) + count
        self.minimum = other.minimum if self.count == 0 else min(self.minimum, other.minimum)
        self.maximum = max(self.maximum, other.maximum)
        self.count += other.count
        self.total += other.total

    @property
    def mean(self) -> float:
        """The exact mean in microseconds (0 when empty)."""
        return self.total / self.count if self.count else 0.0

    def percentile(self, p: float) -> float:
        """The nearest-rank ``p``-th percentile in microseconds (0 when empty)."""
        if self.count == 0:
            return 0.0
        rank = max(1, math.ceil(p / 100 * self.count))
        if rank >= self.count:
            return float(self.maximum)
        seen = 0
        for index in sorted(self._counts):
            seen += self._counts[index]
            if seen >= rank:
                return float(min(max(_value(index), self.minimum), self.maximum))
        return float(self.maximum)


def _bucket(micros: int) -> int:
    if micros < _EXACT:
        return max(micros, 0)
    shift = micros.bit_length() - _SHIFT_BITS
    return shift * _HALF + (micros >> shift)


def _value(index: int) -> float:
    """The middle of a bucket (a bucket below _EXACT holds one value)."""
    if index < _EXACT:
        return index
    shift = index // _HALF - 1
    low = (index - shift * _HALF) << shift
    return low + ((1 << shift) - 1) / 2


# Measurements.
def curve_key(p: float) -> str:
    """The metrics key of the ``p``-th latency percentile, e.g. ``p99.9_ms``."""
    return f"p{p:g}_ms"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadResult:
    """What a load generator saw: requests, failures, latencies (ms) and its own CPU time."""

    requests: int
    seconds: float
    errors: int
    non_2xx: int
    latency_ms: dict[float, float]
    max_ms: float
    mean_ms: float
    client_cpu_seconds: float
    client_cores: float
    statuses: dict[int, int] = field(default_factory=dict)

    @classmethod
    def from_histogram(
        cls,
        histogram: Histogram,
        *,
        seconds: float,
        errors: int,
        statuses: dict[int, int],
        client_cpu_seconds: float,
    ) -> LoadResult:
        """A result from latencies recorded in microseconds by a single-core generator."""
        return cls(
            requests=histogram.count,
            seconds=seconds,
            errors=errors,
            non_2xx=sum(count for status, count in statuses.items() if not 200 <= status < 300),
            latency_ms={p: histogram.percentile(p) / 1000 for p in PERCENTILES},
            max_ms=histogram.maximum / 1000,
            mean_ms=histogram.mean / 1000,
            client_cpu_seconds=client_cpu_seconds,
            client_cores=1.0,
            statuses=dict(sorted(statuses.items())),
        )

    @property
    def rps(self) -> float:
        """Requests per second."""
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def client_share(self) -> float:
        """The share of the CPU the generator may use (its threads, at most the cores) used."""
        allowed = self.seconds * self.client_cores
        return self.client_cpu_seconds / allowed if allowed > 0 else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurement:
    """One round of one target: the load result, the server's CPU time and peak RSS, and with
    --profile where to find its profile."""

    label: str
    round: int
    load: LoadResult
    server_cpu_seconds: float | None
    server_peak_rss: int | None
    profile: Profile | None = None

    @property
    def cpu_per_10k(self) -> float | None:
        """The server's CPU seconds per 10,000 requests."""
        if self.server_cpu_seconds is None or self.load.requests == 0:
            return None
        return self.server_cpu_seconds / self.load.requests * 10_000

    def metrics(self) -> Metrics:
        """Every figure of the round, flat: what medians, reports and baselines compare."""
        load = self.load
        curve: Metrics = {curve_key(p): ms for p, ms in load.latency_ms.items()}
        rss = self.server_peak_rss
        return {
            "rps": load.rps,
            "requests": float(load.requests),
            "seconds": load.seconds,
            **curve,
            "max_ms": load.max_ms,
            "mean_ms": load.mean_ms,
            "errors": float(load.errors),
            "non_2xx": float(load.non_2xx),
            "server_cpu_seconds": self.server_cpu_seconds,
            "cpu_s_per_10k": self.cpu_per_10k,
            "peak_rss_mb": None if rss is None else rss / 2**20,
            "client_cpu_seconds": load.client_cpu_seconds,
            "client_share": load.client_share,
        }


# Rounds.
@dataclass(slots=True)
class TargetResult:
    """A target and its measurements, one per round."""

    target: Target
    rounds: list[Measurement] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The target's label."""
        return self.target.label

    def median(self) -> Metrics:
        """Each metric's median over the rounds."""
        names = self.rounds[0].metrics() if self.rounds else {}
        per_round = [measurement.metrics() for measurement in self.rounds]
        return {name: median(metrics[name] for metrics in per_round) for name in names}


def ratios(results: Sequence[TargetResult]) -> list[Metrics]:
    """For each target, its medians of RATIO_METRICS divided by the first target's."""
    medians = [result.median() for result in results]
    if not medians:
        return []
    first = medians[0]
    return [
        {name: ratio(metrics[name], first[name]) for name in RATIO_METRICS} for metrics in medians
    ]


# The server's usage.
class ProcessTree:
    """A process and all its descendants, as they are at each call."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)

    def processes(self) -> list[psutil.Process]:
        """The root and its descendants that are alive now (none when the root is gone)."""
        try:
            return [self.root, *self.root.children(recursive=True)]
        except _GONE:
            return []

    def cpu_seconds(self) -> float:
        """User + system CPU time of the tree, counting children already reaped by a parent."""
        total = 0.0
        for process in self.processes():
            try:
                times = process.cpu_times()
            except _GONE:
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total

    def rss_bytes(self) -> int:
        """The sum of the resident set sizes of the tree."""
        total = 0
        for process in self.processes():
            try:
                total += process.memory_info().rss
            except _GONE:
                continue
        return total


class PeakRss:
    """``with PeakRss(tree) as rss:`` samples the tree's RSS in a thread; ``rss.peak`` is the
    highest sum seen (None without a tree)."""

    def __init__(self, tree: ProcessTree | None, interval: float = 0.1) -> None:
        self._tree = tree
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)
        self.peak: int | None = None

    def __enter__(self) -> PeakRss:
        if self._tree is not None:
            self._sample()
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._tree is not None:
            self._stop.set()
            self._thread.join()
            self._sample()

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def _sample(self) -> None:
        assert self._tree is not None
        self.peak = max(self.peak or 0, self._tree.rss_bytes())


# A profile of the server.
@dataclass(frozen=True, slots=True)
class Profile:
    """Where one round's profile is: py-spy's speedscope file, and the flame graph drawn from it."""

    speedscope: Path
    flamegraph: Path


def find_py_spy() -> str | None:
    """The path of py-spy: beside this Python, where its package installs it, or on PATH."""
    where = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    return shutil.which("py-spy", path=where)


class Recording:
    """``with Recording(py_spy, pid, path) as recording:`` samples the process tree of ``pid``
    with py-spy while the block runs, then writes a speedscope file to ``path``; after the block,
    ``recording.error`` says in one line why there is none, or is None. The block starts once
    py-spy samples, so that it is sampled whole."""

    def __init__(self, executable: str, pid: int, path: Path) -> None:
        self.path = path
        self.error: str | None = None
        self._command = [
            *(executable, "record", "--pid", str(pid), "--rate", str(PROFILE_RATE)),
            # --subprocesses: the workers too; --function: a function's lines are one frame;
            # --nonblocking: the server is never paused, so its figures stay its own.
            *("--subprocesses", "--function", "--nonblocking"),
            *("--format", "speedscope", "--output", str(path)),
        ]
        self._process: subprocess.Popen[bytes] | None = None
        self._output = b""
        self._sampling_since = 0.0

    def __enter__(self) -> Recording:
        self.path.unlink(missing_ok=True)
        self._process = subprocess.Popen(
            self._command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self._read_until_sampling(self._process)
        self._sampling_since = time.monotonic()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        process = self._process
        assert process is not None
        if process.poll() is None:
            # py-spy sets its Ctrl-C handler just after it says it samples: sooner, Ctrl-C kills it.
            time.sleep(max(0.0, self._sampling_since + _PY_SPY_SETTLE - time.monotonic()))
            process.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
        try:
            rest, _ = process.communicate(timeout=_PY_SPY_WRITE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            rest, _ = process.communicate()
        if process.returncode != 0 or not self.path.exists():
            # py-spy says what went wrong in a line of its own; a backtrace may follow it.
            lines = (self._output + rest).decode(errors="replace").splitlines()
            said = [line for line in lines if line.startswith(("Error", "Permission"))]
            self.error = f"py-spy: {said[0] if said else f'exited with {process.returncode}'}"

    def _read_until_sampling(self, process: subprocess.Popen[bytes]) -> None:
        """Read py-spy's output until it says it samples, stops, or takes too long to do either."""
        assert process.stdout is not None
        deadline = time.monotonic() + _PY_SPY_START_TIMEOUT
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while b"Sampling" not in self._output and selector.select(deadline - time.monotonic()):
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    return
                self._output += chunk
