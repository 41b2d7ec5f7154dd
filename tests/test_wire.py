"""The wire rules: one Content-Length, none on 1xx/204/304, HEAD keeps the GET length."""

from __future__ import annotations

import pytest

from hasten.wire import allows_body, frame

CT = ("content-type", "text/plain")


@pytest.mark.parametrize(
    ("status", "allowed"),
    [(100, False), (101, False), (199, False), (200, True), (204, False), (206, True),
     (304, False), (404, True), (500, True)],
)  # fmt: skip
def test_allows_body(status: int, allowed: bool) -> None:
    assert allows_body(status) is allowed


def test_length_is_added_once() -> None:
    assert frame(200, [CT], 5) == [CT, ("content-length", "5")]


def test_a_wrong_or_repeated_length_is_replaced_by_the_real_one() -> None:
    headers = [("content-length", "9"), CT, ("content-length", "9")]
    assert frame(200, headers, 5) == [CT, ("content-length", "5")]


def test_a_right_length_is_kept_as_it_is() -> None:
    headers = [CT, ("content-length", "5")]
    assert frame(200, headers, 5) is headers


@pytest.mark.parametrize("status", [101, 204, 304])
def test_no_length_where_the_status_has_no_body(status: int) -> None:
    assert frame(status, [CT, ("content-length", "0")], 0) == [CT]
    assert frame(status, [CT], None) == [CT]


def test_unknown_length_keeps_what_the_headers_say_once() -> None:
    assert frame(200, [CT], None) == [CT]
    declared = [("content-length", "7"), CT]
    assert frame(200, declared, None) is declared
    assert frame(200, [("content-length", "7"), CT, ("content-length", "8")], None) == [
        CT,
        ("content-length", "7"),
    ]
