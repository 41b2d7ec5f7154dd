"""Command-line arguments derived from a dataclass: each field is one argument, defined once.

``hasten run`` (RunConfig) and ``hasten bench`` (BenchOptions) both declare their options this
way. A field without a default is a positional argument, as is one whose metadata says
``positional`` (then it may be left out); every other field is a ``--flag`` named after it.
Its type gives the conversion: a Literal gives the choices, a bool a switch, a tuple a flag that
repeats (or takes ``nargs`` values). The metadata holds the ``help`` and, where needed:

``metavar``   the value's name in the help
``parse``     a function from the text to the value, instead of the type
``nargs``     for a tuple: how many values one flag takes, instead of repeating the flag
``flag``      a short alias, such as ``-n``
``shown``     the default as the help shows it
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Callable, Collection
from dataclasses import MISSING, Field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["add_arguments", "from_arguments"]

Config = TypeVar("Config", bound="DataclassInstance")


def add_arguments(
    parser: argparse.ArgumentParser,
    config: type[DataclassInstance],
    only: Collection[str] | None = None,
) -> None:
    """Add one argument per field of ``config`` (or per field named in ``only``) to ``parser``."""
    hints = typing.get_type_hints(config)
    for item in fields(config):
        if only is None or item.name in only:
            names, keywords = _argument(item, hints[item.name])
            parser.add_argument(*names, **keywords)


def from_arguments(config: type[Config], args: argparse.Namespace) -> Config:
    """``config`` built from what a parser filled by ``add_arguments`` parsed."""
    hints = typing.get_type_hints(config)
    values = {}
    for item in fields(config):
        value = getattr(args, item.name)
        if typing.get_origin(_without_none(hints[item.name])) is tuple:
            # A repeating flag collects a list, and leaves None when it is not given.
            value = item.default if value is None else tuple(value)
        values[item.name] = value
    return config(**values)


def _argument(item: Field[Any], hint: Any) -> tuple[list[str], dict[str, Any]]:
    """argparse's names and keywords for one field."""
    metadata = item.metadata
    keywords: dict[str, Any] = {"help": metadata["help"].replace("%", "%%")}  # argparse formats it
    if "metavar" in metadata:
        keywords["metavar"] = metadata["metavar"]
    kind = _without_none(hint)
    if item.default is MISSING:
        return [item.name], keywords | {"type": _converter(metadata, kind)}
    if metadata.get("positional"):
        optional = {"nargs": "?", "default": item.default}
        return [item.name], keywords | optional | {"type": _converter(metadata, kind)}
    flags = [metadata["flag"]] if "flag" in metadata else []
    flags.append("--" + item.name.replace("_", "-"))
    if typing.get_origin(kind) is tuple:
        repeat = {"nargs": metadata["nargs"]} if "nargs" in metadata else {"action": "append"}
        return flags, keywords | repeat | {"default": None}
    if kind is bool:
        action = argparse.BooleanOptionalAction if item.default else "store_true"
        return flags, keywords | {"action": action, "default": item.default}
    if typing.get_origin(kind) is Literal:
        keywords["choices"] = typing.get_args(kind)
    keywords["type"] = _converter(metadata, kind)
    if item.default is not None:
        shown = metadata.get("shown", item.default)
        text = f"{shown:g}" if isinstance(shown, float) else str(shown)
        default = text.replace("%", "%%")
        keywords["help"] = f"{keywords['help'].removesuffix('.')} (default: {default})."
    return flags, keywords | {"default": item.default}


def _converter(metadata: typing.Mapping[str, Any], kind: Any) -> Callable[[str], Any]:
    parse: Callable[[str], Any] | None = metadata.get("parse")
    if parse is not None:
        return parse
    if typing.get_origin(kind) is Literal:
        return type(typing.get_args(kind)[0])
    converter: Callable[[str], Any] = kind
    return converter


def _without_none(hint: Any) -> Any:
    """``X`` for ``X | None``; any other hint as it is."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (kind,) = (arg for arg in typing.get_args(hint) if arg is not type(None))
        return kind
    return hint
