"""``hasten bench`` end to end: --compare with --json and --html, URL mode, --baseline, and
that no server process outlives a run, whether it ends well, fails, or is interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hasten.bench.cli import main
from hasten.bench.results import SCHEMA
from hasten.bench.server import Server
from tests.bench.conftest import APP, ROOT, FindMarked

pytestmark = pytest.mark.server

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
    assert page.count("<svg") == 3
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
    requests = ["--request", "/hello", "--request", "/missing weight=0.01"]
    assert main([url, *requests, "--duration", "1", "--warmup", "1", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "no CPU or RSS figures" in captured.out
    assert "answers 404 to GET /missing HTTP/1.1" in captured.err
    document = json.loads(out.read_text())
    (target,) = document["targets"]
    assert target["kind"] == "url"
    assert target["median"]["cpu_s_per_10k"] is None
    assert target["median"]["rps"] > 100

    # A baseline ten times faster: this run regresses, exit code 3.
    target["median"]["rps"] *= 10
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(document))
    code = main([url, *requests, *SHORT, "--pid", str(served.pid), "--baseline", str(baseline)])
    assert code == 3
    report = capsys.readouterr().out
    assert f"regression: {served.host}:{served.port}: req/s -" in report
    assert "beyond the 5% allowed" in report
    assert "no CPU or RSS figures" not in report


def test_no_server_survives_a_failed_start(
    marked: FindMarked, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tests.bench.no_such_module:app", *SHORT]) == 1
    assert "the server exited with" in capsys.readouterr().err
    assert marked() == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_no_server_survives_an_interrupted_run(marked: FindMarked, signum: int) -> None:
    command = [sys.executable, "-m", "hasten.bench", APP, "--path", "/hello", "--duration", "30"]
    bench = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
