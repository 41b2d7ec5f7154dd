"""One invocation without servers: the choices made from the options, and the exit code."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from hasten.bench import session
from hasten.bench.compare import TargetResult
from hasten.bench.loadgen import BuiltinGenerator
from hasten.bench.options import BenchOptions, OptionsError
from hasten.bench.progress import Progress
from hasten.bench.runner import Plan
from hasten.bench.scenario import RequestSpec
from hasten.bench.target import Target
from hasten.bench.wrk import WrkGenerator
from tests.bench.test_report import results


@pytest.fixture
def fake_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds that measure nothing: made-up results for targets labelled fast and slow."""

    def run_rounds(targets: Sequence[Target], plan: Plan) -> list[TargetResult]:
        return results()

    monkeypatch.setattr(session, "run_rounds", run_rounds)


@pytest.mark.usefixtures("fake_rounds")
def test_files_and_a_passed_baseline(tmp_path: Path) -> None:
    out, html = tmp_path / "out.json", tmp_path / "report.html"
    options = BenchOptions(compare=("fast=m:app", "slow=n:app"), json=out, html=html)
    assert session.bench(options, io.StringIO()) == 0
    assert json.loads(out.read_text())["settings"]["rounds"] == 3
    assert "<svg" in html.read_text()
    text = io.StringIO()
    assert session.bench(BenchOptions(target="fast=m:app", baseline=out), text) == 0
    assert "no regression beyond 5% against the baseline" in text.getvalue()


@pytest.mark.usefixtures("fake_rounds")
def test_a_failed_baseline_exits_3(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    session.bench(BenchOptions(target="fast=m:app", json=out), io.StringIO())
    document = json.loads(out.read_text())
    document["targets"][0]["median"]["p99_ms"] /= 2
    out.write_text(json.dumps(document))
    text = io.StringIO()
    options = BenchOptions(target="fast=m:app", baseline=out, max_regression=10)
    assert session.bench(options, text) == session.REGRESSION_EXIT
    assert "regression: fast: p99 latency +100.0%" in text.getvalue()


def test_the_scenario_comes_from_requests_or_the_path(tmp_path: Path) -> None:
    url = BenchOptions(target="http://h:1/hello?x=1")
    assert session.requests_of(url, session.targets_of(url)) == [RequestSpec("/hello?x=1")]
    app = BenchOptions(target="m:app")
    assert session.requests_of(app, session.targets_of(app)) == [RequestSpec("/")]
    path = BenchOptions(target="m:app", path="/items/{1..9}")
    assert session.requests_of(path, []) == [RequestSpec("/items/{1..9}")]
    scenario = tmp_path / "s.toml"
    scenario.write_text("[[request]]\npath = '/a'\n")
    both = BenchOptions(target="m:app", scenario=scenario, request=("POST /b",))
    assert session.requests_of(both, []) == [RequestSpec("/a"), RequestSpec("/b", "POST")]


def test_wrk_when_installed_else_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    warnings = io.StringIO()
    monkeypatch.setattr(session, "find_wrk", lambda: None)
    auto = session.choose_generator(BenchOptions(target="m:app"), warnings)
    assert isinstance(auto, BuiltinGenerator)
    assert "wrk not found" in warnings.getvalue()
    with pytest.raises(OptionsError, match="wrk is not installed"):
        session.choose_generator(BenchOptions(target="m:app", loadgen="wrk"))

    made: list[tuple[str, int]] = []

    def wrk(path: str, threads: int) -> BuiltinGenerator:
        made.append((path, threads))
        return BuiltinGenerator()

    monkeypatch.setattr(session, "WrkGenerator", wrk)
    monkeypatch.setattr(session, "find_wrk", lambda: "/bin/wrk")
    session.choose_generator(BenchOptions(target="m:app", duration=1.5, threads=2), warnings)
    assert made == [("/bin/wrk", 2)]
    assert "durations are rounded" in warnings.getvalue()
    builtin = BenchOptions(target="m:app", loadgen="builtin")
    assert isinstance(session.choose_generator(builtin), BuiltinGenerator)


def test_wrk_generator_describes_itself() -> None:
    generator = WrkGenerator("/bin/true", threads=2)
    assert generator.describe() == "wrk unknown (2 threads)"


def test_progress_draws_a_bar_only_when_enabled() -> None:
    stream = io.StringIO()
    with Progress(stream, enabled=True).phase("app: round 1/1", 0.3):
        time.sleep(0.25)
    assert "app: round 1/1 [####" in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[2K")
    quiet = io.StringIO()
    with Progress(quiet).phase("app", 0.1):
        pass
    assert quiet.getvalue() == ""


def test_sigterm_is_left_alone_outside_the_main_thread() -> None:
    entered: list[bool] = []

    def enter() -> None:
        with session._sigterm_interrupts():
            entered.append(True)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    assert entered == [True]
