"""``hasten bench``: the options and the parser derived from them; one invocation without
servers (the choices made from the options, and the exit code); and end to end: --compare with
--json and --html, URL mode, --baseline, and that no server process outlives a run, whether it
ends well, fails, or is interrupted."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

import pytest

from hasten._cli.arguments import from_arguments
from hasten.bench import command, main
from hasten.bench.command import (
    BenchOptions,
    OptionsError,
    Plan,
    Progress,
    build_parser,
    percent,
    run,
)
from hasten.bench.load import BuiltinGenerator, RequestSpec, WrkGenerator, parse_request
from hasten.bench.measurement import TargetResult
from hasten.bench.targets import Target
from tests.bench.conftest import ROOT, results


# Options.
def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_every_field_is_an_argument_with_the_fields_default() -> None:
    args = parse("m:app")
    options = from_arguments(BenchOptions, args)
    assert options == BenchOptions(target="m:app")
    assert {item.name for item in fields(BenchOptions)} <= set(vars(args))


def test_flags_are_converted_by_their_type() -> None:
    args = parse(
        *("--compare", "a:app", "b:app", "--request", "/a", "--request", "POST /b"),
        *("--duration", "1.5", "--connections", "8", "--mode", "sequential", "--json", "o.json"),
        *("--max-regression", "7.5%", "--interface", "asgi", "--rounds", "2"),
    )
    options = from_arguments(BenchOptions, args)
    assert options.compare == ("a:app", "b:app")
    assert options.target_texts == ("a:app", "b:app")
    assert options.request == ("/a", "POST /b")
    assert (options.duration, options.connections, options.json) == (1.5, 8, Path("o.json"))
    assert (options.max_regression, options.interface, options.round_count) == (7.5, "asgi", 2)
    assert options.connection_count == 1  # sequential
    assert options.settings()["json"] == "o.json"


def test_n_is_a_count_of_requests() -> None:
    assert from_arguments(BenchOptions, parse("m:app", "-n", "500")).count == 500
    assert from_arguments(BenchOptions, parse("m:app", "--count", "7")).count == 7
    assert from_arguments(BenchOptions, parse("m:app")).count is None


def test_rounds_default_to_three_when_comparing() -> None:
    assert BenchOptions(target="a:app").round_count == 1
    assert BenchOptions(compare=("a:app", "b:app")).round_count == 3


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({}, "give one TARGET"),
        ({"target": "a:app", "compare": ("b:app",)}, "give one TARGET"),
        ({"target": "a:app", "workers": 0}, "--workers must be at least 1"),
        ({"target": "a:app", "rounds": 0}, "--rounds must be at least 1"),
        ({"target": "a:app", "duration": 0}, "must be positive"),
        ({"target": "a:app", "count": 0}, "-n must be at least 1"),
        ({"target": "a:app", "count": 5, "loadgen": "wrk"}, "wrk has no request-count mode"),
        ({"target": "a:app", "against": "a"}, "--against LABEL judges the other targets of"),
        (
            {"compare": ("a:app", "b:app"), "against": "a", "rounds": 1},
            "give --rounds 2 or more",
        ),
        ({"target": "a:app", "port": 70_000}, "--port must be between 1 and 65535"),
    ],
)
def test_contradictions_are_refused(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        BenchOptions(**keywords)  # type: ignore[arg-type]  # the keywords vary by case


def test_a_gate_measures_six_rounds_unless_told() -> None:
    assert BenchOptions(compare=("a:app", "b:app"), against="a").round_count == 6
    assert BenchOptions(target="a:app", baseline=Path("b.json")).round_count == 6
    assert BenchOptions(target="a:app", baseline=Path("b.json"), rounds=3).round_count == 3


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"against": "c"}, "--against c: no target has that label (a, b)"),
        ({"root": ("a",)}, "--root 'a' must look like LABEL=DIR"),
        ({"root": ("a=/nonexistent",)}, "--root 'a=/nonexistent': /nonexistent is not a directory"),
        ({"root": ("c=.",)}, "--root: no target is labelled c"),
        ({"root": ("b=.",)}, "--root b=...: a URL target is served elsewhere"),
    ],
)
def test_targets_named_by_the_gate_and_roots_must_exist(
    keywords: dict[str, object], message: str
) -> None:
    options = BenchOptions(compare=("a=m:app", "b=http://h:1/"), **keywords)  # type: ignore[arg-type]  # the keywords vary by case
    with pytest.raises(OptionsError) as raised:
        command.targets_of(options)
    assert str(raised.value) == message


def test_a_root_is_where_its_target_is_served_from(tmp_path: Path) -> None:
    options = BenchOptions(compare=("main=m:app", "pr=m:app"), root=(f"main={tmp_path}",))
    main_target, pr_target = command.targets_of(options)
    assert (main_target.label, getattr(main_target, "root", None)) == ("main", str(tmp_path))
    assert (pr_target.label, getattr(pr_target, "root", None)) == ("pr", None)


def test_rounds_alternate_targets_and_their_order(monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[tuple[str, int]] = []

    def measure(target: Target, plan: Plan, round_number: int) -> object:
        measured.append((target.label, round_number))
        return round_number

    monkeypatch.setattr(command, "measure", measure)
    targets = command.targets_of(BenchOptions(compare=("a=m:app", "b=n:app")))
    stream = io.StringIO()
    plan = Plan(
        specs=[RequestSpec("/")],
        generator=BuiltinGenerator(),
        duration=1,
        count=None,
        warmup=0,
        connections=1,
        rounds=4,
        ready_timeout=1,
        profiling=command.Profiling(),
        progress=Progress(stream, enabled=False),
    )
    command.run_rounds(targets, plan)

    # A B, B A, A B, B A: a machine that slows steadily favours neither.
    assert measured == [
        ("a", 1),
        ("b", 1),
        ("b", 2),
        ("a", 2),
        ("a", 3),
        ("b", 3),
        ("b", 4),
        ("a", 4),
    ]
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["hasten bench: [1/8] a, round 1/4", "hasten bench: [2/8] b, round 1/4"]
    assert lines[-1] == "hasten bench: [8/8] a, round 4/4"  # too fast to say what is left


def test_progress_says_about_how_long_is_left() -> None:
    stream = io.StringIO()
    progress = Progress(stream, enabled=False)
    progress.begin(3)
    with progress.step("a, round 1/3"):
        progress._began -= 100  # the first measurement took 100 s
    with progress.step("a, round 2/3"):
        pass
    assert stream.getvalue().splitlines()[-1] == (
        "hasten bench: [2/3] a, round 2/3 (about 3 min 20 s left)"
    )
    assert command._minutes(45.2) == "45 s"


def test_percent() -> None:
    assert percent("5%") == 5.0
    assert percent(" 12.5 ") == 12.5
    with pytest.raises(argparse.ArgumentTypeError, match="not a percentage"):
        percent("five")
    with pytest.raises(argparse.ArgumentTypeError, match="must not be negative"):
        percent("-1%")


def test_help_documents_the_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    text = capsys.readouterr().out
    for part in ("MODULE:APP[@SERVER[/INTERFACE]]", "LABEL=TARGET", "{A..B}", "[[request]]"):
        assert part in text
    assert "(default: 5%)" in text


def test_help_shows_how_to_quote_a_value_with_a_space(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    text = " ".join(capsys.readouterr().out.split())
    # In the --request option's own line, and under "requests": a shell word as written there.
    example = "'GET /me header=\"authorization:Bearer abc\"'"
    assert text.count(example) == 2
    assert parse_request(shlex.split(example)[0]).headers == (("authorization", "Bearer abc"),)


def test_help_needs_no_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)  # makes it unimportable
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("usage: hasten bench ")


def test_without_psutil_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)  # makes it unimportable
    assert main(["m:app"]) == 2
    assert "hasten bench needs psutil: pip install 'hasten[bench]'" in capsys.readouterr().err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(parse("m:app", "--compare", "b:app")) == 2
    assert run(parse("nonsense")) == 2
    assert run(parse("m:app", "--request", "GET nowhere")) == 2
    assert run(parse("m:app", "--path", "/a", "--request", "/b")) == 2
    assert run(parse("m:app", "--pid", "1")) == 2
    assert run(parse("m:app", "--baseline", "/nonexistent/base.json")) == 2
    errors = capsys.readouterr().err
    assert "hasten bench: error: give one TARGET" in errors
    assert "--pid is for a URL target" in errors
    assert "cannot read baseline" in errors


# One invocation, without servers.
@pytest.fixture
def fake_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds that measure nothing: made-up results for targets labelled fast and slow."""

    def run_rounds(targets: Sequence[Target], plan: Plan) -> list[TargetResult]:
        return results()

    monkeypatch.setattr(command, "run_rounds", run_rounds)


@pytest.mark.usefixtures("fake_rounds")
def test_files_and_a_passed_baseline(tmp_path: Path) -> None:
    out, html = tmp_path / "out.json", tmp_path / "report.html"
    options = BenchOptions(compare=("fast=m:app", "slow=n:app"), json=out, html=html)
    assert command.bench(options, io.StringIO()) == 0
    assert json.loads(out.read_text())["settings"]["rounds"] == 3
    assert "<svg" in html.read_text()
    text = io.StringIO()
    assert command.bench(BenchOptions(target="fast=m:app", baseline=out), text) == 0
    report = text.getvalue()
    # The same rounds again: no change, within the interval their spread gives.
    assert "\nfast against the baseline: req/s +0.0% (99% CI -" in report
    assert "\nfast against the baseline: p99 latency +0.0% (99% CI -" in report
    assert report.endswith("no regression beyond 5%\n")


@pytest.mark.usefixtures("fake_rounds")
def test_against_judges_each_target_by_its_paired_rounds(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    options = BenchOptions(compare=("fast=m:app", "slow=http://h:1/"), against="fast", json=out)
    text = io.StringIO()

    # slow's req/s is 27% of fast's, but its rounds vary from 17% to 40%: 3 rounds cannot say.
    assert command.bench(options, text) == 0

    assert text.getvalue().endswith(
        "inconclusive: slow against fast: req/s -72.9% (99% CI -97.9% to +250.1%): the rounds "
        "vary too much to tell whether it is worse than 5%; more rounds (--rounds) narrow the "
        "interval\n"
        "inconclusive: slow against fast: p99 latency +102.7% (99% CI -36.7% to +549.1%): the "
        "rounds vary too much to tell whether it is worse than 5%; more rounds (--rounds) narrow "
        "the interval\n"
        "no regression beyond 5%\n"
    )
    checks = json.loads(out.read_text())["checks"]
    assert [(c["label"], c["reference"], c["metric"], c["verdict"]) for c in checks] == [
        ("slow", "fast", "rps", "inconclusive"),
        ("slow", "fast", "p99_ms", "inconclusive"),
    ]


def test_a_baseline_of_another_scenario_is_refused_before_measuring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(command, "run_rounds", lambda targets, plan: results())
    out = tmp_path / "out.json"
    command.bench(BenchOptions(target="fast=m:app", json=out), io.StringIO())

    def measure_nothing(targets: Sequence[Target], plan: Plan) -> list[TargetResult]:
        raise AssertionError("measured")

    monkeypatch.setattr(command, "run_rounds", measure_nothing)
    argv = ["fast=m:app", "--path", "/other", "--connections", "8", "--baseline", str(out)]

    assert main(argv) == 2

    assert capsys.readouterr().err == (
        f"hasten bench: error: the baseline {out} measured another scenario (requests 'GET /' "
        "-> 'GET /other'; connections 64 -> 8): measure the baseline with the same requests "
        "and options\n"
    )


@pytest.mark.usefixtures("fake_rounds")
def test_a_failed_baseline_exits_3(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    command.bench(BenchOptions(target="fast=m:app", json=out), io.StringIO())
    document = json.loads(out.read_text())
    for measured in document["targets"][0]["rounds"]:
        measured["p99_ms"] /= 10
    out.write_text(json.dumps(document))
    text = io.StringIO()
    options = BenchOptions(target="fast=m:app", baseline=out, max_regression=10)
    assert command.bench(options, text) == command.REGRESSION_EXIT
    assert "regression: fast against the baseline: p99 latency +900.0% (99% CI +" in (
        text.getvalue()
    )
    assert "worse than the 10% allowed" in text.getvalue()


@pytest.mark.usefixtures("fake_rounds")
def test_without_py_spy_a_profile_is_said_missing_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(command, "find_py_spy", lambda: None)
    options = BenchOptions(compare=("fast=m:app", "slow=http://h:1/"), profile=True)
    assert command.bench(options, io.StringIO()) == 0
    assert capsys.readouterr().err == (
        "hasten bench: warning: --profile needs py-spy (pip install 'hasten[bench]'): "
        "measuring without profiles\n"
    )


@pytest.mark.usefixtures("fake_rounds")
def test_a_url_without_pid_is_not_profiled(capsys: pytest.CaptureFixture[str]) -> None:
    options = BenchOptions(compare=("fast=m:app", "slow=http://h:1/"), profile=True)
    assert command.bench(options, io.StringIO()) == 0
    assert capsys.readouterr().err == (
        "hasten bench: warning: slow: no profile: a URL target is profiled only with --pid\n"
    )


def test_profiles_go_beside_the_report(tmp_path: Path) -> None:
    targets = command.targets_of(BenchOptions(target="m:app"))
    beside = command._profiling(
        BenchOptions(target="m:app", profile=True, html=tmp_path / "r.html"), targets
    )
    assert (beside.folder, beside.prefix) == (tmp_path, "r")
    here = command._profiling(BenchOptions(target="m:app", profile=True), targets)
    assert (here.folder, here.prefix) == (Path(), "hasten-bench")
    assert command._profiling(BenchOptions(target="m:app"), targets).py_spy is None
    recording = here.recording("m@granian/rsgi#2", 3, 1)
    assert recording is not None
    assert recording.path == Path("hasten-bench-profile-m_granian_rsgi_2-round3.speedscope.json")
    assert here.recording("m", 1, None) is None  # no process to sample


def test_the_scenario_comes_from_requests_or_the_path(tmp_path: Path) -> None:
    url = BenchOptions(target="http://h:1/hello?x=1")
    assert command.requests_of(url, command.targets_of(url)) == [RequestSpec("/hello?x=1")]
    app = BenchOptions(target="m:app")
    assert command.requests_of(app, command.targets_of(app)) == [RequestSpec("/")]
    path = BenchOptions(target="m:app", path="/items/{1..9}")
    assert command.requests_of(path, []) == [RequestSpec("/items/{1..9}")]
    scenario = tmp_path / "s.toml"
    scenario.write_text("[[request]]\npath = '/a'\n")
    both = BenchOptions(target="m:app", scenario=scenario, request=("POST /b",))
    assert command.requests_of(both, []) == [RequestSpec("/a"), RequestSpec("/b", "POST")]


def test_wrk_when_installed_else_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    warnings = io.StringIO()
    monkeypatch.setattr(command, "find_wrk", lambda: None)
    auto = command.choose_generator(BenchOptions(target="m:app"), warnings)
    assert isinstance(auto, BuiltinGenerator)
    assert "wrk not found" in warnings.getvalue()
    with pytest.raises(OptionsError, match="wrk is not installed"):
        command.choose_generator(BenchOptions(target="m:app", loadgen="wrk"))

    made: list[tuple[str, int]] = []

    def wrk(path: str, threads: int) -> BuiltinGenerator:
        made.append((path, threads))
        return BuiltinGenerator()

    monkeypatch.setattr(command, "WrkGenerator", wrk)
    monkeypatch.setattr(command, "find_wrk", lambda: "/bin/wrk")
    command.choose_generator(BenchOptions(target="m:app", duration=1.5, threads=2), warnings)
    assert made == [("/bin/wrk", 2)]
    assert "durations are rounded" in warnings.getvalue()
    builtin = BenchOptions(target="m:app", loadgen="builtin")
    assert isinstance(command.choose_generator(builtin), BuiltinGenerator)
    counted = BenchOptions(target="m:app", count=100)  # wrk is "installed", but cannot count
    assert isinstance(command.choose_generator(counted), BuiltinGenerator)


def test_wrk_generator_describes_itself() -> None:
    generator = WrkGenerator("/bin/true", threads=2)
    assert generator.describe() == "wrk unknown (2 threads)"


def test_progress_draws_a_bar_only_when_enabled() -> None:
    stream = io.StringIO()
    with Progress(stream, enabled=True).phase("app: round 1/1", 0.3):
        time.sleep(0.25)
    assert "app: round 1/1 [####" in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[2K")
    counting = io.StringIO()
    with Progress(counting, enabled=True).phase("app: round 1/1, 500 requests", None):
        time.sleep(0.05)
    assert "app: round 1/1, 500 requests  0.0 s" in counting.getvalue()
    quiet = io.StringIO()
    with Progress(quiet).phase("app", 0.1):
        pass
    assert quiet.getvalue() == ""


def test_sigterm_is_left_alone_outside_the_main_thread() -> None:
    entered: list[bool] = []

    def enter() -> None:
        with command._sigterm_interrupts():
            entered.append(True)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    assert entered == [True]


def test_python_dash_m_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hasten.bench", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ},
    )
    assert done.stdout.startswith("usage: hasten bench")


def test_the_ci_recipe_of_the_docs_is_a_gate_bench_takes() -> None:
    page = (ROOT / "docs" / "bench.md").read_text()
    recipe = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    (folded,) = re.findall(r"- run: >\n((?:\s{10}\S.*\n)+)", recipe)
    argv = shlex.split(" ".join(folded.split()))
    assert argv[:2] == ["hasten", "bench"]

    options = from_arguments(BenchOptions, parse(*argv[2:]))

    assert (options.against, options.root, options.round_count) == ("main", ("main=../main",), 6)
    assert options.gated
