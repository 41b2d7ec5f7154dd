"""``/openapi.json`` and ``/docs`` through both adapters: served offline, moved or turned off,
generated on the first request and kept."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from hasten import App, HTTPError, Request, Response
from hasten.openapi.docs import (
    ASSETS,
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
    swagger_ui_files,
)
from hasten.testing import TestClient
from tests.conftest import ClientFactory


def make_app(**settings: Any) -> App:
    app = App(title="Docs <test>", **settings)

    @app.get("/items/{item_id}")
    async def item(item_id: int) -> dict[str, int]:
        return {"id": item_id}

    return app


def test_the_document_is_generated_on_the_first_request_and_kept(serve: ClientFactory) -> None:
    app = make_app()
    client = serve(app)
    assert client.get("/items/1").json() == {"id": 1}
    assert app.started
    assert app.openapi_schema is None  # not at startup
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    document = response.json()
    assert document == app.openapi_schema
    assert list(document["paths"]) == ["/items/{item_id}"]  # the docs routes are not in it
    kept = app.openapi_schema
    assert client.get("/openapi.json").json() == document
    assert app.openapi_schema is kept


def test_openapi_version_30_serves_the_30_rendering(serve: ClientFactory) -> None:
    client = serve(make_app(openapi_version="3.0.3"))
    assert client.get("/openapi.json").json()["openapi"] == "3.0.3"


def test_a_replaced_openapi_method_is_what_is_served(serve: ClientFactory) -> None:
    # FastAPI's recipe for a customised document: replace app.openapi.
    app = make_app()
    original = app.openapi

    def custom() -> dict[str, Any]:
        document = original()
        document["info"]["x-logo"] = {"url": "/logo.png"}
        return document

    app.openapi = custom  # type: ignore[method-assign]
    client = serve(app)
    assert client.get("/openapi.json").json()["info"]["x-logo"] == {"url": "/logo.png"}


def test_the_docs_page_loads_everything_from_the_app(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = response.text
    assert "<title>Docs &lt;test&gt; - Swagger UI</title>" in page
    assert '"url": "/openapi.json"' in page
    assert "//" not in page  # no other host: nothing from a CDN
    found = swagger_ui_files()
    assert found is not None
    folder, version = found
    links = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sorted(links) == sorted(f"/docs/assets/{name}?v={version}" for name in ASSETS)
    for link in links:
        asset = client.get(link)
        assert asset.status_code == 200
        name = link.split("/")[-1].split("?")[0]
        assert asset.content == (folder / name).read_bytes()
        assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert (
        client.get("/docs/assets/swagger-ui.css").headers["content-type"]
        == "text/css; charset=utf-8"
    )
    redirect = client.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200
    assert "oauth2" in redirect.text
    assert client.get("/docs/assets/swagger-ui.js").status_code == 404  # only what the page uses


def test_swagger_ui_parameters_go_over_the_defaults(serve: ClientFactory) -> None:
    client = serve(make_app(swagger_ui_parameters={"deepLinking": False, "layout": "Mine"}))
    page = client.get("/docs").text
    (script,) = re.findall(r"SwaggerUIBundle\((\{.*\})\);", page, re.DOTALL)
    # FastAPI's layout, its defaults kept where not given (its tutorial tests look for each).
    assert script == (
        '{\n"url": "/openapi.json",\n"dom_id": "#swagger-ui",\n"layout": "Mine",\n'
        '"deepLinking": false,\n"showExtensions": true,\n"showCommonExtensions": true,\n'
        'oauth2RedirectUrl: window.location.origin + "/docs/oauth2-redirect",\n'
        "presets: [\n    SwaggerUIBundle.presets.apis,\n"
        "    SwaggerUIBundle.SwaggerUIStandalonePreset\n    ],\n}"
    )


def test_moved_urls(serve: ClientFactory) -> None:
    client = serve(make_app(openapi_url="/api/schema.json", docs_url="/api/docs"))
    assert client.get("/api/schema.json").status_code == 200
    page = client.get("/api/docs").text
    assert '"url": "/api/schema.json"' in page
    assert "/api/docs/assets/swagger-ui-bundle.js" in page
    assert client.get("/api/docs/assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/openapi.json").status_code == 404
    assert client.get("/docs").status_code == 404


def test_turned_off(serve: ClientFactory) -> None:
    client = serve(make_app(docs_url=None))
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/docs").status_code == 404
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 404
    client = serve(make_app(openapi_url=None))  # no document: no docs either, as in FastAPI
    assert client.get("/openapi.json").status_code == 404
    assert client.get("/docs").status_code == 404


def test_an_empty_url_turns_it_off_as_fastapi_reads_it_from_settings(
    serve: ClientFactory,
) -> None:
    client = serve(make_app(openapi_url=""))
    response = client.get("/openapi.json")
    assert (response.status_code, response.json()) == (404, {"detail": "Not Found"})
    assert client.get("/docs").status_code == 404
    client = serve(make_app(docs_url="", redoc_url=""))
    assert (client.get("/docs").status_code, client.get("/redoc").status_code) == (404, 404)
    assert client.get("/openapi.json").status_code == 200


def test_an_app_may_serve_its_own_docs_route_once_ours_is_off(serve: ClientFactory) -> None:
    app = make_app(docs_url=None)

    @app.get("/docs")
    async def docs() -> str:
        return "mine"

    assert serve(app).get("/docs").json() == "mine"
    assert "/docs" in app.openapi()["paths"]


@pytest.mark.parametrize(
    ("path", "setting"), [("/docs", "docs_url"), ("/openapi.json", "openapi_url")]
)
def test_a_route_on_their_path_is_refused_at_startup(path: str, setting: str) -> None:
    app = make_app()

    async def mine() -> str:
        return "mine"

    app.add_api_route(path, mine)
    message = (
        rf"The route GET {path} \(.*mine\) takes the path of the app's {setting}: "
        rf"give App\({setting}=\.\.\.\) another path, or None to turn it off"
    )
    with pytest.raises(ValueError, match=message):
        asyncio.run(app.startup())


def test_the_docs_page_under_a_root_path() -> None:
    with TestClient(make_app(), interface="asgi", root_path="/api") as client:
        page = client.get("/docs").text
    assert '"url": "/api/openapi.json"' in page
    assert 'oauth2RedirectUrl: window.location.origin + "/api/docs/oauth2-redirect",' in page
    assert 'src="/api/docs/assets/swagger-ui-bundle.js' in page


def test_without_the_assets_package_the_page_says_what_to_install(
    serve: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "swagger_ui" else real(name, *args),
    )
    assert swagger_ui_files() is None
    client = serve(make_app())
    response = client.get("/docs")
    assert response.status_code == 501
    assert "<code>pip install 'hasten[docs]'</code>" in response.text
    assert "<code>pip install 'hasten[standard]'</code>" in response.text
    assert client.get("/openapi.json").status_code == 200


def test_a_package_without_the_files_counts_as_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.machinery

    (tmp_path / "static").mkdir()
    spec = importlib.machinery.ModuleSpec("swagger_ui", None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path)]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: spec)
    assert swagger_ui_files() is None


def test_a_failing_generation_is_a_500_and_is_tried_again(serve: ClientFactory) -> None:
    app = make_app()
    calls = []

    def failing() -> dict[str, Any]:
        calls.append(1)
        raise HTTPError(503, "not yet")

    app.openapi = failing  # type: ignore[method-assign]
    client = serve(app)
    assert client.get("/openapi.json").status_code == 503
    assert client.get("/openapi.json").status_code == 503
    assert len(calls) == 2


def test_the_docs_routes_are_not_the_apps() -> None:
    app = make_app()
    assert [route.path for route in app.routes] == ["/items/{item_id}"]
    assert [info.path for info in app.describe_routes()] == ["/items/{item_id}"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"openapi_url": "openapi.json"}, "openapi_url must be '/' or start with '/'"),
        ({"docs_url": "/docs/"}, "docs_url must be '/' or start with '/' and not end with it"),
        ({"openapi_version": "2.0"}, "openapi_version must be 3.0.x or 3.1.x"),
    ],
)
def test_settings_are_checked(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        App(**settings)


def test_the_docs_page_may_be_the_root(serve: ClientFactory) -> None:
    client = serve(make_app(docs_url="/"))
    answer = client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert "/openapi.json" in answer.text


def test_the_request_is_not_needed(serve: ClientFactory) -> None:
    # A handler taking the Request still documents cleanly next to the docs routes.
    app = make_app()

    @app.get("/raw")
    async def raw(request: Request) -> str:
        return request.path

    assert serve(app).get("/openapi.json").json()["paths"]["/raw"]["get"]["operationId"] == (
        "raw_raw_get"
    )


def test_fastapis_page_functions_build_an_apps_own_docs(serve: ClientFactory) -> None:
    app = App(title="Shop", docs_url=None)
    js = "https://unpkg.com/swagger-ui-dist@5/swagger-ui-bundle.js"

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url,
            title=app.title + " - Swagger UI",
            oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
            swagger_js_url=js,
            init_oauth={"clientId": "</script>"},
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def redirect() -> Response:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> Response:
        return get_redoc_html(openapi_url=app.openapi_url, title=app.title + " - ReDoc")

    client = serve(app)
    page = client.get("/docs")
    assert page.status_code == 200
    assert f'<script src="{js}"></script>' in page.text
    assert "<title>Shop - Swagger UI</title>" in page.text
    assert 'oauth2RedirectUrl: window.location.origin + "/docs/oauth2-redirect",' in page.text
    assert 'ui.initOAuth({"clientId": "\\u003c/script\\u003e"});' in page.text
    assert "window.opener.swaggerUIRedirectOauth2" in client.get("/docs/oauth2-redirect").text
    redoc_page = client.get("/redoc").text
    assert '<redoc spec-url="/openapi.json"></redoc>' in redoc_page
    assert "https://cdn.jsdelivr.net/npm/redoc@2/bundles/redoc.standalone.js" in redoc_page


def test_the_redoc_page_is_served_only_when_asked_for(serve: ClientFactory) -> None:
    assert serve(make_app()).get("/redoc").status_code == 404
    client = serve(make_app(redoc_url="/redoc"))
    page = client.get("/redoc")
    assert page.status_code == 200
    assert "<title>Docs &lt;test&gt; - ReDoc</title>" in page.text


def test_swagger_ui_init_oauth_reaches_the_page(serve: ClientFactory) -> None:
    client = serve(make_app(swagger_ui_init_oauth={"clientId": "shop", "scopes": "items"}))
    response = client.get("/docs")
    assert response.status_code == 200
    assert 'ui.initOAuth({"clientId": "shop", "scopes": "items"});\n</script>' in response.text
    assert "ui.initOAuth" not in serve(make_app()).get("/docs").text
