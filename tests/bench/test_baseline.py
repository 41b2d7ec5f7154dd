"""The regression check against an earlier --json file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hasten.bench.baseline import BaselineError, Regression, find_regressions, read_baseline
from hasten.bench.measurement import Metrics


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
