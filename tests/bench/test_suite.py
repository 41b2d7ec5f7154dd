"""benchmarks/suite.py: its bench command lines, installs, and the report from real bench JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmarks import suite
from hasten._cli.arguments import add_arguments, from_arguments
from hasten.bench.command import BenchOptions, requests_of, targets_of
from hasten.bench.targets import AppTarget

MEASURED = ("hello", "path-param", "routes-1000")
SETTINGS = suite.Settings(duration=1, warmup=0, rounds=1, connections=16)
ORDER = '{"id":{1..10000},"name":"pen","price":1.5,"quantity":2,"tags":["a","b"],"active":true}'


@pytest.fixture(scope="module")
def json_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real ``hasten bench --compare`` JSON of hasten and raw RSGI, from the suite's argv."""
    directory = tmp_path_factory.mktemp("suite")
    for name in MEASURED:
        scenario = suite.BY_NAME[name]
        argv = suite.bench_argv(
            scenario,
            SETTINGS,
            directory / f"{name}.json",
            python=sys.executable,
            targets=suite.target_specs(scenario)[:2],  # hasten and raw on Granian RSGI
            loadgen="auto",
        )
        subprocess.run(argv, cwd=suite.ROOT, check=True, capture_output=True, timeout=60)
    return directory


def medians(json_dir: Path, scenario: str) -> dict[str, dict[str, Any]]:
    document = json.loads((json_dir / f"{scenario}.json").read_text())
    return {target["label"]: target["median"] for target in document["targets"]}


def table_line(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def test_bench_argv_of_a_scenario_is_exact() -> None:
    apps = "benchmarks.apps"
    assert json_body_argv() == [
        str(suite.ROOT / "benchmarks/.venv-peers/bin/python"),
        *("-m", "hasten", "bench", "--compare"),
        f"hasten={apps}.hasten_app:app@granian/rsgi",
        f"raw={apps}.raw_rsgi:app@granian/rsgi",
        f"hasten={apps}.hasten_app:app@granian/asgi",
        f"raw={apps}.raw_asgi:app@granian/asgi",
        f"starlette={apps}.starlette_app:app@granian/asgi",
        f"fastapi={apps}.fastapi_app:app@granian/asgi",
        f"litestar={apps}.litestar_app:app@granian/asgi",
        f"blacksheep={apps}.blacksheep_app:app@granian/asgi",
        f"hasten={apps}.hasten_app:app@uvicorn",
        f"raw={apps}.raw_asgi:app@uvicorn",
        f"starlette={apps}.starlette_app:app@uvicorn",
        f"fastapi={apps}.fastapi_app:app@uvicorn",
        f"litestar={apps}.litestar_app:app@uvicorn",
        f"blacksheep={apps}.blacksheep_app:app@uvicorn",
        "--request",
        f"POST /orders body='{ORDER}' header=content-type:application/json",
        *("--duration", "2", "--warmup", "1", "--rounds", "3", "--workers", "1"),
        *("--connections", "64", "--loadgen", "wrk", "--json", "out/j.json"),
    ]


def bench_options(argv: Sequence[str]) -> BenchOptions:
    """``argv`` (after ``python -m hasten bench``) read by hasten bench's own parser."""
    parser = argparse.ArgumentParser()
    add_arguments(parser, BenchOptions)
    return from_arguments(BenchOptions, parser.parse_args(argv[4:]))


def test_hasten_bench_reads_each_scenario_as_meant() -> None:
    sent = {}
    for scenario in suite.SCENARIOS:
        options = bench_options(suite.bench_argv(scenario, suite.Settings(), Path("s.json")))
        targets = targets_of(options)
        labels = [target.label for target in targets]
        assert labels[:3] == ["hasten@granian/rsgi", "raw@granian/rsgi", "hasten@granian/asgi"]
        assert (len(set(labels)), labels[-1]) == (14, "blacksheep@uvicorn/asgi")
        apps = [target.app for target in targets if isinstance(target, AppTarget)]
        assert len(apps) == 14
        assert {app.partition(":")[2] for app in apps} == {scenario.app}
        (spec,) = requests_of(options, targets)
        sent[scenario.name] = (spec.method, spec.path, options.connections)
    assert sent == {
        "hello": ("GET", "/hello", 64),
        "path-param": ("GET", "/items/{1..10000}", 64),
        "routes-1000": ("GET", "/r999/{1..10000}", 64),
        "query": ("GET", "/query?page={1..50}&size=20&ratio=0.5&active=true&q=text", 64),
        "json-body": ("POST", "/orders", 64),
        "sync": ("GET", "/sync", 64),
        "blocking": ("GET", "/blocking", 100),
        "middleware": ("GET", "/hello", 64),
    }
    assert suite.BY_NAME["middleware"].app == "app_mw"


def test_the_order_body_varies_and_is_json() -> None:
    (order,) = requests_of(bench_options(json_body_argv()), [])
    assert order.body == ORDER.encode()
    assert order.headers == (("content-type", "application/json"),)
    assert order.varies


def json_body_argv() -> list[str]:
    return suite.bench_argv(suite.BY_NAME["json-body"], suite.Settings(), Path("out/j.json"))


@pytest.mark.server
def test_scenario_tables_show_the_json_medians(json_dir: Path) -> None:
    text = suite.render(suite.load_documents(json_dir), {})
    for name in MEASURED:
        found = medians(json_dir, name)
        hasten, raw = found["hasten"], found["raw"]
        section = text[text.index(f"## {name}\n") :]
        assert (
            table_line(
                "hasten@granian/rsgi",
                f"{hasten['rps']:,.0f}",
                f"{hasten['p99_ms']:.2f}",
                f"{hasten['cpu_s_per_10k']:.2f}",
                f"{suite.TIMES}{hasten['rps'] / raw['rps']:.2f}",
                "-",
            )
            in section
        )
        assert (
            table_line(
                "raw@granian/rsgi",
                f"{raw['rps']:,.0f}",
                f"{raw['p99_ms']:.2f}",
                f"{raw['cpu_s_per_10k']:.2f}",
                "-",
                f"vs hasten {suite.TIMES}{raw['rps'] / hasten['rps']:.2f}",
            )
            in section
        )


@pytest.mark.server
def test_routes_table_divides_the_two_runs(json_dir: Path) -> None:
    text = suite.render(suite.load_documents(json_dir), {})
    single, last = medians(json_dir, "path-param"), medians(json_dir, "routes-1000")
    for label in ("hasten", "raw"):
        assert (
            table_line(
                f"{label}@granian/rsgi",
                f"{single[label]['rps']:,.0f}",
                f"{last[label]['rps']:,.0f}",
                f"{suite.TIMES}{last[label]['rps'] / single[label]['rps']:.2f}",
            )
            in text
        )


@pytest.mark.server
def test_targets_are_evaluated_on_the_measured_figures(json_dir: Path) -> None:
    documents = suite.load_documents(json_dir)
    checks = suite.evaluate({name: suite.rows_of(doc) for name, doc in documents.items()})
    hello, single, last = (medians(json_dir, name) for name in MEASURED)
    expected = {
        ("hello: req/s", "granian/rsgi"): hello["hasten"]["rps"] / hello["raw"]["rps"],
        ("hello: CPU", "granian/rsgi"): (
            hello["hasten"]["cpu_s_per_10k"] / hello["raw"]["cpu_s_per_10k"]
        ),
        ("1,000 routes", "granian/rsgi"): last["hasten"]["rps"] / single["hasten"]["rps"],
        ("path-param: req/s", "granian/rsgi"): single["hasten"]["rps"] / single["raw"]["rps"],
        ("hello: instructions", "in-process"): instructions("hello") / instructions("raw"),
    }
    limits = {
        "hello: req/s": 0.90,
        "hello: CPU": 1.15,
        "1,000 routes": 0.97,
        "path-param: req/s": 0.90,
        "hello: instructions": 1.5,
    }
    measured = [check for check in checks if check.measured is not None]
    assert len(measured) == len(expected)
    text = suite.render(documents, {})
    for check in measured:
        (key,) = [key for key in expected if check.goal.startswith(key[0])]
        assert (check.where, check.limit) == (key[1], limits[key[0]])
        value = check.measured
        assert value is not None
        assert value == pytest.approx(expected[key])
        at_most = key[0] in ("hello: CPU", "hello: instructions")
        met = value <= check.limit if at_most else value >= check.limit
        assert check.status == ("MET" if met else "NOT MET")
        figure = f"{suite.TIMES}{expected[key]:.2f}"
        assert table_line(check.goal, check.where, figure, f"**{check.status}**") in text
    unmeasured = {check.goal.partition(":")[0] for check in checks if check.measured is None}
    assert unmeasured == {
        "hello",
        "1,000 routes",
        "json-body",
        "sync",
        "blocking sync handler, 100 connections",
    }
    assert all(check.status == "NOT MEASURED" for check in checks if check.measured is None)


def instructions(scenario: str) -> float:
    """A scenario's instructions per request where overhead.py's budgets were set ("raw":
    the raw app)."""
    counts = json.loads(suite.OVERHEAD_COUNTS.read_text())["instructions_per_request"]
    count: float = counts["raw rsgi /hello" if scenario == "raw" else scenario]
    return count


def test_check_statuses_at_the_limits() -> None:
    assert suite.Check("g", "uvicorn", 0.97, 0.97).status == "MET"
    assert suite.Check("g", "uvicorn", 0.969, 0.97).status == "NOT MET"
    assert suite.Check("g", "uvicorn", 1.15, 1.15, at_most=True).status == "MET"
    assert suite.Check("g", "uvicorn", 1.16, 1.15, at_most=True).status == "NOT MET"
    blocking = suite.Check("g", "uvicorn", 1799.6, 1800, unit="req/s")
    assert (blocking.status, blocking.figure()) == ("NOT MET", "1,800 req/s")
    assert suite.Check("g", "uvicorn", None, 1800).figure() == "-"
    assert suite.Check("g", "uvicorn", 2.0, 1.0, failed=True).status == "NOT VALID"


@pytest.mark.server
def test_a_target_whose_requests_failed_is_not_valid(json_dir: Path) -> None:
    documents = suite.load_documents(json_dir)
    results = {name: suite.rows_of(document) for name, document in documents.items()}
    raw = suite.find(results["hello"], "raw", "granian/rsgi")
    assert raw is not None
    results["hello"] = [
        dataclasses.replace(row, non_2xx=5.0) if row is raw else row for row in results["hello"]
    ]
    hello = [check for check in suite.evaluate(results) if check.goal.startswith("hello")]
    # RSGI against raw (req/s, CPU), uvicorn (unmeasured), RSGI against ASGI (unmeasured),
    # and the in-process instruction count, which no failed request touches.
    statuses = [check.status for check in hello]
    assert statuses[:4] == ["NOT VALID", "NOT VALID", "NOT MEASURED", "NOT MEASURED"]
    assert statuses[4] in ("MET", "NOT MET")
    routes = [check for check in suite.evaluate(results) if check.goal.startswith("1,000")]
    assert routes[0].status in ("MET", "NOT MET")


@pytest.mark.server
def test_report_only_rebuilds_results_without_running(
    json_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> list[str]:
        raise AssertionError("--report-only ran the suite")

    monkeypatch.setattr(suite, "run_suite", refuse)
    results = shutil.copytree(json_dir, tmp_path / "results")
    versions = {"starlette": "1.10.0", "litestar": None}
    (results / suite.VERSIONS_FILE).write_text(json.dumps(versions))
    output = tmp_path / "RESULTS.md"
    argv = ["--report-only", "--json-dir", str(results), "--output", str(output)]
    assert suite.main(argv) == 0
    text = output.read_text()
    assert text == suite.render(suite.load_documents(results), versions)
    script = [sys.executable, str(suite.ROOT / "benchmarks/suite.py"), *argv]
    output.unlink()
    subprocess.run(script, check=True, capture_output=True, timeout=30)
    assert output.read_text() == text
    command = (
        "python benchmarks/suite.py --duration 1 --warmup 0 --rounds 1 --connections 16 "
        "--only hello path-param routes-1000"
    )
    assert f"\n    {command}\n" in text
    assert "starlette 1.10.0, litestar not installed" in text
    assert "1 round, 16 connections, one worker per server" in text
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## hello",
        "## path-param",
        "## routes-1000",
        "## Targets",
    ]
    assert suite.main([*argv, "--only", "hello"]) == 0
    assert "## path-param" not in output.read_text()
    # The other benchmarks' sections and the TFB section (benchmarks/tfb/run.py's) are kept.
    tfb = f"{suite.TFB_SECTION}\n## TFB test types on PostgreSQL\n"
    output.write_text(output.read_text() + "\n" + tfb)
    assert suite.main(argv) == 0
    assert output.read_text() == text + "\n" + tfb
    others = f"{suite.OTHERS_SECTION}\n## Streams\n\n{tfb}"
    output.write_text(text + "\n" + others)
    assert suite.main(argv) == 0
    assert output.read_text() == text + "\n" + others


def test_report_only_without_json_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert suite.main(["--report-only", "--json-dir", str(tmp_path)]) == 1
    assert "no results in" in capsys.readouterr().err


def test_notes_flag_failures_and_a_client_bound_run() -> None:
    row = suite.Row("fastapi", "uvicorn", 10.0, 1.0, 1.0, 0.0, 12.0, 0.95)
    assert suite.notes([row], "wrk") == [
        "- fastapi@uvicorn: 0 errors and 12 responses >= 400 (medians): its req/s is suspect.",
        "- fastapi@uvicorn: the load generator, not the server, was the bottleneck.",
    ]


def recorder() -> tuple[list[list[str]], suite.Run]:
    """A stand-in for run_command that records commands; ``-m venv DIR`` makes DIR."""
    commands: list[list[str]] = []

    def run(argv: Sequence[str]) -> None:
        commands.append(list(argv))
        if argv[1:3] == ["-m", "venv"]:
            Path(argv[3]).mkdir()

    return commands, run


def test_peers_venv_is_installed_only_when_missing_or_changed(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    commands, run = recorder()
    suite.ensure_peers(venv, run)
    install = [
        str(venv / "bin/python"),
        *("-m", "pip", "install", "--quiet", "-e", ".[dev]", "-r", str(suite.REQUIREMENTS)),
    ]
    assert commands == [[sys.executable, "-m", "venv", str(venv)], install]
    (venv / "bin").mkdir()
    (venv / "bin/python").touch()  # what a real `python -m venv` would have made
    commands.clear()
    suite.ensure_peers(venv, run)
    assert commands == []
    (venv / suite.STAMP_NAME).write_text("an older digest\n")
    suite.ensure_peers(venv, run)
    assert commands == [install]
    assert (venv / suite.STAMP_NAME).read_text().strip() == suite.requirements_digest()


def test_wrk_is_installed_with_apt_when_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands, run = recorder()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    suite.ensure_wrk(run)
    assert commands == [["apt-get", "update"], ["apt-get", "install", "-y", "wrk"]]
    assert "installing it with apt-get" in capsys.readouterr().out
    commands.clear()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/wrk")
    suite.ensure_wrk(run)
    assert commands == []


def test_a_failed_command_is_a_suite_error() -> None:
    with pytest.raises(suite.SuiteError, match="failed"):
        suite.run_command([sys.executable, "-c", "raise SystemExit(3)"])


def test_the_recommended_run_takes_about_25_minutes() -> None:
    minutes = suite.estimate_minutes(suite.SCENARIOS, suite.Settings())
    assert 20 <= minutes <= 30
