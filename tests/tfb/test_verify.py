"""verify.py's judgements, one rule at a time, and db.py's reading of ``queries``."""

from __future__ import annotations

import html

import pytest

from benchmarks.tfb import db, verify
from benchmarks.tfb.verify import Failed, FortunesPage, Reply, check_reply

DATE = ("date", "Mon, 23 Nov 2026 08:44:01 GMT")
SERVER = ("server", "granian")


def reply(*headers: tuple[str, str], body: bytes = b"{}", status: int = 200) -> Reply:
    return Reply(status, list(headers), body)


def test_a_good_reply_passes() -> None:
    check_reply(
        reply(SERVER, DATE, ("content-type", "application/json"), ("content-length", "2")),
        "/json",
        "json",
    )
    check_reply(
        reply(SERVER, DATE, ("content-type", "text/html; charset=UTF-8"), ("content-length", "2")),
        "/fortunes",
        "html",
    )


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ((DATE, ("content-type", "application/json")), "0 server headers"),
        ((SERVER, SERVER, DATE, ("content-type", "application/json")), "2 server headers"),
        ((SERVER, ("content-type", "application/json")), "0 date headers"),
        ((SERVER, DATE, DATE, ("content-type", "application/json")), "2 date headers"),
        ((SERVER, ("date", "yesterday"), ("content-type", "application/json")), "not an HTTP"),
        ((SERVER, DATE, ("content-type", "text/json")), "content type 'text/json', not json"),
        ((SERVER, DATE, ("content-type", "application/json")), "neither Content-Length"),
        (
            (SERVER, DATE, ("content-type", "application/json"), ("content-length", "3")),
            r"Content-Length \['3'\], body of 2 bytes",
        ),
        (
            (
                *(SERVER, DATE, ("content-type", "application/json")),
                *(("content-length", "2"), ("content-encoding", "gzip")),
            ),
            "compressed",
        ),
    ],
)
def test_a_bad_reply_fails(headers: tuple[tuple[str, str], ...], message: str) -> None:
    with pytest.raises(Failed, match=message):
        check_reply(reply(*headers), "/json", "json")


def test_a_status_other_than_200_fails() -> None:
    with pytest.raises(Failed, match="status 500"):
        check_reply(reply(status=500), "/db", "json")


def page(rows: list[tuple[int, str]], escape: bool = True) -> str:
    cells = "".join(
        f"<tr><td>{id}</td><td>{html.escape(message) if escape else message}</td></tr>"
        for id, message in rows
    )
    return (
        "<!doctype html><html><head><title>Fortunes</title></head><body><table>"
        f"<tr><th>id</th><th>message</th></tr>{cells}</table></body></html>"
    )


EXPECTED = sorted([*verify.FORTUNES, verify.EXTRA_FORTUNE], key=lambda row: row[1])
WANTED = [(str(id), message) for id, message in EXPECTED]


def check(text: str) -> None:
    parsed = FortunesPage()
    parsed.feed(text)
    parsed.close()
    parsed.check(WANTED, "/fortunes")


def test_fortunes_escaped_either_way_pass() -> None:
    check(page(EXPECTED))  # html.escape: &quot; and &#x27;
    check(page(EXPECTED).replace("&quot;", "&#34;").replace("&#x27;", "'"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (page(EXPECTED, escape=False), r"tags \['script'\]"),
        (page(EXPECTED).replace("&lt;", "&amp;lt;"), "row 1 is"),
        (page(list(reversed(EXPECTED))), "row 1 is"),
        (page([row for row in EXPECTED if row[0] != 0]), "12 fortunes, not 13"),
        (page(EXPECTED).replace("<!doctype html>", ""), "no <!DOCTYPE html>"),
        (page(EXPECTED).replace("Fortunes</title>", "Fortune</title>"), "title 'Fortune'"),
        (page(EXPECTED).replace("<th>id</th>", "<th>ID</th>"), "the first row"),
        (page(EXPECTED).replace("<td>0</td>", "<td> 0</td>"), "row 6 is"),
    ],
)
def test_fortunes_that_break_a_rule_fail(text: str, message: str) -> None:
    with pytest.raises(Failed, match=message):
        check(text)


@pytest.mark.parametrize(
    ("value", "count"),
    [(None, 1), ("", 1), ("foo", 1), ("0", 1), ("-3", 1), ("1", 1), ("20", 20), ("501", 500)],
)
def test_queries_are_clamped_from_1_to_500(value: str | None, count: int) -> None:
    assert db.clamp(value) == count


@pytest.mark.parametrize(
    ("path", "without"),
    [
        ("/queries?queries=", "/queries"),
        ("/q?a=1&queries=", "/q?a=1"),
        ("/db", "/db"),
    ],
)
def test_the_missing_parameter_case(path: str, without: str) -> None:
    assert verify._without_last_parameter(path) == without
