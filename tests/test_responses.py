"""Response kinds and their headers (unit level; the wire is covered by the adapters' tests)."""

from __future__ import annotations

import pytest

from hasten import JSONResponse, MutableHeaders, RedirectResponse, Response


def test_bytes_body_has_no_content_type_by_default() -> None:
    response = Response(b"x")
    assert response.raw_headers == []
    assert response.media_type is None
    assert repr(response) == "<Response 200 None 1 bytes>"


def test_str_body_defaults_to_text_plain_utf8() -> None:
    response = Response("é")
    assert response.body == "é".encode()
    assert response.raw_headers == [("content-type", "text/plain; charset=utf-8")]


def test_charset_is_not_added_twice() -> None:
    response = Response("x", media_type="text/html; charset=latin-1")
    assert response.headers["content-type"] == "text/html; charset=latin-1"


def test_shared_content_type_list_is_never_mutated() -> None:
    first = Response(b"{}", media_type="application/json")
    first.headers["x-one"] = "1"
    second = Response(b"{}", media_type="application/json")
    assert second.raw_headers == [("content-type", "application/json")]


def test_headers_set_append_delete() -> None:
    response = Response(b"", headers={"X-A": "1"})
    headers = response.headers
    headers["x-a"] = "2"
    headers.append("set-cookie", "a=1")
    headers.append("Set-Cookie", "b=2")
    assert headers.setdefault("x-b", "3") == "3"
    assert headers.setdefault("x-b", "4") == "3"
    assert headers.get_all("set-cookie") == ["a=1", "b=2"]
    del headers["X-B"]
    with pytest.raises(KeyError):
        del headers["x-missing"]
    assert response.raw_headers == [("x-a", "2"), ("set-cookie", "a=1"), ("set-cookie", "b=2")]
    assert isinstance(headers, MutableHeaders)
    assert len(headers) == 2
    assert sorted(headers) == ["set-cookie", "x-a"]
    assert "X-A" in headers
    assert object() not in headers


def test_json_response() -> None:
    response = JSONResponse({"a": [1, None]}, status=201, headers={"x": "y"})
    assert response.body == b'{"a":[1,null]}'
    assert response.status == 201
    assert response.raw_headers == [("content-type", "application/json"), ("x", "y")]


def test_redirect_response() -> None:
    response = RedirectResponse("/elsewhere", status=308)
    assert response.status == 308
    assert response.headers["location"] == "/elsewhere"
