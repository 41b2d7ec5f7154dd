"""TrustedHostMiddleware: refuse requests whose Host header is not one of yours."""

from __future__ import annotations

from collections.abc import Sequence

from hasten._http.contracts import CallNext
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, RedirectResponse, Response

__all__ = ["TrustedHostMiddleware"]


class TrustedHostMiddleware:
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
        host = _hostname(request.headers.get("host", ""))
        www = False
        for pattern in self.allowed_hosts:
            if host == pattern or _subdomain(host, pattern):
                return await call_next(request)
            if pattern == f"www.{host}":
                www = True
        if www and self.www_redirect:
            query = f"?{request.query_string}" if request.query_string else ""
            port = request.headers.get("host", "")[len(host) :]
            location = f"{request.scheme}://www.{host}{port}{request.root_path}{request.path}"
            return RedirectResponse(location + query, status=301)
        return PlainTextResponse("Invalid host header", 400)


def _hostname(host: str) -> str:
    """The host without its port (an IPv6 literal keeps its brackets)."""
    host = host.lower()
    if host.startswith("["):
        return host.partition("]")[0] + "]"
    return host.partition(":")[0]


def _subdomain(host: str, pattern: str) -> bool:
    """``host`` is a subdomain of ``*.domain``: a label, then ``.domain`` (``.domain`` alone,
    an empty label, is not a host name)."""
    suffix = pattern[1:]
    return pattern.startswith("*.") and host.endswith(suffix) and len(host) > len(suffix)
