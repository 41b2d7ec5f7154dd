"""The results document and its reports, from measurements made up by hand."""

from __future__ import annotations

import datetime
import re
from typing import Any

from hasten.bench.compare import TargetResult, ratios
from hasten.bench.html import render_html
from hasten.bench.loadgen import BuiltinGenerator
from hasten.bench.measurement import LoadResult, Measurement
from hasten.bench.report import format_latency, render_text
from hasten.bench.results import build_document
from hasten.bench.stats import PERCENTILES
from hasten.bench.target import AppTarget, UrlTarget

SETTINGS = {"mode": "concurrent", "connections": 64, "duration": 2.0, "warmup": 1.0, "rounds": 3}
STARTED = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def load(rps: float, p50: float = 1.0, *, errors: int = 0, client: float = 0.5) -> LoadResult:
    return LoadResult(
        requests=int(rps * 2),
        seconds=2.0,
        errors=errors,
        non_2xx=0,
        latency_ms={p: p50 * (1 + index) for index, p in enumerate(PERCENTILES)},
        max_ms=p50 * 20,
        mean_ms=p50 * 1.2,
        client_cpu_seconds=client * 2,
        client_cores=1.0,
        statuses={200: int(rps * 2)},
    )


def measured(label: str, number: int, result: LoadResult, cpu: float | None = 1.0) -> Measurement:
    rss = None if cpu is None else 50 * 2**20
    return Measurement(
        label=label, round=number, load=result, server_cpu_seconds=cpu, server_peak_rss=rss
    )


def results() -> list[TargetResult]:
    fast = TargetResult(AppTarget("fast", "m:app", "granian", "rsgi", 1))
    slow = TargetResult(UrlTarget("slow", "127.0.0.1", 9, "/", None))
    for number, (a, b) in enumerate([(1000, 400), (3000, 500), (2000, 600)], start=1):
        fast.rounds.append(measured("fast", number, load(a, client=0.95)))
        slow.rounds.append(measured("slow", number, load(b, 2.0, errors=3), cpu=None))
    return [fast, slow]


def document() -> dict[str, Any]:
    return build_document(
        settings=SETTINGS,
        generator=BuiltinGenerator(),
        scenario="GET /",
        results=results(),
        started=STARTED,
    )


def test_medians_and_ratios() -> None:
    fast, slow = results()
    assert fast.median()["rps"] == 2000
    assert slow.median()["p50_ms"] == 2.0
    assert slow.median()["cpu_s_per_10k"] is None
    first, second = ratios([fast, slow])
    assert first["rps"] == 1
    assert second["rps"] == 0.25
    assert second["p50_ms"] == 2
    assert second["cpu_s_per_10k"] is None
    assert ratios([]) == []


def test_text_report() -> None:
    text = render_text(document())
    lines = text.splitlines()
    assert lines[0] == (
        "hasten bench: built-in asyncio client (1 core) | concurrent, 64 connections | "
        "2 s after 1 s warm-up | 3 rounds (median shown)"
    )
    assert re.search(r"fast\s+granian/rsgi\s+2,000\s+x1.00\s+1.00", text)
    assert re.search(r"slow\s+url\s+500\s+x0.25\s+2.00", text)
    assert re.search(r"fast\s+1,000\s+3,000\s+2,000", text)  # req/s by round
    assert "client-bound" in text
    assert "on fast" in text
    assert "slow: 3 errors" in text
    assert "slow: no CPU or RSS figures" in text


def test_html_report_is_self_contained() -> None:
    page = render_html(document())
    assert page.startswith("<!doctype html>")
    assert page.count("<svg") == 3
    assert page.count("<polyline") == 2
    assert "<script" not in page
    assert "src=" not in page
    assert "href=" not in page
    assert "2026-01-02T03:04:05+00:00" in page
    assert "<td>2,000</td>" in page


def test_format_latency() -> None:
    assert [format_latency(ms) for ms in (None, 0.4123, 2.814, 14.23, 180.4)] == [
        "-",
        "0.412",
        "2.81",
        "14.2",
        "180",
    ]
