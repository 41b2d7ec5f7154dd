"""The docs pages as HTML, by FastAPI's functions: Swagger UI, its OAuth2 redirect, ReDoc.

``get_swagger_ui_html`` and ``get_redoc_html`` take the URLs of the pages' scripts; their
defaults are FastAPI's (a CDN), for an app that builds its own docs routes. hasten's own
``/docs`` page is built by the same function with the files it serves itself. Unlike FastAPI's,
the title and URLs are HTML-escaped and the configuration is JSON with ``<>&`` escaped, so an
app's title cannot break out of the page.
"""

from __future__ import annotations

import html
import json
from typing import Any

from hasten._http.responses import HTMLResponse

__all__ = [
    "SWAGGER_UI_DEFAULTS",
    "get_redoc_html",
    "get_swagger_ui_html",
    "get_swagger_ui_oauth2_redirect_html",
]

# FastAPI's ``swagger_ui_default_parameters``.
SWAGGER_UI_DEFAULTS: dict[str, Any] = {
    "dom_id": "#swagger-ui",
    "layout": "BaseLayout",
    "deepLinking": True,
    "showExtensions": True,
    "showCommonExtensions": True,
}
_CDN = "https://cdn.jsdelivr.net/npm"
_PRESETS = """
presets: [
    SwaggerUIBundle.presets.apis,
    SwaggerUIBundle.SwaggerUIStandalonePreset
    ],
}"""

_SWAGGER_UI = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{css}">
<link rel="icon" href="{favicon}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{js}"></script>
<script>
const ui = SwaggerUIBundle({config});
{init_oauth}</script>
</body>
</html>
"""

_REDOC = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{fonts}<link rel="icon" href="{favicon}">
<style>body {{ margin: 0; padding: 0; }}</style>
</head>
<body>
<noscript>ReDoc requires Javascript to function. Please enable it to browse the documentation.
</noscript>
<redoc spec-url="{openapi_url}"></redoc>
<script src="{js}"></script>
</body>
</html>
"""

_FONTS = (
    '<link href="https://fonts.googleapis.com/css?family=Montserrat:300,400,700|'
    'Roboto:300,400,700" rel="stylesheet">\n'
)

_NO_REDIRECT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Swagger UI: OAuth2 Redirect</title></head>
<body><p>The OAuth2 redirect page is Swagger UI's, which comes from a package:
<code>pip install 'hasten[docs]'</code>.</p></body></html>
"""


def get_swagger_ui_html(
    *,
    openapi_url: str,
    title: str,
    swagger_js_url: str = f"{_CDN}/swagger-ui-dist@5/swagger-ui-bundle.js",
    swagger_css_url: str = f"{_CDN}/swagger-ui-dist@5/swagger-ui.css",
    swagger_favicon_url: str = "https://fastapi.tiangolo.com/img/favicon.png",
    oauth2_redirect_url: str | None = None,
    init_oauth: dict[str, Any] | None = None,
    swagger_ui_parameters: dict[str, Any] | None = None,
) -> HTMLResponse:
    """Swagger UI's page for the document at ``openapi_url`` (FastAPI's function)."""
    config: dict[str, Any] = {"url": openapi_url, **SWAGGER_UI_DEFAULTS}
    config.update(swagger_ui_parameters or {})
    # FastAPI's layout, one option a line (its tests look for them so); the redirect URL is
    # made absolute in the browser, as an OAuth2 server wants its redirect_uri.
    lines = [f"{_json(key)}: {_json(value)}," for key, value in config.items()]
    if oauth2_redirect_url:
        lines.append(f"oauth2RedirectUrl: window.location.origin + {_json(oauth2_redirect_url)},")
    script = "{\n" + "\n".join(lines) + _PRESETS
    oauth = f"ui.initOAuth({_json(init_oauth)});\n" if init_oauth else ""
    page = _SWAGGER_UI.format(
        title=html.escape(title),
        css=html.escape(swagger_css_url),
        favicon=html.escape(swagger_favicon_url),
        js=html.escape(swagger_js_url),
        config=script,
        init_oauth=oauth,
    )
    return HTMLResponse(page)


def get_redoc_html(
    *,
    openapi_url: str,
    title: str,
    redoc_js_url: str = f"{_CDN}/redoc@2/bundles/redoc.standalone.js",
    redoc_favicon_url: str = "https://fastapi.tiangolo.com/img/favicon.png",
    with_google_fonts: bool = True,
) -> HTMLResponse:
    """ReDoc's page for the document at ``openapi_url`` (FastAPI's function)."""
    page = _REDOC.format(
        title=html.escape(title),
        fonts=_FONTS if with_google_fonts else "",
        favicon=html.escape(redoc_favicon_url),
        openapi_url=html.escape(openapi_url),
        js=html.escape(redoc_js_url),
    )
    return HTMLResponse(page)


def get_swagger_ui_oauth2_redirect_html() -> HTMLResponse:
    """The page Swagger UI's OAuth2 flows return to (FastAPI's function): Swagger UI's own,
    from the package that ships its files (a 501 that says so without it)."""
    from hasten.openapi.docs import swagger_ui_files

    found = swagger_ui_files()
    if found is None:
        return HTMLResponse(_NO_REDIRECT, 501)
    return HTMLResponse((found[0] / "oauth2-redirect.html").read_text())


def _json(value: Any) -> str:
    """``value`` as JSON to write inside a ``<script>``: ``<``, ``>`` and ``&`` escaped, so
    that no string in it ends the script (FastAPI's escapes)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
