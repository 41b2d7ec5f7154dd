"""One ``hasten bench`` invocation: options in; rounds, reports and the exit code out."""

from __future__ import annotations

import contextlib
import datetime
import importlib.util
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TextIO

from .baseline import find_regressions, read_baseline
from .compare import run_rounds
from .html import render_html
from .loadgen import BuiltinGenerator
from .measurement import LoadGenerator, Metrics
from .options import BenchOptions, OptionsError
from .report import render_text
from .results import build_document, write_json
from .runner import Plan
from .scenario import RequestSpec, describe, load_scenario, parse_request
from .target import AppTarget, Target, UrlTarget, distinct_labels, parse_target
from .wrk import WrkGenerator, find_wrk

__all__ = ["REGRESSION_EXIT", "bench", "choose_generator", "requests_of", "targets_of"]

REGRESSION_EXIT = 3


def bench(options: BenchOptions, out: TextIO | None = None) -> int:
    """Measure, report (text, and the ``--json``/``--html`` files), check the baseline."""
    out = out or sys.stdout
    targets = targets_of(options)
    specs = requests_of(options, targets)
    baseline = None if options.baseline is None else read_baseline(options.baseline)
    generator = choose_generator(options)
    plan = Plan(
        specs=specs,
        generator=generator,
        duration=options.duration,
        warmup=options.warmup,
        connections=options.connection_count,
        rounds=options.round_count,
        ready_timeout=options.ready_timeout,
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
    print(render_text(document), file=out)
    if options.json is not None:
        write_json(document, options.json)
    if options.html is not None:
        options.html.write_text(render_html(document))
    if baseline is None:
        return 0
    medians: dict[str, Metrics] = {item["label"]: item["median"] for item in document["targets"]}
    regressions = find_regressions(medians, baseline, options.max_regression)
    for regression in regressions:
        print(f"regression: {regression.describe(options.max_regression)}", file=out)
    if not regressions:
        print(f"no regression beyond {options.max_regression:g}% against the baseline", file=out)
    return REGRESSION_EXIT if regressions else 0


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
    return distinct_labels(targets)


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
    """wrk when installed (unless --loadgen builtin), else the built-in client."""
    warn = warn or sys.stderr
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
