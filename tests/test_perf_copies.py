"""Every ``# perf:`` shortcut held equal to the general code it stands for, by property.

- the plan's fast forms (values read inline, a JSON body decoded straight into its type)
  against the general solver, which a route with a dependency takes;
- the matcher's ``_walk_greedy`` against ``_search``, which it shortcuts.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hasten import App, Depends
from hasten.matcher import CompiledRoute, Matcher, _search, _walk_greedy
from hasten.paths import PathTemplate
from hasten.testing import TestClient
from hasten.types import Target


class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


async def nothing() -> None:
    return None


def _app() -> App:
    app = App(block_threshold=None)

    async def values(page: int = 1, ratio: float = 1.0, active: bool = False, q: str = "") -> Any:
        return [page, ratio, active, q]

    async def order(order: Order) -> Any:
        return order

    app.get("/fast/values/{key}")(_with_key(values))
    app.get("/general/values/{key}", dependencies=[Depends(nothing)])(_with_key(values))
    app.post("/fast/order")(order)
    app.post("/general/order", dependencies=[Depends(nothing)])(order)
    return app


def _with_key(values: Any) -> Any:
    async def handler(
        key: int, page: int = 1, ratio: float = 1.0, active: bool = False, q: str = ""
    ) -> Any:
        return [key, *(await values(page, ratio, active, q))]

    return handler


_client = TestClient(_app())
_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_text = st.one_of(
    st.sampled_from(["1", "-3", "+3", " 4", "1e2", "3.0", "nan", "inf", "true", "YES", "off", ""]),
    st.text(max_size=6),
)


def _answer(path: str, **kwargs: Any) -> tuple[int, Any]:
    response = _client.request(url=path, **kwargs)
    return response.status_code, response.json()


@_SETTINGS
@given(key=_text, page=_text, ratio=_text, active=_text, q=_text)
def test_values_read_inline_as_their_readers_read_them(
    key: str, page: str, ratio: str, active: str, q: str
) -> None:
    params = {"page": page, "ratio": ratio, "active": active, "q": q}
    segment = quote(key, safe="") or "x"
    fast = _answer(f"/fast/values/{segment}", method="GET", params=params)
    general = _answer(f"/general/values/{segment}", method="GET", params=params)
    assert fast == general


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
    matcher = Matcher(routes)  # of two templates for the same requests, the first is kept
    segments = ["", *path]
    greedy_values: list[Any] = []
    greedy = _walk_greedy(matcher._tree, segments, "GET", greedy_values)
    if greedy is None:
        return  # the matcher then searches: nothing to compare
    search_values: list[Any] = []
    found = _search(matcher._tree, segments, 1, "GET", search_values)
    assert found is greedy
    assert greedy_values == search_values


def _named(part: str, index: int) -> str:
    return (
        part.replace("{s", f"{{s{index}")
        .replace("{i", f"{{i{index}")
        .replace("{f", f"{{f{index}")
        .replace("{p", f"{{p{index}")
    )


def _unused(*_: Any) -> Any:
    raise AssertionError("not called")
