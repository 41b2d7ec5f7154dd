"""The tutorial's whole apps, through both adapters, each answer compared exactly: the bigger
application (examples/bigger/) and the SQLModel one (examples/books.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import create_engine

from examples import books
from examples.bigger.app import main
from examples.bigger.app.routers import items
from tests.conftest import ClientFactory

READER = {"x-token": "reader-token"}
ADMIN = {"x-token": "admin-token"}


def test_the_bigger_application_serves_each_router(serve: ClientFactory) -> None:
    client = serve(main.app)
    answers = [
        (client.get("/"), 200, '{"parts":["users","items","admin"]}'),
        (client.get("/users/"), 200, '["ada","grace"]'),
        (client.get("/users/ada"), 200, '{"username":"ada","name":"Ada Lovelace"}'),
        (client.get("/users/bob"), 404, '{"detail":"No such user"}'),
        (client.get("/items/pen", headers=READER), 200, '{"name":"pen","price":1.5}'),
        (client.get("/items/nib", headers=READER), 404, '{"detail":"No such item"}'),
        (client.get("/items/pen", headers={"x-token": "x"}), 401, '{"detail":"Unknown token"}'),
        (client.get("/admin/stats", headers=READER), 403, '{"detail":"Admins only"}'),
        (client.get("/admin/stats", headers=ADMIN), 200, '{"users":2,"items":2}'),
        (
            client.put("/items/pen?price=2", headers=READER),
            403,
            '{"detail":"Readers cannot change prices"}',
        ),
    ]
    for response, status, body in answers:
        assert (response.status_code, response.text) == (status, body), response.request.url
    missing = client.get("/items/")
    assert (missing.status_code, missing.json()["detail"][0]["loc"]) == (422, ["header", "x-token"])


def test_the_bigger_applications_routers_keep_their_keywords(serve: ClientFactory) -> None:
    client = serve(main.app)
    paths = client.get("/openapi.json").json()["paths"]
    assert sorted(paths) == [
        "/",
        "/admin/stats",
        "/items/",
        "/items/{name}",
        "/users/",
        "/users/{username}",
    ]
    assert paths["/admin/stats"]["get"]["tags"] == ["admin"]
    assert set(paths["/admin/stats"]["get"]["responses"]) == {"200", "403", "422"}
    assert set(paths["/items/{name}"]["put"]["responses"]) == {"200", "403", "404", "422"}
    assert paths["/users/"]["get"]["tags"] == ["users"]


def test_an_admin_sets_a_price(serve: ClientFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(items.ITEMS, "pen", items.ITEMS["pen"])  # put back after the test
    client = serve(main.app)
    changed = client.put("/items/pen?price=2", headers=ADMIN)
    assert (changed.status_code, changed.text) == (200, '{"name":"pen","price":2.0}')
    listed = client.get("/items/", headers=READER)
    assert listed.text == '[{"name":"pen","price":2.0},{"name":"ink","price":4.0}]'


def test_books_are_kept_in_sqlite(
    serve: ClientFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The app's engine, on a database of this test's own (the module's names it at import).
    database = tmp_path / "books.db"
    engine = create_engine(f"sqlite:///{database}", connect_args={"check_same_thread": False})
    monkeypatch.setattr(books, "engine", engine)
    with serve(books.app) as client:
        dune = client.post("/books/", json={"title": "Dune", "author": "F. Herbert", "year": 1965})
        emma = client.post("/books/", json={"title": "Emma", "author": "J. Austen"})
        assert (dune.status_code, dune.text) == (
            201,
            '{"title":"Dune","author":"F. Herbert","year":1965,"id":1}',
        )
        assert emma.text == '{"title":"Emma","author":"J. Austen","year":null,"id":2}'
        assert client.get("/books/?offset=1").text == f"[{emma.text}]"
        assert client.get("/books/1").text == dune.text
        assert client.get("/books/9").text == '{"detail":"Book not found"}'
        deleted = client.delete("/books/1")
        assert (deleted.status_code, deleted.content) == (204, b"")
        assert client.get("/books/").text == f"[{emma.text}]"
        empty = client.post("/books/", json={"title": "", "author": "nobody"})
        assert (empty.status_code, empty.json()["detail"][0]["type"]) == (422, "string_too_short")
        assert client.get("/books/?limit=101").status_code == 422
    assert database.is_file()  # made by the lifespan
