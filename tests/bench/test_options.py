"""The options: one dataclass, and the parser derived from it."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

import pytest

from hasten._arguments import from_arguments
from hasten.bench.cli import add_parser, run
from hasten.bench.options import BenchOptions, OptionsError, percent


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="hasten")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["bench", *argv])


def test_every_field_is_an_argument_with_the_fields_default() -> None:
    args = parse("m:app")
    options = from_arguments(BenchOptions, args)
    assert options == BenchOptions(target="m:app")
    assert {item.name for item in fields(BenchOptions)} <= set(vars(args))
    assert args.handler is run


def test_flags_are_converted_by_their_type() -> None:
    args = parse(
        *("--compare", "a:app", "b:app", "--request", "/a", "--request", "POST /b"),
        *("--duration", "1.5", "--connections", "8", "--mode", "sequential", "--json", "o.json"),
        *("--max-regression", "7.5%", "--interface", "asgi", "--rounds", "2"),
    )
    options = from_arguments(BenchOptions, args)
    assert options.compare == ("a:app", "b:app")
    assert options.target_texts == ("a:app", "b:app")
    assert options.request == ("/a", "POST /b")
    assert (options.duration, options.connections, options.json) == (1.5, 8, Path("o.json"))
    assert (options.max_regression, options.interface, options.round_count) == (7.5, "asgi", 2)
    assert options.connection_count == 1  # sequential
    assert options.settings()["json"] == "o.json"


def test_rounds_default_to_three_when_comparing() -> None:
    assert BenchOptions(target="a:app").round_count == 1
    assert BenchOptions(compare=("a:app", "b:app")).round_count == 3


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({}, "give one TARGET"),
        ({"target": "a:app", "compare": ("b:app",)}, "give one TARGET"),
        ({"target": "a:app", "workers": 0}, "--workers must be at least 1"),
        ({"target": "a:app", "rounds": 0}, "--rounds must be at least 1"),
        ({"target": "a:app", "duration": 0}, "must be positive"),
    ],
)
def test_contradictions_are_refused(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        BenchOptions(**keywords)  # type: ignore[arg-type]  # the keywords vary by case


def test_percent() -> None:
    assert percent("5%") == 5.0
    assert percent(" 12.5 ") == 12.5
    with pytest.raises(argparse.ArgumentTypeError, match="not a percentage"):
        percent("five")
    with pytest.raises(argparse.ArgumentTypeError, match="must not be negative"):
        percent("-1%")


def test_help_documents_the_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    text = capsys.readouterr().out
    for part in ("MODULE:APP[@SERVER[/INTERFACE]]", "LABEL=TARGET", "{A..B}", "[[request]]"):
        assert part in text
    assert "(default: 5%)" in text


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(parse("m:app", "--compare", "b:app")) == 2
    assert run(parse("nonsense")) == 2
    assert run(parse("m:app", "--request", "GET nowhere")) == 2
    assert run(parse("m:app", "--path", "/a", "--request", "/b")) == 2
    assert run(parse("m:app", "--pid", "1")) == 2
    assert run(parse("m:app", "--baseline", "/nonexistent/base.json")) == 2
    errors = capsys.readouterr().err
    assert "hasten bench: error: give one TARGET" in errors
    assert "--pid is for a URL target" in errors
    assert "cannot read baseline" in errors
