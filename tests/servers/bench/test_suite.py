"""benchmarks/suite.py end to end: a real bench run's JSON made into the report's tables, targets
judged on the measured figures, a report rebuilt without running. (Its command lines and
installs in-process: tests/bench/test_suite.py.)"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import suite

MEASURED = ("hello", "path-param", "routes-1000")


SETTINGS = suite.Settings(duration=1, warmup=0, rounds=1, connections=16)


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
