"""Percentiles, the histogram, medians and ratios against hand-computed values; py-spy's
recording of a process, for real."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hasten.bench.measurement import (
    Histogram,
    Recording,
    find_py_spy,
    median,
    percentile,
    ratio,
    ratios,
)
from tests.bench.conftest import results

# Nearest rank on 15, 20, 35, 40, 50: rank = ceil(p/100 * 5).
HAND = [(0, 15), (5, 15), (20, 15), (30, 20), (40, 20), (50, 35), (75, 40), (90, 50), (100, 50)]


@pytest.mark.parametrize(("p", "expected"), HAND)
def test_percentile_is_nearest_rank(p: float, expected: float) -> None:
    assert percentile([50, 15, 40, 20, 35], p) == expected


@pytest.mark.parametrize(("p", "expected"), HAND)
def test_histogram_is_exact_below_128_microseconds(p: float, expected: float) -> None:
    histogram = Histogram()
    for value in (50, 15, 40, 20, 35):
        histogram.record(value)
    assert histogram.percentile(p) == expected
    assert (histogram.count, histogram.minimum, histogram.maximum) == (5, 15, 50)
    assert histogram.mean == 32


def test_histogram_is_within_one_percent_on_large_values() -> None:
    rng = random.Random(1)
    values = [int(rng.lognormvariate(8, 1.5)) for _ in range(20_000)]
    histogram = Histogram()
    for value in values:
        histogram.record(value)
    for p in (50, 90, 99, 99.9, 99.99):
        assert histogram.percentile(p) == pytest.approx(percentile(values, p), rel=0.01)
    assert histogram.percentile(100) == max(values)
    assert histogram.mean == pytest.approx(sum(values) / len(values))


def test_histogram_merge_equals_recording_everything_in_one() -> None:
    first, second, both = Histogram(), Histogram(), Histogram()
    for value in (3, 900, 70_000):
        first.record(value)
        both.record(value)
    for value in (5, 1_200):
        second.record(value)
        both.record(value)
    first.merge(second)
    first.merge(Histogram())
    assert [first.percentile(p) for p in (20, 50, 100)] == [
        both.percentile(p) for p in (20, 50, 100)
    ]
    assert (first.count, first.minimum, first.maximum) == (5, 3, 70_000)


def test_empty_histogram_reports_zero() -> None:
    assert Histogram().percentile(99) == 0
    assert Histogram().mean == 0


def test_percentile_rejects_nothing_and_out_of_range() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"within 0\.\.100"):
        percentile([1], 101)


def test_median_skips_missing_values() -> None:
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert median([None, 7, None]) == 7
    assert median([None]) is None


def test_ratio() -> None:
    assert ratio(30, 20) == 1.5
    assert ratio(None, 20) is None
    assert ratio(30, None) is None
    assert ratio(30, 0) is None


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


# py-spy.
@pytest.fixture
def py_spy() -> str:
    found = find_py_spy()
    assert found is not None, "py-spy is in the dev extra: pip install -e '.[dev]'"
    return found


@pytest.fixture
def spinning() -> Iterator[int]:
    """The pid of a Python process that computes until it is killed."""
    code = "def spin():\n    while True:\n        sum(range(1000))\n\n\nspin()\n"
    process = subprocess.Popen([sys.executable, "-c", code])
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_a_recording_stopped_at_once_still_writes_its_file(
    py_spy: str, spinning: int, tmp_path: Path
) -> None:
    path = tmp_path / "p.speedscope.json"
    path.write_text("stale")
    with Recording(py_spy, spinning, path) as recording:
        pass  # py-spy samples already: the block starts only then
    assert recording.error is None
    document = json.loads(path.read_text())
    assert [profile["type"] for profile in document["profiles"]] == ["sampled"]


def test_a_process_py_spy_cannot_sample_is_one_line(py_spy: str, tmp_path: Path) -> None:
    sleeping = subprocess.Popen(["sleep", "30"])
    try:
        with Recording(py_spy, sleeping.pid, tmp_path / "p.json") as recording:
            pass
    finally:
        sleeping.kill()
        sleeping.wait()
    assert recording.error is not None
    assert recording.error.startswith("py-spy: Error: ")
    assert "\n" not in recording.error
    assert not (tmp_path / "p.json").exists()
