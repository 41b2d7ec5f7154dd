from __future__ import annotations

from hasten import Headers, MutableHeaders, QueryParams
from hasten._http import uploads
from hasten.datastructures import (
    URL,
    Default,
    DefaultPlaceholder,
    ImmutableMultiDict,
    MultiDict,
    UploadFile,
    parse_query,
)


def test_parse_query_decodes_only_what_needs_it() -> None:
    assert parse_query("a=1&b=x+y&c=%C3%A9&&d&e=") == [
        ("a", "1"),
        ("b", "x y"),
        ("c", "é"),
        ("d", ""),
        ("e", ""),
    ]
    assert parse_query("") == []


def test_query_params_mapping() -> None:
    query = QueryParams(parse_query("tag=a&tag=b&n=1"))
    assert (query["tag"], query.get("tag"), query.get("none")) == ("b", "b", None)  # the last
    assert query.get_all("tag") == ["a", "b"]
    assert query.multi_items() == [("tag", "a"), ("tag", "b"), ("n", "1")]
    assert len(query) == 2
    assert list(query) == ["tag", "n"]
    assert repr(query) == "QueryParams('tag=a&tag=b&n=1')"  # Starlette's


def test_headers_are_case_insensitive_and_keep_repeats() -> None:
    headers = Headers([("accept", "a"), ("accept", "b"), ("host", "h")])
    assert headers["Accept"] == "a"
    assert headers.get_all("ACCEPT") == ["a", "b"]
    assert headers.items() == [("accept", "a"), ("accept", "b"), ("host", "h")]
    # As Starlette's: every pair counts and is listed, in order.
    assert len(headers) == 3
    assert list(headers) == ["accept", "accept", "host"]
    assert dict(headers) == {"accept": "a", "host": "h"}
    assert repr(headers) == ("Headers(raw=[(b'accept', b'a'), (b'accept', b'b'), (b'host', b'h')])")


def test_headers_take_starlettes_forms() -> None:
    assert Headers({"A": "1"}).raw == [(b"a", b"1")]
    assert Headers(raw=[(b"a", b"1"), (b"a", b"2")]).getlist("A") == ["1", "2"]
    assert repr(Headers({"a": "1"})) == "Headers({'a': '1'})"
    assert Headers(raw=[(b"a", b"1"), (b"b", b"2")]) == Headers({"b": "2", "a": "1"})
    assert Headers({"a": "1"}) != [(b"a", b"1")]
    copy = Headers(raw=[(b"a", b"1"), (b"a", b"2")]).mutablecopy()
    copy["a"] = "3"
    assert copy.items() == [("a", "3")]


def test_mutable_headers_from_a_scope_change_its_headers() -> None:
    message = {"type": "http.response.start", "headers": ((b"a", b"1"),)}
    headers = MutableHeaders(scope=message)
    headers.append("X-Request-ID", "42")
    headers["b"] = "2"
    assert message["headers"] == [(b"a", b"1"), (b"x-request-id", b"42"), (b"b", b"2")]
    del headers["a"]
    assert message["headers"] == [(b"x-request-id", b"42"), (b"b", b"2")]
    merged = headers | {"c": "3"}
    assert (type(merged), merged.raw[-1]) == (MutableHeaders, (b"c", b"3"))
    assert message["headers"] == [(b"x-request-id", b"42"), (b"b", b"2")]


def test_url_is_its_text_with_starlette_parts() -> None:
    from hasten.datastructures import URL

    url = URL("https://example.com:8443/items/7?q=1#top")
    assert url == "https://example.com:8443/items/7?q=1#top"
    parts = (url.scheme, url.netloc, url.hostname, url.port, url.path, url.query, url.fragment)
    assert parts == ("https", "example.com:8443", "example.com", 8443, "/items/7", "q=1", "top")
    moved = url.replace(path="/login", query="")
    assert (moved, type(moved)) == ("https://example.com:8443/login#top", URL)


def test_default_marks_a_value_left_as_it_is() -> None:
    assert Default("a") == Default("a") != Default("b")
    assert Default("a") != "a"
    assert (bool(Default("a")), bool(Default(""))) == (True, False)
    placeholder: object = Default([1])
    assert isinstance(placeholder, DefaultPlaceholder)
    assert placeholder.value == [1]
    assert UploadFile is uploads.UploadFile


def test_multi_dicts_take_starlettes_forms() -> None:
    assert QueryParams("a=1&a=2&b=3") == QueryParams([("a", "1"), ("a", "2"), ("b", "3")])
    assert QueryParams({"b": "3", "a": "1"}) == QueryParams(a="1", b="3")
    assert QueryParams(b"x=%20y") == QueryParams({"x": " y"})
    assert (str(QueryParams("a=1&a=2")), QueryParams() == QueryParams({})) == ("a=1&a=2", True)
    assert QueryParams("a=1") != "a=1"
    # Keys in any order, each key's values in theirs (a form's two files in another order
    # are another form).
    assert QueryParams("a=1&b=3&a=2") == QueryParams("b=3&a=1&a=2")
    assert QueryParams("a=1&a=2") != QueryParams("a=2&a=1")
    changing = MultiDict([("a", "1"), ("a", "2")], b="3")
    changing["a"] = "9"
    changing.append("c", "4")
    changing.update({"b": "5"})
    assert changing.multi_items() == [("a", "9"), ("c", "4"), ("b", "5")]
    assert (changing.poplist("a"), changing.setdefault("d", "6")) == (["9"], "6")
    assert ImmutableMultiDict(changing) == changing


def test_a_urls_host_replaced_is_bracketed_only_when_it_is_an_ipv6_address() -> None:
    url = URL("https://example.org:8443/path")
    assert [
        str(url.replace(hostname="::1")),
        str(url.replace(hostname="[::1]")),
        str(url.replace(hostname="example.net:8080", port=None)),
        str(url.replace(hostname="[::1]:8080", port=None)),
    ] == [
        "https://[::1]:8443/path",
        "https://[::1]:8443/path",
        "https://example.net:8080/path",
        "https://[::1]:8080/path",
    ]
