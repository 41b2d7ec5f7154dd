"""``starlette.convertors``, served by hasten: path parameters' convertors, and a way to add
one that hasten's router then matches with (``register_url_convertor``)."""

from __future__ import annotations

import math
import uuid
from typing import Any, ClassVar, Generic, TypeVar

from hasten._http.paths import add_converter

__all__ = [
    "CONVERTOR_TYPES",
    "Convertor",
    "FloatConvertor",
    "IntegerConvertor",
    "PathConvertor",
    "StringConvertor",
    "UUIDConvertor",
    "register_url_convertor",
]

T = TypeVar("T")


class Convertor(Generic[T]):
    """A path parameter's type: the ``regex`` a segment matches, and both ways between it and
    the value."""

    regex: ClassVar[str] = ""

    def convert(self, value: str) -> T:
        raise NotImplementedError

    def to_string(self, value: T) -> str:
        raise NotImplementedError


class StringConvertor(Convertor[str]):
    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        value = str(value)
        if "/" in value or not value:
            raise ValueError(f"{value!r} cannot be a path segment")
        return value


class PathConvertor(Convertor[str]):
    regex = ".*"

    def convert(self, value: str) -> str:
        return str(value)

    def to_string(self, value: str) -> str:
        return str(value)


class IntegerConvertor(Convertor[int]):
    regex = "[0-9]+"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        value = int(value)
        if value < 0:
            raise ValueError("Negative integers are not supported")
        return str(value)


class FloatConvertor(Convertor[float]):
    regex = r"[0-9]+(\.[0-9]+)?"

    def convert(self, value: str) -> float:
        return float(value)

    def to_string(self, value: float) -> str:
        value = float(value)
        if value < 0 or math.isnan(value) or math.isinf(value):
            raise ValueError(f"{value!r} cannot be a path segment")
        return (f"{value:0.20f}").rstrip("0").rstrip(".")


class UUIDConvertor(Convertor[uuid.UUID]):
    regex = "[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"

    def convert(self, value: str) -> uuid.UUID:
        return uuid.UUID(value)

    def to_string(self, value: uuid.UUID) -> str:
        return str(value)


CONVERTOR_TYPES: dict[str, Convertor[Any]] = {
    "str": StringConvertor(),
    "path": PathConvertor(),
    "int": IntegerConvertor(),
    "float": FloatConvertor(),
    "uuid": UUIDConvertor(),
}


def register_url_convertor(key: str, convertor: Convertor[Any]) -> None:
    """Routes added from now on may say ``{param:key}``."""
    CONVERTOR_TYPES[key] = convertor
    add_converter(key, convertor.regex, convertor.convert, convertor.to_string)
