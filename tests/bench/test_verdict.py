"""The gate: a change judged by its rounds' spread, against another target of the run (paired
rounds) or an earlier run of the same scenario (its rounds)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from hasten.bench.verdict import (
    Baseline,
    BaselineError,
    Change,
    Check,
    baseline_checks,
    check_same_scenario,
    paired_change,
    paired_checks,
    read_baseline,
    unpaired_change,
)


def test_a_paired_change_is_the_mean_log_ratio_with_students_interval() -> None:
    change = paired_change([100, 200, 400], [90, 190, 350])
    assert change is not None
    ratios = [math.log(0.9), math.log(0.95), math.log(0.875)]
    mean = sum(ratios) / 3
    spread = math.sqrt(sum((r - mean) ** 2 for r in ratios) / 2) / math.sqrt(3)
    assert change.estimate == pytest.approx(math.exp(mean))
    assert change.low == pytest.approx(math.exp(mean - 9.925 * spread))  # t at 2 degrees, 99%
    assert change.high == pytest.approx(math.exp(mean + 9.925 * spread))


def test_pairs_cancel_what_the_machine_did_to_both() -> None:
    # The machine halved its speed for rounds 2 and 3: both targets slowed alike.
    change = paired_change([1000, 500, 500, 1000], [900, 450, 450, 900])
    assert change is not None
    assert (change.estimate, change.low, change.high) == pytest.approx((0.9, 0.9, 0.9))


def test_an_unpaired_change_is_welchs() -> None:
    change = unpaired_change([100, 102, 98, 101], [80, 82, 78])
    assert change is not None
    assert change.low < change.estimate < change.high < 1


@pytest.mark.parametrize("values", [[100], [100, None], [0, 100]])
def test_too_few_or_missing_figures_give_no_change(values: list[float | None]) -> None:
    assert paired_change(values, [100] * len(values)) is None
    assert unpaired_change(values, [100, 100]) is None


def check(metric: str, estimate: float, low: float, high: float) -> Check:
    return Check("pr", "main", metric, Change(estimate, low, high), 5)


@pytest.mark.parametrize(
    ("metric", "change", "verdict"),
    [
        ("rps", (0.88, 0.85, 0.91), "regression"),  # the whole interval is below -5%
        ("rps", (0.93, 0.86, 1.01), "inconclusive"),  # the estimate is, the interval is not
        ("rps", (0.97, 0.90, 1.04), "ok"),
        ("rps", (1.30, 1.20, 1.40), "ok"),  # faster
        ("p99_ms", (1.20, 1.10, 1.30), "regression"),
        ("p99_ms", (1.08, 0.98, 1.20), "inconclusive"),
        ("p99_ms", (0.80, 0.70, 0.90), "ok"),
    ],
)
def test_a_regression_is_worse_than_allowed_over_the_whole_interval(
    metric: str, change: tuple[float, float, float], verdict: str
) -> None:
    assert check(metric, *change).verdict == verdict


def test_each_verdict_is_one_line() -> None:
    assert check("rps", 0.88, 0.85, 0.91).describe() == (
        "regression: pr against main: req/s -12.0% (99% CI -15.0% to -9.0%), "
        "worse than the 5% allowed"
    )
    assert check("p99_ms", 1.08, 0.98, 1.2).describe() == (
        "inconclusive: pr against main: p99 latency +8.0% (99% CI -2.0% to +20.0%): the rounds "
        "vary too much to tell whether it is worse than 5%; more rounds (--rounds) narrow the "
        "interval"
    )
    assert check("rps", 0.97, 0.9, 1.04).describe() == (
        "pr against main: req/s -3.0% (99% CI -10.0% to +4.0%)"
    )
    unknown = Check("pr", "main", "rps", None, 5)
    assert unknown.verdict == "unknown"
    assert unknown.describe() == (
        "pr against main: req/s: too few rounds to judge (2 or more on each side)"
    )


def test_the_same_code_measured_with_noise_is_almost_never_a_regression() -> None:
    # Rounds that vary by +-10% (as on a loaded 2-core machine), the same code on both sides,
    # 6 rounds (the gate's default): 4,000 checks.
    noisy = random.Random(7)
    alarms = 0
    for _ in range(2_000):
        main = [10_000 * noisy.uniform(0.9, 1.1) for _ in range(6)]
        pr = [10_000 * noisy.uniform(0.9, 1.1) for _ in range(6)]
        for change in (paired_change(main, pr), unpaired_change(main, pr)):
            alarms += Check("pr", "main", "rps", change, 5).verdict == "regression"
    assert alarms <= 4  # about 1 in 7,000 in the long run


def rounds(*rps: float, p99: float = 2.0) -> list[dict[str, float | None]]:
    return [{"rps": value, "p99_ms": p99} for value in rps]


def test_paired_checks_judge_every_other_target_against_the_reference() -> None:
    measured = {
        "main": rounds(1000, 1010, 990),
        "pr": rounds(800, 810, 795),
        "same": rounds(1001, 1008, 992),
    }
    checks = paired_checks(measured, "main", 5)
    assert [(c.label, c.metric, c.verdict) for c in checks] == [
        ("pr", "rps", "regression"),
        ("pr", "p99_ms", "ok"),
        ("same", "rps", "ok"),
        ("same", "p99_ms", "ok"),
    ]


def document(**changes: Any) -> dict[str, Any]:
    made: dict[str, Any] = {
        "scenario": "GET /hello",
        "settings": {
            "connections": 64,
            "duration": 10.0,
            "count": None,
            "warmup": 2.0,
            "mode": "concurrent",
            "threads": 1,
            "workers": 1,
            "rounds": 5,
        },
        "loadgen": {"name": "wrk"},
        "targets": [
            {
                "label": "app",
                "kind": "app",
                "server": "granian",
                "interface": "rsgi",
                "rounds": rounds(1000, 1020, 980),
            }
        ],
    }
    for key, value in changes.items():
        if key in made["settings"]:
            made["settings"][key] = value
        else:
            made[key] = value
    return made


def baseline(tmp_path: Path, made: dict[str, Any]) -> Baseline:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(made))
    return read_baseline(path)


def test_a_baseline_of_the_same_scenario_is_judged_by_both_runs_rounds(tmp_path: Path) -> None:
    earlier = baseline(tmp_path, document())
    now = document()
    now["targets"][0]["rounds"] = rounds(700, 710, 690)
    check_same_scenario(now, earlier)

    checks = baseline_checks(now, earlier, 5)

    assert [(c.reference, c.metric, c.verdict) for c in checks] == [
        ("the baseline", "rps", "regression"),
        ("the baseline", "p99_ms", "ok"),
    ]


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"scenario": "GET /items/{1..10}"}, "requests 'GET /hello' -> 'GET /items/{1..10}'"),
        ({"connections": 16}, "connections 64 -> 16"),
        ({"duration": 5.0}, "duration 10.0 -> 5.0"),
        ({"loadgen": {"name": "builtin"}}, "load generator wrk -> builtin"),
    ],
)
def test_a_baseline_of_another_scenario_is_refused(
    tmp_path: Path, changed: dict[str, Any], said: str
) -> None:
    earlier = baseline(tmp_path, document())

    with pytest.raises(BaselineError) as raised:
        check_same_scenario(document(**changed), earlier)

    assert str(raised.value) == (
        f"the baseline {tmp_path / 'base.json'} measured another scenario ({said}): measure "
        "the baseline with the same requests and options"
    )


def test_a_target_served_another_way_is_another_scenario(tmp_path: Path) -> None:
    earlier = baseline(tmp_path, document())
    now = document()
    now["targets"][0]["interface"] = "asgi"

    with pytest.raises(BaselineError, match=r"app served by granian/rsgi -> granian/asgi"):
        check_same_scenario(now, earlier)


def test_a_baseline_without_any_of_the_targets_is_an_error(tmp_path: Path) -> None:
    now = document()
    now["targets"][0]["label"] = "other"

    with pytest.raises(BaselineError, match="has none of this run's targets"):
        baseline_checks(now, baseline(tmp_path, document()), 5)


def test_a_baseline_without_rounds_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"targets": [{"label": "a", "median": {}}]}))
    with pytest.raises(BaselineError, match="cannot read baseline"):
        read_baseline(path)
    path.write_text("not json")
    with pytest.raises(BaselineError, match="cannot read baseline"):
        read_baseline(path)
