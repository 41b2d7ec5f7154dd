"""Request values validated as FastAPI validates them, and its 422 entries, byte for byte.

FastAPI validates each request value with pydantic, in pydantic's lax mode, and reports each
failure as ``{"type", "loc", "msg", "input"[, "ctx"]}``. hasten keeps both, and pays for
neither while values are valid:

- a value read from text (path, query, header, cookie, form field) first goes through a fast
  converter that accepts only what pydantic accepts, with the same result (``"42"`` for an
  ``int``), and is checked against its constraints by msgspec;
- anything the fast converter does not take goes to the error path: pydantic itself, when it
  is installed (every FastAPI app has it), which either accepts the value (``"yes"`` for a
  ``bool``) or says exactly what FastAPI would; without pydantic, msgspec decides, and its
  error is reported in FastAPI's shape with pydantic's type and message where they are known.

A parameter only pydantic can validate (a pydantic model or type, or pydantic's own keywords
and metadata) is validated by pydantic alone; a msgspec Struct or attrs class (which pydantic
does not know) by msgspec alone, strictly for a JSON body, as msgspec decodes JSON.
"""

from __future__ import annotations

import functools
import itertools
import re
import typing
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec

from hasten._params.descriptions import Parameter
from hasten._params.models import pydantic_installed

__all__ = [
    "Errors",
    "Invalid",
    "Loc",
    "TextValidator",
    "ValueValidator",
    "entry",
    "missing",
    "msgspec_errors",
    "pydantic_errors",
    "pydantic_validate_python",
]

Loc = tuple[str | int, ...]
Errors = list[dict[str, Any]]

_convert = msgspec.convert
_DECIMAL: Final = re.compile(r"-?[0-9]+(\.[0-9]+)?")
# What pydantic reads as a boolean, lower-cased (it ignores the case).
_BOOLEANS: Final = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
    "on": True,
    "off": False,
    "t": True,
    "f": False,
    "y": True,
    "n": False,
}


class Invalid(Exception):
    """A value failed: its 422 entries."""

    def __init__(self, errors: Errors) -> None:
        super().__init__(errors)
        self.errors = errors


def entry(
    kind: str, loc: Loc, msg: str, value: Any, ctx: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One entry of a 422's ``detail``, in FastAPI's shape and key order."""
    found: dict[str, Any] = {"type": kind, "loc": loc, "msg": msg, "input": value}
    if ctx:
        found["ctx"] = ctx
    return found


def missing(loc: Loc) -> dict[str, Any]:
    """A required value the request does not have."""
    return entry("missing", loc, "Field required", None)


# Fast converters: each takes a str and returns what pydantic would make of it, or raises
# ValueError where pydantic might do otherwise (the error path then decides). Each is one C
# call (perf: a Python converter costs about five times as much per value).
def text_as_is(text: str) -> str:
    return text


# JSON's integer grammar is a subset of what pydantic reads as an int, with the same value:
# no "+", no leading zero, no exponent; msgspec's errors are ValueErrors.
_text_to_int: Final = msgspec.json.Decoder(int).decode


def _text_to_float(text: str) -> float:
    # Not JSON's grammar: msgspec reads "-0" as the integer 0, pydantic as -0.0.
    if _DECIMAL.fullmatch(text):
        return float(text)
    raise ValueError(text)


class _Booleans(dict[str, bool]):
    """Every spelling of pydantic's boolean words in any case, to their value."""

    def __init__(self, words: dict[str, bool]) -> None:
        super().__init__(
            ("".join(letters), value)
            for word, value in words.items()
            for letters in itertools.product(*({char, char.upper()} for char in word))
        )

    def __missing__(self, text: str) -> bool:
        raise ValueError(text)


_text_to_bool: Final = _Booleans(_BOOLEANS).__getitem__


_FAST: Final[dict[Any, Callable[[str], Any]]] = {
    str: text_as_is,
    int: _text_to_int,
    float: _text_to_float,
    bool: _text_to_bool,
}


class TextValidator:
    """Turns one parameter's raw value (a str, or a list of str for a sequence) into its
    typed value, or raises Invalid with FastAPI's entries located at ``loc``."""

    __slots__ = ("_fast", "_slow", "check", "loc", "quick")

    def __init__(self, parameter: Parameter, loc: Loc) -> None:
        self.loc = loc
        self._slow = ValueValidator(parameter, loc, lax=True)
        self._fast = None if parameter.needs_pydantic else _fast_converter(parameter)
        if self._fast is None:  # every value validated so: its validator built now, once
            self._slow.prepare()
        self.check = self._checked if self._fast is not None else self._slow.validate
        # The fast converter of a single value without constraints (it raises only
        # ValueError): what a plan may call itself, leaving every failure to ``check``.
        self.quick = self._fast if self._fast in _FAST.values() else None

    def _checked(self, raw: Any) -> Any:
        assert self._fast is not None
        try:
            return self._fast(raw)
        except (ValueError, TypeError, msgspec.ValidationError):
            return self._slow.validate(raw)


def _fast_converter(parameter: Parameter) -> Callable[[Any], Any] | None:
    """A converter that accepts a subset of what pydantic accepts (see module doc)."""
    annotation = parameter.annotation
    item = sequence_item(annotation)
    if item is not None:
        element = _FAST.get(item)
        if element is None:
            return None
        if not parameter.constraints:
            return functools.partial(_each, element, _container(annotation))
        return functools.partial(
            _each_checked, element, _container(annotation), parameter.validated_type
        )
    base = _FAST.get(_without_none(annotation))
    if base is None:
        return None
    if not parameter.constraints:
        return base
    return functools.partial(_checked, base, parameter.validated_type)


def _checked(base: Callable[[str], Any], kind: Any, raw: str) -> Any:
    # The value typed first (pydantic's rules), then its constraints checked by msgspec.
    return _convert(base(raw), kind)


def _each(element: Callable[[str], Any], container: type, raw: list[str]) -> Any:
    return container(element(item) for item in raw)


def _each_checked(element: Callable[[str], Any], container: type, kind: Any, raw: list[str]) -> Any:
    return _convert(container(element(item) for item in raw), kind)


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, type(int | None)):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def sequence_item(annotation: Any) -> Any:
    """X for ``list[X]``, ``set[X]``, ``frozenset[X]`` or ``tuple[X, ...]`` (``| None`` too);
    str for a bare ``list``, ``set``, ``frozenset`` or ``tuple`` (its values stay text); Any for
    a tuple of fixed items (``tuple[int, str]``: validated whole); else None."""
    annotation = _without_none(annotation)
    container = _container(annotation)
    if container not in (list, set, frozenset, tuple):
        return None
    items = typing.get_args(annotation) or (str,)
    if container is tuple and items[-1:] != (Ellipsis,) and len(items) > 1:
        return Any
    return items[0]


def _container(annotation: Any) -> Any:
    annotation = _without_none(annotation)
    return typing.get_origin(annotation) or annotation


class ValueValidator:
    """Validates any value of one parameter as FastAPI does (see module doc): pydantic
    where it is installed and knows the type, msgspec otherwise (``lax``: from text, as
    pydantic's lax mode; else strictly, as JSON decodes). Built on first use: only the
    error path and the values only pydantic validates pay for it."""

    __slots__ = ("_lax", "_parameter", "_validate", "loc")

    def __init__(self, parameter: Parameter, loc: Loc, *, lax: bool) -> None:
        self._parameter = parameter
        self.loc = loc
        self._lax = lax
        self._validate: Callable[[Any], Any] | None = None

    def prepare(self) -> None:
        """Build the validator now (when the app starts), for a value every request of the
        route validates so: a type pydantic cannot validate is refused then."""
        if self._validate is None:
            self._validate = _validator(self._parameter, self.loc, self._lax)

    def validate(self, value: Any) -> Any:
        """The value, validated; raises Invalid with the entries."""
        if self._validate is None:
            self._validate = _validator(self._parameter, self.loc, self._lax)
        return self._validate(value)


def msgspec_validates(parameter: Parameter) -> bool:
    """Whether msgspec alone validates this parameter (no pydantic rule applies to it)."""
    if parameter.needs_pydantic:
        return False
    return not pydantic_installed() or _msgspec_only(parameter)


def _validator(parameter: Parameter, loc: Loc, lax: bool) -> Callable[[Any], Any]:
    if parameter.needs_pydantic:
        return _pydantic_validator(parameter, loc)
    if not msgspec_validates(parameter):
        try:
            return _pydantic_validator(parameter, loc)
        except Exception as exc:  # a type pydantic refuses (typing.TypedDict before 3.12)
            if type(exc).__module__.split(".")[0] != "pydantic":
                raise
    return functools.partial(_msgspec_validate, parameter.validated_type, loc, not lax)


def _msgspec_only(parameter: Parameter) -> bool:
    """A type pydantic does not read whole: a Struct, an attrs class or a msgspec.Meta
    constraint anywhere in it."""
    from hasten._params.models import uses_msgspec

    return uses_msgspec(parameter.annotation)


def pydantic_validate_python(parameter: Parameter) -> Callable[..., Any]:
    """pydantic-core's ``validate_python`` for the parameter's type: the method itself
    (perf: without TypeAdapter's frame around it). It raises pydantic's ValidationError."""
    from pydantic import TypeAdapter

    validate: Callable[..., Any] = TypeAdapter(pydantic_type(parameter)).validator.validate_python
    return validate


def _pydantic_validator(parameter: Parameter, loc: Loc) -> Callable[[Any], Any]:
    from pydantic import ValidationError

    validate_python = pydantic_validate_python(parameter)

    def validate(value: Any) -> Any:
        try:
            return validate_python(value, from_attributes=True)
        except ValidationError as exc:
            raise Invalid(pydantic_errors(exc, loc)) from None

    return validate


def pydantic_type(parameter: Parameter) -> Any:
    """The parameter's type as pydantic validates it: its metadata, and every constraint
    given (msgspec's Meta, the marker's keywords) as a ``pydantic.Field``."""
    from pydantic import Field

    options: dict[str, Any] = {}
    for meta in parameter.constraints:
        for name in ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length"):
            if getattr(meta, name) is not None:
                options[name] = getattr(meta, name)
        if meta.pattern is not None:
            options["pattern"] = meta.pattern
    if parameter.marker is not None:
        options.update(parameter.marker.field_options())
    extras = [extra for extra in parameter.metadata if not isinstance(extra, msgspec.Meta)]
    if options:
        extras.append(Field(**options))
    if not extras:
        return parameter.annotation
    return typing.Annotated[(parameter.annotation, *extras)]


def pydantic_errors(exc: Any, loc: Loc) -> Errors:
    """A pydantic ValidationError's entries, located under ``loc`` (FastAPI's shape)."""
    return [{**error, "loc": (*loc, *error["loc"])} for error in exc.errors(include_url=False)]


def _msgspec_validate(kind: Any, loc: Loc, strict: bool, value: Any) -> Any:
    try:
        return _convert(value, kind, strict=strict)
    except msgspec.ValidationError as exc:
        raise Invalid(msgspec_errors(exc, loc, value, kind)) from None


_PATH_PART: Final = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING_FIELD: Final = re.compile(r"Object missing required field `(.+)`")
_EXPECTED: Final = re.compile(r"Expected `([^`]+)`(?:, got `([^`]+)`)?")
_BOUND: Final = re.compile(r"Expected `(?:int|float)` (>=|>|<=|<) (\S+)")
_LENGTH: Final = re.compile(r"Expected `str` of length (>=|<=) (\d+)")
_PATTERN: Final = re.compile(r"Expected `str` matching regex '(.*)'")
_BOUNDS = {
    ">=": ("greater_than_equal", "greater than or equal to", "ge"),
    ">": ("greater_than", "greater than", "gt"),
    "<=": ("less_than_equal", "less than or equal to", "le"),
    "<": ("less_than", "less than", "lt"),
}
_TYPES = {
    "int": ("int_parsing", "Input should be a valid integer, unable to parse string as an integer"),
    "float": (
        "float_parsing",
        "Input should be a valid number, unable to parse string as a number",
    ),
    "bool": ("bool_parsing", "Input should be a valid boolean, unable to interpret input"),
    "str": ("string_type", "Input should be a valid string"),
    "array": ("list_type", "Input should be a valid list"),
    "object": (
        "model_attributes_type",
        "Input should be a valid dictionary or object to extract fields from",
    ),
    "uuid": ("uuid_parsing", "Input should be a valid UUID"),
}


def msgspec_errors(exc: msgspec.ValidationError, loc: Loc, value: Any, kind: Any) -> Errors:
    """msgspec's error as FastAPI's entry (pydantic's type and message where they are known:
    there is no pydantic to ask)."""
    message, _, where = str(exc).partition(" - at `")
    inner: list[str | int] = []
    for key, index in _PATH_PART.findall(where.rstrip("`")):
        inner.append(key if key else int(index))
    found = _value_at(value, inner)
    missing_field = _MISSING_FIELD.fullmatch(message)
    if missing_field:
        return [entry("missing", (*loc, *inner, missing_field.group(1)), "Field required", found)]
    bound = _BOUND.match(message)
    if bound:
        kind_name, words, key = _BOUNDS[bound.group(1)]
        limit = _number(bound.group(2))
        return [
            entry(
                kind_name, (*loc, *inner), f"Input should be {words} {limit}", found, {key: limit}
            )
        ]
    length = _LENGTH.match(message)
    if length:
        shortest = length.group(1) == ">="
        count = int(length.group(2))
        plural = "" if count == 1 else "s"
        if shortest:
            text = f"String should have at least {count} character{plural}"
            return [entry("string_too_short", (*loc, *inner), text, found, {"min_length": count})]
        text = f"String should have at most {count} character{plural}"
        return [entry("string_too_long", (*loc, *inner), text, found, {"max_length": count})]
    pattern = _PATTERN.match(message)
    if pattern:
        text = f"String should match pattern '{pattern.group(1)}'"
        return [
            entry(
                "string_pattern_mismatch",
                (*loc, *inner),
                text,
                found,
                {"pattern": pattern.group(1)},
            )
        ]
    expected = _EXPECTED.match(message)
    if expected and expected.group(1) in _TYPES:
        kind_name, text = _TYPES[expected.group(1)]
        return [entry(kind_name, (*loc, *inner), text, found)]
    return [entry("value_error", (*loc, *inner), message, found)]


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _value_at(value: Any, path: Sequence[str | int]) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value
