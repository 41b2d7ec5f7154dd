"""The results document and its reports, from measurements made up by hand; the regression
check against an earlier --json file."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest

from hasten.bench.load import BuiltinGenerator
from hasten.bench.measurement import Metrics
from hasten.bench.reports import (
    BaselineError,
    Regression,
    build_document,
    find_regressions,
    format_latency,
    read_baseline,
    render_html,
    render_text,
)
from tests.bench.conftest import results

SETTINGS: dict[str, Any] = {
    "mode": "concurrent",
    "connections": 64,
    "duration": 2.0,
    "count": None,
    "warmup": 1.0,
    "rounds": 3,
}
STARTED = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def document(**settings: Any) -> dict[str, Any]:
    return build_document(
        settings=SETTINGS | settings,
        generator=BuiltinGenerator(),
        scenario="GET /",
        results=results(),
        started=STARTED,
    )


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


def test_a_count_of_requests_is_in_the_header_and_its_own_column() -> None:
    text = render_text(document(count=4000))
    assert "| 4,000 requests after 1 s warm-up |" in text.splitlines()[0]
    assert text.splitlines()[3].split()[:3] == ["target", "server", "requests"]
    assert re.search(r"fast\s+granian/rsgi\s+4,000\s+2,000", text)
    assert "requests" not in render_text(document()).splitlines()[3]
    assert "4,000 requests per round" in render_html(document(count=4000))


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


# The baseline.
def metrics(rps: float, p99: float | None = 2.0) -> Metrics:
    return {"rps": rps, "p99_ms": p99, "p50_ms": 1.0}


BASE = {"a": metrics(10_000), "b": metrics(20_000)}


def test_within_the_threshold_is_no_regression() -> None:
    current = {"a": metrics(9_600, 2.09), "b": metrics(25_000, 1.0)}
    assert find_regressions(current, BASE, 5) == []


def test_slower_or_later_beyond_the_threshold_is_a_regression() -> None:
    current = {"a": metrics(9_000), "b": metrics(20_000, 2.5), "new": metrics(1)}
    found = find_regressions(current, BASE, 5)
    assert found == [Regression("a", "rps", 10_000, 9_000), Regression("b", "p99_ms", 2.0, 2.5)]
    assert found[0].change_percent == pytest.approx(-10)
    assert found[0].describe(5) == "a: req/s -10.0% (1e+04 -> 9,000), beyond the 5% allowed"
    assert found[1].describe(5) == "b: p99 latency +25.0% (2 -> 2.5), beyond the 5% allowed"


def test_missing_figures_are_not_compared() -> None:
    assert find_regressions({"a": metrics(5_000, None)}, {"a": metrics(0, 1)}, 5) == []


def test_a_baseline_without_any_of_the_targets_is_an_error() -> None:
    with pytest.raises(BaselineError, match="has none of this run's targets"):
        find_regressions({"c": metrics(1)}, BASE, 5)


def test_read_baseline(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"targets": [{"label": "a", "median": metrics(3)}]}))
    assert read_baseline(path) == {"a": metrics(3)}
    path.write_text('{"targets": 1}')
    with pytest.raises(BaselineError, match="cannot read baseline"):
        read_baseline(path)
