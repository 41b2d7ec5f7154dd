"""The rules every response obeys on the wire, whichever server carries it."""

from __future__ import annotations

__all__ = ["BODY_STATUSES", "HeaderList", "allows_body", "frame"]

HeaderList = list[tuple[str, str]]


def allows_body(status: int) -> bool:
    """False for the statuses that never carry a body: 1xx, 204 and 304 (RFC 9110)."""
    return status >= 200 and status not in (204, 304)


# perf: the statuses a response's body goes out with, for a check without a call; a status
# past 599 is not in it, and takes the way of the rare statuses (``allows_body``).
BODY_STATUSES = frozenset(status for status in range(200, 600) if allows_body(status))


def frame(status: int, headers: HeaderList, length: int | None) -> HeaderList:
    """``headers`` as they go out for a body of ``length`` bytes.

    Content-Length appears at most once: equal to ``length`` when it is known, as the headers
    say when ``length`` is None (a HEAD answered by hand, a stream of known size), and never
    on a status without a body. Names are lower-case, as both protocols deliver them.
    """
    # perf: loops, not comprehensions (a function call each on Python 3.11); the usual case,
    # headers without a Content-Length, is one pass and one list.
    declared: list[str] = []
    for name, value in headers:
        if name == "content-length":
            declared.append(value)
    if not allows_body(status):
        return _without_length(headers) if declared else headers
    if length is None:
        if len(declared) <= 1:
            return headers
        kept = _without_length(headers)
        kept.append(("content-length", declared[0]))
        return kept
    wanted = str(length)
    if declared == [wanted]:
        return headers
    kept = _without_length(headers) if declared else headers.copy()
    kept.append(("content-length", wanted))
    return kept


def _without_length(headers: HeaderList) -> HeaderList:
    kept: HeaderList = []
    for item in headers:
        if item[0] != "content-length":
            kept.append(item)
    return kept
