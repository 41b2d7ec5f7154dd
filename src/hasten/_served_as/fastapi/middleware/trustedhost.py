"""``fastapi.middleware.trustedhost``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware import TrustedHostMiddleware

__all__ = ["TrustedHostMiddleware"]
