"""``fastapi.openapi``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

__all__ = []
