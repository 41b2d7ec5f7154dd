"""Routing over the wire: typed path and query parameters, converters, 404, 405, HEAD."""

from __future__ import annotations

import httpx
import pytest

from tests.servers.e2e.app import MIDDLEWARE_HEADER

pytestmark = pytest.mark.server


def test_get_returns_json(client: httpx.Client) -> None:
    response = client.get("/hello")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"message": "hello"}


def test_path_param_is_typed_by_annotation(client: httpx.Client) -> None:
    response = client.get("/items/42")
    assert response.status_code == 200
    assert response.json() == {"id": 42, "q": None, "limit": 10}


def test_query_params_fill_defaults_and_are_typed(client: httpx.Client) -> None:
    response = client.get("/items/7", params={"q": "needle", "limit": "3"})
    assert response.json() == {"id": 7, "q": "needle", "limit": 3}


def test_repeated_query_param_fills_a_list(client: httpx.Client) -> None:
    response = client.get("/tags?tag=a&tag=b&id=1&id=2")
    assert response.status_code == 200
    assert response.json() == {"tag": ["a", "b"], "id": [1, 2]}


def test_bad_list_item_names_its_index(client: httpx.Client) -> None:
    response = client.get("/tags?tag=a&id=1&id=x")
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["query", "id", 1]


def test_explicit_int_converter_matches_digits(client: httpx.Client) -> None:
    response = client.get("/typed/7")
    assert response.json() == {"n": 7, "double": 14}


def test_explicit_int_converter_refuses_words_with_404(client: httpx.Client) -> None:
    assert client.get("/typed/seven").status_code == 404


def test_path_converter_takes_slashes_and_decodes_escapes(client: httpx.Client) -> None:
    response = client.get("/files/a/b%20c.txt")
    assert response.status_code == 200
    assert response.json() == {"path": "a/b c.txt"}


def test_path_is_percent_decoded_exactly_once(client: httpx.Client) -> None:
    response = client.get("/files/a%2541/100%25")
    assert response.json() == {"path": "a%41/100%"}


def test_path_converter_decodes_utf8(client: httpx.Client) -> None:
    response = client.get("/files/caf%C3%A9/menu")
    assert response.json() == {"path": "café/menu"}


def test_str_result_is_a_json_string(client: httpx.Client) -> None:
    response = client.get("/text")
    assert response.headers["content-type"] == "application/json"
    assert response.content == '"plain text é"'.encode()


def test_bytes_result_is_a_json_string_of_its_text(client: httpx.Client) -> None:
    response = client.get("/bytes")
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'"\\u0000\\u0001binary"'


def test_unknown_path_is_404(client: httpx.Client) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


@pytest.mark.parametrize("path", ["/hello", "/items/5", "/files/a/b.txt"])
def test_other_method_is_405_with_allow(client: httpx.Client, path: str) -> None:
    response = client.post(path)
    assert response.status_code == 405
    allowed = {method.strip() for method in response.headers["allow"].split(",")}
    assert allowed == {"GET", "HEAD"}


def test_head_on_get_route_sends_headers_without_body(client: httpx.Client) -> None:
    full = client.get("/hello")
    response = client.head("/hello")
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-type"] == "application/json"
    assert response.headers[MIDDLEWARE_HEADER] == "1"
    assert response.headers.get("content-length", str(len(full.content))) == str(len(full.content))


def test_trailing_slash_redirects_to_the_route(client: httpx.Client) -> None:
    response = client.get("/hello/", params={"x": "1"})
    assert response.status_code == 307
    # A full URL, from the Host the client sent, as Starlette's.
    assert response.headers["location"] == str(client.base_url.join("/hello?x=1"))


def test_included_router_serves_under_its_prefix(client: httpx.Client) -> None:
    response = client.get("/api/users/5")
    assert response.json() == {"id": 5}
    assert client.get("/users/5").status_code == 404


def test_include_prefix_stacks_on_router_prefix(client: httpx.Client) -> None:
    response = client.get("/v1/admin/stats")
    assert response.json() == {"scope": "admin"}


def test_a_method_other_than_the_usual_ones(client: httpx.Client) -> None:
    response = client.request("QUERY", "/lookup", content=b"name=ann")
    assert (response.status_code, response.json()) == (200, {"method": "QUERY", "body": "name=ann"})
    response = client.request("PROPFIND", "/lookup")
    assert (response.status_code, response.headers["allow"]) == (405, "QUERY")
