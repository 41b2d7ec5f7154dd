"""HTTPSRedirectMiddleware: send every plain-HTTP request to the same URL over HTTPS."""

from __future__ import annotations

from hasten._http.contracts import CallNext
from hasten._http.requests import Request
from hasten._http.responses import RedirectResponse, Response

__all__ = ["HTTPSRedirectMiddleware"]

_DEFAULT_PORTS = ("80", "443")


class HTTPSRedirectMiddleware:
    """Answer a request that came over ``http`` with a 307 to the same URL over ``https``
    (a default port dropped), as Starlette's. Behind a proxy that ends TLS, add
    ``ProxyHeadersMiddleware`` before it, so that the scheme is the client's."""

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        if request.scheme != "http":
            return await call_next(request)
        url = request.url
        # Split by hand: the Host header is the client's, and may hold no valid port.
        host, colon, port = url.netloc.rpartition(":")
        netloc = host if colon and port in _DEFAULT_PORTS else url.netloc
        return RedirectResponse(url.replace(scheme="https", netloc=netloc), status=307)
