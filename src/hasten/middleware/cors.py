"""CORSMiddleware: Cross-Origin Resource Sharing, with Starlette's options and behaviour."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hasten._http.datastructures import check_header
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, Response
from hasten._http.wire import HeaderList
from hasten._serve.chain import HeaderMiddleware
from hasten.middleware.headers import set_header, vary

__all__ = ["CORSMiddleware"]

ALL_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY")
# What a preflight's answer depends on, beside the path (Starlette's list).
PREFLIGHT_VARY = (
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, "
    "Access-Control-Request-Private-Network"
)
# An origin no one owns: a regex that lets it in lets any site in.
ANY_SITE = "https://any-site.invalid"
# Headers a browser sends without asking (the CORS-safelisted request headers).
SAFELISTED_HEADERS = frozenset({"Accept", "Accept-Language", "Content-Language", "Content-Type"})


class CORSMiddleware(HeaderMiddleware):
    """Answer preflight requests and add the CORS headers to the responses of allowed origins.

    ``allow_origins`` (``["*"]`` for any), ``allow_origin_regex`` (matched whole),
    ``allow_methods`` and ``allow_headers`` (``["*"]`` for any) for preflights,
    ``allow_credentials`` (the origin is then echoed, never ``*``), ``expose_headers``, and
    ``max_age`` (seconds a browser may cache a preflight), ``allow_private_network`` (a
    public site's preflight to a private network). ``Vary: Origin`` goes out on every
    response, with an Origin or without: each may differ by origin, and a shared cache must
    not give one origin's answer to another (Starlette's rule).

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
        allow_private_network: bool = False,
    ) -> None:
        if allow_credentials:
            _refuse_any_origin_with_credentials(allow_origins, allow_origin_regex)
        methods = ALL_METHODS if "*" in allow_methods else tuple(m.upper() for m in allow_methods)
        self.allow_origins = frozenset(allow_origins)
        self.allow_all_origins = "*" in allow_origins
        self.allow_all_headers = "*" in allow_headers
        self.allow_origin_regex = re.compile(allow_origin_regex) if allow_origin_regex else None
        self.allow_methods = frozenset(methods)
        self.allow_credentials = allow_credentials
        self.allow_private_network = allow_private_network
        # Named in a preflight's answer as given, sorted; matched without case.
        listed_headers = sorted(SAFELISTED_HEADERS | set(allow_headers))
        self.allow_headers = frozenset(header.lower() for header in listed_headers)
        # Echo the origin (with Vary) unless any origin is allowed without credentials.
        self.explicit_origin = not self.allow_all_origins or allow_credentials
        simple: dict[str, str] = {}
        if self.allow_all_origins:
            simple["access-control-allow-origin"] = "*"
        if allow_credentials:
            simple["access-control-allow-credentials"] = "true"
        if expose_headers:
            simple["access-control-expose-headers"] = ", ".join(expose_headers)
            check_header("access-control-expose-headers", simple["access-control-expose-headers"])
        self.simple_headers = simple
        preflight: dict[str, str] = {"vary": PREFLIGHT_VARY}
        if not self.explicit_origin:
            preflight["access-control-allow-origin"] = "*"
        preflight["access-control-allow-methods"] = ", ".join(methods)
        preflight["access-control-max-age"] = str(max_age)
        if not self.allow_all_headers:
            preflight["access-control-allow-headers"] = ", ".join(listed_headers)
        if allow_credentials:
            preflight["access-control-allow-credentials"] = "true"
        self.preflight_headers = preflight

    def is_allowed_origin(self, origin: str) -> bool:
        if self.allow_all_origins or origin in self.allow_origins:
            return True
        return self.allow_origin_regex is not None and bool(
            self.allow_origin_regex.fullmatch(origin)
        )

    answers_methods = frozenset({"OPTIONS"})  # perf: not asked about the other requests

    def answer(self, request: Request) -> Response | None:
        """A preflight's answer: OPTIONS with an Origin and Access-Control-Request-Method."""
        if request.method != "OPTIONS":
            return None
        # perf: each header looked up in the server's own headers, without ``headers`` built.
        if request._header("origin") is None:
            return None
        if request._header("access-control-request-method") is None:
            return None
        return self.preflight(request)

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
        if "access-control-request-private-network" in asked:
            if self.allow_private_network:
                headers["access-control-allow-private-network"] = "true"
            else:
                failures.append("private-network")
        if failures:
            return PlainTextResponse(f"Disallowed CORS {', '.join(failures)}", 400, headers)
        return PlainTextResponse("OK", 200, headers)

    def finish(self, request: Request, headers: HeaderList) -> None:
        """The CORS headers of an allowed origin's response, and ``Vary: Origin`` on every
        response."""
        origin = request._header("origin")  # perf: as in ``answer``
        if origin is not None:
            if self.simple_headers:
                for name, value in self.simple_headers.items():
                    set_header(headers, name, value)
            # With credentials, the very origin goes back, never "*".
            if (
                self.allow_credentials
                if self.allow_all_origins
                # perf: a listed origin without ``is_allowed_origin``'s frame
                else origin in self.allow_origins or self.is_allowed_origin(origin)
            ):
                set_header(headers, "access-control-allow-origin", origin)
        vary(headers, "Origin")


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
