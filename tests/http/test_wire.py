"""The wire rules: one Content-Length, none on 1xx/204/304, HEAD keeps the GET length."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hasten import Response
from hasten._http.wire import HeaderList, allows_body, frame

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


class _Taken:
    """An outbound that keeps what ``response_bytes`` was handed."""

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> None:
        self.sent = (status, headers, body)


@given(
    status=st.sampled_from([200, 201, 203, 404, 418, 500, 599]),
    body=st.binary(max_size=8),
    names=st.lists(st.sampled_from(["x-a", "content-length", "vary", "X-B"]), max_size=4),
)
def test_a_whole_body_with_changed_headers_is_framed_as_frame_frames_it(
    status: int, body: bytes, names: list[str]
) -> None:
    """``Response.send_whole`` frames changed headers itself in ``frame``'s usual case."""
    response = Response(body, status, media_type="text/plain")
    headers = response.headers  # changed from here on, with names or without
    for number, name in enumerate(names):
        headers.append(name, str(number))
    taken = _Taken()
    request = SimpleNamespace(method="GET")
    assert response.send_whole(taken, request) is None  # type: ignore[arg-type]
    expected = frame(status, response.wire_headers, len(body))
    assert taken.sent == (status, expected, body)
