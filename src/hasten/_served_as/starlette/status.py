"""``starlette.status``, served by hasten: hasten's status constants, and the four names
Starlette keeps for old code with a warning that names their successor."""

from __future__ import annotations

import warnings

from hasten import status as _status
from hasten.errors import StarletteDeprecationWarning

# The old names and the ones that replace them (RFC 9110's words).
_RENAMED = {
    "HTTP_413_REQUEST_ENTITY_TOO_LARGE": "HTTP_413_CONTENT_TOO_LARGE",
    "HTTP_414_REQUEST_URI_TOO_LONG": "HTTP_414_URI_TOO_LONG",
    "HTTP_416_REQUESTED_RANGE_NOT_SATISFIABLE": "HTTP_416_RANGE_NOT_SATISFIABLE",
    "HTTP_422_UNPROCESSABLE_ENTITY": "HTTP_422_UNPROCESSABLE_CONTENT",
}

# Every constant but those, by its name (the old ones are found by __getattr__, which warns).
__all__ = [
    name for name in vars(_status) if name.startswith(("HTTP_", "WS_")) and name not in _RENAMED
]
globals().update({name: getattr(_status, name) for name in __all__})


def __getattr__(name: str) -> int:
    successor = _RENAMED.get(name)
    if successor is None:
        raise AttributeError(f"module 'starlette.status' has no attribute '{name}'")
    warnings.warn(
        f"'{name}' is deprecated. Use '{successor}' instead.",
        StarletteDeprecationWarning,
        stacklevel=2,
    )
    value: int = getattr(_status, successor)
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, *_RENAMED])
