"""hasten.templating: Jinja2 templates rendered into HTML responses, through both adapters."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
import pytest

import hasten
from hasten import App, HTMLResponse, Request
from hasten.templating import Jinja2Templates, TemplateResponse
from tests.conftest import ClientFactory

PAGE = "<p>{{ greeting }}, {{ name }}</p>"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "page.txt").write_text(PAGE)
    (tmp_path / "who.html").write_text("{{ request.path }} {{ user }}")
    return tmp_path


def test_render_escapes_html_and_sends_it_as_utf8(serve: ClientFactory, folder: Path) -> None:
    templates = Jinja2Templates(directory=folder)
    app = App()

    @app.get("/")
    async def page() -> HTMLResponse:
        return templates.render("page.html", {"greeting": "Hi", "name": "<b>Zoë</b> & co"})

    response = serve(app).get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == "<p>Hi, &lt;b&gt;Zoë&lt;/b&gt; &amp; co</p>".encode()


def test_template_response_puts_the_request_in_the_context(
    serve: ClientFactory, folder: Path
) -> None:
    def user(request: Request) -> Mapping[str, Any]:
        return {"user": request.query_params.get("user", "nobody")}

    templates = Jinja2Templates(directory=folder, context_processors=[user])
    app = App()

    @app.get("/who")
    async def who(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(
            request, "who.html", status_code=201, headers={"x-a": "1"}
        )

    response = serve(app).get("/who", params={"user": "<ada>"})
    assert response.status_code == 201
    assert response.headers["x-a"] == "1"
    assert response.text == "/who &lt;ada&gt;"
    # The test client's response tells the template and its context, as Starlette's.
    assert response.template.name == "who.html"  # type: ignore[attr-defined]
    context = response.context  # type: ignore[attr-defined]
    assert (sorted(context), context["user"]) == (["request", "user"], "<ada>")
    assert not hasattr(serve(app).get("/nothing"), "template")  # a 404: no template


def test_the_response_keeps_template_and_context() -> None:
    templates = Jinja2Templates(env=jinja2.Environment(loader=jinja2.DictLoader({"a": "{{ x }}"})))
    response = templates.render("a", {"x": 1}, status=404, media_type="text/plain")
    assert isinstance(response, TemplateResponse)
    assert isinstance(response, HTMLResponse)
    assert response.template is templates.get_template("a")
    assert response.context == {"x": 1}
    assert response.status == 404
    assert response.body == b"1"
    assert response.wire_headers == [("content-type", "text/plain; charset=utf-8")]
    with pytest.raises(TypeError, match=r"status= or status_code=, not both \(404 and 410\)"):
        templates.render("a", status=404, status_code=410)


def test_autoescape_is_on_for_html_only(folder: Path) -> None:
    templates = Jinja2Templates(directory=folder)
    context = {"greeting": "<i>", "name": "x"}
    assert templates.render("page.html", context).body == b"<p>&lt;i&gt;, x</p>"
    assert templates.render("page.txt", context).body == b"<p><i>, x</p>"


class CountingLoader(jinja2.DictLoader):
    def __init__(self, mapping: Mapping[str, str]) -> None:
        super().__init__(mapping)
        self.loads = 0

    def get_source(self, environment: jinja2.Environment, template: str) -> Any:
        self.loads += 1
        return super().get_source(environment, template)


def test_a_template_is_compiled_once() -> None:
    loader = CountingLoader({"a": "{{ x }}"})
    # Jinja2's own cache off: only hasten's keeps the compiled template.
    env = jinja2.Environment(loader=loader, cache_size=0, auto_reload=False)
    templates = Jinja2Templates(env=env)
    first = templates.get_template("a")
    for x in range(3):
        assert templates.render("a", {"x": x}).body == str(x).encode()
    assert templates.get_template("a") is first
    assert loader.loads == 1


def test_auto_reload_reads_a_changed_file_again(folder: Path) -> None:
    templates = Jinja2Templates(directory=folder, auto_reload=True)
    assert templates.render("page.html", {"greeting": "a", "name": "b"}).body == b"<p>a, b</p>"
    page = folder / "page.html"
    page.write_text("changed")
    stat = page.stat()
    os.utime(page, (stat.st_atime, stat.st_mtime + 5))  # a newer file, whatever the clock
    assert templates.render("page.html").body == b"changed"


def test_directory_or_env_exactly() -> None:
    with pytest.raises(TypeError, match="either 'directory' or 'env' arguments must be passed"):
        Jinja2Templates()
    with pytest.raises(TypeError, match="either 'directory' or 'env' arguments must be passed"):
        Jinja2Templates(directory=".", env=jinja2.Environment())


def test_hasten_exports_it_lazily() -> None:
    assert hasten.Jinja2Templates is Jinja2Templates
    assert "Jinja2Templates" not in hasten.__all__
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = hasten.nothing


def test_url_for_names_routes_and_mounts_under_the_root_path(
    serve: ClientFactory, folder: Path
) -> None:
    """Starlette's url_for in a template: a route by its handler's name (or ``name=``), a
    mount by its ``name=`` with ``path``; full URLs, under the prefix the app is mounted at."""
    from hasten import StaticFiles

    (folder / "site.css").write_text("p {}")
    (folder / "links.html").write_text(
        '{{ url_for("read_item", id=id) }} {{ url_for("static", path="/site.css") }} '
        '{{ url_for("home").path }}'
    )
    templates = Jinja2Templates(directory=folder)
    inner = App()
    inner.mount("/static", StaticFiles(directory=folder), name="static")

    @inner.get("/items/{id}")
    async def read_item(request: Request, id: str) -> HTMLResponse:
        return templates.TemplateResponse(request, "links.html", {"id": id})

    @inner.get("/", name="home")
    async def root() -> str:
        return "home"

    app = App()
    app.mount("/sub", inner)
    client = serve(app)
    response = client.get("/sub/items/7")
    assert response.status_code == 200
    assert response.text == (
        "http://testserver/sub/items/7 http://testserver/sub/static/site.css /sub/"
    )
    assert client.get("/sub/static/site.css").text == "p {}"
