"""Tallies: every observed request counted by method, route and status, with its duration in
a histogram's buckets, for the Prometheus metrics and the live stats.

A request adds to two numbers in its tally (the observer does it as the request ends); the
metrics and the stats read the tallies only when asked for them (a scrape, a flush, a look
at the stats), so that neither adds a call of its own to a request.
"""

from __future__ import annotations

__all__ = ["DURATION_BOUNDS", "Tallies", "Tally"]

# The duration histogram's upper bounds in seconds (prometheus-client's default buckets): a
# request is counted under the first it fits under.
DURATION_BOUNDS = (
    *(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75),
    *(1.0, 2.5, 5.0, 7.5, 10.0, float("inf")),
)
# The key of a tally: the method's label, the route's template, the status (0: none sent).
Key = tuple[str, str, int]


class Tally:
    """One (method, route, status)'s requests since the app started: how many fell under each
    of ``DURATION_BOUNDS``, and their seconds in all."""

    __slots__ = ("buckets", "seconds")

    def __init__(self) -> None:
        self.buckets = [0] * len(DURATION_BOUNDS)
        self.seconds = 0.0

    @property
    def requests(self) -> int:
        return sum(self.buckets)

    def copy(self) -> Tally:
        copied = Tally()
        copied.buckets[:] = self.buckets
        copied.seconds = self.seconds
        return copied


class Tallies(dict[Key, Tally]):
    """Every tally of an app, by (method, route, status); looking up a new key starts its
    tally at zero. Used from the event loop's thread only."""

    def __missing__(self, key: Key) -> Tally:
        tally = self[key] = Tally()
        return tally
