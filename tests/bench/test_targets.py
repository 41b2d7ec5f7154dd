"""Targets: apps with their server and interface, URLs, labels; serving an app on a port
asked for, from a directory of its own."""

from __future__ import annotations

import re

import pytest

from hasten.bench.targets import (
    AppTarget,
    TargetError,
    UrlTarget,
    distinct_labels,
    parse_target,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pkg.main:app", AppTarget("main", "pkg.main:app", "granian", "rsgi", 1)),
        ("pkg.main:api", AppTarget("main:api", "pkg.main:api", "granian", "rsgi", 1)),
        ("m:app@uvicorn", AppTarget("m", "m:app", "uvicorn", "asgi", 1)),
        ("m:app@granian/asgi", AppTarget("m", "m:app", "granian", "asgi", 1)),
        ("fast=m:app@uvicorn/asgi", AppTarget("fast", "m:app", "uvicorn", "asgi", 1)),
        ("a.b-2=m:factory.app", AppTarget("a.b-2", "m:factory.app", "granian", "rsgi", 1)),
    ],
)
def test_app_targets(text: str, expected: AppTarget) -> None:
    assert parse_target(text) == expected


def test_options_apply_where_the_target_does_not_say() -> None:
    assert parse_target("m:app", interface="asgi", workers=2) == AppTarget(
        "m", "m:app", "granian", "asgi", 2
    )
    # uvicorn cannot speak the RSGI asked for all targets: it speaks its own
    assert parse_target("m:app@uvicorn", interface="rsgi") == AppTarget(
        "m", "m:app", "uvicorn", "asgi", 1
    )
    assert parse_target("m:app", server="uvicorn") == AppTarget("m", "m:app", "uvicorn", "asgi", 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "http://127.0.0.1:8000/hello",
            UrlTarget("127.0.0.1:8000", "127.0.0.1", 8000, "/hello", 9),
        ),
        ("http://localhost", UrlTarget("localhost:80", "localhost", 80, "/", 9)),
        ("s=http://h:1/a?b=c", UrlTarget("s", "h", 1, "/a?b=c", 9)),
    ],
)
def test_url_targets(text: str, expected: UrlTarget) -> None:
    assert parse_target(text, pid=9) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("main", "must look like"),
        ("pkg main:app", "must look like"),
        ("m:app@hypercorn", "is not one of granian, uvicorn"),
        ("m:app@uvicorn/rsgi", "uvicorn speaks asgi, not 'rsgi'"),
        ("m:app@granian/wsgi", "granian speaks rsgi or asgi"),
        ("my label=m:app", "label 'my label'"),
        ("https://h/", "no https"),
        ("http://h:99999/", "invalid port"),
    ],
)
def test_malformed_targets_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(TargetError, match=re.escape(message)):
        parse_target(text)


def test_labels_are_made_distinct() -> None:
    targets = [
        parse_target("m:app"),
        parse_target("m:app@uvicorn"),
        parse_target("other.m:app"),
        parse_target("x=http://h:1/"),
        parse_target("x=http://h:2/"),
    ]
    assert [target.label for target in distinct_labels(targets)] == [
        "m@granian/rsgi#1",
        "m@uvicorn/asgi",
        "m@granian/rsgi#2",
        "x#1",
        "x#2",
    ]
    assert [t.describe() for t in targets[1:4]] == ["uvicorn/asgi", "granian/rsgi", "url"]
    assert parse_target("http://h/", pid=3).describe() == "url, pid 3"


# Serving.
