"""``jsonable_encoder``: any value as JSON-compatible builtins, as FastAPI's function makes them.

The public names; the code is in ``hasten._http.jsonable``."""

from hasten._http.jsonable import (
    jsonable_encoder,
    untyped_json,
)

__all__ = [
    "jsonable_encoder",
    "untyped_json",
]
