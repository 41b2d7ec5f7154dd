"""The names of FastAPI's private ``fastapi._compat`` that code written for FastAPI imports
(``hasten port`` rewrites that module to this one): a library or test that checks pydantic's
version the way FastAPI spells it keeps working. Imported only by such code."""

from __future__ import annotations

from pydantic.version import VERSION
from pydantic_core import PydanticUndefined as Undefined

__all__ = ["PYDANTIC_VERSION_MINOR_TUPLE", "Undefined"]

# pydantic's (major, minor), as FastAPI gives it: ``(2, 11)`` for 2.11.4.
PYDANTIC_VERSION_MINOR_TUPLE: tuple[int, ...] = tuple(int(part) for part in VERSION.split(".")[:2])
