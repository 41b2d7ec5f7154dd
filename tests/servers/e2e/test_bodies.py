"""Request bodies over the wire: JSON into a Struct, 422, 400, 415, and the size limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.servers.e2e.app import MAX_BODY_SIZE

pytestmark = pytest.mark.server

JSON = {"content-type": "application/json"}


def order_of_size(size: int) -> bytes:
    """A valid Order as JSON of exactly ``size`` bytes."""
    empty = b'{"id":1,"name":""}'
    return empty[:-2] + b"x" * (size - len(empty)) + b'"}'


def chunked(body: bytes, chunk_size: int = 256) -> Iterator[bytes]:
    """Content for httpx that it must send with Transfer-Encoding: chunked."""
    for start in range(0, len(body), chunk_size):
        yield body[start : start + chunk_size]


def only_error(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert len(errors) == 1, errors
    error: dict[str, Any] = errors[0]
    return error


def assert_healthy(client: httpx.Client) -> None:
    assert client.get("/hello").json() == {"message": "hello"}


def test_struct_body_is_echoed_with_status(client: httpx.Client) -> None:
    order = {"id": 1, "name": "tea", "tags": ["hot"]}
    response = client.post("/orders", json=order)
    assert response.status_code == 201
    assert response.headers["content-type"] == "application/json"
    assert response.json() == order


def test_struct_defaults_fill_missing_optional_fields(client: httpx.Client) -> None:
    response = client.post("/orders", json={"id": 2, "name": "coffee"})
    assert response.json() == {"id": 2, "name": "coffee", "tags": []}


def test_bad_field_is_422_naming_it(client: httpx.Client) -> None:
    error = only_error(client.post("/orders", json={"id": "one", "name": "tea"}))
    assert error["loc"] == ["body", "id"]
    assert "int" in error["msg"]


def test_missing_field_is_422_naming_it(client: httpx.Client) -> None:
    error = only_error(client.post("/orders", json={"id": 1}))
    assert error["loc"] == ["body", "name"]
    assert error["msg"] == "Field required"


def test_bad_nested_item_is_422_naming_its_index(client: httpx.Client) -> None:
    error = only_error(client.post("/orders", json={"id": 1, "name": "t", "tags": ["a", 2]}))
    assert error["loc"] == ["body", "tags", 1]


def test_bad_path_param_is_422(client: httpx.Client) -> None:
    error = only_error(client.get("/items/abc"))
    assert error["loc"] == ["path", "item_id"]
    assert error["msg"]


def test_missing_query_param_is_422(client: httpx.Client) -> None:
    error = only_error(client.get("/search"))
    assert error["loc"] == ["query", "q"]
    assert error["msg"] == "Field required"


def test_malformed_json_is_fastapis_422(client: httpx.Client) -> None:
    response = client.post("/orders", content=b'{"id": 1,', headers=JSON)
    assert (response.status_code, response.json()) == (
        422,
        {
            "detail": [
                {
                    "type": "json_invalid",
                    "loc": ["body", 9],
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": "Expecting property name enclosed in double quotes"},
                }
            ]
        },
    )
    assert_healthy(client)


def test_json_sent_as_text_is_not_json(client: httpx.Client) -> None:
    body = b'{"id": 1, "name": "tea"}'
    response = client.post("/orders", content=body, headers={"content-type": "text/plain"})
    assert (response.status_code, response.json()) == (
        422,
        {
            "detail": [
                {
                    "type": "model_attributes_type",
                    "loc": ["body"],
                    "msg": "Input should be a valid dictionary or object to extract fields from",
                    "input": body.decode(),
                }
            ]
        },
    )


def test_body_at_the_limit_is_accepted(client: httpx.Client) -> None:
    body = order_of_size(MAX_BODY_SIZE)
    response = client.post("/orders", content=body, headers=JSON)
    assert response.status_code == 201
    assert len(response.json()["name"]) == MAX_BODY_SIZE - len(b'{"id":1,"name":""}')


def test_body_over_the_limit_with_content_length_is_413(client: httpx.Client) -> None:
    size = MAX_BODY_SIZE + 1
    request = client.build_request("POST", "/orders", content=order_of_size(size), headers=JSON)
    assert request.headers["content-length"] == str(size)
    response = client.send(request)
    assert response.status_code == 413
    assert response.json()["detail"]
    assert_healthy(client)


def test_chunked_body_at_the_limit_is_accepted(client: httpx.Client) -> None:
    request = client.build_request(
        "POST", "/orders", content=chunked(order_of_size(MAX_BODY_SIZE)), headers=JSON
    )
    assert request.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in request.headers
    response = client.send(request)
    assert response.status_code == 201


def test_chunked_body_over_the_limit_is_413(client: httpx.Client) -> None:
    request = client.build_request(
        "POST", "/orders", content=chunked(order_of_size(MAX_BODY_SIZE + 1)), headers=JSON
    )
    assert request.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in request.headers
    response = client.send(request)
    assert response.status_code == 413
    assert response.json()["detail"]
    assert_healthy(client)


@pytest.mark.parametrize(("path", "limit"), [("/uploads/", 4), ("/uploads/small", 2)])
@pytest.mark.parametrize("send", [bytes, chunked])
def test_a_router_or_route_body_limit_holds_on_the_wire(
    client: httpx.Client, path: str, limit: int, send: Any
) -> None:
    limit *= MAX_BODY_SIZE  # over the app's, which this route does not hold to
    response = client.post(path, content=send(b"x" * limit))
    assert (response.status_code, response.json()) == (200, {"size": limit})
    response = client.post(path, content=send(b"x" * (limit + 1)))
    assert response.status_code == 413
    if send is bytes:
        detail = f"Request body of {limit + 1} bytes exceeds the limit of {limit} bytes"
    else:
        detail = f"Request body exceeds the limit of {limit} bytes"
    assert response.json() == {"detail": detail}
    assert_healthy(client)


def test_request_json_and_url(client: httpx.Client, server: str) -> None:
    response = client.post("/echo?x=1", json={"a": [1, 2]})
    assert response.json() == {"json": {"a": [1, 2]}, "url": f"{server}/echo?x=1", "scheme": "http"}


def test_request_json_reports_malformed_body_as_400(client: httpx.Client) -> None:
    assert client.post("/echo", content=b"{nope", headers=JSON).status_code == 400


@pytest.mark.parametrize("transfer", ["content-length", "chunked"])
def test_request_stream_yields_the_whole_body(client: httpx.Client, transfer: str) -> None:
    body = bytes(range(256)) * 4
    content = body if transfer == "content-length" else chunked(body, 100)
    response = client.post("/count", content=content)
    assert response.status_code == 200
    assert response.json()["bytes"] == len(body)


def test_request_stream_is_held_to_the_limit(client: httpx.Client) -> None:
    response = client.post("/count", content=chunked(b"x" * (MAX_BODY_SIZE + 1), 100))
    assert response.status_code == 413
    assert_healthy(client)
