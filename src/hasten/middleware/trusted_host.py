"""TrustedHostMiddleware: refuse requests whose Host header is not one of yours."""

from __future__ import annotations

from collections.abc import Sequence

from hasten._flow.contracts import CallNext
from hasten._http.hosts import host_name
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, RedirectResponse, Response
from hasten._serve.chain import ChainMiddleware, keeps_its_call

__all__ = ["TrustedHostMiddleware"]


@keeps_its_call
class TrustedHostMiddleware(ChainMiddleware):
    """Answer 400 to a request whose ``Host`` is not in ``allowed_hosts`` (``example.com``,
    ``*.example.com`` for its subdomains, ``*`` for any), which guards against Host header
    attacks. With ``www_redirect``, a request to ``example.com`` when only
    ``www.example.com`` is allowed is redirected there (301), as in Starlette.
    """

    def __init__(self, allowed_hosts: Sequence[str] = ("*",), www_redirect: bool = True) -> None:
        for pattern in allowed_hosts:
            rest = pattern[2:] if pattern.startswith("*.") else pattern
            if pattern != "*" and "*" in rest:
                raise ValueError(f"Invalid host pattern {pattern!r}: use '*' or '*.domain' only")
        self.allowed_hosts = tuple(host.lower() for host in allowed_hosts)
        self.allow_any = "*" in self.allowed_hosts
        self.www_redirect = www_redirect

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        if self.allow_any:
            return await call_next(request)
        # A malformed Host is a 400 saying why, before any comparison: what follows an
        # allowed host ("127.0.0.1:@evil.com") would otherwise reach the URLs built from it.
        host = host_name(request.headers.get("host", ""))
        www = False
        for pattern in self.allowed_hosts:
            if host == pattern or _subdomain(host, pattern):
                return await call_next(request)
            if pattern == f"www.{host}":
                www = True
        if www and self.www_redirect:
            url = request.url
            return RedirectResponse(url.replace(netloc=f"www.{url.netloc}"), status=301)
        return PlainTextResponse("Invalid host header", 400)


def _subdomain(host: str, pattern: str) -> bool:
    """``host`` is a subdomain of ``*.domain``: a label, then ``.domain`` (``.domain`` alone,
    an empty label, is not a host name)."""
    suffix = pattern[1:]
    return pattern.startswith("*.") and host.endswith(suffix) and len(host) > len(suffix)
