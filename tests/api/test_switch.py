"""The switch: ``fastapi`` and ``starlette`` served by hasten, by ``import hasten.as_fastapi``,
``HASTEN_AS_FASTAPI=1`` where hasten loads an app, and pytest's ``--as-fastapi``.

Each case runs in a fresh interpreter: this one has the real FastAPI imported (the twins of
other tests compare against it), and the switch refuses to come on after that.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(
    code: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_the_served_names_are_hastens_objects() -> None:
    done = run(
        """
        import sys
        import hasten.as_fastapi
        import fastapi, fastapi.routing, fastapi.responses
        import starlette.applications, starlette.requests, starlette.routing
        import starlette.middleware.base, starlette.datastructures, starlette.status
        import hasten, hasten.app, hasten.routing, hasten.middleware.base

        assert fastapi.FastAPI is hasten.App
        assert fastapi.routing.APIRouter is hasten.Router
        assert starlette.applications.Starlette is hasten.app.Starlette
        assert issubclass(fastapi.FastAPI, starlette.applications.Starlette)
        assert starlette.requests.Request is hasten.Request
        assert starlette.routing.Match is hasten.routing.Match
        assert starlette.datastructures.MutableHeaders is hasten.MutableHeaders
        base = starlette.middleware.base
        assert base.BaseHTTPMiddleware is hasten.middleware.base.BaseHTTPMiddleware
        assert fastapi.responses is sys.modules["hasten.responses"]
        from fastapi import responses
        assert responses is fastapi.responses
        assert responses.__spec__.name == "hasten.responses"  # a reload finds its file
        assert starlette.status.HTTP_429_TOO_MANY_REQUESTS == 429
        assert (fastapi.__version__, starlette.__version__) == ("0.165.0", "1.10.0")
        # The real packages, installed beside hasten here, were never imported.
        files = [getattr(module, "__file__", None) or "" for module in sys.modules.values()]
        assert not [name for name in files if "site-packages/fastapi" in name], files
        assert not [name for name in files if "site-packages/starlette" in name], files
        print("ok")
        """
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


def test_under_the_switch_middleware_runs_in_starlettes_order() -> None:
    # Starlette's add_middleware and @app.middleware put the last added outermost, a
    # middleware=[...] list its first; a BaseHTTPMiddleware's call_next runs the app and its
    # background tasks where what the middleware set around it holds (starlette-context).
    done = run(
        """
        import contextvars
        import hasten.as_fastapi
        from fastapi import FastAPI
        from starlette.background import BackgroundTask
        from starlette.middleware import Middleware
        from starlette.middleware.base import BaseHTTPMiddleware
        from starlette.responses import PlainTextResponse
        from starlette.testclient import TestClient

        order, seen = [], []
        current = contextvars.ContextVar("current", default="none")

        def named(name):
            async def dispatch(request, call_next):
                order.append(name)
                token = current.set(name)
                try:
                    return await call_next(request)
                finally:
                    current.reset(token)
            return dispatch

        app = FastAPI(middleware=[Middleware(BaseHTTPMiddleware, dispatch=named("listed 1")),
                                  Middleware(BaseHTTPMiddleware, dispatch=named("listed 2"))])
        app.add_middleware(BaseHTTPMiddleware, dispatch=named("added 1"))
        app.add_middleware(BaseHTTPMiddleware, dispatch=named("added 2"))
        app.middleware("http")(named("decorated"))

        @app.get("/")
        def home():
            task = BackgroundTask(lambda: seen.append(current.get()))
            return PlainTextResponse("home", background=task)

        with TestClient(app) as client:
            assert client.get("/").text == "home"
        print(order, seen)
        """
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "['decorated', 'added 2', 'added 1', 'listed 1', 'listed 2'] ['listed 2']\n",
        "",
    )


def test_what_instrumentation_replaces_is_used_as_starlettes_is() -> None:
    # sentry-sdk's integrations replace these at init, after the app's imports: each is
    # looked up when the app builds what it replaced, as FastAPI and Starlette look it up.
    done = run(
        """
        import hasten.as_fastapi
        import fastapi.routing, starlette, starlette.routing, starlette.applications
        import starlette.middleware, starlette.middleware.exceptions
        from fastapi import FastAPI
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.responses import PlainTextResponse
        from starlette.testclient import TestClient

        seen = []
        get_request_handler = fastapi.routing.get_request_handler
        def wrapping_get_request_handler(*args, **kwargs):
            handler = get_request_handler(*args, **kwargs)
            async def wrapped(request):
                seen.append(("handler", kwargs["dependant"].call.__name__))
                return await handler(request)
            return wrapped
        fastapi.routing.get_request_handler = wrapping_get_request_handler

        request_response = starlette.routing.request_response
        def wrapping_request_response(func):
            async def wrapped(request):
                seen.append(("endpoint", func.__name__))
                return await func(request)
            return request_response(wrapped)
        starlette.routing.request_response = wrapping_request_response

        call = starlette.applications.Starlette.__call__
        async def wrapping_call(self, scope, receive, send):
            seen.append(("app", scope["type"]))
            await call(self, scope, receive, send)
        starlette.applications.Starlette.__call__ = wrapping_call

        exceptions = starlette.middleware.exceptions.ExceptionMiddleware
        init = exceptions.__init__
        def wrapping_init(self, app, handlers=None, debug=False):
            init(self, app, handlers, debug)
            for kind, handler in list(self._exception_handlers.items()):
                def reported(request, exc, handler=handler):
                    seen.append(("error", exc.status_code))
                    return handler(request, exc)
                self._exception_handlers[kind] = reported
        exceptions.__init__ = wrapping_init

        def spans(cls):  # an ASGI __call__ put over a middleware class's own
            async def span(app, scope, receive, send):
                raise AssertionError("called over ASGI")
            cls.__call__ = span
            return cls

        app = FastAPI(middleware=[Middleware(spans(TrustedHostMiddleware),
                                             allowed_hosts=["testserver"])])

        @app.get("/items/{item_id}")
        def item(item_id: int):
            return {"id": item_id}

        async def page(request):
            return PlainTextResponse("page")

        app.add_route("/page", page)

        with TestClient(app) as client:  # its default interface, RSGI
            answers = [client.get(path) for path in ("/items/1", "/page", "/none")]
            refused = client.get("/page", headers={"host": "elsewhere"})
        print([(r.status_code, r.text) for r in (*answers, refused)])
        print(starlette.responses.PlainTextResponse is PlainTextResponse)
        print(seen)
        """
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "[(200, '{\"id\":1}'), (200, 'page'), (404, '{\"detail\":\"Not Found\"}'), "
        "(400, 'Invalid host header')]",
        "True",
        "[('app', 'http'), ('handler', 'item'), ('app', 'http'), ('endpoint', 'page'), "
        "('app', 'http'), ('error', 404), ('app', 'http')]",
    ]


def test_a_module_hasten_does_not_serve_is_named() -> None:
    done = run(
        """
        import hasten.as_fastapi
        try:
            import fastapi.no_such_module
        except ModuleNotFoundError as error:
            print(error.name, error)
        """
    )
    assert done.stdout == (
        "fastapi.no_such_module No module named 'fastapi.no_such_module': hasten serves the "
        "public modules of FastAPI and Starlette (HASTEN_AS_FASTAPI), and this is not one of "
        "them\n"
    ), done.stderr


def test_a_wsgi_app_mounts_as_fastapis_older_docs_show() -> None:
    # fastapi.middleware.wsgi, as FastAPI's docs showed it before they moved to a2wsgi's own
    # import: a2wsgi's WSGIMiddleware on hasten.
    done = run(
        """
        import hasten.as_fastapi
        from fastapi import FastAPI
        from fastapi.middleware.wsgi import WSGIMiddleware
        from fastapi.testclient import TestClient
        from starlette.middleware import wsgi
        import a2wsgi

        def flask_like(environ, start_response):
            body = f"Hello {environ['QUERY_STRING']} at {environ['PATH_INFO']}".encode()
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [body]

        assert WSGIMiddleware is wsgi.WSGIMiddleware is a2wsgi.WSGIMiddleware
        app = FastAPI()
        app.mount("/v1", WSGIMiddleware(flask_like))
        response = TestClient(app).get("/v1/hi?name=ada")
        print(response.status_code, response.text)
        """
    )
    assert done.stdout == "200 Hello name=ada at /hi\n", done.stderr


def test_starlettes_schemas_list_the_yaml_in_docstrings() -> None:
    done = run(
        """
        import hasten.as_fastapi
        from starlette.applications import Starlette
        from starlette.endpoints import HTTPEndpoint
        from starlette.routing import Mount, Route, WebSocketRoute
        from starlette.schemas import SchemaGenerator
        from starlette.testclient import TestClient

        def users(request):
            '''Users.

            ---
            responses:
              200:
                description: The users.
            '''

        class Orgs(HTTPEndpoint):
            def post(self, request):
                '''responses: {201: {description: Made.}}'''

            def query(self, request):
                '''responses: {200: {description: Found.}}'''

        def plain(request):
            '''Only words.'''

        async def ws(websocket):
            '''responses: {200: {description: Not listed.}}'''

        schemas = SchemaGenerator({"openapi": "3.1.0", "info": {"title": "T", "version": "1"}})
        sub = Starlette(routes=[Route("/items/{id:int}", users)])
        tenants = Starlette(routes=[Route("/", users)])
        app = Starlette(routes=[
            Route("/users", users, methods=["GET", "HEAD", "POST"]),
            Route("/orgs", Orgs),
            Route("/plain", plain),
            Route("/hidden", users, include_in_schema=False),
            WebSocketRoute("/ws", ws),
            Mount("/sub", sub),
            Mount("/t/{tenant:int}", tenants),
            Route("/schema", lambda r: schemas.OpenAPIResponse(request=r), include_in_schema=False),
        ])
        print(schemas.get_schema(routes=app.routes)["paths"])
        response = TestClient(app).get("/schema")
        print(response.headers["content-type"], response.text.splitlines()[:4])
        """
    )
    made = {"responses": {200: {"description": "The users."}}}
    paths = {
        "/users": {"get": made, "post": made},
        "/orgs": {"post": {"responses": {201: {"description": "Made."}}}},
        "/sub/items/{id}": {"get": made},
        "/t/{tenant}/": {"get": made},
    }
    yaml_head = ["info:", "  title: T", "  version: '1'", "openapi: 3.1.0"]
    assert done.stdout.splitlines() == [
        str(paths),
        f"application/vnd.oai.openapi {yaml_head}",
    ], done.stderr


def test_the_switch_refuses_to_come_on_after_the_real_fastapi() -> None:
    done = run(
        """
        import fastapi
        from hasten._switch import SwitchError, turn_on
        try:
            turn_on()
        except SwitchError as error:
            print(error)
        """
    )
    assert done.stdout.startswith("fastapi, "), done.stderr
    assert done.stdout.endswith(
        "were imported before hasten's switch was turned on: turn it on first (import "
        "hasten.as_fastapi before anything imports fastapi or starlette)\n"
    )


def test_the_environment_turns_it_on_where_hasten_loads_the_app(tmp_path: Path) -> None:
    (tmp_path / "fastapi_app.py").write_text(
        "from fastapi import FastAPI\napp = FastAPI()\n@app.get('/')\ndef root(): return 1\n"
    )
    done = run(
        """
        from hasten._cli.loading import load_app
        import hasten
        app = load_app("fastapi_app:app")
        print(type(app) is hasten.App)
        """,
        env={"HASTEN_AS_FASTAPI": "1", "PYTHONPATH": f"{tmp_path}:{ROOT / 'src'}"},
    )
    assert (done.stdout, done.returncode) == ("True\n", 0), done.stderr


def test_pytest_runs_a_fastapi_apps_tests_with_as_fastapi(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("import fastapi\n")
    (tmp_path / "test_app.py").write_text(
        textwrap.dedent(
            """
            from fastapi import FastAPI
            from fastapi.testclient import TestClient
            import hasten

            app = FastAPI()

            @app.get("/items/{item_id}")
            async def item(item_id: int) -> dict[str, int]:
                return {"id": item_id}

            def test_item() -> None:
                assert type(app) is hasten.App
                response = TestClient(app).get("/items/3")
                assert (response.status_code, response.json()) == (200, {"id": 3})
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--as-fastapi"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hasten: fastapi and starlette are served by hasten (--as-fastapi)" in done.stdout
    assert "1 passed" in done.stdout
