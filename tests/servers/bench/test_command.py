"""``hasten bench`` end to end: real apps served on Granian and uvicorn, compared, gated on a
baseline, profiled, and no server left behind however a run ends. (Its options and its parts
in-process: tests/bench/test_command.py.)"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from hasten.bench import main
from hasten.bench.reports import SCHEMA
from hasten.bench.targets import Server, free_port
from tests.bench.conftest import APP, ROOT, FindMarked, counted

SHORT = ["--duration", "1", "--warmup", "0"]


def test_compare_two_targets(
    tmp_path: Path, marked: FindMarked, capsys: pytest.CaptureFixture[str]
) -> None:
    out, html = tmp_path / "out.json", tmp_path / "report.html"
    targets = [f"rsgi={APP}@granian/rsgi", f"asgi={APP}@granian/asgi", f"{APP}@uvicorn"]
    files = ["--json", str(out), "--html", str(html)]
    options = ["--path", "/items/{1..100}", "--rounds", "1", *SHORT, *files]
    code = main(["--compare", *targets, *options])
    assert code == 0
    assert marked() == []
    document = json.loads(out.read_text())
    assert document["schema"] == SCHEMA
    assert document["scenario"] == "GET /items/{1..100}"
    assert document["settings"]["rounds"] == 1
    assert {"python", "granian", "uvicorn", "wrk"} <= set(document["versions"])
    assert {"cores", "cpu_model"} <= set(document["machine"])
    rsgi, asgi, uvicorn = document["targets"]
    described = [(t["label"], t["server"], t["interface"]) for t in document["targets"]]
    assert described == [
        ("rsgi", "granian", "rsgi"),
        ("asgi", "granian", "asgi"),
        ("app", "uvicorn", "asgi"),
    ]
    for target in (rsgi, asgi, uvicorn):
        (measured,) = target["rounds"]
        assert measured["rps"] > 100
        assert (measured["errors"], measured["non_2xx"]) == (0, 0)
        assert measured["cpu_s_per_10k"] > 0
        assert measured["peak_rss_mb"] > 10
        assert target["median"]["rps"] == measured["rps"]
    assert rsgi["ratio"]["rps"] == 1
    assert asgi["ratio"]["rps"] == pytest.approx(asgi["median"]["rps"] / rsgi["median"]["rps"])
    page = html.read_text()
    assert page.count("<svg") == 4
    assert page.count("<polyline") == 3
    assert "<script" not in page
    assert "<link" not in page
    assert "src=" not in page
    report = capsys.readouterr().out
    assert "req/s" in report
    assert "rsgi " in report
    assert "asgi " in report
    assert "x1.00" in report


def test_url_mode_and_baseline(
    served: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://{served.host}:{served.port}/hello"
    out = tmp_path / "out.json"
    requests = ["--request", "/hello", "--request", "/missing weight=0.01", "--rounds", "3"]
    assert main([url, *requests, *SHORT, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "no CPU or RSS figures" in captured.out
    assert "answers 404 to GET /missing HTTP/1.1" in captured.err
    document = json.loads(out.read_text())
    (target,) = document["targets"]
    assert target["kind"] == "url"
    assert target["median"]["cpu_s_per_10k"] is None
    assert target["median"]["rps"] > 100

    # A baseline a hundred times faster: this run regresses, exit code 3.
    for measured in target["rounds"]:
        measured["rps"] *= 100
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(document))
    code = main([url, *requests, *SHORT, "--pid", str(served.pid), "--baseline", str(baseline)])
    assert code == 3
    report = capsys.readouterr().out
    assert f"regression: {served.host}:{served.port} against the baseline: req/s -9" in report
    assert "worse than the 5% allowed" in report
    assert "no CPU or RSS figures" not in report


def test_against_in_one_run_on_a_port_asked_for(
    tmp_path: Path, marked: FindMarked, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    targets = ["--compare", f"main={APP}", f"pr={APP}", "--against", "main"]
    options = ["--path", "/hello", "--rounds", "2", *SHORT, "--port", str(free_port())]

    assert main([*targets, *options, "--json", str(out)]) == 0

    assert marked() == []
    report = capsys.readouterr()
    # 2 rounds of 1 s tell little: the change may be said inconclusive, never a regression.
    assert re.search(r"\n(inconclusive: )?pr against main: req/s [-+]", report.out)
    assert report.out.endswith("no regression beyond 5%\n")
    assert "hasten bench: [4/4] main, round 2/2" in report.err  # a line a CI log keeps
    document = json.loads(out.read_text())
    assert [len(target["rounds"]) for target in document["targets"]] == [2, 2]
    assert [check["metric"] for check in document["checks"]] == ["rps", "p99_ms"]


def test_n_sends_exactly_n_requests_each_round(
    served: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://{served.host}:{served.port}/counted"
    out = tmp_path / "out.json"
    before = counted(served)
    assert main([url, "-n", "300", "--rounds", "2", "--warmup", "0", "--json", str(out)]) == 0
    # The status check of the first round sends one request more.
    assert counted(served) - before == 2 * 300 + 1
    (target,) = json.loads(out.read_text())["targets"]
    assert [(item["requests"], item["errors"]) for item in target["rounds"]] == [(300, 0)] * 2
    report = capsys.readouterr().out
    assert "| 300 requests |" in report
    assert re.search(r"\n\S+\s+url\s+300\s", report)  # the requests column


def test_profile_writes_a_flame_graph_and_a_speedscope_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    argv = [APP, "--path", "/spin", "--duration", "1", "--warmup", "0", "--profile"]
    assert main([*argv, "--json", str(out)]) == 0
    svg, speedscope = (
        tmp_path / "out-profile-app-round1.svg",
        tmp_path / "out-profile-app-round1.speedscope.json",
    )
    assert json.loads(speedscope.read_text())["profiles"]
    titles = [
        element.text or ""
        for element in ElementTree.parse(svg).iter("{http://www.w3.org/2000/svg}title")
    ]
    handler = [
        title for title in titles if title.startswith("spin (") and "tests/bench/app.py" in title
    ]
    assert handler, titles
    (target,) = json.loads(out.read_text())["targets"]
    assert target["rounds"][0]["profile"] == {"flamegraph": str(svg), "speedscope": str(speedscope)}
    captured = capsys.readouterr()
    assert f"  app, round 1: {svg}  {speedscope}" in captured.out
    assert captured.err == "hasten bench: [1/1] app, round 1/1\n"  # the progress, no warning


@pytest.fixture
def not_python() -> Iterator[int]:
    """The pid of a process that py-spy cannot profile: it runs no Python."""
    process = subprocess.Popen(["sleep", "60"])
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_a_profile_py_spy_cannot_record_is_said_once_and_the_run_goes_on(
    served: Server, not_python: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://{served.host}:{served.port}/hello"
    out = tmp_path / "out.json"
    argv = [url, "--pid", str(not_python), "-n", "200", "--rounds", "2", "--warmup", "0"]
    assert main([*argv, "--profile", "--json", str(out)]) == 0
    progress, line, _ = capsys.readouterr().err.splitlines()  # said once, in round 1
    assert progress.startswith("hasten bench: [1/2] ")
    assert line.startswith(
        f"hasten bench: warning: {served.host}:{served.port}: no profile: py-spy: "
    )
    (target,) = json.loads(out.read_text())["targets"]
    assert [item["profile"] for item in target["rounds"]] == [None, None]
    assert [item["requests"] for item in target["rounds"]] == [200, 200]
    assert list(tmp_path.iterdir()) == [out]


def test_no_server_survives_a_failed_start(
    marked: FindMarked, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tests.bench.no_such_module:app", *SHORT]) == 1
    assert "the server exited with" in capsys.readouterr().err
    assert marked() == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_no_server_survives_an_interrupted_run(marked: FindMarked, signum: int) -> None:
    # ``python -m hasten.bench`` as a terminal starts it, Ctrl-C raising KeyboardInterrupt: a
    # suite started in the background (``cmd &`` without job control) ignores SIGINT, and a
    # Python started from it would too.
    argv = [sys.executable, "-c", _AS_FROM_A_TERMINAL, APP, "--path", "/hello", "--duration", "30"]
    bench = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for_load(bench, marked)
        bench.send_signal(signum)
        _, errors = bench.communicate(timeout=20)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.communicate()
    assert bench.returncode == 130
    assert b"interrupted" in errors
    assert marked() == []


_AS_FROM_A_TERMINAL = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('hasten.bench', run_name='__main__', alter_sys=True)"
)


def wait_for_load(bench: subprocess.Popen[bytes], marked: FindMarked) -> None:
    """Return once the bench's server has a worker and wrk or the warm-up has begun."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert bench.poll() is None, bench.communicate()
        others = [process for process in marked() if process.pid != bench.pid]
        if len(others) >= 2:  # granian's main process and its worker
            time.sleep(1.0)  # the server answers within this; load is under way
            return
        time.sleep(0.1)
    pytest.fail(f"no server started within 20 s; marked processes: {marked()}")
