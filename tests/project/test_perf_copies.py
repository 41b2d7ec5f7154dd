"""Every ``# perf:`` shortcut held equal to the general code it stands for, by property.

- each fast converter of text (one C call) against pydantic, which FastAPI validates with;
- the plan's fast forms (values read inline, a JSON body decoded straight into its type),
  and the solver's values looked up in place, against a solver that reads every value by its
  reader;
- a query string without escapes split in one comprehension against the general loop;
- a query model's values gathered from the query's own dict against the general gathering,
  and a query of a model's own names taken as its input whole against both;
- a Cleanup's ``after_response`` stepping each generator against ``advance``, and
  ``run_tasks`` calling the usual task in place against ``run_task``;
- a bearer scheme's token read in place against FastAPI's ``get_authorization_scheme_param``;
- each adapter's request (and the ASGI channel), a BackgroundTasks parameter and each task
  it adds made without ``__init__`` against the ones ``__init__`` makes;
- the matcher's ``_walk_greedy`` against ``_search``, which it shortcuts, and ``match`` (its
  static dict, its last-segment step) against the search alone;
- the serve step without middleware (``dispatch`` written out, a Target's shortcuts: the
  handler called bare, plain data sent without a Response) against ``dispatch`` under a
  middleware that passes every request on, through both adapters; what every serve step
  writes out alike (the gate, the cleanup, the cut, the observer's end) the same text in
  each, and the header middleware's step against the chain (test_builtin_middleware.py).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from types import SimpleNamespace
from typing import Annotated, Any
from urllib.parse import quote

import msgspec
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hasten._params.solver
from hasten import (
    App,
    Depends,
    Header,
    HTMLResponse,
    HTTPException,
    JSONResponse,
    PlainTextResponse,
    Query,
    Request,
    Response,
)
from hasten._flow.lifecycle import Cleanup
from hasten._http.background import run_task, run_tasks
from hasten._http.connection import background_of, cleanup_of
from hasten._http.datastructures import _decoded_pairs
from hasten._http.paths import PathTemplate
from hasten._params.grouped import FlatModel, _gather, _gather_query
from hasten._params.validation import _FAST
from hasten._running.threads import advance
from hasten._serve import steps
from hasten._serve.matcher import CompiledRoute, Matcher, _search, _walk_greedy
from hasten._serve.protocols import asgi, rsgi
from hasten.background import BackgroundTask, BackgroundTasks
from hasten.datastructures import QueryParams, parse_query
from hasten.errors import FastAPIDeprecationWarning
from hasten.params import describe
from hasten.security import OAuth2PasswordBearer
from hasten.security.utils import get_authorization_scheme_param
from hasten.testing import TestClient
from hasten.types import Target


class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


async def nothing() -> None:
    return None


async def reads_the_request(request: Request) -> None:
    return None  # a dependency only the general solver calls


async def user() -> str:
    return "ada"


def _app() -> App:
    app = App(block_threshold=None)

    async def values(page: int = 1, ratio: float = 1.0, active: bool = False, q: str = "") -> Any:
        return [page, ratio, active, q]

    async def header(x_count: int = Header(1)) -> Any:
        return x_count

    async def counted(count: int = Depends(header)) -> Any:
        return count

    async def order(order: Order) -> Any:
        return order

    async def who(key: int, name: str = Depends(user), page: int = 1) -> Any:
        return [key, name, page]

    async def one(key: int) -> Any:
        return key

    async def one_query(ratio: float = 1.0) -> Any:
        return ratio

    async def one_text(key: str) -> Any:
        return key

    general = [Depends(reads_the_request)]
    app.get("/one/int/{key}")(one)
    app.get("/general/int/{key}", dependencies=general)(one)
    app.get("/one/query")(one_query)
    app.get("/general/query", dependencies=general)(one_query)
    app.get("/one/text/{key}")(one_text)
    app.get("/general/text/{key}", dependencies=general)(one_text)
    app.get("/fast/values/{key}")(_with_key(values))
    app.get("/deps/values/{key}", dependencies=[Depends(nothing)])(_with_key(values))
    app.get("/general/values/{key}", dependencies=general)(_with_key(values))
    app.post("/fast/order")(order)
    app.post("/general/order", dependencies=general)(order)
    app.get("/general/who/{key}", dependencies=[Depends(nothing), *general])(who)
    app.get("/fast/header")(header)
    app.get("/deps/header")(counted)
    return app


def _with_key(values: Any) -> Any:
    async def handler(
        key: int, page: int = 1, ratio: float = 1.0, active: bool = False, q: str = ""
    ) -> Any:
        return [key, *(await values(page, ratio, active, q))]

    return handler


_client = TestClient(_app())


def _read_by_readers(app: App) -> TestClient:
    """A client of ``app`` whose solvers read every value by its reader: what the values
    looked up in place (the fast forms', and the solvers' of ``_client``) are held to."""
    client = TestClient(app)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hasten._params.solver, "quick_of", lambda reader: None)
        assert client.get("/one/query").status_code == 200  # started: its solvers written
    return client


_reference = _read_by_readers(_app())
_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_text = st.one_of(
    st.sampled_from(
        ["0", "1", "-3", "+3", " 4", "1e2", "3.0", "-0", "nan", "inf", "true", "YES", "off", ""]
    ),
    st.text(max_size=6),
)


def _answer(path: str, client: TestClient = _client, **kwargs: Any) -> tuple[int, Any]:
    response = client.request(url=path, **kwargs)
    return response.status_code, response.json()


@_SETTINGS
@given(key=_text, page=_text, ratio=_text, active=_text, q=_text)
def test_values_read_inline_as_their_readers_read_them(
    key: str, page: str, ratio: str, active: str, q: str
) -> None:
    params = {"page": page, "ratio": ratio, "active": active, "q": q}
    segment = quote(key, safe="") or "x"
    fast = _answer(f"/fast/values/{segment}", method="GET", params=params)
    with_dependencies = _answer(f"/deps/values/{segment}", method="GET", params=params)
    general = _answer(f"/general/values/{segment}", _reference, method="GET", params=params)
    assert fast == with_dependencies == general


_header_text = st.one_of(_text.filter(str.isascii), st.sampled_from(["7", "08", "1_0", "-9"]))


@_SETTINGS
@given(count=st.one_of(st.none(), _header_text.map(str.strip)))
def test_a_header_looked_up_in_place_is_read_as_its_reader_reads_it(count: str | None) -> None:
    headers = {} if count is None else {"x-count": count}
    fast = _answer("/fast/header", method="GET", headers=headers)
    solved = _answer("/deps/header", method="GET", headers=headers)
    reference = _answer("/deps/header", _reference, method="GET", headers=headers)
    assert fast == solved == reference


@_SETTINGS
@given(key=_text, ratio=_text, route=st.sampled_from(["int", "query", "text"]))
def test_one_value_read_at_once_as_its_reader_reads_it(key: str, ratio: str, route: str) -> None:
    tail = "" if route == "query" else "/" + (quote(key, safe="") or "x")
    params = {"ratio": ratio} if ratio else {}  # and the default where there is none
    fast = _answer(f"/one/{route}{tail}", method="GET", params=params)
    general = _answer(f"/general/{route}{tail}", _reference, method="GET", params=params)
    assert fast == general


def test_each_fast_form_is_the_one_its_route_takes() -> None:
    """Else a property above would compare the general solver with itself."""
    app = _app()
    asyncio.run(app.startup())
    try:
        runtime = app.runtime
        assert runtime is not None
        taken = {
            path: runtime.match(method, path)[0].invoke.__name__
            for method, path in [
                ("GET", "/fast/values/1"),
                ("GET", "/one/int/1"),
                ("GET", "/one/query"),
                ("GET", "/one/text/1"),
                ("GET", "/deps/values/1"),
                ("GET", "/general/who/1"),
                ("POST", "/fast/order"),
                ("GET", "/fast/header"),
                ("GET", "/deps/header"),
            ]
        }
    finally:
        asyncio.run(app.shutdown())
    assert taken == {
        "/fast/values/1": "invoke_with_values",
        "/one/int/1": "invoke_with_one_value",
        "/one/query": "invoke_with_one_value",
        "/one/text/1": "invoke_with_one_value",
        "/deps/values/1": "solve_and_call",
        "/general/who/1": "solve_and_call",
        "/fast/order": "invoke_with_body",
        "/fast/header": "invoke_with_values",
        "/deps/header": "solve_and_call",
    }


@pytest.mark.parametrize("path", ["/general/values/1", "/general/query", "/deps/header"])
def test_the_reference_reads_every_value_by_its_reader(path: str) -> None:
    """Else the properties above would compare values looked up in place with themselves."""

    def solver_source(client: TestClient) -> str:
        assert client.get("/one/query").status_code == 200  # started
        assert isinstance(client.app, App)
        runtime = client.app.runtime
        assert runtime is not None
        return inspect.getsource(runtime.match("GET", path)[0].invoke.__code__)

    assert "raw = " in solver_source(_client)
    assert "raw = " not in solver_source(_reference)


@_SETTINGS
@given(query=st.text(alphabet="ab=&%+;?x1 é", max_size=24))
def test_a_query_without_escapes_is_split_as_the_general_loop_splits_it(query: str) -> None:
    assert parse_query(query) == _decoded_pairs(query)


class _Filters(pydantic.BaseModel):
    """A query model with a list, an alias, a choice of aliases and a name read too."""

    model_config = pydantic.ConfigDict(populate_by_name=True)

    page: int = 1
    tags: list[str] = []
    order: str = pydantic.Field("asc", alias="o")
    size: int = pydantic.Field(10, validation_alias=pydantic.AliasChoices("s", "size"))


async def _searched(filters: Annotated[_Filters, Query()]) -> None:
    return None


@_SETTINGS
@given(
    pairs=st.lists(
        st.tuples(
            st.sampled_from(["page", "tags", "o", "order", "s", "size", "x"]), st.text("ab1")
        ),
        max_size=8,
    )
)
def test_a_query_model_is_gathered_from_a_query_as_from_any_values(
    pairs: list[tuple[str, str]],
) -> None:
    (parameter,) = describe(_searched, frozenset())
    model = FlatModel(parameter)
    query = QueryParams(pairs)
    assert _gather_query(model._fields, query) == _gather(model._fields, query)[0]


class _PlainFilters(pydantic.BaseModel):
    """A query model each of whose fields is read by one name: read from the query's dict."""

    model_config = pydantic.ConfigDict(extra="forbid")

    page: int = 1
    size: int = pydantic.Field(10, alias="per_page")
    q: str | None = None


async def _plain_searched(filters: Annotated[_PlainFilters, Query()]) -> None:
    return None


@_SETTINGS
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(["page", "per_page", "size", "q", "x"]), st.text("ab1 -")),
        max_size=8,
    )
)
def test_a_query_models_own_names_are_its_input_as_the_query_has_them(
    pairs: list[tuple[str, str]],
) -> None:
    (parameter,) = describe(_plain_searched, frozenset())
    model = FlatModel(parameter)
    assert model._plain_query == frozenset({"page", "per_page", "q"})
    query = QueryParams(pairs)
    gathered, general = model.gather(query)[0], _gather_query(model._fields, query)
    assert gathered == general
    if set(query) <= model._plain_query:  # the shortcut's: the same values, in another order
        assert gathered is not None
        assert _validated(gathered) == _validated(general)


def _validated(data: dict[str, Any]) -> Any:
    try:
        return _PlainFilters.model_validate(data)
    except pydantic.ValidationError as exc:
        return exc.errors(include_url=False)


def test_a_query_model_read_by_more_names_or_a_list_is_gathered_name_by_name() -> None:
    (parameter,) = describe(_searched, frozenset())
    assert FlatModel(parameter)._plain_query is None


def _generators(log: list[str]) -> list[Any]:
    """Generators a Cleanup ends: async ones that end after their yield, fail there, or yield
    again; sync ones that end or yield again."""

    async def ends() -> Any:
        yield 1
        log.append("async ends")

    async def fails() -> Any:
        yield 1
        log.append("async fails")
        raise ValueError

    async def twice() -> Any:
        yield 1
        log.append("async yields again")
        yield 2

    def sync_ends() -> Any:
        yield 1
        log.append("sync ends")

    def sync_twice() -> Any:
        yield 1
        log.append("sync yields again")
        yield 2

    return [ends(), fails(), twice(), sync_ends(), sync_twice()]


async def _after_advance(cleanup: Cleanup) -> list[str]:
    """What each started generator's next step gives, through ``advance``: a failure is
    thrown into those before it (an exit stack's order), one that ends swallows it."""
    outcomes = []
    failure: Exception | None = None
    while cleanup.exits:
        try:
            await advance(cleanup.exits.pop(), None, failure)
        except StopAsyncIteration:
            outcomes.append("StopAsyncIteration")
            failure = None
        except Exception as exc:
            outcomes.append(type(exc).__name__)
            failure = exc
        else:
            outcomes.append("yielded")
    return outcomes


def test_a_cleanup_ends_its_generators_as_advance_runs_them() -> None:
    async def run(after_response: bool) -> list[str]:
        log: list[str] = []
        request: Any = SimpleNamespace(_cleanup=None, context=SimpleNamespace(threads=None))
        cleanup = cleanup_of(request)
        for generator in _generators(log):
            is_async = inspect.isasyncgen(generator)
            await (generator.__anext__() if is_async else asyncio.to_thread(next, generator))
            cleanup.exits.append((generator, is_async, "dependency"))
        if after_response:
            await cleanup.after_response()
            return log
        outcomes = await _after_advance(cleanup)
        return [*log, *outcomes]

    # The first generator gets the second's ValueError at its ``yield``: it never logs.
    assert asyncio.run(run(after_response=True)) == [
        "sync yields again",
        "sync ends",
        "async yields again",
        "async fails",
    ]
    assert asyncio.run(run(after_response=False)) == [
        "sync yields again",
        "sync ends",
        "async yields again",
        "async fails",
        *("yielded", "StopAsyncIteration", "yielded", "ValueError", "ValueError"),
    ]


@_SETTINGS
@given(authorization=st.one_of(st.none(), st.text("Bearr b1 \t")))
def test_a_bearer_token_is_read_as_the_authorization_helper_reads_it(
    authorization: str | None,
) -> None:
    scheme = OAuth2PasswordBearer(tokenUrl="token", auto_error=False)
    request = SimpleNamespace(_header={"authorization": authorization}.get)
    name, token = get_authorization_scheme_param(authorization)
    expected = token if authorization and name.lower() == "bearer" else None
    assert scheme.read_now(request) == expected  # type: ignore[arg-type]  # what it reads


async def _noted(number: int, key: str) -> None:
    return None


def test_background_tasks_and_their_tasks_are_made_as_their_inits_make_them() -> None:
    request = SimpleNamespace(_cleanup=None, context=SimpleNamespace(threads=None))
    tasks = background_of(request)  # type: ignore[arg-type]  # what it reads of a request
    assert type(tasks) is BackgroundTasks
    assert tasks.tasks == BackgroundTasks().tasks
    assert background_of(request) is tasks  # type: ignore[arg-type]  # made once
    tasks.add_task(_noted, 1, key="value")
    (task,) = tasks.tasks
    expected = BackgroundTask(_noted, 1, key="value")
    assert type(task) is BackgroundTask
    for name in BackgroundTask.__slots__:
        assert getattr(task, name) == getattr(expected, name), name


def test_an_rsgi_request_is_made_as_its_init_makes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.warns(FastAPIDeprecationWarning):  # the root path, so that one is stripped
        app = App(block_threshold=None, root_path="/api")
    asyncio.run(app.startup())
    try:
        runtime = app.runtime
        assert runtime is not None
        made: list[Any] = []
        monkeypatch.setattr(runtime, "serve", lambda request, outbound: made.append(request))
        scope = SimpleNamespace(proto="http", path="/api/a%2Fb", method="PATCH")
        proto = object()
        rsgi.serve(app, scope, proto)
        (request,) = made
        expected = rsgi.RSGIRequest(runtime.context, app, scope, proto, "PATCH", "/a%2Fb")
        assert type(request) is rsgi.RSGIRequest
        assert vars(request) == vars(expected)
        assert list(vars(request)) == list(vars(expected))  # the same order: shared keys
    finally:
        asyncio.run(app.shutdown())


def test_an_asgi_request_and_channel_are_made_as_their_inits_make_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def run() -> None:
        app = App(block_threshold=None)
        await app.startup()
        try:
            runtime = app.runtime
            assert runtime is not None
            made: list[Any] = []

            async def serve(request: Any, outbound: Any) -> None:
                made.append((request, outbound))

            async def receive() -> Any:
                return {"type": "http.disconnect"}

            async def send(message: Any) -> None:
                return None

            monkeypatch.setattr(runtime, "serve", serve)
            scope = {
                "type": "http",
                "method": "PATCH",
                "path": "/api/a/b",
                "root_path": "/api",
                "extensions": {"http.response.pathsend": {}},
            }
            await app(scope, receive, send)
            ((request, channel),) = made
            expected_channel = asgi.ASGIChannel(receive, send, True, runtime.context.threads)
            assert type(channel) is asgi.ASGIChannel
            for name in asgi.ASGIChannel.__slots__:
                assert getattr(channel, name) == getattr(expected_channel, name), name
            expected = asgi.ASGIRequest(runtime.context, app, scope, channel, "PATCH", "/a/b")
            assert type(request) is asgi.ASGIRequest
            assert vars(request) == vars(expected)
            assert list(vars(request)) == list(vars(expected))  # the same order: shared keys
        finally:
            await app.shutdown()

    asyncio.run(run())


_numberish = st.sampled_from(
    ["-0", "-0.0", "1e2", "1E400", "+3", "00012", "3.0", ".5", "1_000", "\t1 ", "NaN", "tRuE", "oN"]
) | st.text(alphabet="0123456789+-._eEinfatrueyso \t\n\r\u00a0\u0661", max_size=8)


@pytest.mark.parametrize("kind", [int, float, bool, str])
@_SETTINGS
@given(text=_numberish | _text)
def test_a_fast_converter_takes_only_what_pydantic_takes_and_gives_the_same(
    kind: type, text: str
) -> None:
    try:
        fast = _FAST[kind](text)
    except ValueError:
        return  # the error path asks pydantic itself
    expected: Any = pydantic.TypeAdapter(kind).validate_python(text)
    assert (type(fast), repr(fast)) == (type(expected), repr(expected))  # -0.0 is not 0.0


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)
_order = st.fixed_dictionaries(
    {"id": st.one_of(st.integers(), st.text(max_size=3)), "name": st.one_of(st.text(), _json)},
    optional={"tags": st.one_of(st.lists(st.text(max_size=3)), _json), "extra": _json},
)


@_SETTINGS
@given(
    body=st.one_of(_order, _json).map(json.dumps).map(str.encode)
    | st.binary(max_size=20)
    | st.just(b""),
    content_type=st.sampled_from(["application/json", "application/json; charset=utf-8", None]),
)
def test_a_body_decoded_into_its_type_as_the_general_path_reads_it(
    body: bytes, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    fast = _answer("/fast/order", method="POST", content=body, headers=headers)
    general = _answer("/general/order", method="POST", content=body, headers=headers)
    assert fast == general


_segment = st.sampled_from(["a", "b", "1", "2.5", "", "x-y"])
_template_part = st.sampled_from(["a", "b", "{s}", "{i:int}", "{f:float}", "{p:path}"])


# A thread left by an earlier test (a pool's, a client's) may touch the global random while
# Hypothesis draws: it warns as if the strategy did, and pytest makes warnings errors.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@settings(max_examples=300, deadline=None)
@given(
    templates=st.lists(st.lists(_template_part, min_size=1, max_size=3), min_size=1, max_size=6),
    path=st.lists(_segment, min_size=1, max_size=4),
)
def test_the_greedy_walk_finds_what_the_search_finds_first(
    templates: list[list[str]], path: list[str]
) -> None:
    matcher = _matcher(templates)
    segments = ["", *path]
    greedy_values: list[Any] = []
    greedy = _walk_greedy(matcher._tree, segments, "GET", greedy_values)
    if greedy is None:
        return  # the matcher then searches: nothing to compare
    search_values: list[Any] = []
    found = _search(matcher._tree, segments, 1, "GET", search_values)
    assert found is greedy
    assert greedy_values == search_values


@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@settings(max_examples=300, deadline=None)
@given(
    templates=st.lists(st.lists(_template_part, min_size=1, max_size=3), min_size=1, max_size=6),
    path=st.lists(_segment, min_size=1, max_size=4),
    method=st.sampled_from(["GET", "HEAD", "POST"]),
)
def test_a_match_is_what_the_search_finds_first(
    templates: list[list[str]], path: list[str], method: str
) -> None:
    """``match`` (a static path's dict, the last segment from a static head, the greedy
    walk) against the search alone."""
    matcher = _matcher(templates)
    text = "/" + "/".join(path)
    target, params = matcher.match(method, text)
    static = matcher.static_targets.get(text, {}).get(method)
    if static is not None:
        assert (target, params) == (static, {})
        return
    values: list[Any] = []
    found = _search(matcher._tree, text.split("/"), 1, method, values)
    if found is None:
        assert target.name in ("not found", "method not allowed", "trailing slash redirect")
        return
    found_target, names = found.targets[method]
    assert (target, params) == (found_target, dict(zip(names, values, strict=True)))


def _matcher(templates: list[list[str]]) -> Matcher:
    """A GET route for each template, but one of two that take the same requests."""
    routes = []
    seen = set()
    for number, parts in enumerate(templates):
        named = [_named(part, index) for index, part in enumerate(parts)]
        if any(part.startswith("{p") for part in named[:-1]):
            continue  # a path parameter only ends a template
        text = "/" + "/".join(named)
        template = PathTemplate.parse(text)
        shape = tuple(template.path.replace("{", "").split("/"))
        if template.path in seen or shape in seen:
            continue
        seen.update({template.path, shape})
        target = Target(f"route {number}", _unused, _unused)
        routes.append(CompiledRoute(template, frozenset({"GET"}), target, text))
    return Matcher(routes)  # of two templates for the same requests, the first is kept


def _named(part: str, index: int) -> str:
    return (
        part.replace("{s", f"{{s{index}")
        .replace("{i", f"{{i{index}")
        .replace("{f", f"{{f{index}")
        .replace("{p", f"{{p{index}")
    )


def _unused(*_: Any) -> Any:
    raise AssertionError("not called")


class Item(msgspec.Struct):
    name: str


def _routes(app: App) -> App:
    """A route for each way a result becomes a response, and for each failure."""

    @app.get("/dict")
    async def a_dict() -> dict[str, str]:
        return {"a": "b"}

    @app.get("/struct")
    async def a_struct() -> Item:
        return Item("pen")

    @app.get("/other-type")
    async def another_type() -> dict[str, Any]:
        return Item("not the annotation")  # type: ignore[return-value]

    @app.get("/bare")
    async def unannotated():  # type: ignore[no-untyped-def]
        return "a str, as JSON"

    @app.get("/bare-bytes")
    async def unannotated_bytes():  # type: ignore[no-untyped-def]
        return b"raw"

    @app.get("/text")
    async def text() -> str:
        return "hello"

    @app.get("/text-wrong")
    async def text_wrong() -> str:
        return 42  # type: ignore[return-value]

    @app.get("/plaintext", response_class=PlainTextResponse)
    async def plaintext() -> str:
        return "Hello, World!"

    @app.get("/plaintext-optional", response_class=PlainTextResponse)
    async def plaintext_optional() -> str | None:
        return "Hello, World!"

    @app.get("/plaintext-wrong", response_class=PlainTextResponse)
    async def plaintext_wrong() -> str:
        return 42  # type: ignore[return-value]

    @app.get("/html", response_class=HTMLResponse)
    async def html() -> str:
        return "<p>hello</p>"

    @app.get("/bytes")
    async def raw() -> bytes:
        return b"\x00\x01"

    @app.post("/created", status_code=201)
    async def created(item: Item) -> Item:
        return item

    @app.get("/response")
    async def a_response() -> dict[str, str]:
        return JSONResponse({"own": True}, 202, {"x-own": "1"})  # type: ignore[return-value]

    @app.get("/sub-response")
    async def sub_response(response: Response) -> dict[str, str]:
        response.headers["x-set"] = "yes"
        response.status_code = 203
        return {"a": "b"}

    @app.get("/model", response_model=Item)
    async def model() -> Any:
        return {"name": "pen", "dropped": 1}

    @app.get("/pydantic", response_model=_Filters)
    async def pydantic_model() -> Any:
        return _Filters.model_validate({"page": 2, "o": "desc"})

    @app.get("/pydantic-dict", response_model=_Filters)
    async def pydantic_dict() -> Any:
        return {"page": 3, "dropped": 1}

    @app.get("/pydantic-invalid", response_model=_Filters)
    async def pydantic_invalid() -> Any:
        return {"page": "not a number"}

    @app.get("/missing")
    async def missing() -> dict[str, str]:
        raise HTTPException(404, "no such thing", {"x-why": "gone"})

    @app.get("/broken")
    async def broken() -> dict[str, str]:
        raise RuntimeError("boom")

    @app.get("/unencodable")
    async def unencodable() -> dict[str, Any]:
        return {"a": object()}

    @app.get("/no-content", status_code=204)
    async def no_content() -> None:
        return None

    @app.get("/sync")
    def sync() -> dict[str, str]:
        return {"on": "a thread"}

    @app.get("/slash/")
    async def slash() -> dict[str, str]:
        return {"slash": "ok"}

    return app


def _pair(interface: str) -> tuple[TestClient, TestClient]:
    bare = _routes(App(block_threshold=None))
    chained = _routes(App(block_threshold=None))

    @chained.middleware
    async def passes_on(request: Any, call_next: Any) -> Any:
        return await call_next(request)

    options: dict[str, Any] = {"raise_server_exceptions": False, "follow_redirects": False}
    return (
        TestClient(bare, interface=interface, **options),  # type: ignore[arg-type]
        TestClient(chained, interface=interface, **options),  # type: ignore[arg-type]
    )


_REQUESTS = [
    ("GET", path)
    for path in [
        "/dict",
        "/struct",
        "/other-type",
        "/bare",
        "/bare-bytes",
        "/text",
        "/text-wrong",
        "/plaintext",
        "/plaintext-optional",
        "/plaintext-wrong",
        "/html",
        "/bytes",
        "/response",
        "/sub-response",
        "/model",
        "/pydantic",
        "/pydantic-dict",
        "/pydantic-invalid",
        "/missing",
        "/broken",
        "/unencodable",
        "/no-content",
        "/sync",
        "/slash",
        "/nowhere",
    ]
] + [
    ("HEAD", "/dict"),
    ("HEAD", "/text"),
    ("HEAD", "/plaintext"),
    ("POST", "/dict"),
    ("POST", "/created"),
]


@pytest.mark.parametrize("interface", ["rsgi", "asgi"])
def test_the_serve_step_answers_as_dispatch_under_middleware(interface: str) -> None:
    bare, chained = _pair(interface)
    with bare, chained:
        for method, path in _REQUESTS:
            body = {"name": "pen"} if path == "/created" else None
            answers = [client.request(method, path, json=body) for client in (bare, chained)]
            seen = [
                (answer.status_code, answer.headers.multi_items(), answer.content)
                for answer in answers
            ]
            assert seen[0] == seen[1], (method, path)
            assert seen[0][0] == _STATUSES.get((method, path), 200), (method, path, seen[0])


# Each answer's status, so that a test of two equal wrong answers fails too.
_STATUSES = {
    ("GET", "/text-wrong"): 500,
    ("GET", "/plaintext-wrong"): 500,
    ("GET", "/pydantic-invalid"): 500,
    ("GET", "/response"): 202,
    ("GET", "/sub-response"): 203,
    ("GET", "/missing"): 404,
    ("GET", "/broken"): 500,
    ("GET", "/unencodable"): 500,
    ("GET", "/no-content"): 204,
    ("GET", "/slash"): 307,
    ("GET", "/nowhere"): 404,
    ("POST", "/dict"): 405,
    ("POST", "/created"): 201,
}


def test_a_task_run_in_place_runs_as_run_task_runs_it() -> None:
    """``run_tasks`` calls the usual task (an ``async def``, added with ``add_task``) in place:
    every kind of task runs as ``run_task`` runs it, in the same order."""

    async def run(in_place: bool) -> list[Any]:
        log: list[Any] = []

        async def record(*args: Any, **kwargs: Any) -> None:
            log.append(("async", args, kwargs))

        def sync_record(*args: Any) -> None:
            log.append(("sync", args))

        class Awaited:
            async def __call__(self, *args: Any) -> None:
                log.append(("object", args))

        class Own(BackgroundTask):
            async def __call__(self) -> None:
                log.append(("own", self.args))

        tasks = BackgroundTasks()
        tasks.add_task(record, 1, key=2)
        tasks.add_task(functools.partial(record, 3))
        tasks.add_task(sync_record, 4)
        tasks.add_task(Awaited(), 5)
        tasks.tasks.append(Own(record, 6))
        tasks.add_task(record, 7)
        if in_place:
            await run_tasks(tasks, None)
        else:
            for task in tasks.tasks:
                await run_task(task, None)
        return log

    assert asyncio.run(run(in_place=True)) == asyncio.run(run(in_place=False))
    assert len(asyncio.run(run(in_place=True))) == 6


def _written_out(step: type[steps.Step]) -> tuple[str, str]:
    """The parts of a step's ``serve`` every step writes out alike: before its own work (the
    gate) and after it (the cleanup, the cut, the gate and the observer's end)."""
    source = inspect.getsource(step.serve)
    lines = [line.strip() for line in source.splitlines()]
    body = "\n".join(lines[lines.index("gate = self.gate") :])
    head, _, rest = body.partition("try:\ntry:\n")
    tail = rest[rest.index("finally:\n# What the request left") :]
    return head, tail


def test_every_serve_step_writes_out_the_same_gate_and_cleanup() -> None:
    bare = _written_out(steps.Bare)
    assert _written_out(steps.Headed) == bare
    assert _written_out(steps.Chained) == bare
