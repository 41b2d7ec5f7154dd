"""CORSMiddleware: Cross-Origin Resource Sharing, with Starlette's options and behaviour."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..requests import Request
from ..responses import PlainTextResponse, Response
from ..types import CallNext
from .headers import add_vary

__all__ = ["CORSMiddleware"]

ALL_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
# An origin no one owns: a regex that lets it in lets any site in.
ANY_SITE = "https://any-site.invalid"
# Headers a browser sends without asking (the CORS-safelisted request headers).
SAFELISTED_HEADERS = frozenset({"accept", "accept-language", "content-language", "content-type"})


class CORSMiddleware:
    """Answer preflight requests and add the CORS headers to the responses of allowed origins.

    ``allow_origins`` (``["*"]`` for any), ``allow_origin_regex`` (matched whole),
    ``allow_methods`` and ``allow_headers`` (``["*"]`` for any) for preflights,
    ``allow_credentials`` (the origin is then echoed, never ``*``), ``expose_headers``, and
    ``max_age`` (seconds a browser may cache a preflight). ``Vary: Origin`` goes out whenever
    the answer depends on the origin.

    Unlike Starlette, credentials together with an origin any site can send (``"*"``,
    ``"null"``, or a regex that matches any origin) are refused when the middleware is made:
    they would let every site read your users' responses with their cookies.
    """

    def __init__(
        self,
        *,
        allow_origins: Sequence[str] = (),
        allow_methods: Sequence[str] = ("GET",),
        allow_headers: Sequence[str] = (),
        allow_credentials: bool = False,
        allow_origin_regex: str | None = None,
        expose_headers: Sequence[str] = (),
        max_age: int = 600,
    ) -> None:
        if allow_credentials:
            _refuse_any_origin_with_credentials(allow_origins, allow_origin_regex)
        methods = ALL_METHODS if "*" in allow_methods else tuple(m.upper() for m in allow_methods)
        self.allow_origins = frozenset(allow_origins)
        self.allow_all_origins = "*" in allow_origins
        self.allow_all_headers = "*" in allow_headers
        self.allow_origin_regex = re.compile(allow_origin_regex) if allow_origin_regex else None
        self.allow_methods = frozenset(methods)
        self.allow_headers = SAFELISTED_HEADERS | {header.lower() for header in allow_headers}
        # Echo the origin (with Vary) unless any origin is allowed without credentials.
        self.explicit_origin = not self.allow_all_origins or allow_credentials
        simple: dict[str, str] = {}
        if self.allow_all_origins:
            simple["access-control-allow-origin"] = "*"
        if allow_credentials:
            simple["access-control-allow-credentials"] = "true"
        if expose_headers:
            simple["access-control-expose-headers"] = ", ".join(expose_headers)
        self.simple_headers = simple
        preflight: dict[str, str] = {}
        if self.explicit_origin:
            preflight["vary"] = "Origin"
        else:
            preflight["access-control-allow-origin"] = "*"
        preflight["access-control-allow-methods"] = ", ".join(methods)
        preflight["access-control-max-age"] = str(max_age)
        if not self.allow_all_headers:
            preflight["access-control-allow-headers"] = ", ".join(sorted(self.allow_headers))
        if allow_credentials:
            preflight["access-control-allow-credentials"] = "true"
        self.preflight_headers = preflight

    def is_allowed_origin(self, origin: str) -> bool:
        if self.allow_all_origins or origin in self.allow_origins:
            return True
        return self.allow_origin_regex is not None and bool(
            self.allow_origin_regex.fullmatch(origin)
        )

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        headers = request.headers
        origin = headers.get("origin")
        if origin is None:
            return await call_next(request)
        if request.method == "OPTIONS" and "access-control-request-method" in headers:
            return self.preflight(request)
        response = await call_next(request)
        self.add_simple_headers(request, response, origin)
        return response

    def preflight(self, request: Request) -> Response:
        asked = request.headers
        headers = dict(self.preflight_headers)
        failures = []
        origin = asked["origin"]
        if self.is_allowed_origin(origin):
            if self.explicit_origin:
                headers["access-control-allow-origin"] = origin
        else:
            failures.append("origin")
        if asked["access-control-request-method"].upper() not in self.allow_methods:
            failures.append("method")
        requested = asked.get("access-control-request-headers")
        if requested is not None:
            if self.allow_all_headers:
                headers["access-control-allow-headers"] = requested
            elif any(
                name.strip().lower() not in self.allow_headers for name in requested.split(",")
            ):
                failures.append("headers")
        if failures:
            return PlainTextResponse(f"Disallowed CORS {', '.join(failures)}", 400, headers)
        return PlainTextResponse("OK", 200, headers)

    def add_simple_headers(self, request: Request, response: Response, origin: str) -> None:
        headers = response.headers
        for name, value in self.simple_headers.items():
            headers[name] = value
        # A request with cookies needs the very origin back, never "*".
        if (self.allow_all_origins and "cookie" in request.headers) or (
            not self.allow_all_origins and self.is_allowed_origin(origin)
        ):
            headers["access-control-allow-origin"] = origin
            add_vary(headers, "Origin")


def _refuse_any_origin_with_credentials(origins: Sequence[str], regex: str | None) -> None:
    """Credentials for any site: every site could read a signed-in user's responses."""
    if "*" in origins:
        reason = 'allow_origins=["*"]'
    elif "null" in origins:
        reason = 'allow_origins with "null" (any sandboxed page or file sends it)'
    elif regex is not None and re.fullmatch(regex, ANY_SITE):
        reason = f"allow_origin_regex={regex!r}, which matches any origin"
    else:
        return
    raise ValueError(
        f"CORSMiddleware: allow_credentials=True with {reason} lets every site read your "
        "users' responses with their cookies; list the origins you trust"
    )
