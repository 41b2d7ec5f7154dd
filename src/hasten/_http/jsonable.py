"""``jsonable_encoder``: any value as JSON-compatible builtins, as FastAPI's function makes them.

Models become dicts (pydantic's by its own dump, in JSON mode; Structs, dataclasses and attrs
classes by their fields), enums their values, dates and times ISO strings, timedeltas seconds,
Decimals ints or floats, bytes text, UUIDs and paths strings, sets and tuples lists. The 422
body and ``response_model``-less results that need it go through here.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import ipaddress
import json
import math
import pathlib
import re
import sys
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from types import GeneratorType
from typing import Any

import msgspec

from hasten._http.uploads import UploadFile

__all__ = ["jsonable_encoder", "untyped_json"]

IncEx = set[int] | set[str] | Mapping[int, Any] | Mapping[str, Any]


def _decimal(value: decimal.Decimal) -> int | float:
    # An integral Decimal (no exponent below zero) stays an int: it round-trips.
    exponent = value.as_tuple().exponent
    return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)


def _upload(file: UploadFile) -> dict[str, Any]:
    # What a client may see of a file it sent (a 422's input): FastAPI's keys, less the
    # server's own file object (its temporary file's settings).
    return {"filename": file.filename, "size": file.size, "headers": dict(file.headers)}


_BY_TYPE: dict[type, Callable[[Any], Any]] = {
    bytes: lambda value: value.decode(),
    # Each its own class's isoformat: a datetime subclass (pendulum's) is a date too.
    datetime.date: lambda value: value.isoformat(),
    datetime.datetime: lambda value: value.isoformat(),
    datetime.time: lambda value: value.isoformat(),
    datetime.timedelta: lambda value: value.total_seconds(),
    decimal.Decimal: _decimal,
    frozenset: list,
    set: list,
    uuid.UUID: str,
    re.Pattern: lambda value: value.pattern,
    ipaddress.IPv4Address: str,
    ipaddress.IPv4Interface: str,
    ipaddress.IPv4Network: str,
    ipaddress.IPv6Address: str,
    ipaddress.IPv6Interface: str,
    ipaddress.IPv6Network: str,
    UploadFile: _upload,
}


_PYDANTIC_MODULES = frozenset({"pydantic", "pydantic_core", "pydantic_extra_types"})


def jsonable_encoder(  # noqa: PLR0917 - FastAPI's signature, positional arguments included
    obj: Any,
    include: IncEx | None = None,
    exclude: IncEx | None = None,
    by_alias: bool = True,
    exclude_unset: bool = False,
    exclude_defaults: bool = False,
    exclude_none: bool = False,
    custom_encoder: dict[Any, Callable[[Any], Any]] | None = None,
    sqlalchemy_safe: bool = True,
) -> Any:
    """``obj`` as JSON-compatible builtins (FastAPI's ``jsonable_encoder``, same keywords)."""
    options = _Options(
        by_alias, exclude_unset, exclude_defaults, exclude_none, custom_encoder, sqlalchemy_safe
    )
    return options.encode(obj, include, exclude)


class _Options:
    """The keywords of one ``jsonable_encoder`` call, carried down its recursion."""

    __slots__ = (
        "by_alias",
        "custom_encoder",
        "exclude_defaults",
        "exclude_none",
        "exclude_unset",
        "sqlalchemy_safe",
    )

    def __init__(  # noqa: PLR0917 - the keywords, in jsonable_encoder's order
        self,
        by_alias: bool,
        exclude_unset: bool,
        exclude_defaults: bool,
        exclude_none: bool,
        custom_encoder: dict[Any, Callable[[Any], Any]] | None,
        sqlalchemy_safe: bool,
    ) -> None:
        self.by_alias = by_alias
        self.exclude_unset = exclude_unset
        self.exclude_defaults = exclude_defaults
        self.exclude_none = exclude_none
        self.custom_encoder = custom_encoder
        self.sqlalchemy_safe = sqlalchemy_safe

    def encode(self, obj: Any, include: IncEx | None = None, exclude: IncEx | None = None) -> Any:
        custom = self._custom(obj)
        if custom is not None:
            return custom(obj)
        dump = _pydantic_dump(obj)
        if dump is not None:
            data = dump(
                mode="json",
                include=include,
                exclude=exclude,
                by_alias=self.by_alias,
                exclude_unset=self.exclude_unset,
                exclude_none=self.exclude_none,
                exclude_defaults=self.exclude_defaults,
            )
            # Its own include and exclude are spent; the rest hold as they are.
            return _Options(
                True, False, self.exclude_defaults, self.exclude_none, None, self.sqlalchemy_safe
            ).encode(data)
        fields = _fields_of(obj)
        if fields is not None:
            return self.encode(fields, include, exclude)
        if isinstance(obj, enum.Enum):
            return obj.value
        if isinstance(obj, pathlib.PurePath):
            return str(obj)
        if isinstance(obj, str | int | float | type(None)):
            return obj
        if isinstance(obj, dict):
            return self._mapping(obj, include, exclude)
        if isinstance(obj, list | set | frozenset | GeneratorType | tuple | deque):
            return [self.encode(item, include, exclude) for item in obj]
        return self._other(obj, include, exclude)

    def _custom(self, obj: Any) -> Callable[[Any], Any] | None:
        if not self.custom_encoder:
            return None
        found = self.custom_encoder.get(type(obj))
        if found is not None:
            return found
        return next(
            (encode for kind, encode in self.custom_encoder.items() if isinstance(obj, kind)),
            None,
        )

    def _mapping(self, obj: dict[Any, Any], include: IncEx | None, exclude: IncEx | None) -> Any:
        allowed = set(obj)
        if include is not None:
            allowed &= set(include)
        if exclude is not None:
            allowed -= set(exclude)
        encoded = {}
        for key, value in obj.items():
            if self.sqlalchemy_safe and isinstance(key, str) and key.startswith("_sa"):
                continue
            if (value is None and self.exclude_none) or key not in allowed:
                continue
            encoded[self.encode(key)] = self.encode(value)
        return encoded

    def _other(self, obj: Any, include: IncEx | None, exclude: IncEx | None) -> Any:
        encode = _BY_TYPE.get(type(obj)) or next(
            (found for kind, found in _BY_TYPE.items() if isinstance(obj, kind)), None
        )
        if encode is not None:
            return encode(obj)
        module = type(obj).__module__
        if (
            module == "pydantic_core._pydantic_core"
            and type(obj).__name__ == "PydanticUndefinedType"
        ):
            return None  # a field's undefined default, as FastAPI writes it
        if any(kind.__module__.startswith("pydantic.v1") for kind in type(obj).__mro__):
            from hasten._http.errors import PydanticV1NotSupportedError

            raise PydanticV1NotSupportedError(
                "pydantic.v1 models are no longer supported: declare "
                f"{type(obj).__qualname__} with `from pydantic import BaseModel`"
            )
        if module.split(".")[0] in _PYDANTIC_MODULES:
            return str(obj)  # a URL, a secret, an email name, a color: their text
        try:
            data = dict(obj)
        except Exception as first:
            try:
                data = vars(obj)
            except Exception as second:
                raise ValueError([first, second]) from second
        return self.encode(data, include, exclude)


def _fields_of(obj: Any) -> dict[str, Any] | None:
    """A dataclass's or a Struct's fields, as a dict; None for anything else."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, msgspec.Struct):
        return msgspec.structs.asdict(obj)
    return None


def _pydantic_dump(obj: Any) -> Callable[..., Any] | None:
    """A pydantic model's ``model_dump`` (pydantic is never imported here)."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(obj, pydantic.BaseModel):
        return None
    dump: Callable[..., Any] = obj.model_dump
    return dump


def untyped_json(value: Any) -> str:
    """``value`` as JSON text the way FastAPI streams an item whose type is not declared:
    ``jsonable_encoder``'s builtins, a float that is not finite as ``null`` (NaN and the
    infinities are no JSON), written by ``json.dumps`` (its spacing, a ``None`` or float key
    as its text)."""
    return json.dumps(_finite(jsonable_encoder(value)))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value
