"""``fastapi.encoders``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.encoders import jsonable_encoder
from hasten.errors import PydanticV1NotSupportedError

__all__ = ["PydanticV1NotSupportedError", "jsonable_encoder"]
