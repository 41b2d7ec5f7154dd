"""``starlette``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

# The release whose public names this module holds.
__version__ = "1.10.0"

__all__ = ["__version__"]
