"""``hasten bench``: the command. One invocation: every target measured in alternating rounds,
the reports written, the baseline checked, the exit code returned. Its options, and the parser
made from them, are in ``hasten.bench.options`` (named here too).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import importlib.util
import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from hasten._cli.arguments import from_arguments
from hasten.bench.load import (
    BuiltinGenerator,
    LoadError,
    LoadGenerator,
    RequestSpec,
    RequestTable,
    ScenarioError,
    WrkGenerator,
    build_table,
    describe,
    find_wrk,
    load_scenario,
    parse_request,
    request_line,
)
from hasten.bench.measurement import (
    Measurement,
    PeakRss,
    ProcessTree,
    Profile,
    Recording,
    TargetResult,
    find_py_spy,
)
from hasten.bench.options import (
    BenchOptions,
    OptionsError,
    build_parser,
    percent,
)
from hasten.bench.reports import (
    build_document,
    render_flamegraph,
    render_html,
    render_text,
    write_json,
)
from hasten.bench.targets import (
    AppTarget,
    ServerError,
    Target,
    TargetError,
    UrlTarget,
    distinct_labels,
    launched,
    parse_target,
    probe,
)
from hasten.bench.verdict import (
    Baseline,
    BaselineError,
    Check,
    baseline_checks,
    check_same_scenario,
    paired_checks,
    read_baseline,
)

__all__ = [
    "REGRESSION_EXIT",
    "BenchOptions",
    "OptionsError",
    "Plan",
    "Profiling",
    "Progress",
    "bench",
    "build_parser",
    "choose_generator",
    "main",
    "measure",
    "percent",
    "requests_of",
    "run",
    "run_rounds",
    "targets_of",
]

REGRESSION_EXIT = 3
# The progress bar: its width in characters, and how often it is redrawn (seconds).
_BAR = 30
_REDRAW = 0.1


# The command line.
def main(argv: Sequence[str]) -> int:
    """Run ``hasten bench ARGV``; return the exit code."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run ``hasten bench`` with parsed ``args``; return the exit code."""
    try:
        return bench(from_arguments(BenchOptions, args))
    except (OptionsError, ScenarioError, TargetError, BaselineError) as exc:
        return _fail(str(exc), 2)
    except (ServerError, LoadError, OSError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, code: int) -> int:
    print(f"hasten bench: error: {message}", file=sys.stderr)
    return code


# One invocation.
def bench(options: BenchOptions, out: TextIO | None = None) -> int:
    """Measure, report (text, and the ``--json``/``--html`` files), check the baseline."""
    out = out or sys.stdout
    targets = targets_of(options)
    specs = requests_of(options, targets)
    generator = choose_generator(options)
    baseline = None
    if options.baseline is not None:
        baseline = read_baseline(options.baseline)
        check_same_scenario(_preview(options, generator, specs, targets), baseline)
    plan = Plan(
        specs=specs,
        generator=generator,
        duration=options.duration,
        count=options.count,
        warmup=options.warmup,
        connections=options.connection_count,
        rounds=options.round_count,
        ready_timeout=options.ready_timeout,
        profiling=_profiling(options, targets),
        port=options.port,
    )
    started = datetime.datetime.now(datetime.UTC)
    with _sigterm_interrupts():
        results = run_rounds(targets, plan)
    document = build_document(
        settings=options.settings(),
        generator=generator,
        scenario=describe(specs),
        results=results,
        started=started,
    )
    checks = _checks(options, document, baseline)
    if checks:
        document["checks"] = [check.as_json() for check in checks]
    print(render_text(document), file=out)
    if options.json is not None:
        write_json(document, options.json)
    if options.html is not None:
        options.html.write_text(render_html(document))
    if not options.gated:
        return 0
    for check in checks:
        print(check.describe(), file=out)
    regressed = any(check.verdict == "regression" for check in checks)
    if not regressed:
        print(f"no regression beyond {options.max_regression:g}%", file=out)
    return REGRESSION_EXIT if regressed else 0


def _preview(
    options: BenchOptions,
    generator: LoadGenerator,
    specs: Sequence[RequestSpec],
    targets: Sequence[Target],
) -> dict[str, Any]:
    """What the run's document will say of its scenario, before the run."""
    return {
        "scenario": describe(specs),
        "settings": options.settings(),
        "loadgen": {"name": generator.name},
        "targets": [
            {
                "label": target.label,
                "kind": "app",
                "server": target.server,
                "interface": target.interface,
            }
            if isinstance(target, AppTarget)
            else {"label": target.label, "kind": "url"}
            for target in targets
        ],
    }


def _checks(
    options: BenchOptions, document: dict[str, Any], baseline: Baseline | None
) -> list[Check]:
    """What the gate judges: each target against --against, and against --baseline."""
    allowed = options.max_regression
    rounds = {item["label"]: item["rounds"] for item in document["targets"]}
    checks = []
    if options.against is not None:
        checks += paired_checks(rounds, options.against, allowed)
    if baseline is not None:
        checks += baseline_checks(document, baseline, allowed)
    return checks


def targets_of(options: BenchOptions) -> list[Target]:
    """The targets named by the options, with distinct labels."""
    targets = [
        parse_target(
            text,
            server=options.server,
            interface=options.interface,
            workers=options.workers,
            pid=options.pid,
        )
        for text in options.target_texts
    ]
    if options.pid is not None and not any(isinstance(t, UrlTarget) for t in targets):
        raise OptionsError("--pid is for a URL target: an app's server is sampled anyway")
    uvicorn = any(isinstance(t, AppTarget) and t.server == "uvicorn" for t in targets)
    if uvicorn and importlib.util.find_spec("uvicorn") is None:
        raise OptionsError("a target on uvicorn needs it: pip install 'hasten[uvicorn]'")
    targets = _rooted(distinct_labels(targets), options.root)
    labels = [target.label for target in targets]
    if options.against is not None and options.against not in labels:
        raise OptionsError(
            f"--against {options.against}: no target has that label ({', '.join(labels)})"
        )
    return targets


def _rooted(targets: list[Target], roots: Sequence[str]) -> list[Target]:
    """``targets``, each app served from the directory --root gives its label."""
    by_label: dict[str, str] = {}
    for text in roots:
        label, equals, directory = text.partition("=")
        if not equals or not directory:
            raise OptionsError(f"--root {text!r} must look like LABEL=DIR")
        if not Path(directory).is_dir():
            raise OptionsError(f"--root {text!r}: {directory} is not a directory")
        by_label[label] = directory
    for index, target in enumerate(targets):
        if target.label not in by_label:
            continue
        directory = by_label.pop(target.label)
        if not isinstance(target, AppTarget):
            raise OptionsError(f"--root {target.label}=...: a URL target is served elsewhere")
        targets[index] = dataclasses.replace(target, root=directory)
    if by_label:
        raise OptionsError(f"--root: no target is labelled {', '.join(sorted(by_label))}")
    return targets


def requests_of(options: BenchOptions, targets: Sequence[Target]) -> list[RequestSpec]:
    """The scenario: --scenario and --request, else GET --path (or the URL's path, or /)."""
    specs = [] if options.scenario is None else load_scenario(options.scenario)
    specs += [parse_request(text) for text in options.request]
    if specs and options.path is not None:
        raise OptionsError("--path goes with neither --request nor --scenario: use a request")
    if specs:
        return specs
    url_path = next((t.path for t in targets if isinstance(t, UrlTarget)), "/")
    return [RequestSpec(options.path or url_path)]


def choose_generator(options: BenchOptions, warn: TextIO | None = None) -> LoadGenerator:
    """wrk when installed (unless --loadgen builtin or -n), else the built-in client."""
    warn = warn or sys.stderr
    if options.count is not None:
        return BuiltinGenerator()  # wrk has no request-count mode
    executable = None if options.loadgen == "builtin" else find_wrk()
    if executable is None:
        if options.loadgen == "wrk":
            raise OptionsError("--loadgen wrk, but wrk is not installed (e.g. apt-get install wrk)")
        if options.loadgen == "auto":
            print("hasten bench: wrk not found: using the built-in client", file=warn)
        return BuiltinGenerator()
    if options.duration != round(options.duration) or options.warmup != round(options.warmup):
        print("hasten bench: wrk counts whole seconds: durations are rounded", file=warn)
    return WrkGenerator(executable, threads=options.threads)


def _profiling(options: BenchOptions, targets: Sequence[Target]) -> Profiling:
    """Where --profile's files go: beside the report, named after it. Without --profile, or
    without py-spy (said in one line), there are none."""
    if not options.profile:
        return Profiling()
    py_spy = find_py_spy()
    if py_spy is None:
        _warn("--profile needs py-spy (pip install 'hasten[bench]'): measuring without profiles")
        return Profiling()
    for target in targets:
        if isinstance(target, UrlTarget) and target.pid is None:
            _warn(f"{target.label}: no profile: a URL target is profiled only with --pid")
    report = options.json or options.html
    if report is None:
        return Profiling(py_spy)
    return Profiling(py_spy, report.parent, report.stem)


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while measuring, so that servers are stopped on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# Progress.
class Progress:
    """Shows how far a run has come: on a terminal (``enabled``) a bar for each timed phase;
    elsewhere (a CI log) a line as each measurement starts. Both say how many measurements of
    the run are done, and about how long the rest will take."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = self.done = 0
        self._began = time.monotonic()
        self._step = ""  # the measurement under way, as the bars show it

    def begin(self, total: int) -> None:
        """A run of ``total`` measurements starts."""
        self.total, self.done, self._began = total, 0, time.monotonic()

    @contextlib.contextmanager
    def step(self, text: str) -> Iterator[None]:
        """One measurement of the run, said as it starts: ``[3/12] text (about 1 min left)``."""
        self._step = f"[{self.done + 1}/{self.total}] "
        if not self.enabled:
            self.stream.write(f"hasten bench: {self._step}{text}{self._left()}\n")
            self.stream.flush()
        try:
            yield
        finally:
            self.done += 1
            self._step = ""

    def _left(self) -> str:
        if not self.done:
            return ""
        seconds = (time.monotonic() - self._began) / self.done * (self.total - self.done)
        return f" (about {_minutes(seconds)} left)" if seconds >= 1 else ""

    @contextlib.contextmanager
    def phase(self, text: str, seconds: float | None) -> Iterator[None]:
        """Draw ``text`` and a bar that fills in ``seconds`` (or, without them, the time spent)
        until the block ends."""
        if not self.enabled:
            yield
            return
        done = threading.Event()
        text = f"{self._step}{text}{self._left()}"
        thread = threading.Thread(target=self._draw, args=(text, seconds, done), daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def _draw(self, text: str, seconds: float | None, done: threading.Event) -> None:
        start = time.monotonic()
        while True:
            elapsed = time.monotonic() - start
            self.stream.write(f"\r\x1b[2K{text} {_bar(elapsed, seconds)}")
            self.stream.flush()
            if done.wait(_REDRAW):
                return


def _minutes(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60} s"


def _bar(elapsed: float, seconds: float | None) -> str:
    if seconds is None:
        return f"{elapsed:4.1f} s"
    filled = min(_BAR, int(_BAR * elapsed / seconds)) if seconds > 0 else _BAR
    return f"[{'#' * filled}{'.' * (_BAR - filled)}] {elapsed:4.1f}/{seconds:g} s"


# Rounds.
def _warn(message: str) -> None:
    print(f"hasten bench: warning: {message}", file=sys.stderr)


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """How every measurement of a run is taken."""

    specs: Sequence[RequestSpec]
    generator: LoadGenerator
    duration: float
    count: int | None  # requests per round, instead of the duration
    warmup: float
    connections: int
    rounds: int
    ready_timeout: float
    profiling: Profiling
    port: int | None = None  # where app targets are served (None: a free port each time)
    progress: Progress = field(default_factory=Progress)
    warn: Callable[[str], None] = _warn


def run_rounds(targets: Sequence[Target], plan: Plan) -> list[TargetResult]:
    """Measure each target ``plan.rounds`` times, alternating targets within each round and
    their order from one round to the next (A B, B A, A B ...): a slow phase of the machine is
    spread over every target, and a machine that slows down or speeds up steadily favours
    none (each round's pair is what --against compares)."""
    results = [TargetResult(target) for target in targets]
    plan.progress.begin(plan.rounds * len(results))
    for round_number in range(1, plan.rounds + 1):
        order = results if round_number % 2 else results[::-1]
        for result in order:
            with plan.progress.step(f"{result.label}, round {round_number}/{plan.rounds}"):
                result.rounds.append(measure(result.target, plan, round_number))
    return results


def measure(target: Target, plan: Plan, round_number: int) -> Measurement:
    """Measure ``target`` once; an app is served afresh and stopped before this returns."""
    if isinstance(target, UrlTarget):
        return _measure_at(
            target, plan, round_number, host=target.host, port=target.port, pid=target.pid
        )
    with launched(target, plan.ready_timeout, plan.port) as server:
        return _measure_at(
            target, plan, round_number, host=server.host, port=server.port, pid=server.pid
        )


def _measure_at(
    target: Target, plan: Plan, round_number: int, *, host: str, port: int, pid: int | None
) -> Measurement:
    table = build_table(plan.specs, f"{host}:{port}")
    if round_number == 1:
        _check_statuses(target.label, host, port, table, plan.warn)
    tree = None if pid is None else ProcessTree(pid)
    generator = plan.generator
    recording = plan.profiling.recording(target.label, round_number, pid)
    with PeakRss(tree) as rss:
        if plan.warmup > 0:
            with plan.progress.phase(f"{target.label}: warm-up", plan.warmup):
                generator.run(table, host, port, plan.warmup, plan.connections)
        cpu_before = None if tree is None else tree.cpu_seconds()
        text = f"{target.label}: round {round_number}/{plan.rounds}"
        if plan.count is not None:
            text += f", {plan.count:,} requests"
        seconds = plan.duration if plan.count is None else None
        with plan.progress.phase(text, seconds), recording or contextlib.nullcontext():
            load = generator.run(
                table, host, port, plan.duration, plan.connections, requests=plan.count
            )
        cpu = None if tree is None or cpu_before is None else tree.cpu_seconds() - cpu_before
    return Measurement(
        label=target.label,
        round=round_number,
        load=load,
        server_cpu_seconds=cpu,
        server_peak_rss=rss.peak,
        profile=plan.profiling.finish(recording, target.label, round_number, plan.warn),
    )


def _check_statuses(
    label: str, host: str, port: int, table: RequestTable, warn: Callable[[str], None]
) -> None:
    """Warn about a request kind that does not answer 2xx: a benchmark of a 404 measures
    nothing useful."""
    for raw in table.samples:
        status = probe(host, port, raw)
        if status is None:
            warn(f"{label}: no answer to {request_line(raw)}")
        elif not 200 <= status < 300:
            warn(f"{label} answers {status} to {request_line(raw)}")


# Profiles.
@dataclass(frozen=True, slots=True)
class Profiling:
    """Where --profile writes each round's profile, and with which py-spy (None: no profiles).
    A target that py-spy could not record is said once, and left unprofiled in later rounds."""

    py_spy: str | None = None
    folder: Path = Path()
    prefix: str = "hasten-bench"
    failed: set[str] = field(default_factory=set)

    def recording(self, label: str, round_number: int, pid: int | None) -> Recording | None:
        """The recording of ``label``'s server in this round; None when there is to be none."""
        if self.py_spy is None or pid is None or label in self.failed:
            return None
        name = re.sub(r"[^\w.+-]+", "_", label)  # a label may hold / and @: not in a file name
        stem = f"{self.prefix}-profile-{name}-round{round_number}"
        return Recording(self.py_spy, pid, self.folder / f"{stem}.speedscope.json")

    def finish(
        self,
        recording: Recording | None,
        label: str,
        round_number: int,
        warn: Callable[[str], None],
    ) -> Profile | None:
        """The profile that ``recording`` made, its flame graph drawn beside it; None when
        there was no recording, or py-spy could not record."""
        if recording is None:
            return None
        if recording.error is not None:
            self.failed.add(label)
            warn(f"{label}: no profile: {recording.error}")
            return None
        speedscope = recording.path
        flamegraph = speedscope.with_name(speedscope.name.replace(".speedscope.json", ".svg"))
        title = f"{label}, round {round_number}"
        flamegraph.write_text(render_flamegraph(json.loads(speedscope.read_text()), title))
        return Profile(speedscope, flamegraph)
