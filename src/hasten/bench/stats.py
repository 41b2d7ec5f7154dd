"""Statistics: a latency histogram, percentiles, medians and ratios."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

__all__ = ["PERCENTILES", "Histogram", "median", "percentile", "ratio"]

# The points of the latency curve that every load generator reports and the HTML plot draws.
PERCENTILES: tuple[float, ...] = (50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99)

# Values below _EXACT microseconds have a bucket each; above, every power of two is split into
# _HALF buckets, so a bucket is at most 1/_HALF (1.6%) wide and its midpoint is within 0.8%.
_HALF = 64
_EXACT = 2 * _HALF
_SHIFT_BITS = _EXACT.bit_length() - 1


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile of ``values``: the smallest value that at least
    ``p`` percent of them do not exceed."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be within 0..100, got {p}")
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None, or None when there are none."""
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def ratio(value: float | None, reference: float | None) -> float | None:
    """``value / reference``, or None when either is missing or the reference is zero."""
    if value is None or not reference:
        return None
    return value / reference


class Histogram:
    """Latencies in integer microseconds, in log-linear buckets: constant memory, < 1% error.

    Below 128 µs every value is exact; the minimum, maximum and mean are always exact.
    """

    __slots__ = ("_counts", "count", "maximum", "minimum", "total")

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}
        self.count = 0
        self.total = 0
        self.minimum = 0
        self.maximum = 0

    def record(self, micros: int) -> None:
        """Count one latency of ``micros`` microseconds."""
        index = _bucket(micros)
        self._counts[index] = self._counts.get(index, 0) + 1
        if self.count == 0 or micros < self.minimum:
            self.minimum = micros
        self.maximum = max(self.maximum, micros)
        self.count += 1
        self.total += micros

    def merge(self, other: Histogram) -> None:
        """Add every latency counted by ``other``."""
        if other.count == 0:
            return
        for index, count in other._counts.items():
            self._counts[index] = self._counts.get(index, 0) + count
        self.minimum = other.minimum if self.count == 0 else min(self.minimum, other.minimum)
        self.maximum = max(self.maximum, other.maximum)
        self.count += other.count
        self.total += other.total

    @property
    def mean(self) -> float:
        """The exact mean in microseconds (0 when empty)."""
        return self.total / self.count if self.count else 0.0

    def percentile(self, p: float) -> float:
        """The nearest-rank ``p``-th percentile in microseconds (0 when empty)."""
        if self.count == 0:
            return 0.0
        rank = max(1, math.ceil(p / 100 * self.count))
        if rank >= self.count:
            return float(self.maximum)
        seen = 0
        for index in sorted(self._counts):
            seen += self._counts[index]
            if seen >= rank:
                return float(min(max(_value(index), self.minimum), self.maximum))
        return float(self.maximum)


def _bucket(micros: int) -> int:
    if micros < _EXACT:
        return max(micros, 0)
    shift = micros.bit_length() - _SHIFT_BITS
    return shift * _HALF + (micros >> shift)


def _value(index: int) -> float:
    """The middle of a bucket (a bucket below _EXACT holds one value)."""
    if index < _EXACT:
        return index
    shift = index // _HALF - 1
    low = (index - shift * _HALF) << shift
    return low + ((1 << shift) - 1) / 2
