"""Routing through both adapters: static and dynamic paths, 404, 405 + Allow, HEAD, conflicts."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import pytest

from hasten import (
    App,
    Depends,
    Form,
    Header,
    HTMLResponse,
    HTTPError,
    PlainTextResponse,
    RedirectResponse,
    Request,
    Response,
    Route,
    Router,
    WebSocket,
)
from hasten.errors import FastAPIError
from hasten.routing import APIRoute, APIWebSocketRoute, Match, NoMatchFound, WebSocketRoute
from hasten.testing import TestClient
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
    assert response.json() == expected


def test_two_parameters_and_a_method_other_than_get(serve: ClientFactory) -> None:
    response = serve(make_app()).delete("/items/7/tags/blue")
    assert response.json() == {"item": 7, "tag": "blue"}


def test_route_with_several_methods(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.put("/multi").json() == "PUT"
    assert client.patch("/multi").json() == "PATCH"


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
    assert response.json() == {"detail": "Method Not Allowed"}
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
    assert serve(make_app()).options("/opts").json() == "options"


def test_trailing_slash_redirects_to_the_known_path(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.get("/items/42/?x=1", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == "http://testserver/items/42?x=1"
    followed = client.get("/items/42/", follow_redirects=True)
    assert followed.json() == {"kind": "int", "value": 42}


def bad_host(why: str) -> dict[str, str]:
    return {"detail": f"Invalid Host header: {why}"}


@pytest.mark.parametrize(
    ("path", "host", "status", "body"),
    [
        # Was a 307 to http://testserver:@evil.com/items/42: evil.com, to a browser.
        (
            "/items/42/",
            "testserver:@evil.com",
            400,
            bad_host("'@' may not appear in a host or port"),
        ),
        ("/items/42/", "testserver:http", 400, bad_host("its port is not a number")),
        ("/link", "testserver:@evil.com", 400, bad_host("'@' may not appear in a host or port")),
        ("/link", "[::1]:8000", 200, "http://[::1]:8000/items/7"),
    ],
)
def test_urls_are_built_from_a_host_and_port_only(
    serve: ClientFactory, path: str, host: str, status: int, body: object
) -> None:
    app = make_app()

    @app.get("/link")
    async def link(request: Request) -> str:
        return str(request.url_for("by_int", item_id=7))

    response = serve(app, follow_redirects=False).get(path, headers={"host": host})
    assert (response.status_code, response.json()) == (status, body)


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
    assert client.get("/api/health").json() == "ok"
    assert client.get("/api/v1/late").json() == "late"
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
    assert serve(app).get("/admin/stats").json() == "stats"


def test_of_two_routes_that_catch_the_same_requests_the_first_serves(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.get("/users/{id}")
    async def first(id: str) -> str:
        return f"first {id}"

    @app.get("/users/{name}")
    async def second(name: str) -> str:
        return f"second {name}"

    app.add_api_route("/a", lambda: "x")
    app.add_api_route("/a", lambda: "y", ["GET", "POST"])
    client = serve(app)
    response = client.get("/users/7")
    assert (response.status_code, response.json()) == (200, "first 7")
    assert (client.get("/a").json(), client.post("/a").json()) == ("x", "y")
    warned = [record.getMessage() for record in caplog.records if record.name == "hasten.routes"]
    assert len(warned) == 2
    assert "GET /users/{id} (tests.serve.test_routing." in warned[0]
    assert "first one serves them" in warned[0]
    assert "both catch GET requests to '/a'" in warned[1]


def running_root_app(serve: ClientFactory) -> tuple[App, TestClient]:
    """An app serving ``/``, started by a first request."""
    app = App()

    @app.get("/")
    async def root() -> str:
        return "root"

    client = serve(app)
    assert client.get("/").json() == "root"
    return app, client


def test_a_route_added_while_the_app_runs_is_served_from_the_next_request(
    serve: ClientFactory,
) -> None:
    app, client = running_root_app(serve)
    assert client.get("/late").status_code == 404
    assert "/late" not in client.get("/openapi.json").json()["paths"]

    @app.get("/late/{n}")
    async def late(n: int) -> dict[str, int]:
        return {"n": n}

    response = client.get("/late/3")
    assert (response.status_code, response.json()) == (200, {"n": 3})
    assert client.get("/").json() == "root"
    assert "/late/{n}" in client.get("/openapi.json").json()["paths"]
    assert app.url_path_for("late", n=4) == "/late/4"


def test_same_path_different_methods_is_fine(serve: ClientFactory) -> None:
    app = App()
    app.add_api_route("/a", lambda: "get")
    app.add_api_route("/a", lambda: "post", ["POST"])
    client = serve(app)
    assert client.get("/a").json() == "get"
    assert client.post("/a").json() == "post"


def test_routes_added_to_an_included_router_after_start_are_served(
    serve: ClientFactory,
) -> None:
    app = make_app()
    api = Router(prefix="/api")
    app.include(api)
    client = serve(app)
    assert client.get("/api/late").status_code == 404
    api.add_api_route("/late", lambda: "late")
    late = Router()
    late.add_api_route("/later", lambda: "later")
    api.include(late)
    response = client.get("/api/late")
    assert (response.status_code, response.json()) == (200, "late")
    assert client.get("/api/later").json() == "later"
    assert "/api/later" in client.get("/openapi.json").json()["paths"]
    with pytest.raises(RuntimeError, match="the app has started"):
        app.middleware(lambda request, call_next: call_next(request))


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("items", "must start with '/'"),
        ("/items/{id:bogus}", "unknown converter 'bogus'"),
        ("/items/{id}/{id}", "Duplicated param name id at path /items/{id}/{id}"),
        ("/files/{a:path}/{b:path}", "has more than one ':path' parameter"),
        ("/files/{a}-{b}", "must hold one parameter"),
        ("/files/{name}}", "must hold one parameter"),
        ("/files/{rest:path}.txt", "takes its segments whole"),
    ],
)
def test_bad_paths_are_rejected_at_registration(path: str, message: str) -> None:
    app = App()
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        app.add_api_route(path, lambda **kwargs: None)


def test_a_parameter_with_text_around_it_in_its_segment(serve: ClientFactory) -> None:
    app = App()

    @app.get("/users/{name}")
    async def user(name: str) -> str:
        return f"user {name}"

    @app.put("/users/{name}:disable")
    async def disable(name: str) -> str:
        return f"disabled {name}"

    @app.get("/reports/{year:int}.json")
    async def report(year: int) -> dict[str, int]:
        return {"year": year}

    @app.get("/v({n:int})", name="version")
    async def version(n: int) -> int:
        return n

    client = serve(app)
    response = client.put("/users/ada:disable")
    assert (response.status_code, response.json()) == (200, "disabled ada")
    # GET goes to the route that has it, which takes the whole segment.
    assert client.get("/users/ada:disable").json() == "user ada:disable"
    assert client.get("/reports/2026.json").json() == {"year": 2026}
    for missing in ("/reports/x.json", "/reports/.json", "/reports/2026.xml"):
        response = client.get(missing)
        assert (response.status_code, response.json()) == (404, {"detail": "Not Found"})
    response = client.put("/users/ada")
    assert (response.status_code, response.headers["allow"]) == (405, "GET, HEAD")
    assert client.get("/v(3)").json() == 3
    assert app.url_path_for("version", n=3) == "/v(3)"


def test_bad_methods_and_prefixes_are_rejected() -> None:
    app = App()
    with pytest.raises(ValueError, match=r"not HTTP method\(s\) \['FE TCH'\]"):
        app.add_api_route("/x", lambda: None, ["FE TCH"])
    with pytest.raises(ValueError, match=r"not HTTP method\(s\) \['WEBSOCKET'\]"):
        app.add_api_route("/x", lambda: None, ["websocket"])
    with pytest.raises(ValueError, match="must start with '/'"):
        Router(prefix="api")
    with pytest.raises(AssertionError, match="Cannot include the same APIRouter instance into"):
        app.include(app)
    inner, outer = Router(), Router()
    outer.include(inner)
    with pytest.raises(AssertionError, match="already includes this router"):
        inner.include(outer)


def test_thousand_routes_last_one_matches(serve: ClientFactory) -> None:
    app = App()
    for index in range(1000):
        app.add_api_route(f"/r{index}/{{item_id:int}}", lambda item_id, i=index: [i, item_id])
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
    assert first_client.get("/thread").json().startswith("hasten-thread")
    first_client.close()  # stops the first app's pools; the second app's are its own
    assert second_client.get("/thread").json().startswith("hasten-thread")


def _operation(app: App, path: str, method: str = "get") -> dict[str, object]:
    operation: dict[str, object] = app.openapi()["paths"][path][method]
    return operation


def test_router_and_include_options_reach_each_route(serve: ClientFactory) -> None:
    """FastAPI's APIRouter and include_router keywords: responses add up (the route's own
    win), deprecated if any says so, in the schema only if all say so."""
    from hasten import Depends, HTTPError

    def token(x_token: str = Header()) -> None:
        if x_token != "secret":
            raise HTTPError(400, "X-Token header invalid")

    items = Router(
        prefix="/items",
        tags=["items"],
        dependencies=[Depends(token)],
        responses={404: {"description": "Not found"}},
    )

    @items.get("/{item_id}", responses={403: {"description": "Forbidden"}})
    async def read_item(item_id: str) -> dict[str, str]:
        return {"item_id": item_id}

    @items.get("/old/{item_id}", responses={404: {"description": "Gone"}})
    async def old_item(item_id: str) -> str:
        return item_id

    hidden = Router(include_in_schema=False, deprecated=True)

    @hidden.get("/secret")
    async def secret() -> str:
        return "secret"

    app = App(responses={500: {"description": "Oops"}})
    app.include(items, responses={418: {"description": "I'm a teapot"}}, deprecated=True)
    app.include(hidden)

    client = serve(app)
    response = client.get("/items/plumbus", headers={"x-token": "secret"})
    assert (response.status_code, response.json()) == (200, {"item_id": "plumbus"})
    response = client.get("/items/plumbus", headers={"x-token": "wrong"})
    assert (response.status_code, response.json()) == (400, {"detail": "X-Token header invalid"})
    assert client.get("/secret").json() == "secret"

    operation = _operation(app, "/items/{item_id}")
    responses = operation["responses"]
    assert isinstance(responses, dict)
    assert [code for code in responses if code not in {"200", "422"}] == [
        "500",
        "418",
        "404",
        "403",
    ]
    assert responses["404"] == {"description": "Not found"}
    assert operation["deprecated"] is True
    assert operation["tags"] == ["items"]
    old = _operation(app, "/items/old/{item_id}")["responses"]
    assert isinstance(old, dict)
    assert old["404"] == {"description": "Gone"}
    assert "/secret" not in app.openapi()["paths"]


def test_inherited_values_nest_outer_first() -> None:
    from hasten.routing import Inherited

    def unique(route: object) -> str:
        return "id"

    inner = Inherited(tags=("inner",), responses={404: {"description": "inner"}})
    outer = Inherited(
        tags=("outer",),
        responses={404: {"description": "outer"}, 418: {"description": "teapot"}},
        include_in_schema=False,
        default_response_class=PlainTextResponse,
        generate_unique_id_function=unique,
    )
    nested = inner.within(outer)
    assert nested.tags == ("outer", "inner")
    assert nested.responses == {404: {"description": "inner"}, 418: {"description": "teapot"}}
    assert nested.include_in_schema is False
    assert nested.default_response_class is PlainTextResponse
    assert nested.generate_unique_id_function is unique

    router = Router(default_response_class=HTMLResponse)

    @router.get("/page")
    async def page() -> str:
        return "<p>page</p>"

    @router.get("/text", response_class=PlainTextResponse)
    async def text() -> str:
        return "text"

    app = App(default_response_class=PlainTextResponse)
    app.include(router)
    by_path = {route.path: route.compiled.options.response_class for route in app.routes}
    assert by_path == {"/page": HTMLResponse, "/text": PlainTextResponse}


class TimedRoute(Route):
    """FastAPI's custom APIRoute: it wraps what serves the route."""

    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        original = super().get_route_handler()

        async def timed(request: Request) -> Response:
            try:
                response = await original(request)
            except HTTPError as exc:
                raise HTTPError(exc.status, {"wrapped": exc.detail}) from exc
            response.headers["x-timed"] = "yes"
            return response

        return timed


def test_route_class_wraps_the_route_handler(serve: ClientFactory) -> None:
    app = App()
    timed = Router(route_class=TimedRoute)

    @app.get("/plain")
    async def plain() -> dict[str, str]:
        return {"timed": "no"}

    @timed.get("/timed/{number}")
    async def timed_route(number: int) -> dict[str, int]:
        return {"number": number}

    app.include(timed, prefix="/v1")
    app.router.route_class = TimedRoute  # FastAPI's spelling: the app's own router

    @app.get("/later")
    async def later() -> str:
        return "later"

    client = serve(app)
    plain_response = client.get("/plain")
    assert (plain_response.json(), "x-timed" in plain_response.headers) == ({"timed": "no"}, False)
    response = client.get("/v1/timed/7")
    assert (response.status_code, response.json()) == (200, {"number": 7})
    assert response.headers["x-timed"] == "yes"
    assert client.get("/later").headers["x-timed"] == "yes"
    invalid = client.get("/v1/timed/seven")  # the 422 comes through the wrapper
    assert invalid.status_code == 422
    detail = invalid.json()["detail"]
    assert detail["wrapped"][0]["loc"] == ["path", "number"]
    assert [type(route).__name__ for route in app.routes] == ["Route", "TimedRoute", "TimedRoute"]


def test_get_route_handler_is_for_the_app_to_call() -> None:
    app = App()

    @app.get("/")
    async def root() -> str:
        return "root"

    (route,) = app.routes
    assert isinstance(route, Route)
    with pytest.raises(RuntimeError, match="called by the app"):
        route.get_route_handler()


def test_url_path_for_names_each_route_and_mount() -> None:
    from hasten import StaticFiles
    from hasten.routing import NoMatchFound

    app = App()
    users = Router(prefix="/orgs/{org}")

    @users.get("/users/{user_id:int}")
    async def read_user(org: str, user_id: int) -> str:
        return org

    @users.get("/files/{rest:path}", name="files")
    async def read_file(org: str, rest: str) -> str:
        return rest

    app.include(users, prefix="/v1")
    app.mount("/static", StaticFiles(directory="."), name="static")

    assert app.url_path_for("read_user", org="acme", user_id=7) == "/v1/orgs/acme/users/7"
    assert app.url_path_for("files", org="acme", rest="a/b.txt") == "/v1/orgs/acme/files/a/b.txt"
    assert app.url_path_for("static", path="/css/site.css") == "/static/css/site.css"
    with pytest.raises(
        NoMatchFound, match=r'No route exists for name "read_user" and params "org"\.'
    ):
        app.url_path_for("read_user", org="acme")
    with pytest.raises(NoMatchFound):
        app.url_path_for("nowhere")
    with pytest.raises(ValueError, match="'org' cannot be 'a/b'"):
        app.url_path_for("read_user", org="a/b", user_id=1)


def test_enum_tags_are_their_values() -> None:
    import enum

    class Tags(enum.Enum):
        items = "items"
        admin = "admin"

    app = App()
    router = Router(tags=[Tags.admin])

    @router.get("/items", tags=[Tags.items])
    async def items() -> list[str]:
        return []

    app.include(router)
    assert _operation(app, "/items")["tags"] == ["admin", "items"]


def test_a_response_in_a_union_response_model_is_refused_at_registration(
    serve: ClientFactory,
) -> None:
    app = App()
    with pytest.raises(FastAPIError, match=r"get_portal: invalid args for response field"):

        @app.get("/portal")
        async def get_portal(teleport: bool = False) -> Response | dict[str, str]:
            return {}

    @app.get("/portal", response_model=None)  # FastAPI's way out, as its message says
    async def portal(teleport: bool = False) -> Response | dict[str, str]:
        if teleport:
            return RedirectResponse("https://example.com/elsewhere")
        return {"message": "Here's your interdimensional portal."}

    client = serve(app, follow_redirects=False)
    response = client.get("/portal")
    assert (response.status_code, response.json()) == (
        200,
        {"message": "Here's your interdimensional portal."},
    )
    response = client.get("/portal?teleport=true")
    assert (response.status_code, response.headers["location"]) == (
        307,
        "https://example.com/elsewhere",
    )


def test_a_route_added_while_the_app_runs_cannot_bring_a_new_app_value(
    serve: ClientFactory,
) -> None:
    app, client = running_root_app(serve)

    def pool() -> str:
        return "pool"

    with pytest.raises(
        RuntimeError, match=r"needs the app-scoped dependencies \['tests\.serve\.test_routing\."
    ):

        @app.get("/late")
        async def late(value: str = Depends(pool, scope="app")) -> str:
            return value

    assert client.get("/late").status_code == 404
    assert "/late" not in client.get("/openapi.json").json()["paths"]


def test_fastapis_route_methods_register_as_route_does(serve: ClientFactory) -> None:
    app = App()

    @app.api_route("/both", methods=["GET", "POST"])
    async def both(request: Request) -> list[str]:
        return [request.method]

    async def listed() -> list[str]:
        return ["listed"]

    app.add_api_route("/listed", listed)

    @app.trace("/traced")
    async def traced() -> Response:
        return Response(b"", media_type="message/http")

    client = serve(app)
    assert [client.get("/both").json(), client.post("/both").json()] == [["GET"], ["POST"]]
    assert client.get("/listed").json() == ["listed"]
    response = client.request("TRACE", "/traced")
    assert (response.status_code, response.headers["content-type"]) == (200, "message/http")
    assert [type(route).__name__ for route in app.routes] == ["Route", "Route", "Route"]


def test_websocket_routes_take_dependencies_and_a_name(serve: ClientFactory) -> None:
    app = App()
    calls: list[str] = []

    async def checked() -> None:
        calls.append("checked")

    async def greeting() -> str:
        return "hello"

    @app.websocket("/ws/{room}", name="room", dependencies=[Depends(checked)])
    async def room(websocket: WebSocket, room: str, text: str = Depends(greeting)) -> None:
        await websocket.accept()
        await websocket.send_text(f"{text} {room} {websocket.scope['route'].path}")
        await websocket.close()

    @app.websocket_route("/plain")
    async def plain(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("plain")
        await websocket.close()

    client = serve(app)
    with client.websocket_connect("/ws/lobby") as websocket:
        assert websocket.receive_text() == "hello lobby /ws/{room}"
    with client.websocket_connect("/plain") as websocket:
        assert websocket.receive_text() == "plain"
    assert calls == ["checked"]
    assert app.url_path_for("room", room="a") == "/ws/a"
    assert isinstance(app.routes[0], WebSocketRoute)
    assert not isinstance(app.routes[0], Route)
    assert APIWebSocketRoute is WebSocketRoute


def test_the_scope_names_the_route_and_its_handler(serve: ClientFactory) -> None:
    app = App()

    @app.get("/users/{user_id}")
    async def user(user_id: str, request: Request) -> list[str]:
        route = request.scope["route"]
        return [route.path, request.scope["endpoint"].__name__, user_id]

    assert serve(app).get("/users/rick").json() == ["/users/{user_id}", "user", "rick"]


def test_a_route_answers_whether_a_scope_matches_it() -> None:
    app = App()

    @app.get("/items/{item_id:int}", name="item")
    async def item(item_id: int) -> int:
        return item_id

    (route,) = app.routes
    full, found = route.matches({"type": "http", "path": "/items/3", "method": "GET"})
    assert (full, found["path_params"], found["endpoint"]) == (Match.FULL, {"item_id": 3}, item)
    assert route.matches({"type": "http", "path": "/items/3", "method": "POST"})[0] is Match.PARTIAL
    assert route.matches({"type": "http", "path": "/items/x", "method": "GET"}) == (Match.NONE, {})
    assert route.matches({"type": "websocket", "path": "/items/3"}) == (Match.NONE, {})
    assert route.url_path_for("item", item_id=4) == "/items/4"
    with pytest.raises(NoMatchFound):
        route.url_path_for("other", item_id=4)


def test_including_a_router_with_an_empty_path_needs_a_prefix() -> None:
    app, router = App(), Router()

    @router.get("")
    async def empty() -> str:
        return "empty"

    with pytest.raises(FastAPIError, match=r"Prefix and path cannot be both empty \(path op"):
        app.include(router)
    app.include(router, prefix="/prefix")
    assert [route.path for route in app.routes] == ["/prefix"]


def test_a_router_included_while_the_app_runs_is_served_from_the_next_request(
    serve: ClientFactory,
) -> None:
    app = make_app()
    client = serve(app)
    assert client.get("/late/x").status_code == 404
    router = Router(prefix="/late")

    @router.get("/{name}")
    async def late(name: str) -> list[str]:
        return [name]

    app.include(router)
    assert client.get("/late/x").json() == ["x"]
    assert app.url_path_for("late", name="y") == "/late/y"


def test_a_route_made_by_hand(serve: ClientFactory) -> None:
    # FastAPI's APIRoute(path, endpoint, methods=..., **options), given in routes=[...].
    async def create(item_id: int, text: Annotated[str, Form()]) -> dict[str, object]:
        return {"id": item_id, "text": text}

    options: dict[str, Any] = {"status_code": 201, "max_body_size": 12}
    made = APIRoute("/items/{item_id}", create, methods=["post"], **options)
    assert (made.path, made.methods, made.max_body_size) == (
        "/items/{item_id}",
        frozenset({"POST"}),
        12,
    )
    limited = APIRoute("/one", create, methods=["POST"], form_limits={"max_fields": 1})
    app = App(routes=[made])
    app.include_router(Router(routes=[limited]), prefix="/under/{item_id}")
    client = serve(app)
    response = client.post("/items/3", data={"text": "hello"})
    assert (response.status_code, response.json()) == (201, {"id": 3, "text": "hello"})
    response = client.post("/items/3", data={"text": "hello, world"})
    assert (response.status_code, response.json()) == (
        413,
        {"detail": "Request body of 19 bytes exceeds the limit of 12 bytes"},
    )
    assert client.get("/items/3").status_code == 405
    response = client.post("/under/4/one", data={"text": "a"})
    assert (response.status_code, response.json()) == (200, {"id": 4, "text": "a"})
    response = client.post("/under/4/one", data={"text": "a", "more": "b"})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Too many fields. Maximum number of fields is 1."},
    )


def test_a_route_made_by_hand_is_checked_as_it_is_made() -> None:
    async def starlette_style(request):  # type: ignore[no-untyped-def]  # as Starlette's
        return None

    with pytest.raises(TypeError, match="takes an unannotated 'request'"):
        APIRoute("/", starlette_style)
    with pytest.raises(ValueError, match=r"form_limits\['max_fields'\] must be"):
        APIRoute("/", lambda: None, form_limits={"max_fields": -1})
    with pytest.raises(ValueError, match=r"not HTTP method\(s\) \['FE/TCH'\]"):
        APIRoute("/", lambda: None, methods=["FE/TCH"])


def test_a_method_other_than_the_usual_ones(serve: ClientFactory) -> None:
    # FastAPI serves any method a route is given (QUERY, WebDAV's PROPFIND, ...); hasten
    # refused all but the eight of RFC 9110.
    app = App()

    @app.api_route("/items", methods=["query", "GET"])
    async def search(request: Request) -> dict[str, object]:
        return {"method": request.method, "body": (await request.body()).decode()}

    client = serve(app)
    response = client.request("QUERY", "/items", content=b"name=ann")
    assert (response.status_code, response.json()) == (200, {"method": "QUERY", "body": "name=ann"})
    response = client.request("PROPFIND", "/items")
    assert (response.status_code, response.json()) == (
        405,
        {"detail": "Method Not Allowed"},
    )
    assert response.headers["allow"] == "GET, HEAD, QUERY"
    # OpenAPI 3.1 has no place for QUERY: the document leaves it out, and stays valid.
    assert list(client.get("/openapi.json").json()["paths"]["/items"]) == ["get"]
    app.api_route("/only", methods=["QUERY"])(search)
    assert "/only" not in client.get("/openapi.json").json()["paths"]


def test_routes_are_added_with_the_endpoint_by_keyword(serve: ClientFactory) -> None:
    """``add_api_route(path=..., endpoint=...)`` and ``add_api_websocket_route``, as FastAPI's
    and Starlette's signatures name them (fastcrud's custom routes call them so)."""
    app = App()
    router = Router()

    async def custom(foo: int) -> dict[str, int]:
        return {"foo": foo}

    async def talk(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("talk")
        await websocket.close()

    router.add_api_route(path="/custom", endpoint=custom, methods=["GET"], tags=["Test"])
    app.add_api_route(path="/starlette", endpoint=custom, methods=["POST"])
    app.add_api_websocket_route(path="/talk", endpoint=talk)
    app.include_router(router)
    client = serve(app)
    answer = client.get("/custom", params={"foo": 3})
    assert (answer.status_code, answer.json()) == (200, {"foo": 3})
    answer = client.post("/starlette", params={"foo": 4})
    assert (answer.status_code, answer.json()) == (200, {"foo": 4})
    with client.websocket_connect("/talk") as websocket:
        assert websocket.receive_text() == "talk"


def test_a_path_parameter_may_have_more_of_the_path_after_it(serve: ClientFactory) -> None:
    # Starlette's converter, which sqladmin's routes use: the longest run of segments that
    # lets the rest match; a route that goes on after it before one that ends with it.
    app = App()

    @app.get("/{identity}/{pk:path}/{column}/download/")
    async def download(identity: str, pk: str, column: str) -> list[str]:
        return ["download", identity, pk, column]

    @app.get("/{identity}/{pk:path}")
    async def details(identity: str, pk: str) -> list[str]:
        return ["details", identity, pk]

    @app.get("/files/{rest:path}/raw")
    async def raw(rest: str) -> list[str]:
        return ["raw", rest]

    client = serve(app)
    answers = {
        path: client.get(path).json()
        for path in (
            "/hero/1/2/name/download/",
            "/hero/1/2/name/download",
            "/files/a/b/raw",
            "/files//raw",
            "/files/raw",
        )
    }
    assert answers == {
        "/hero/1/2/name/download/": ["download", "hero", "1/2", "name"],
        "/hero/1/2/name/download": ["details", "hero", "1/2/name/download"],
        "/files/a/b/raw": ["raw", "a/b"],
        "/files//raw": ["raw", ""],
        "/files/raw": ["details", "files", "raw"],
    }
    refused = client.post("/files/a/raw")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD")
    template = app.routes[0].template
    assert template.match("/h/1/2/c/download/") == {"identity": "h", "pk": "1/2", "column": "c"}
    assert template.match("/h/c/download/") is None
    assert app.url_path_for("download", identity="h", pk="1/2", column="c") == "/h/1/2/c/download/"
