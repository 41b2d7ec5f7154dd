"""Request: what a handler sees of an HTTP request, whichever protocol carried it.

The public names; the code is in ``hasten._http.requests``."""

from hasten._http.requests import (
    ClientDisconnected,
    FormReading,
    HTTPConnection,
    Request,
)

__all__ = [
    "ClientDisconnected",
    "FormReading",
    "HTTPConnection",
    "Request",
]
