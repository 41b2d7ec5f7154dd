"""Arguments derived from a dataclass: each kind of field, parsed back into the dataclass."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from hasten._cli.arguments import add_arguments, from_arguments


@dataclass(frozen=True, kw_only=True)
class Config:
    app: str = field(metadata={"help": "The app.", "metavar": "APP"})
    other: str | None = field(default=None, metadata={"help": "Another.", "positional": True})
    size: int = field(default=3, metadata={"help": "How many.", "flag": "-s"})
    ratio: float = field(default=0.5, metadata={"help": "A share, in %."})
    share: float = field(
        default=5.0, metadata={"help": "Allowed.", "parse": lambda text: float(text) / 2}
    )
    color: Literal["red", "blue"] | None = field(default=None, metadata={"help": "Color."})
    quiet: bool = field(default=False, metadata={"help": "Say less."})
    loud: bool = field(default=True, metadata={"help": "Say more."})
    tags: tuple[str, ...] = field(default=(), metadata={"help": "A tag, repeatable."})
    pair: tuple[str, ...] = field(default=(), metadata={"help": "Two.", "nargs": 2})
    file: Path | None = field(default=None, metadata={"help": "A file."})


def parse(*argv: str, only: tuple[str, ...] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="t")
    add_arguments(parser, Config, only)
    return parser.parse_args(argv)


def test_defaults_are_the_fields_defaults() -> None:
    assert from_arguments(Config, parse("a")) == Config(app="a")


def test_each_kind_of_field_is_converted() -> None:
    args = parse(
        *("a", "b", "-s", "4", "--ratio", "0.25", "--share", "8", "--color", "blue"),
        *("--quiet", "--no-loud", "--tags", "x", "--tags", "y", "--pair", "p", "q"),
        *("--file", "f.txt"),
    )
    assert from_arguments(Config, args) == Config(
        app="a",
        other="b",
        size=4,
        ratio=0.25,
        share=4.0,
        color="blue",
        quiet=True,
        loud=False,
        tags=("x", "y"),
        pair=("p", "q"),
        file=Path("f.txt"),
    )


def test_help_shows_each_default_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "APP The app." in text
    assert "--size SIZE How many (default: 3)." in text  # "-s, --size SIZE" from Python 3.13
    assert "A share, in % (default: 0.5)." in text
    assert "--color {red,blue} Color." in text  # no default: it is None


def test_only_the_named_fields() -> None:
    assert vars(parse("a", only=("app",))) == {"app": "a"}
    with pytest.raises(SystemExit):
        parse("a", "--size", "2", only=("app",))


def test_a_choice_outside_the_literal_is_refused() -> None:
    with pytest.raises(SystemExit):
        parse("a", "--color", "green")
