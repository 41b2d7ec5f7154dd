"""``starlette.requests``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import FormData
from hasten.datastructures import URL, Address, Headers, QueryParams, State
from hasten.errors import HTTPException
from hasten.requests import ClientDisconnected as ClientDisconnect
from hasten.requests import HTTPConnection, Request

__all__ = [
    "URL",
    "Address",
    "ClientDisconnect",
    "FormData",
    "HTTPConnection",
    "HTTPException",
    "Headers",
    "QueryParams",
    "Request",
    "State",
]
