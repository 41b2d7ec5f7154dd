"""Property tests (hypothesis): no input makes the path matcher, the query, header and cookie
parsers or the body decoding raise anything but their documented errors.

Each property's example count is bounded, so that the suite stays fast.
"""

from __future__ import annotations

import http.cookies
import uuid
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote, urlencode

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hasten import App, Request
from hasten._http.connection import _parse_cookies, _unquoted
from hasten._http.paths import Param, PathTemplate
from hasten._params.renderers import Renderer
from hasten._serve.matcher import CompiledRoute, Matcher
from hasten.datastructures import Headers, QueryParams, parse_query
from hasten.testing import TestClient
from hasten.types import Target

FAST = settings(max_examples=200, deadline=None)

# Hypothesis warns when the global `random` state moves while it draws an example. None of
# these strategies touch it, but a thread another test left running may (OpenTelemetry's id
# generator draws from the global `random`): seen once in a full run, as a FlakyFailure.
pytestmark = pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
THROUGH_THE_APP = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


async def _nothing(request: object) -> None:
    return None


def target(name: str) -> Target:
    return Target(name, _nothing, Renderer(200).render)


def matcher(*templates: str) -> Matcher:
    routes = [
        CompiledRoute(PathTemplate.parse(path), frozenset({"GET"}), target(path), path)
        for path in templates
    ]
    return Matcher(routes)


# Path templates, and paths made from them.
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~", min_size=1, max_size=8)
SEGMENT_VALUE = st.text(min_size=1, max_size=12).filter(lambda text: "/" not in text)
CONVERTERS = ("int", "float", "uuid", "str", "path")


@st.composite
def template_and_path(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """A template, a path that it should match, and the values that path carries."""
    count = draw(st.integers(min_value=1, max_value=5))
    template, path, values = [], [], {}
    for index in range(count):
        if draw(st.booleans()):
            word = draw(WORD)
            template.append(word)
            path.append(word)
            continue
        last = index == count - 1
        converter = draw(st.sampled_from(CONVERTERS if last else CONVERTERS[:-1]))
        name = f"p{index}"
        template.append(f"{{{name}:{converter}}}")
        value: Any
        if converter == "int":
            value = draw(st.integers(min_value=0, max_value=10**30))
            text = str(value)
        elif converter == "float":
            whole, fraction = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))
            text = f"{whole}.{fraction}"
            value = float(text)
        elif converter == "uuid":
            value = uuid.UUID(int=draw(st.integers(0, 2**128 - 1)))
            text = str(value)
        elif converter == "str":
            value = text = draw(SEGMENT_VALUE)
        else:
            value = text = draw(st.lists(SEGMENT_VALUE, min_size=1, max_size=3).map("/".join))
        values[name] = value
        path.append(text)
    return "/" + "/".join(template), "/" + "/".join(path), values


@FAST
@given(template_and_path())
def test_a_template_matches_the_paths_made_from_it(case: tuple[str, str, dict[str, Any]]) -> None:
    template, path, values = case
    found, params = matcher(template).match("GET", path)
    assert found.name == template
    assert params == values


@FAST
@given(st.text(alphabet=st.characters(), max_size=30))
def test_parsing_a_template_raises_only_value_error(text: str) -> None:
    try:
        parsed = PathTemplate.parse(text)
    except ValueError:
        return
    assert parsed.path == text
    assert all(isinstance(segment, str | Param) for segment in parsed.segments)


ROUTES = matcher(
    "/",
    "/hello",
    "/items/{id}",
    "/typed/{n:int}",
    "/ratio/{x:float}",
    "/things/{key:uuid}",
    "/files/{rest:path}",
    "/a/{b}/c/{d:int}",
)


@FAST
@given(st.sampled_from(["GET", "HEAD", "POST", "get", ""]), st.text(max_size=60))
@example("GET", "/typed/" + "9" * 5000)  # past Python's 4,300 digits for int()
@example("GET", "/ratio/" + "9" * 5000)
@example("GET", "//")
@example("GET", "/files/")
def test_matching_never_raises(method: str, path: str) -> None:
    found, params = ROUTES.match(method, path)
    assert isinstance(found, Target)
    assert isinstance(params, Mapping)


# Query strings.
@FAST
@given(st.text(max_size=80))
@example("%")
@example("a=%zz&%ff=%c0%ae&&=&+=+")
def test_any_query_string_parses(text: str) -> None:
    pairs = parse_query(text)
    query = QueryParams(parse_query(text))
    assert all(isinstance(name, str) and isinstance(value, str) for name, value in pairs)
    assert query.multi_items() == pairs
    assert set(query) == {name for name, _ in pairs}


@FAST
@given(st.lists(st.tuples(st.text(min_size=1), st.text()), max_size=8))
def test_a_query_string_round_trips(pairs: list[tuple[str, str]]) -> None:
    assert parse_query(urlencode(pairs)) == pairs


# Headers and cookies.
HEADER_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-0123456789", min_size=1, max_size=10)


@FAST
@given(st.lists(st.tuples(HEADER_NAME, st.text(max_size=20)), max_size=10), HEADER_NAME)
def test_headers_look_up_any_name_in_any_case(items: list[tuple[str, str]], name: str) -> None:
    headers = Headers(items)
    sent = [value for key, value in items if key == name]
    assert headers.get_all(name.upper()) == sent
    assert headers.get(name.title()) == (sent[0] if sent else None)
    assert (name.upper() in headers) == bool(sent)
    assert len(headers) == len(items)  # every pair, as Starlette's


COOKIE_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-", min_size=1)
COOKIE_VALUE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789!#$%&'()*+-./:<>?@[]^_`{|}~")


@FAST
@given(st.lists(st.text(max_size=40), max_size=3))
@example(["=;;=x; a=; =b; ;c"])
def test_any_cookie_header_parses(headers: list[str]) -> None:
    cookies = _parse_cookies(headers)
    assert all("=" not in name and ";" not in name for name in cookies)
    assert all(";" not in value for value in cookies.values())


@FAST
@given(st.text(alphabet='"\\0123789ab\n', max_size=30).map(lambda inner: f'"{inner}"'))
@example('"Hello\\054 cookies!"')
def test_a_quoted_cookie_is_unquoted_as_python_does_in_one_pass(value: str) -> None:
    # The same result as http.cookies' own, whose time is quadratic in the backslashes on
    # Python before 3.11.10 (CVE-2024-7592); hasten's is one regular expression's pass.
    assert _unquoted(value) == http.cookies._unquote(value)


@FAST
@given(st.dictionaries(COOKIE_NAME, COOKIE_VALUE, max_size=6))
def test_cookies_round_trip(sent: dict[str, str]) -> None:
    header = "; ".join(f"{name}={value}" for name, value in sent.items())
    assert _parse_cookies([header]) == sent


# Bodies, through a running app, on both adapters.
class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


def body_app() -> App:
    app = App(max_body_size=4096)

    @app.post("/orders")
    async def create(order: Order) -> Order:
        return order

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, str]:
        return {"type": type(await request.json()).__name__}

    return app


@pytest.fixture(scope="module", params=["rsgi", "asgi"])
def body_client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    with TestClient(body_app(), interface=request.param) as client:
        yield client


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def json_ish(draw: st.DrawFn) -> bytes:
    """JSON, mangled: some bytes replaced, inserted or cut, or any bytes at all."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=200))
    document = bytearray(msgspec.json.encode(draw(JSON_VALUES)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(document)))
        document[at:at] = draw(st.binary(min_size=1, max_size=3))
    return bytes(document[: draw(st.integers(0, len(document)))])


ACCEPTED = {200, 201, 400, 413, 415, 422}


@THROUGH_THE_APP
@given(body=json_ish(), path=st.sampled_from(["/orders", "/echo"]))
@example(body=b'{"id": 1, "name": "\xff"}', path="/orders")
@example(body=b"[" * 50_000, path="/echo")
def test_any_body_is_answered_without_a_server_error(
    body_client: TestClient, body: bytes, path: str
) -> None:
    response = body_client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code in ACCEPTED, (response.status_code, response.text)


def test_the_query_round_trip_quotes_what_it_must() -> None:
    assert parse_query("a=" + quote("x&y=z", safe="")) == [("a", "x&y=z")]
