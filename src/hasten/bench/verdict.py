"""Whether a target got slower than its reference, beyond the noise: ``hasten bench``'s gate.

The reference is another target of the same run (``--against LABEL``: measured in alternating
rounds, A B then B A, so that each round's pair saw the same machine), or the same target in an
earlier run (``--baseline FILE``: its rounds against this run's). Each checked metric's change
is estimated on a log scale, with a 99% confidence interval from the rounds' own spread
(Student's t over the rounds' pairs; Welch's between two runs). A change is a regression only
when its whole interval is worse than the allowed share: a change the noise could explain never
fails a build, and one the noise could hide is said to be inconclusive, with how to narrow it.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hasten.bench.measurement import Metrics

__all__ = [
    "CHECKED",
    "Baseline",
    "BaselineError",
    "Change",
    "Check",
    "baseline_checks",
    "check_same_scenario",
    "paired_change",
    "paired_checks",
    "read_baseline",
    "unpaired_change",
]

# Each checked metric, its name in messages, and whether a higher value is the better.
CHECKED = {"rps": ("req/s", True), "p99_ms": ("p99 latency", False)}
# Student's t at 99.5% (a two-sided 99% interval), by degrees of freedom, 1 to 30; past 30, 2.6
# (a little wider than the normal's 2.576). 99% rather than 95%: a gate that fails a build
# must not flap (6 rounds of +-10% noise: about 1 false alarm in 7,000 checks, 1 in 1,000 at 95%).
_T995 = (
    *(63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169),
    *(3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845),
    *(2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750),
)
# What must be the same for two runs to be compared: the settings that shape the load.
_SCENARIO_SETTINGS = ("connections", "duration", "count", "warmup", "mode", "threads", "workers")
Verdict = Literal["regression", "inconclusive", "ok", "unknown"]


class BaselineError(ValueError):
    """The baseline file cannot be read, or cannot be compared with this run."""


def _t995(degrees: float) -> float:
    whole = max(1, math.floor(degrees))
    return _T995[whole - 1] if whole <= len(_T995) else 2.6


@dataclass(frozen=True, slots=True)
class Change:
    """A metric's change as a factor of its reference (0.9: 10% lower), and the 99%
    confidence interval of that factor."""

    estimate: float
    low: float
    high: float

    def describe(self) -> str:
        """``-3.1% (99% CI -5.0% to -1.2%)``."""
        return f"{_percent(self.estimate)} (99% CI {_percent(self.low)} to {_percent(self.high)})"


def _percent(factor: float) -> str:
    return f"{(factor - 1) * 100:+.1f}%"


def _logs(values: Sequence[float | None]) -> list[float] | None:
    """The logarithms of ``values``; None when one is missing or not positive."""
    if any(value is None or value <= 0 for value in values):
        return None
    return [math.log(value) for value in values if value is not None]


def paired_change(
    reference: Sequence[float | None], current: Sequence[float | None]
) -> Change | None:
    """The change from ``reference`` to ``current``, measured in pairs (round by round); None
    with fewer than two pairs, or a figure missing."""
    was, now = _logs(reference), _logs(current)
    if was is None or now is None or len(was) != len(now) or len(was) < 2:
        return None
    differences = [after - before for before, after in zip(was, now, strict=True)]
    mean = statistics.fmean(differences)
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    return _interval(mean, _t995(len(differences) - 1) * error)


def unpaired_change(
    reference: Sequence[float | None], current: Sequence[float | None]
) -> Change | None:
    """The change from ``reference`` to ``current``, measured apart (Welch's interval); None
    with fewer than two rounds on either side, or a figure missing."""
    was, now = _logs(reference), _logs(current)
    if was is None or now is None or len(was) < 2 or len(now) < 2:
        return None
    samples = (was, now)
    shares = [statistics.variance(values) / len(values) for values in samples]
    error = math.sqrt(sum(shares))
    if error > 0:  # Welch-Satterthwaite
        parts = (
            share**2 / (len(values) - 1) for share, values in zip(shares, samples, strict=True)
        )
        freedom = sum(shares) ** 2 / sum(parts)
    else:
        freedom = len(was) + len(now) - 2
    return _interval(statistics.fmean(now) - statistics.fmean(was), _t995(freedom) * error)


def _interval(mean: float, half_width: float) -> Change:
    return Change(math.exp(mean), math.exp(mean - half_width), math.exp(mean + half_width))


@dataclass(frozen=True, slots=True)
class Check:
    """One metric of one target against its reference."""

    label: str
    reference: str  # the other target's label, or "the baseline"
    metric: str
    change: Change | None  # None: too few rounds to tell
    allowed_percent: float

    @property
    def verdict(self) -> Verdict:
        """``regression``: worse beyond the allowed share, over the whole interval;
        ``inconclusive``: the estimate is, the interval is not; ``unknown``: too few rounds."""
        change = self.change
        if change is None:
            return "unknown"
        _, higher_is_better = CHECKED[self.metric]
        limit = self.allowed_percent / 100
        if higher_is_better:  # worse is lower: even the interval's top is past the limit
            worse, maybe = change.high < 1 - limit, change.estimate < 1 - limit
        else:
            worse, maybe = change.low > 1 + limit, change.estimate > 1 + limit
        if worse:
            return "regression"
        return "inconclusive" if maybe else "ok"

    def describe(self) -> str:
        """One line for the report."""
        name, _ = CHECKED[self.metric]
        head = f"{self.label} against {self.reference}: {name}"
        verdict = self.verdict
        if self.change is None:
            return f"{head}: too few rounds to judge (2 or more on each side)"
        line = f"{head} {self.change.describe()}"
        if verdict == "regression":
            return f"regression: {line}, worse than the {self.allowed_percent:g}% allowed"
        if verdict == "inconclusive":
            return (
                f"inconclusive: {line}: the rounds vary too much to tell whether it is worse "
                f"than {self.allowed_percent:g}%; more rounds (--rounds) narrow the interval"
            )
        return line

    def as_json(self) -> dict[str, Any]:
        change = self.change
        return {
            "label": self.label,
            "reference": self.reference,
            "metric": self.metric,
            "change": None if change is None else change.estimate,
            "low": None if change is None else change.low,
            "high": None if change is None else change.high,
            "allowed_percent": self.allowed_percent,
            "verdict": self.verdict,
        }


def paired_checks(
    rounds: Mapping[str, Sequence[Metrics]], reference: str, allowed_percent: float
) -> list[Check]:
    """Each target of this run against ``reference``, round by round."""
    if reference not in rounds:
        raise BaselineError(
            f"--against {reference}: no target has that label ({', '.join(rounds)})"
        )
    checks = []
    for label, measured in rounds.items():
        if label == reference:
            continue
        for metric in CHECKED:
            change = paired_change(
                [each.get(metric) for each in rounds[reference]],
                [each.get(metric) for each in measured],
            )
            checks.append(Check(label, reference, metric, change, allowed_percent))
    return checks


# The baseline.
@dataclass(frozen=True, slots=True)
class Baseline:
    """An earlier run's ``--json`` file: its rounds by label, and what it measured."""

    path: Path
    document: dict[str, Any]

    @property
    def rounds(self) -> dict[str, list[Metrics]]:
        return {item["label"]: item["rounds"] for item in self.document["targets"]}


def read_baseline(path: Path) -> Baseline:
    """The ``--json`` file at ``path``, checked to hold rounds by target."""
    try:
        document = json.loads(path.read_text())
        for item in document["targets"]:
            if not isinstance(item["label"], str) or not isinstance(item["rounds"], list):
                raise TypeError("a target without a label and rounds")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    return Baseline(path, document)


def baseline_checks(
    document: Mapping[str, Any], baseline: Baseline, allowed_percent: float
) -> list[Check]:
    """Each target of this run found in ``baseline`` against its rounds there (see
    ``check_same_scenario``, called before the run)."""
    current = {item["label"]: item["rounds"] for item in document["targets"]}
    earlier = baseline.rounds
    shared = [label for label in current if label in earlier]
    if not shared:
        raise BaselineError(
            f"the baseline has none of this run's targets ({', '.join(current)}); "
            f"it has {', '.join(earlier) or 'none'}"
        )
    checks = []
    for label in shared:
        for metric in CHECKED:
            change = unpaired_change(
                [each.get(metric) for each in earlier[label]],
                [each.get(metric) for each in current[label]],
            )
            checks.append(Check(label, "the baseline", metric, change, allowed_percent))
    return checks


def check_same_scenario(document: Mapping[str, Any], baseline: Baseline) -> None:
    """Refuse a baseline that measured another scenario than ``document`` (this run's, or
    what it will measure): its figures answer another question."""
    earlier = baseline.document
    differences = []
    if earlier.get("scenario") != document.get("scenario"):
        differences.append(f"requests {earlier.get('scenario')!r} -> {document.get('scenario')!r}")
    was_settings, now_settings = earlier.get("settings", {}), document.get("settings", {})
    for name in _SCENARIO_SETTINGS:
        if was_settings.get(name) != now_settings.get(name):
            differences.append(f"{name} {was_settings.get(name)} -> {now_settings.get(name)}")
    was_loadgen = earlier.get("loadgen", {}).get("name")
    now_loadgen = document.get("loadgen", {}).get("name")
    if was_loadgen != now_loadgen:
        differences.append(f"load generator {was_loadgen} -> {now_loadgen}")
    served = {item["label"]: _how(item) for item in earlier.get("targets", [])}
    for item in document.get("targets", []):
        was = served.get(item["label"])
        if was is not None and was != _how(item):
            differences.append(f"{item['label']} served by {was} -> {_how(item)}")
    if differences:
        raise BaselineError(
            f"the baseline {baseline.path} measured another scenario ({'; '.join(differences)}): "
            "measure the baseline with the same requests and options"
        )


def _how(target: Mapping[str, Any]) -> str:
    if target.get("kind") == "url":
        return "url"
    return f"{target.get('server')}/{target.get('interface')}"
