"""``/openapi.json`` and ``/docs``: the document, and Swagger UI served with no CDN.

Swagger UI's files come from the ``swagger-ui-py`` package (``pip install 'hasten[docs]'``),
found without importing it and served by hasten under the docs page's own path, so the page
works offline. These routes are added when the app starts, beside the app's own: they are not
in ``app.routes``, so they are neither in the document nor in anyone's way.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from hasten._http.files import FileResponse
from hasten._http.requests import Request
from hasten._http.responses import HTMLResponse, Response
from hasten._serve.routes import BaseRoute
from hasten.openapi.pages import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from hasten.routing import Router

if TYPE_CHECKING:
    from hasten._settings import Settings
    from hasten.app import Starlette

__all__ = [
    "SWAGGER_UI_PACKAGE",
    "docs_routes",
    "get_redoc_html",
    "get_swagger_ui_html",
    "get_swagger_ui_oauth2_redirect_html",
    "swagger_ui_files",
]

SWAGGER_UI_PACKAGE = "swagger-ui-py"
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")
_IMMUTABLE = {"cache-control": "public, max-age=31536000, immutable"}

_MISSING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - docs</title></head>
<body><p>The docs page needs Swagger UI's files, which come from a package:
<code>pip install 'hasten[docs]'</code> (or <code>pip install 'hasten[standard]'</code>, every
battery at once), then restart the app. The OpenAPI document is at
<a href="{openapi}">{openapi}</a>.</p></body></html>
"""


def swagger_ui_files() -> tuple[Path, str] | None:
    """Swagger UI's folder and the package's version, or None when it is not installed."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "static"
    if not all((folder / name).is_file() for name in ASSETS):
        return None
    return folder, importlib.metadata.version(SWAGGER_UI_PACKAGE)


def docs_routes(app: Starlette) -> list[BaseRoute]:
    """The routes that serve ``app``'s document and docs page, as its settings ask."""
    settings = app.settings
    openapi_url = settings.openapi_url
    if openapi_url is None:
        return []
    _check_free(app, "openapi_url", openapi_url)
    for setting in ("docs_url", "redoc_url"):
        if (path := getattr(settings, setting)) is not None:
            _check_free(app, setting, path)
    router = Router()
    document = _Document(app)
    router.add_api_route(openapi_url, document.respond, include_in_schema=False)
    if settings.docs_url is not None:
        _add_docs_page(router, settings, settings.docs_url, openapi_url)
    if settings.redoc_url is not None:
        _add_redoc_page(router, settings.redoc_url, openapi_url, settings.title)
    return router.routes


def _check_free(app: Starlette, setting: str, path: str) -> None:
    for route in app.routes:
        if route.path == path and "GET" in route.methods:
            raise ValueError(
                f"The route GET {path} ({route.compiled.name}) takes the path of the app's "
                f"{setting}: give App({setting}=...) another path, or None to turn it off"
            )


class _Document:
    """The document as JSON: generated on the first request (not at startup) by
    ``app.openapi()``, which keeps it; encoded once for each document it returns."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.encoded: tuple[dict[str, Any], bytes] | None = None

    # A plain def: the first request generates the document on the thread pool, so a large
    # app's generation never stalls the event loop.
    def respond(self, request: Request) -> Response:
        document = self.app.openapi()
        root = request.root_path.rstrip("/")
        if root and self.app.root_path_in_servers:
            # Served under a root path, the document names it as its first server (FastAPI's
            # rule): encoded for each request, as the root path is the request's.
            servers = document.get("servers", [])
            if root not in {server.get("url") for server in servers}:
                document = {**document, "servers": [{"url": root}, *servers]}
                return Response(msgspec.json.encode(document), 200, None, "application/json")
        encoded = self.encoded
        if encoded is None or encoded[0] is not document:
            encoded = self.encoded = (document, msgspec.json.encode(document))
        return Response(encoded[1], 200, None, "application/json")


def _add_docs_page(router: Router, settings: Settings, docs_url: str, openapi_url: str) -> None:
    """Swagger UI at ``docs_url``, its files served by the app; ``swagger_ui_parameters``
    over its configuration, as FastAPI takes them."""
    title = settings.title
    found = swagger_ui_files()
    if found is None:
        page = _MISSING.format(title=html.escape(title), openapi=html.escape(openapi_url))

        async def docs_missing() -> Response:
            return HTMLResponse(page, 501)

        router.add_api_route(docs_url, docs_missing, include_in_schema=False)
        return
    folder, version = found
    assets = f"{docs_url}/assets"
    redirect_url = settings.swagger_ui_oauth2_redirect_url

    async def docs(request: Request) -> Response:
        root = request.root_path.rstrip("/")
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{title} - Swagger UI",
            swagger_js_url=f"{root}{assets}/swagger-ui-bundle.js?v={version}",
            swagger_css_url=f"{root}{assets}/swagger-ui.css?v={version}",
            swagger_favicon_url=f"{root}{assets}/favicon-32x32.png?v={version}",
            oauth2_redirect_url=None if redirect_url is None else root + redirect_url,
            init_oauth=settings.swagger_ui_init_oauth,
            swagger_ui_parameters=settings.swagger_ui_parameters,
        )

    router.add_api_route(docs_url, docs, include_in_schema=False)
    for name in ASSETS:
        router.add_api_route(f"{assets}/{name}", _asset(folder / name), include_in_schema=False)
    if redirect_url is not None:

        async def oauth2_redirect() -> Response:
            return get_swagger_ui_oauth2_redirect_html()

        router.add_api_route(redirect_url, oauth2_redirect, include_in_schema=False)


def _add_redoc_page(router: Router, redoc_url: str, openapi_url: str, title: str) -> None:
    """FastAPI's ReDoc page at ``redoc_url``: asked for, since it loads ReDoc from a CDN."""

    async def redoc(request: Request) -> Response:
        root = request.root_path.rstrip("/")
        return get_redoc_html(openapi_url=root + openapi_url, title=f"{title} - ReDoc")

    router.add_api_route(redoc_url, redoc, include_in_schema=False)


def _asset(path: Path) -> Any:
    async def asset() -> Response:
        # The page asks for each file with the package's version in the URL, so a browser
        # may keep it for good: a new version is a new URL.
        return FileResponse(path, headers=_IMMUTABLE)

    return asset
