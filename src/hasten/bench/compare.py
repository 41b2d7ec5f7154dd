"""Rounds: every target measured in turn (A B C A B C ...), then the median of its rounds.

Alternating rounds spread a slow phase of the machine over every target instead of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .measurement import Measurement, Metrics
from .runner import Plan, measure
from .stats import median, ratio
from .target import Target

__all__ = ["RATIO_METRICS", "TargetResult", "ratios", "run_rounds"]

# The metrics that are shown relative to the first target.
RATIO_METRICS = ("rps", "p50_ms", "p99_ms", "cpu_s_per_10k", "peak_rss_mb")


@dataclass(slots=True)
class TargetResult:
    """A target and its measurements, one per round."""

    target: Target
    rounds: list[Measurement] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The target's label."""
        return self.target.label

    def median(self) -> Metrics:
        """Each metric's median over the rounds."""
        names = self.rounds[0].metrics() if self.rounds else {}
        per_round = [measurement.metrics() for measurement in self.rounds]
        return {name: median(metrics[name] for metrics in per_round) for name in names}


def run_rounds(targets: Sequence[Target], plan: Plan) -> list[TargetResult]:
    """Measure each target ``plan.rounds`` times, alternating targets within each round."""
    results = [TargetResult(target) for target in targets]
    for round_number in range(1, plan.rounds + 1):
        for result in results:
            result.rounds.append(measure(result.target, plan, round_number))
    return results


def ratios(results: Sequence[TargetResult]) -> list[Metrics]:
    """For each target, its medians of RATIO_METRICS divided by the first target's."""
    medians = [result.median() for result in results]
    if not medians:
        return []
    first = medians[0]
    return [
        {name: ratio(metrics[name], first[name]) for name in RATIO_METRICS} for metrics in medians
    ]
