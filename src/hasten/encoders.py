"""``jsonable_encoder``: any value as JSON-compatible builtins, as FastAPI's function makes them.

The public names; the code is in ``hasten._http.encoders``."""

from hasten._http.encoders import (
    jsonable_encoder,
    untyped_json,
)

__all__ = [
    "jsonable_encoder",
    "untyped_json",
]
