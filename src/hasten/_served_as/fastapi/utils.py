"""``fastapi.utils``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.openapi import generate_unique_id

__all__ = ["generate_unique_id"]
