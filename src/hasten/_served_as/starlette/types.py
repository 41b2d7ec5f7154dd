"""``starlette.types``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ASGIApp", "Message", "Receive", "Scope", "Send"]
