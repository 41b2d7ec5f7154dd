"""Helpers the built-in middleware share."""

from __future__ import annotations

from ..datastructures import MutableHeaders

__all__ = ["add_vary"]


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add ``name`` to the response's ``Vary`` (once)."""
    current = headers.get("vary")
    if current is None:
        headers["vary"] = name
    elif name.lower() not in {item.strip().lower() for item in current.split(",")}:
        headers["vary"] = f"{current}, {name}"
