"""What the built-in middleware share: ``HeaderMiddleware`` (the serve step runs its two steps
itself: see ``hasten._serve.chain``), and header helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hasten._http.datastructures import MutableHeaders
from hasten._serve.chain import EVERY_METHOD, HeaderMiddleware

if TYPE_CHECKING:
    from hasten._http.wire import HeaderList

__all__ = [
    "EVERY_METHOD",
    "HeaderMiddleware",
    "add_vary",
    "set_header",
    "vary",
]


def set_header(headers: HeaderList, name: str, value: str) -> None:
    """Set ``name`` (lower-case) to ``value`` alone in a header list, in place."""
    # perf: the usual header is new: one pass, and a removal only for one that is not.
    for item in headers:
        if item[0] == name:
            headers[:] = [kept for kept in headers if kept[0] != name]
            break
    headers.append((name, value))


def vary(headers: HeaderList, name: str) -> None:
    """Add ``name`` to the ``Vary`` of a header list (once), in place. Several Vary lines
    are one list (RFC 9110, 5.3): they become one line, none of their names lost."""
    # perf: a loop, not a comprehension (a frame of its own on Python 3.11); the usual
    # response has no Vary yet, and gets one in this one pass.
    values: list[str] | None = None
    for key, value in headers:
        if key == "vary":
            if values is None:
                values = [value]
            else:
                values.append(value)
    if values is None:
        headers.append(("vary", name))
        return
    names = {item.strip().lower() for value in values for item in value.split(",")}
    if name.lower() not in names and "*" not in names:
        set_header(headers, "vary", ", ".join([*values, name]))


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add ``name`` to the response's ``Vary`` (once)."""
    vary(headers._items, name)
    headers._lookup = None
