"""HTTPSRedirectMiddleware: send every plain-HTTP request to the same URL over HTTPS."""

from __future__ import annotations

from hasten._flow.contracts import CallNext
from hasten._http.datastructures import URL
from hasten._http.errors import HTTPError
from hasten._http.hosts import host_port
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, RedirectResponse, Response
from hasten._serve.chain import ChainMiddleware, keeps_its_call

__all__ = ["HTTPSRedirectMiddleware"]

_DEFAULT_PORTS = ("80", "443")  # by value, zeros in front left out: ":000080" is 80


@keeps_its_call
class HTTPSRedirectMiddleware(ChainMiddleware):
    """Answer a request that came over ``http`` with a 307 to the same URL over ``https``
    (a default port dropped), as Starlette's; where the Host header is malformed, to the
    server's address (without one, 400 "Invalid host header"). Behind a proxy that ends TLS, add
    ``ProxyHeadersMiddleware`` before it, so that the scheme is the client's."""

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        if request.scheme != "http":
            return await call_next(request)
        try:
            url = request.url  # a malformed Host is a 400 here
        except HTTPError:
            # As Starlette's: the URL the scope was asked for, the server's address in the
            # Host's place; without one, nothing to redirect to.
            url = URL(scope=request.scope)
            if not url.netloc:
                return PlainTextResponse("Invalid host header", 400)
        host, port = host_port(url.netloc)
        # Compared as text: a port of 5,000 digits, zeros in front, is past int()'s limit.
        netloc = host if not port or port.lstrip("0") in _DEFAULT_PORTS else url.netloc
        return RedirectResponse(url.replace(scheme="https", netloc=netloc), status=307)
