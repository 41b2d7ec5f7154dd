"""A frontend build served beside the API (FastAPI's ``frontend()``), through both adapters:
routes first, then the build's files, then its fallback page."""

from __future__ import annotations

import pathlib

import pytest

from hasten import App, Depends, HTTPError, Request, Router
from hasten._serve.frontend import Fallback
from hasten.routing import FrontendRoute
from tests.conftest import ClientFactory


@pytest.fixture
def dist(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "about").mkdir()
    (root / "empty").mkdir()
    (root / "index.html").write_text("app shell")
    (root / "assets" / "app.js").write_text("console.log('ok')")
    (root / "about" / "index.html").write_text("about")
    (root / "api").write_text("a file where a route is")
    (tmp_path / "secret.txt").write_text("secret")
    return root


def test_routes_win_then_files_then_the_index_for_navigation(
    serve: ClientFactory, dist: pathlib.Path
) -> None:
    app = App()

    @app.get("/api")
    async def api() -> dict[str, str]:
        return {"source": "api"}

    app.frontend("/", directory=dist, fallback="index.html")
    client = serve(app, follow_redirects=False)
    assert client.get("/api").json() == {"source": "api"}
    assert client.post("/api").status_code == 405  # the route's, not the file's
    asset = client.get("/assets/app.js")
    assert (asset.status_code, asset.text) == (200, "console.log('ok')")
    assert "etag" in asset.headers
    head = client.head("/assets/app.js")
    assert (head.status_code, head.text, head.headers["content-length"]) == (200, "", "17")
    assert client.get("/").text == "app shell"
    html = {"accept": "text/html; charset=utf-8; q=0.8"}
    shell = client.get("/dashboard/settings", headers=html)
    assert (shell.status_code, shell.text) == (200, "app shell")
    for accept in ("*/*", "application/json", "", "text/html; q=0", "text/html; q=0, */*"):
        missing = client.get("/dashboard/settings", headers={"accept": accept})
        assert (missing.status_code, missing.json()) == (404, {"detail": "Not Found"})
    redirect = client.get("/about")
    assert (redirect.status_code, redirect.headers["location"]) == (
        307,
        "http://testserver/about/",
    )
    assert client.get("/about/").text == "about"
    # Another method: 405 where there is a file, 404 where there is none.
    assert [client.post(path).status_code for path in ("/assets/app.js", "/", "/about/")] == [
        405,
        405,
        405,
    ]
    assert client.post("/empty/").status_code == 404
    assert client.post("/dashboard", headers=html).status_code == 404
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/..%5csecret.txt"):
        assert client.get(path).status_code == 404
    assert set(client.get("/openapi.json").json()["paths"]) == {"/api"}


def test_the_fallback_page_by_its_setting(serve: ClientFactory, dist: pathlib.Path) -> None:
    html = {"accept": "text/html"}
    cases: list[tuple[Fallback, int, str]] = [
        ("auto", 200, "app shell"),
        (None, 404, '{"detail":"Not Found"}'),
    ]
    for fallback, status, body in cases:
        app = App()
        app.frontend("/", directory=dist, fallback=fallback)
        response = serve(app).get("/dashboard", headers=html)
        assert (response.status_code, response.text) == (status, body)
    (dist / "404.html").write_text("missing")
    fallbacks: list[Fallback] = ["auto", "404.html"]
    for fallback in fallbacks:
        app = App()
        app.frontend("/", directory=dist, fallback=fallback)
        response = serve(app).get("/dashboard", headers=html)
        assert (response.status_code, response.text) == (404, "missing")


def test_a_routers_frontend_runs_its_dependencies_under_every_prefix(
    serve: ClientFactory, dist: pathlib.Path
) -> None:
    calls: list[str] = []

    def require_cookie(request: Request) -> None:
        calls.append(request.url.path)
        if request.cookies.get("session") != "ok":
            raise HTTPError(401)

    admin = dist.parent / "admin"
    admin.mkdir()
    (admin / "index.html").write_text("admin")
    router = Router(prefix="/ui", dependencies=[Depends(require_cookie)])
    router.frontend("/", directory=dist, fallback="index.html")
    router.frontend("/admin/", directory=admin, fallback="index.html")
    app = App()
    app.include(router, prefix="/app")
    client = serve(app)
    assert client.get("/app/ui/").status_code == 401
    cookie = {"cookie": "session=ok", "accept": "text/html"}
    assert client.get("/app/ui/", headers=cookie).text == "app shell"
    assert client.get("/app/ui/assets/app.js", headers=cookie).text == "console.log('ok')"
    assert client.get("/app/ui/admin/settings", headers=cookie).text == "admin"  # the longest
    assert client.get("/app/uix", headers=cookie).status_code == 404  # by whole segments
    assert calls == ["/app/ui/", "/app/ui/", "/app/ui/assets/app.js", "/app/ui/admin/settings"]
    assert [type(route) for route in app.routes] == [FrontendRoute, FrontendRoute]


def test_a_frontend_is_checked_as_fastapi_checks_it(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = App()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="cannot be empty"):
        app.frontend("", directory=tmp_path)
    with pytest.raises(AssertionError, match="must start with '/'"):
        app.frontend("app", directory=tmp_path)
    with pytest.raises(AssertionError, match="fallback must be 'auto'"):
        app.frontend("/", directory=tmp_path, fallback="other")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=f"'missing' does not exist.*'{tmp_path}/missing'"):
        app.frontend("/", directory="missing")
    with pytest.raises(RuntimeError, match=r"fallback file 'index\.html' does not exist"):
        app.frontend("/", directory=tmp_path, fallback="index.html")
    monkeypatch.setenv("FASTAPI_ENV", "development")
    with pytest.warns(UserWarning, match="'missing' does not exist") as warned:
        app.frontend("/", directory="missing")
    assert warned[0].filename == __file__


def test_a_missing_directory_not_checked_fails_on_the_request(
    serve: ClientFactory, tmp_path: pathlib.Path
) -> None:
    app = App()
    app.frontend("/", directory=tmp_path / "missing", check_dir=False)
    response = serve(app, raise_server_exceptions=False).get("/asset.txt")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
