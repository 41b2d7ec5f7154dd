"""The documentation site's samples run. Each page's Python samples, in order, are one module,
imported and served through both adapters, then checked page by page; each ``hasten`` command
in its shell samples is one that hasten's parser takes; each file a page includes (with
pymdownx.snippets) is one that a test runs. ``scripts/test`` builds the site with --strict."""

from __future__ import annotations

import importlib
import itertools
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest

from hasten import App
from hasten.cli import build_parser
from hasten.testing import TestClient
from tests.conftest import ClientFactory

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^"]+)"$', re.M)


def fences(page: Path, language: str) -> Iterator[str]:
    """The bodies of the page's ``language`` code blocks, dedented, in order."""
    for found in FENCE.finditer(page.read_text()):
        if found.group("lang") == language:
            indent = len(found.group("indent"))
            yield "".join(line[indent:] for line in found.group("body").splitlines(True))


def page_module(page: Path) -> str:
    """The page's Python samples as one module: an included example file is imported (its own
    test runs it), each inline sample follows as it is written."""
    parts = []
    for body in fences(page, "python"):
        included = INCLUDE.fullmatch(body.strip())
        if included is None:
            parts.append(body)
        elif included["path"].endswith(".py") and len(parts) == 0:
            module = included["path"].removesuffix(".py").replace("/", ".")
            parts.append(f"from {module} import *  # noqa: F403\n")
    return "\n\n".join(parts) if any(INCLUDE.search(part) is None for part in parts) else ""


PAGES = sorted(
    page.relative_to(DOCS).as_posix()
    for page in DOCS.rglob("*.md")
    if any(INCLUDE.fullmatch(body.strip()) is None for body in fences(page, "python"))
)


@pytest.fixture
def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], ModuleType]]:
    """``load(page)``: the page's module, imported from a file in a folder of its own (so that
    a process pool's workers import it by name), which is also the working directory, with
    what the samples open there (static/, report.pdf, templates/)."""
    names: list[str] = []

    def loader(page: str) -> ModuleType:
        name = "docs_" + re.sub(r"\W", "_", page.removesuffix(".md"))
        (tmp_path / f"{name}.py").write_text(page_module(DOCS / page))
        (tmp_path / "static").mkdir()
        (tmp_path / "static" / "index.html").write_text("<h1>static</h1>")
        (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 report")
        (tmp_path / "templates").mkdir()
        (tmp_path / "templates" / "home.html").write_text("<p>{{ user }}</p>")
        (tmp_path / "templates" / "fortunes.html").write_text("{{ fortunes | length }}")
        monkeypatch.chdir(tmp_path)
        monkeypatch.syspath_prepend(str(tmp_path))
        names.append(name)
        return importlib.import_module(name)

    yield loader
    for name in names:
        sys.modules.pop(name, None)


def check_dependencies(page: ModuleType, client: TestClient) -> None:
    me = client.get("/me", headers={"Authorization": "Bearer t0k3n"})
    assert (me.status_code, me.json()) == (200, {"name": "ada", "admin": True})
    assert client.get("/me", headers={"Authorization": "nobody"}).status_code == 401
    assert client.get("/admin/stats", headers={"Authorization": "t0k3n"}).json() == {"users": 2}
    refused = client.get("/admin/stats", headers={"Authorization": "guest"})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Admins only"})


def check_forms(page: ModuleType, client: TestClient) -> None:
    login = client.post("/login", data={"username": "ada", "password": "x"})
    assert login.json() == {"username": "ada"}
    avatar = client.post("/avatar", files={"file": ("me.png", b"PNG")}, data={"caption": "hi"})
    assert avatar.json() == {"name": "me.png", "size": 3, "caption": "hi"}
    profile = client.post("/profile", data={"name": "ada", "age": "36"})
    assert profile.json() == {"name": "ada", "age": 36}
    assert client.post("/contacts", data={"kind": "company", "vat": "FR1"}).json() == {
        "kind": "company"
    }
    two = [("file", ("a", b"a")), ("file", ("b", b"b"))]
    # max_files: 1, a 400 as FastAPI answers it
    assert client.post("/uploads/avatar", files=two).status_code == 400


def check_models(page: ModuleType, client: TestClient) -> None:
    assert client.get("/users/1").json() == {"id": 1, "name": "ada"}
    missing = client.get("/nowhere")
    assert (missing.status_code, missing.json()) == (404, {"errors": {"body": ["Not Found"]}})
    point = client.post("/points", json={"x": 1, "y": 2})
    assert (point.status_code, point.text) == (200, '{"x":1,"y":2}')
    assert client.post("/points", json={"x": "1", "y": 2}).status_code == 422  # strict
    invalid = client.get("/users/one")
    assert invalid.status_code == 422
    assert invalid.json()["errors"]["body"][0].startswith("id Input should be a valid integer")


def check_security(page: ModuleType, client: TestClient) -> None:
    assert client.get("/private", headers={"Authorization": "Bearer abc"}).json() == "abc"
    assert client.get("/private").status_code == 401


def check_handlers(page: ModuleType, client: TestClient) -> None:
    assert client.get("/fibo/20").json() == {"n": 20, "fibo": 6765}
    assert client.get("/render/2").json() == {"pages": 2}
    assert client.get("/report").json() == {"ready": True}
    assert client.post("/signup", json={"email": "ada@example.com"}).json() == {"ok": True}
    assert page.sent[-1] == "ada@example.com"


def check_middleware(page: ModuleType, client: TestClient) -> None:
    host = {"host": "example.com"}
    assert client.get("/legacy/ping", headers=host).text == "pong"
    home = client.get("/", headers={**host, "accept-encoding": "gzip"})
    assert (home.status_code, home.headers["content-encoding"]) == (200, "gzip")
    assert client.get("/", headers={"host": "evil.test"}).status_code == 400


def check_observability(page: ModuleType, client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "alive"}
    assert client.get("/readyz").json() == {"status": "ready"}
    assert "http_requests_total" in client.get("/metrics").text
    stats = client.get("/_hasten/stats", headers={"Authorization": "Bearer s3cret"})
    assert stats.status_code == 200


def check_openapi(page: ModuleType, client: TestClient) -> None:
    assert client.get("/items/1").json() == {"id": 1, "name": "Teapot"}
    assert client.get("/items/2").status_code == 404
    operation = client.get("/openapi.json").json()["paths"]["/items/{item_id}"]["get"]
    assert operation["summary"] == "Get Item"
    assert operation["description"].startswith("One item.")


def check_streams(page: ModuleType, client: TestClient) -> None:
    assert client.get("/tokens").text == "Hello, world"
    assert client.get("/export").text == "row 0\nrow 1\nrow 2\n"
    feed = client.get("/feed", headers={"last-event-id": "4"})
    assert 'event: update\ndata: {"id": 5, "price": 105}\nid: 5\n\n' in feed.text
    report = client.get("/report")
    assert (report.content, report.headers["content-type"]) == (
        b"%PDF-1.4 report",
        "application/pdf",
    )
    assert client.get("/static/").text == "<h1>static</h1>"


def check_websockets(page: ModuleType, client: TestClient) -> None:
    with client.websocket_connect("/ws/lobby?token=t") as websocket:
        assert websocket.receive_json() == {"joined": "lobby"}
        websocket.send_text("hi")
        assert websocket.receive_text() == "lobby: hi"


def check_settings_recipe(page: ModuleType, client: TestClient) -> None:
    try:
        assert client.get("/info").json()["name"] == "Test"  # the page's override
    finally:
        page.app.dependency_overrides.clear()


def check_templates(page: ModuleType, client: TestClient) -> None:
    assert client.get("/").text == "<p>Ada</p>"


def check_first_steps(page: ModuleType, client: TestClient) -> None:
    assert client.get("/").text == '{"shop":"open"}'
    assert client.get("/items/3").text == '{"item_id":3}'
    assert client.get("/items/three").json()["detail"][0]["loc"] == ["path", "item_id"]
    assert client.get("/items/?limit=5&q=tea").text == '{"skip":0,"limit":5,"q":"tea"}'
    created = client.post("/items/", json={"name": "pen", "price": "1.5"})  # lax, as pydantic
    assert (created.status_code, created.text) == (201, '{"name":"pen","price":1.5,"tags":[]}')
    assert client.get("/items/by-name/pen").text == created.text
    missing = client.get("/items/by-name/ink")
    assert (missing.status_code, missing.text) == (404, '{"detail":"No such item"}')
    page_title = client.get("/docs").text
    assert "<title>Shop - Swagger UI</title>" in page_title


def check_testing(page: ModuleType, client: TestClient) -> None:
    """The page's tests pass, the async ones on asyncio and on trio."""
    page.test_hello()
    page.test_me_needs_a_token()
    page.test_me_as_a_fake_user()
    assert client.get("/me", headers={"Authorization": "Bearer t0k3n"}).json() == {"user": "ada"}
    for backend in ("asyncio", "trio"):
        anyio.run(page.test_hello_async, backend=backend)
    anyio.run(page.test_with_the_lifespan)


def started(page: ModuleType, client: TestClient) -> None:
    """The app started (its routes compiled, its hooks run) and stops: all a page may need."""


CHECKS: dict[str, Callable[[ModuleType, TestClient], None]] = {
    "dependencies.md": check_dependencies,
    "forms.md": check_forms,
    "models.md": check_models,
    "security.md": check_security,
    "handlers.md": check_handlers,
    "middleware.md": check_middleware,
    "observability.md": check_observability,
    "openapi.md": check_openapi,
    "streams.md": check_streams,
    "websockets.md": check_websockets,
    "recipes/settings.md": check_settings_recipe,
    "templates.md": check_templates,
    "testing.md": check_testing,
    "tutorial/first-steps.md": check_first_steps,
}


@pytest.mark.parametrize("page", PAGES)
def test_the_samples_of_each_page_run(
    page: str, load: Callable[[str], ModuleType], serve: ClientFactory
) -> None:
    module = load(page)
    app = module.app
    assert isinstance(app, App)
    with serve(app, raise_server_exceptions=False) as client:
        CHECKS.get(page, started)(module, client)


def test_every_check_is_of_a_page_with_samples() -> None:
    assert set(CHECKS) <= set(PAGES)


def commands(page: Path) -> Iterator[list[str]]:
    """Each ``hasten ...`` command of the page's shell samples, as its arguments (an
    environment assignment before it and a comment after it left out)."""
    for body in fences(page, "sh"):
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words[:1] == ["hasten"]:
                yield words[1:]


HASTEN_COMMANDS = [
    pytest.param(arguments, id=f"{page.relative_to(DOCS)}: hasten {shlex.join(arguments)}")
    for page in sorted(DOCS.rglob("*.md"))
    for arguments in commands(page)
]


@pytest.mark.parametrize("arguments", HASTEN_COMMANDS)
def test_each_hasten_command_in_the_docs_parses(arguments: list[str]) -> None:
    build_parser().parse_args(arguments)  # exits with argparse's message on a bad one


def test_each_included_file_is_run_by_a_test() -> None:
    tests = "\n".join(path.read_text() for path in (ROOT / "tests").rglob("*.py"))
    included = {
        found["path"] for page in DOCS.rglob("*.md") for found in INCLUDE.finditer(page.read_text())
    }
    assert included
    for path in included - {"README.md:answers"}:  # tests/project/test_docs.py asks for each answer
        assert (ROOT / path).is_file(), path
        # A test names the file, its module, or the folder or package it belongs to.
        parts = path.removesuffix(".py").split("/")
        names = {sep.join(parts[:end]) for end in range(3, len(parts) + 1) for sep in "/."}
        imported = rf"from {'.'.join(parts[:-1])} import [^\n]*\b{parts[-1]}\b"
        assert any(name in tests for name in names) or re.search(imported, tests), path


def tutorial_pages() -> list[str]:
    """The pages of the site's Tutorial section, in the order of mkdocs.yml's nav."""
    text = (ROOT / "mkdocs.yml").read_text()
    section = text.split("\n  - Tutorial:\n", 1)[1].split("\n  - ", 1)[0]
    return re.findall(r"^      - [^:]+: (\S+\.md)$", section, re.M)


def test_each_tutorial_page_names_the_next_as_the_site_does() -> None:
    """A page's closing "Next:" link (for readers of the Markdown) is the page the site's
    footer links to next."""
    pages = tutorial_pages()
    for page, following in itertools.pairwise(pages):
        found = re.search(r"^Next: \[[^]]+\]\(([^)]+)\)\.$", (DOCS / page).read_text(), re.M)
        if found is not None:
            target = (DOCS / page).parent / found[1]
            assert target.resolve() == (DOCS / following).resolve(), page
    assert pages[0] == "tutorial/first-steps.md"
