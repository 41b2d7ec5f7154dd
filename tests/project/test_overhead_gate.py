"""benchmarks/overhead.py's CI gate: each scenario's ratio to its twin against its budget
(benchmarks/budgets.py), and a budget raised only by a commit of its own."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks import budgets, overhead

RECORDED: dict[str, Any] = budgets.load()
BUDGETS: dict[str, float] = RECORDED["budgets"]
COUNTS: dict[str, float] = RECORDED["instructions_per_request"]
CASES = overhead.scenarios()
ROOT = Path(__file__).resolve().parents[2]


def _failures(counts: dict[str, float], limits: dict[str, float] = BUDGETS) -> list[str]:
    return budgets.failures(budgets.rows(CASES, counts, limits))


def test_every_scenario_of_hastens_has_a_budget_and_no_twin_has_one() -> None:
    hastens = {case.name for case in CASES if not budgets.is_twin(case.name)}
    assert set(BUDGETS) == hastens


def test_the_counts_the_budgets_were_set_at_pass() -> None:
    assert _failures(dict(COUNTS)) == []


def test_a_scenario_over_its_budget_fails() -> None:
    twin = COUNTS["raw rsgi /hello"]
    over = BUDGETS["hello"] * twin * 1.001
    assert _failures({**COUNTS, "hello": over}) == [
        f"hello: x{over / twin:.3f} its twin's count ({over:,.0f} against {twin:,.0f}), over "
        f"its budget x{BUDGETS['hello']:.2f} by 0.1%"
    ]


def test_a_scenario_without_a_budget_fails() -> None:
    limits = {name: ratio for name, ratio in BUDGETS.items() if name != "sync def"}
    (failure,) = _failures(dict(COUNTS), limits)
    assert failure.startswith("sync def: x")
    assert failure.endswith("and no budget")


def test_a_scenario_and_its_twin_that_cost_more_together_pass() -> None:
    # A thread hop's count moves with the machine's scheduling (CI's machine counted both
    # thread-hop scenarios about 5% over this one's), and a machine's with its Python: the
    # ratio holds.
    counts = {name: count * 1.05 for name, count in COUNTS.items()}
    assert _failures(counts) == []


def test_tightening_lowers_a_budget_and_never_raises_one() -> None:
    twin = COUNTS["raw rsgi /hello"]
    cheaper = {**COUNTS, "hello": twin * 1.5, "path param": COUNTS["path param"] * 1.5}
    limits = budgets.tightened(CASES, cheaper, BUDGETS)
    assert limits["hello"] == budgets.budget_for(1.5, waits=False) == 1.55
    assert limits["path param"] == BUDGETS["path param"]
    assert {name for name, ratio in limits.items() if ratio != BUDGETS[name]} == {"hello"}


def test_a_budget_leaves_the_noise_above_its_ratio() -> None:
    assert budgets.budget_for(2.224, waits=False) == 2.30
    assert budgets.budget_for(2.0, waits=False) == 2.06
    assert budgets.budget_for(0.35, waits=True) == 0.37


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def _budgets_at(commit: str) -> dict[str, float] | None:
    try:
        text = _git("show", f"{commit}:benchmarks/overhead-budgets.json")
    except subprocess.CalledProcessError:  # not there yet, or history cut short (a shallow clone)
        return None
    found: dict[str, float] = json.loads(text)["budgets"]
    return found


def test_a_budget_is_raised_only_by_a_commit_of_its_own() -> None:
    """A commit that raises a budget changes the budgets and benchmarks/RESULTS.md (the line
    that names the feature and its cost), nothing else: never the change that needs it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("no git history here")
    lines = _git("log", "--no-merges", "--format=%H %P", "--", "benchmarks/overhead-budgets.json")
    for line in lines.splitlines():
        commit, *parents = line.split()
        after = _budgets_at(commit)
        before = _budgets_at(parents[0]) if parents else None
        if after is None or before is None:
            continue
        raised = sorted(name for name, ratio in after.items() if ratio > before.get(name, ratio))
        if not raised:
            continue
        changed = set(_git("diff-tree", "--no-commit-id", "--name-only", "-r", commit).split())
        assert changed == {"benchmarks/overhead-budgets.json", "benchmarks/RESULTS.md"}, (
            f"{commit[:8]} raises the budgets of {raised} and changes {sorted(changed)}"
        )
