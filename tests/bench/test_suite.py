"""benchmarks/suite.py: its bench command lines, installs, and the report from real bench JSON."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks import suite
from hasten._cli.arguments import add_arguments, from_arguments
from hasten.bench.command import BenchOptions, requests_of, targets_of
from hasten.bench.targets import AppTarget

ORDER = '{"id":{1..10000},"name":"pen","price":1.5,"quantity":2,"tags":["a","b"],"active":true}'


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


def test_check_statuses_at_the_limits() -> None:
    assert suite.Check("g", "uvicorn", 0.97, 0.97).status == "MET"
    assert suite.Check("g", "uvicorn", 0.969, 0.97).status == "NOT MET"
    assert suite.Check("g", "uvicorn", 1.15, 1.15, at_most=True).status == "MET"
    assert suite.Check("g", "uvicorn", 1.16, 1.15, at_most=True).status == "NOT MET"
    blocking = suite.Check("g", "uvicorn", 1799.6, 1800, unit="req/s")
    assert (blocking.status, blocking.figure()) == ("NOT MET", "1,800 req/s")
    assert suite.Check("g", "uvicorn", None, 1800).figure() == "-"
    assert suite.Check("g", "uvicorn", 2.0, 1.0, failed=True).status == "NOT VALID"


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
