"""Routing through both adapters: static and dynamic paths, 404, 405 + Allow, HEAD, conflicts."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from hasten import App, Request, Router
from hasten.matcher import RouteConflict
from tests.conftest import ClientFactory


def make_app() -> App:
    app = App()

    @app.get("/")
    async def root() -> str:
        return "root"

    @app.get("/items/new")
    async def new_item() -> str:
        return "static wins"

    @app.get("/items/{item_id:int}")
    async def by_int(item_id: int) -> dict[str, object]:
        return {"kind": "int", "value": item_id}

    @app.get("/items/{item_id:uuid}")
    async def by_uuid(item_id: uuid.UUID) -> dict[str, object]:
        return {"kind": "uuid", "value": str(item_id)}

    @app.get("/items/{name}")
    async def by_name(name: str) -> dict[str, object]:
        return {"kind": "str", "value": name}

    @app.get("/prices/{amount:float}")
    async def price(amount: float) -> dict[str, float]:
        return {"amount": amount}

    @app.post("/items/{name}")
    async def post_item(name: str) -> dict[str, str]:
        return {"posted": name}

    @app.route("/multi", methods=["PUT", "PATCH"])
    async def multi(request: Request) -> str:
        return request.method

    @app.delete("/items/{item_id:int}/tags/{tag}")
    async def delete_tag(item_id: int, tag: str) -> dict[str, object]:
        return {"item": item_id, "tag": tag}

    @app.get("/static/{rest:path}")
    async def static(rest: str) -> str:
        return rest

    @app.options("/opts")
    async def opts() -> str:
        return "options"

    @app.head("/only-head")
    async def only_head() -> str:
        return "never sent"

    return app


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/items/new", "static wins"),
        ("/items/42", {"kind": "int", "value": 42}),
        (
            "/items/3fa85f64-5717-4562-b3fc-2c963f66afa6",
            {"kind": "uuid", "value": "3fa85f64-5717-4562-b3fc-2c963f66afa6"},
        ),
        ("/items/widget", {"kind": "str", "value": "widget"}),
        ("/prices/9.5", {"amount": 9.5}),
        ("/static/css/site.css", "css/site.css"),
        ("/static/", ""),
        ("/", "root"),
    ],
)
def test_most_specific_route_wins(serve: ClientFactory, path: str, expected: object) -> None:
    response = serve(make_app()).get(path)
    assert response.status_code == 200
    body = response.json() if isinstance(expected, dict) else response.text
    assert body == expected


def test_two_parameters_and_a_method_other_than_get(serve: ClientFactory) -> None:
    response = serve(make_app()).delete("/items/7/tags/blue")
    assert response.json() == {"item": 7, "tag": "blue"}


def test_route_with_several_methods(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.put("/multi").text == "PUT"
    assert client.patch("/multi").text == "PATCH"


def test_method_falls_through_to_a_route_that_has_it(serve: ClientFactory) -> None:
    # /items/5 matches {item_id:int} first, but only {name} takes POST.
    assert serve(make_app()).post("/items/5").json() == {"posted": "5"}


def test_unknown_path_is_404(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/nowhere/at/all")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_known_path_other_method_is_405_with_allow(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.put("/items/new")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, POST"
    assert response.json() == {"detail": "Method PUT not allowed"}
    assert client.post("/multi").headers["allow"] == "PATCH, PUT"
    assert client.get("/opts").headers["allow"] == "OPTIONS"


def test_every_get_route_answers_head(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.head("/items/42")
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-length"] == str(len(client.get("/items/42").content))
    assert client.head("/only-head").status_code == 200
    assert client.get("/only-head").status_code == 405


def test_options_route(serve: ClientFactory) -> None:
    assert serve(make_app()).options("/opts").text == "options"


def test_trailing_slash_redirects_to_the_known_path(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.get("/items/42/?x=1", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == "/items/42?x=1"
    followed = client.get("/items/42/", follow_redirects=True)
    assert followed.json() == {"kind": "int", "value": 42}


def test_explicit_converter_mismatch_is_404() -> None:
    app = App()

    @app.get("/typed/{n:int}")
    async def typed(n: int) -> int:
        return n

    from hasten.testing import TestClient

    with TestClient(app) as client:
        assert client.get("/typed/seven").status_code == 404
        assert client.get("/typed/-1").status_code == 404
        # More digits than Python's int() converts (4,300): no int, so no match, not a 500.
        assert client.get("/typed/" + "9" * 4_301).status_code == 404
        assert client.get("/typed/7").json() == 7


def test_percent_encoded_segments_are_decoded(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.get("/items/blue%20widget").json() == {"kind": "str", "value": "blue widget"}


def test_router_prefix_and_nested_include(serve: ClientFactory) -> None:
    app = App()
    api = Router(prefix="/api")
    v1 = Router(prefix="/v1")

    @v1.get("/users/{id}")
    async def user(id: int) -> dict[str, int]:
        return {"id": id}

    @api.get("/health")
    async def health() -> str:
        return "ok"

    api.include(v1)
    app.include(api)

    @v1.get("/late")  # registered after include, before start: still served
    async def late() -> str:
        return "late"

    client = serve(app)
    assert client.get("/api/v1/users/3").json() == {"id": 3}
    assert client.get("/api/health").text == "ok"
    assert client.get("/api/v1/late").text == "late"
    assert [route.path for route in app.routes] == [
        "/api/health",
        "/api/v1/users/{id}",
        "/api/v1/late",
    ]


def test_include_with_extra_prefix(serve: ClientFactory) -> None:
    app = App()
    admin = Router()

    @admin.get("/stats")
    async def stats() -> str:
        return "stats"

    app.include(admin, prefix="/admin")
    assert serve(app).get("/admin/stats").text == "stats"


def test_routes_that_catch_the_same_requests_are_rejected_at_startup() -> None:
    app = App()

    @app.get("/users/{id}")
    async def first(id: str) -> str:
        return id

    @app.get("/users/{name}")
    async def second(name: str) -> str:
        return name

    with pytest.raises(RouteConflict) as caught:
        asyncio.run(app.startup())
    message = str(caught.value)
    assert "/users/{id}" in message
    assert "/users/{name}" in message
    assert "first" in message
    assert "second" in message


def test_same_static_route_twice_is_rejected() -> None:
    app = App()
    app.add_route("/a", lambda: "x")
    app.add_route("/a", lambda: "y", ["GET", "POST"])
    with pytest.raises(RouteConflict, match="both catch GET requests to '/a'"):
        asyncio.run(app.startup())


def test_same_path_different_methods_is_fine(serve: ClientFactory) -> None:
    app = App()
    app.add_route("/a", lambda: "get")
    app.add_route("/a", lambda: "post", ["POST"])
    client = serve(app)
    assert client.get("/a").json() == "get"
    assert client.post("/a").json() == "post"


def test_registering_after_start_is_an_error(serve: ClientFactory) -> None:
    app = make_app()
    api = Router()
    app.include(api)
    serve(app).get("/")
    with pytest.raises(RuntimeError, match="the app has started"):
        app.add_route("/late", lambda: "late")
    with pytest.raises(RuntimeError, match="the app has started"):
        api.add_route("/late", lambda: "late")
    with pytest.raises(RuntimeError, match="the app has started"):
        app.middleware(lambda request, call_next: call_next(request))


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("items", "must start with '/'"),
        ("/items/{id:bogus}", "unknown converter 'bogus'"),
        ("/items/{id}/{id}", "names parameter 'id' twice"),
        ("/files/{rest:path}/tail", "a ':path' parameter must come last"),
        ("/files/{name}.txt", "must be a whole parameter"),
    ],
)
def test_bad_paths_are_rejected_at_registration(path: str, message: str) -> None:
    app = App()
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        app.add_route(path, lambda **kwargs: None)


def test_bad_methods_and_prefixes_are_rejected() -> None:
    app = App()
    with pytest.raises(ValueError, match="unknown HTTP method"):
        app.add_route("/x", lambda: None, ["FETCH"])
    with pytest.raises(ValueError, match="must start with '/'"):
        Router(prefix="api")
    with pytest.raises(ValueError, match="cannot include itself"):
        app.include(app)


def test_thousand_routes_last_one_matches(serve: ClientFactory) -> None:
    app = App()
    for index in range(1000):
        app.add_route(f"/r{index}/{{item_id:int}}", lambda item_id, i=index: [i, item_id])
    assert serve(app).get("/r999/5").json() == [999, 5]


def test_one_router_in_two_apps(serve: ClientFactory) -> None:
    shared = Router()

    @shared.get("/thread")
    def thread() -> str:
        import threading

        return threading.current_thread().name

    first, second = App(), App()
    first.include(shared)
    second.include(shared)
    first_client, second_client = serve(first), serve(second)
    assert first_client.get("/thread").text.startswith("hasten-thread")
    first_client.close()  # stops the first app's pools; the second app's are its own
    assert second_client.get("/thread").text.startswith("hasten-thread")
