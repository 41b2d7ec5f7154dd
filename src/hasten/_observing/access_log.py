"""The access log: one line per request on the ``hasten.access`` logger, as JSON or key=value.

Every field is bounded, so a client cannot make a long line: the route is the app's own
template, the method is a known one or ``_OTHER``, and the raw path is cut at 200 characters.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import msgspec

from hasten._observing.observe import Exchange, RouteTag
from hasten._settings import AccessLogFormat

__all__ = ["AccessLog"]

logger = logging.getLogger("hasten.access")
LOGGED_PATH_LENGTH = 200
_encode = msgspec.json.encode


class AccessLog:
    """Writes the line of each observed request (a Sink)."""

    def __init__(self, style: AccessLogFormat) -> None:
        self.format: Callable[[dict[str, Any]], str] = _json if style == "json" else _keyvalue

    reads_queued = True

    def record(self, path: str, tag: RouteTag, exchange: Exchange, seconds: float) -> None:
        if not logger.isEnabledFor(logging.INFO):
            return
        fields: dict[str, Any] = {
            "method": exchange.method,
            "route": tag.template,
            "path": path[:LOGGED_PATH_LENGTH],
            "status": exchange.status,
            "duration_ms": round(seconds * 1000, 3),
            "bytes": exchange.sent,
            "runs_on": tag.runs_on,
        }
        if exchange.queued:
            fields["queued_ms"] = round(exchange.queued * 1000, 3)
        logger.info(self.format(fields))


def _json(fields: dict[str, Any]) -> str:
    return _encode(fields).decode()


def _keyvalue(fields: dict[str, Any]) -> str:
    # Strings quoted and escaped as JSON strings (logfmt's rule), numbers bare.
    return " ".join(
        f"{name}={_encode(value).decode() if isinstance(value, str) else value}"
        for name, value in fields.items()
    )
