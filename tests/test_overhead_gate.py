"""benchmarks/overhead.py's CI gate: which count changes fail it."""

from __future__ import annotations

import json
from typing import Any

from benchmarks import overhead

BASELINE: dict[str, Any] = json.loads(overhead.BASELINE.read_text())
COUNTS: dict[str, float] = BASELINE["instructions_per_request"]
CASES = overhead.scenarios()


def test_the_baselines_counts_pass() -> None:
    assert overhead.check(CASES, dict(COUNTS), BASELINE, 0.05) == []


def test_a_count_six_percent_up_fails() -> None:
    counts = {**COUNTS, "hello": COUNTS["hello"] * 1.06}
    assert overhead.check(CASES, counts, BASELINE, 0.05) == [
        f"hello: {COUNTS['hello'] * 1.06:,.0f} instructions per request, +6.0% against the "
        f"baseline's {COUNTS['hello']:,.0f}"
    ]


def test_a_thread_hop_that_costs_more_on_this_machine_passes_with_its_twin() -> None:
    # CI's machine counted both thread-hop scenarios 4.5% and 5.2% over this baseline.
    counts = {
        **COUNTS,
        "raw sync def": COUNTS["raw sync def"] * 1.045,
        "sync def": COUNTS["sync def"] * 1.052,
    }
    assert overhead.check(CASES, counts, BASELINE, 0.05) == []


def test_a_thread_hop_scenario_that_grows_against_its_twin_fails() -> None:
    counts = {**COUNTS, "sync def": COUNTS["sync def"] * 1.06}
    before = COUNTS["sync def"] / COUNTS["raw sync def"]
    assert overhead.check(CASES, counts, BASELINE, 0.05) == [
        f"sync def: x{before * 1.06:.3f} its twin's count, +6.0% against the baseline's "
        f"x{before:.3f}"
    ]
