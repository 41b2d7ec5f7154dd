"""A ``msgspec.Meta`` in two parts: what it constrains, and what it only says.

FastAPI writes a parameter's title, description and examples beside its whole schema (beside
the ``anyOf`` of an optional value, not inside its member), and a type pydantic describes never
sees hasten's ``Meta`` at all: both need the saying part apart.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["constraints_of", "said_by"]

_SAID = ("title", "description", "examples")
_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "pattern", "min_length", "max_length", "tz")


def said_by(meta: msgspec.Meta) -> dict[str, Any]:
    """What ``meta`` says in a schema: title, description, examples, its extra keys."""
    said = {key: value for key in _SAID if (value := getattr(meta, key)) is not None}
    said.update(meta.extra_json_schema or {})
    return said


def constraints_of(meta: msgspec.Meta) -> msgspec.Meta | None:
    """``meta`` with only what it constrains (None if nothing)."""
    kept = {key: value for key in _CONSTRAINTS if (value := getattr(meta, key)) is not None}
    return msgspec.Meta(**kept) if kept else None
