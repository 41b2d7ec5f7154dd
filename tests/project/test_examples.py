"""examples/hello.py, the app ``./scripts/serve`` serves: its front page links to every route."""

from __future__ import annotations

import re

from examples.hello import TRY, app
from tests.conftest import ClientFactory


def test_the_front_page_links_to_each_get_route_and_the_docs(serve: ClientFactory) -> None:
    client = serve(app, raise_server_exceptions=False)
    page = client.get("/")

    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    links = re.findall(r'href="([^"]+)"', page.text)
    assert links == [*TRY, "/docs"]
    statuses = {url: client.get(url).status_code for url in TRY}
    assert statuses == {
        "/hello": 200,
        "/items/3?q=x": 200,
        "/typed/7": 200,
        "/files/notes/today.txt": 200,
        "/wait": 200,
        "/teapot": 418,
        "/fail": 500,
        "/raw": 202,
        "/api/users/1": 200,
    }


def test_every_get_route_but_the_front_page_is_linked() -> None:
    get_routes = {route.path for route in app.routes if "GET" in route.methods} - {"/"}
    linked = {
        path
        for path in get_routes
        for url in TRY
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^?]+", path), url.split("?")[0])
    }
    assert linked == get_routes


def test_the_docs_page_is_titled_after_the_app(serve: ClientFactory) -> None:
    client = serve(app)
    assert "<title>hasten example - Swagger UI</title>" in client.get("/docs").text
    assert client.get("/openapi.json").json()["info"]["title"] == "hasten example"
