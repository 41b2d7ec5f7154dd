"""``fastapi.openapi.utils``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.encoders import jsonable_encoder
from hasten.openapi import get_openapi

__all__ = ["get_openapi", "jsonable_encoder"]
