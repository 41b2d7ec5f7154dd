"""The overhead gate's budgets: each scenario of ``overhead.py`` may cost at most so many times
its hand-written twin's instructions per request, both counted in the same run.

A ratio, not a count: the twin runs the same Python, msgspec and machine, so the ratio holds
across machines where a count moves (a thread hop's by 5% between two), and it cannot creep
up with the code, as a baseline recorded again after each change did (three times in one
round, each within 5% of the last: +17% for hello, which nothing named). ``tightened`` only
ever lowers a budget; a budget is raised by hand, in a commit of its own that names the feature
and its cost, with its line in benchmarks/RESULTS.md (tests/project/test_overhead_gate.py holds
both).

    {"environment": ..., "budgets": {scenario: ratio}, "instructions_per_request": {...}}

``instructions_per_request`` are the counts measured when the budgets were last set, kept
for the record (suite.py reads hello's); the gate reads the budgets alone.
"""

from __future__ import annotations

import json
import math
import platform
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

BUDGETS = Path(__file__).resolve().parent / "overhead-budgets.json"
# A budget set from a measured ratio leaves this much above it: callgrind's counts of the same
# commit move up to 2% from one checkout to another (json body 39,497 and 40,284: the paths'
# lengths, a collection a request later), a thread hop's by up to 5% (how often the loop
# waits in select() depends on the scheduling).
NOISE = 0.03
THREAD_NOISE = 0.05


class Case(Protocol):
    """What the gate reads of a scenario (``overhead.Scenario``)."""

    @property
    def name(self) -> str: ...
    @property
    def twin(self) -> str: ...
    @property
    def waits(self) -> bool: ...


@dataclass(frozen=True)
class Row:
    """One scenario measured against its twin and its budget (None: it has none)."""

    name: str
    count: float
    twin: str
    twin_count: float
    budget: float | None

    @property
    def ratio(self) -> float:
        return self.count / self.twin_count

    @property
    def over(self) -> bool:
        return self.budget is None or self.ratio > self.budget


def is_twin(name: str) -> bool:
    """The hand-written scenarios, the measure of the others: they have no budget."""
    return name.startswith("raw ")


def rows(cases: Iterable[Case], counts: dict[str, float], budgets: dict[str, float]) -> list[Row]:
    """hasten's scenarios (not the twins) that were counted, each against its budget."""
    return [
        Row(case.name, counts[case.name], case.twin, counts[case.twin], budgets.get(case.name))
        for case in cases
        if not is_twin(case.name) and case.name in counts
    ]


def failures(measured: Iterable[Row]) -> list[str]:
    """What fails the gate: a scenario above its budget, or one without a budget."""
    failed = []
    for row in measured:
        if row.budget is None:
            failed.append(f"{row.name}: x{row.ratio:.3f} its twin's count, and no budget")
        elif row.over:
            failed.append(
                f"{row.name}: x{row.ratio:.3f} its twin's count ({row.count:,.0f} against "
                f"{row.twin_count:,.0f}), over its budget x{row.budget:.2f} by "
                f"{row.ratio / row.budget - 1:.1%}"
            )
    return failed


def budget_for(ratio: float, waits: bool) -> float:
    """The budget a measured ratio sets: the ratio and its noise, rounded up to 0.01."""
    return math.ceil(round(ratio * (1 + (THREAD_NOISE if waits else NOISE)) * 100, 6)) / 100


def tightened(
    cases: Iterable[Case], counts: dict[str, float], budgets: dict[str, float]
) -> dict[str, float]:
    """The budgets after this measure: each lowered to what it measured (with its noise)
    where that is lower, never raised; a new scenario gets its first budget. A scenario no
    longer measured loses its budget."""
    result = {}
    for case in cases:
        if is_twin(case.name) or case.name not in counts:
            continue
        measured = budget_for(counts[case.name] / counts[case.twin], case.waits)
        before = budgets.get(case.name)
        result[case.name] = measured if before is None else min(before, measured)
    return result


def environment(msgspec_version: str) -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "msgspec": msgspec_version,
        "machine": platform.machine(),
    }


def comparable(recorded: dict[str, str], here: dict[str, str]) -> bool:
    """Whether ratios set in ``recorded`` hold ``here``: the same Python, by its minor
    version (another compiles coroutines and calls otherwise, which moves a ratio), whatever
    the machine and msgspec's patch release."""
    same = ("implementation",)
    return all(recorded[key] == here[key] for key in same) and _minor(recorded) == _minor(here)


def _minor(environment: dict[str, str]) -> str:
    return ".".join(environment["python"].split(".")[:2])


def load(path: Path = BUDGETS) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def write(
    budgets: dict[str, float], counts: dict[str, float], here: dict[str, str], path: Path = BUDGETS
) -> None:
    data = {"environment": here, "budgets": budgets, "instructions_per_request": counts}
    path.write_text(json.dumps(data, indent=2) + "\n")


def print_rows(measured: Iterable[Row]) -> None:
    """The gate's table: each scenario's count, its twin's, the ratio, the budget, the room."""
    print(f"{'scenario':<32} {'count':>9} {'twin':>9} {'ratio':>7} {'budget':>7} {'room':>7}")
    for row in measured:
        budget = "-" if row.budget is None else f"x{row.budget:.2f}"
        room = "-" if row.budget is None else f"{1 - row.ratio / row.budget:+.1%}"
        ratio = f"x{row.ratio:.3f}"
        counts = f"{row.count:>9,.0f} {row.twin_count:>9,.0f}"
        print(f"{row.name:<32} {counts} {ratio:>7} {budget:>7} {room:>7}")
