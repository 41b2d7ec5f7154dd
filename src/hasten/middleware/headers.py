"""Helpers the built-in middleware share."""

from __future__ import annotations

from ..datastructures import MutableHeaders

__all__ = ["add_vary"]


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add ``name`` to the response's ``Vary`` (once)."""
    # perf: the first Vary found in place, without the headers' lookup dict built.
    current = None
    for key, value in headers._items:
        if key == "vary":
            current = value
            break
    if current is None:
        headers.append("vary", name)
        return
    if name.lower() not in {item.strip().lower() for item in current.split(",")}:
        headers["vary"] = f"{current}, {name}"
