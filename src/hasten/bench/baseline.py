"""The regression check: this run's medians against those of an earlier ``--json`` file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .measurement import Metrics

__all__ = ["BaselineError", "Regression", "find_regressions", "read_baseline"]

# Each checked metric, its name in messages, and whether a higher value is the better.
CHECKED = {"rps": ("req/s", True), "p99_ms": ("p99 latency", False)}


class BaselineError(ValueError):
    """The baseline file cannot be read, or shares no target with this run."""


@dataclass(frozen=True, slots=True)
class Regression:
    """A median that got worse than the baseline's by more than the allowed share."""

    label: str
    metric: str
    baseline: float
    current: float

    @property
    def change_percent(self) -> float:
        """The change from the baseline, in percent of it."""
        return (self.current / self.baseline - 1) * 100

    def describe(self, allowed_percent: float) -> str:
        """One line for the report."""
        name, _ = CHECKED[self.metric]
        return (
            f"{self.label}: {name} {self.change_percent:+.1f}% "
            f"({self.baseline:,.4g} -> {self.current:,.4g}), "
            f"beyond the {allowed_percent:g}% allowed"
        )


def read_baseline(path: Path) -> dict[str, Metrics]:
    """The median metrics of each target of a ``--json`` file, by label."""
    try:
        document = json.loads(path.read_text())
        return {item["label"]: item["median"] for item in document["targets"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None


def find_regressions(
    current: Mapping[str, Metrics], baseline: Mapping[str, Metrics], allowed_percent: float
) -> list[Regression]:
    """Every checked median of a target found in both that is worse beyond the allowed share."""
    shared = [label for label in current if label in baseline]
    if not shared:
        raise BaselineError(
            f"the baseline has none of this run's targets ({', '.join(current)}); "
            f"it has {', '.join(baseline) or 'none'}"
        )
    limit = allowed_percent / 100
    found = []
    for label in shared:
        for metric, (_, higher_is_better) in CHECKED.items():
            was, now = baseline[label].get(metric), current[label].get(metric)
            if was is None or now is None or was <= 0:
                continue
            change = now / was - 1
            if (-change if higher_is_better else change) > limit:
                found.append(Regression(label, metric, was, now))
    return found
