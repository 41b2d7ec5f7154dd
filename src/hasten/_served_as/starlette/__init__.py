"""``starlette``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

import importlib
import types

# The release whose public names this module holds.
__version__ = "1.10.0"

__all__ = ["__version__"]


def __getattr__(name: str) -> types.ModuleType:
    """A submodule read as the package's attribute (``import starlette``, then
    ``starlette.responses``): under Starlette its modules import one another, so that one
    import makes most of them attributes; here each is imported when first read."""
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"starlette.{name}")
        except ModuleNotFoundError:
            pass
    raise AttributeError(f"module 'starlette' has no attribute {name!r}")
