"""Extractors: the readers of a request's values, compiled once from parameter descriptions.

Each reader takes its values from the path, the query, the headers, the cookies, the JSON
body or the form, converts and checks them as FastAPI does (``validation.py``), and puts them
in ``values`` under the handler's argument names; what fails goes to ``errors``, so that one
422 names every bad value, in FastAPI's order and shape.

The body is read and decoded once per request (``BodyDecoder`` for JSON, ``FormDecoder`` for
forms) before any body parameter is read from it, as FastAPI does.
"""

from __future__ import annotations

import email.message
import json
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import msgspec

from hasten._http.errors import HTTPError, RequestValidationError
from hasten._http.forms import FORM_MEDIA_TYPES, FormData
from hasten._http.json_in import MalformedJSON, decode_json
from hasten._http.uploads import UploadFile
from hasten._params.descriptions import Parameter
from hasten._params.grouped import FlatModel
from hasten._params.shapes import is_file_type, members
from hasten._params.validation import (
    Errors,
    Invalid,
    Loc,
    TextValidator,
    ValueValidator,
    entry,
    missing,
    msgspec_validates,
    pydantic_validate_python,
    text_as_is,
)

if TYPE_CHECKING:
    from hasten._http.requests import Request

__all__ = [
    "QUICK_SOURCES",
    "UNDEFINED",
    "BodyDecoder",
    "BodyField",
    "ChoiceReader",
    "FormDecoder",
    "FormField",
    "ModelReader",
    "Reader",
    "ScalarReader",
    "reader_for",
]

Values = dict[str, Any]
# Where a value can be looked up by its key in place of its reader (``ScalarReader.quick``).
QUICK_SOURCES = ("path", "query", "header")
# A body the request does not have (FastAPI's Undefined): not the same as JSON ``null``.
UNDEFINED: Final[Any] = type("Undefined", (), {"__repr__": lambda self: "UNDEFINED"})()


class Reader:
    """Reads one parameter's value from a request into ``values``; failures to ``errors``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def read(self, request: Request, values: Values, errors: Errors) -> None:
        raise NotImplementedError


def _missing_or_default(
    parameter: Parameter,
    loc: Loc,
    values: Values,
    errors: Errors,
    validate: Callable[[Any], Any] | None = None,
) -> None:
    """A value the request does not give: missing, or the default (``validate``d, where the
    parameter asks for ``validate_default``)."""
    if parameter.required:
        errors.append(missing(loc))
        return
    value = parameter.default_value()
    if validate is not None:
        try:
            value = validate(value)
        except Invalid as exc:
            errors.extend(exc.errors)
            return
    values[parameter.name] = value


def _default_check(parameter: Parameter, validator: ValueValidator) -> Any:
    """What validates ``parameter``'s default, where it asks for ``validate_default``."""
    return validator.validate if parameter.validate_default else None


class ScalarReader(Reader):
    """A path, query, header or cookie value (a list of them for a sequence)."""

    __slots__ = (
        "_check",
        "_default",
        "_fetch",
        "_parameter",
        "_text",
        "_validator",
        "loc",
        "source",
    )

    def __init__(self, parameter: Parameter, path_type: type | None = None) -> None:
        super().__init__(parameter.name)
        self._parameter = parameter
        self.source = source = parameter.source
        self.loc: Loc = (source, parameter.alias)
        self._fetch = _fetcher(source, parameter.alias, parameter.many)
        self._default = _default_check(parameter, ValueValidator(parameter, self.loc, lax=True))
        converted_already = (
            source == "path"
            and not parameter.constraints
            and not parameter.needs_pydantic
            and parameter.annotation in (str, path_type)
        )
        self._validator = None if converted_already else TextValidator(parameter, self.loc)
        # Whether the value comes as text: a typed template's ({id:float}) comes converted.
        self._text = source != "path" or path_type in (None, str)
        # None where the value is taken as it comes (text for a str, a typed path value).
        self._check = None
        if self._validator is not None and self._validator.quick is not text_as_is:
            self._check = self._validator.check

    def quick(self) -> tuple[str, str, Callable[[str], Any] | None] | None:
        """(name, key, converter) where a single path, query or header value is read by the
        plan itself, by its key (a header's lower-case name): a converter that raises
        ValueError on anything it does not take as pydantic would (None: taken as it is);
        ``read`` says what is wrong, or the default. None for any other value."""
        parameter = self._parameter
        source = parameter.source
        if source not in QUICK_SOURCES or parameter.many:
            return None
        if parameter.choices:
            return None
        key = parameter.alias.lower() if source == "header" else parameter.alias
        if self._validator is None:
            return self.name, key, None
        if not self._text:
            return None
        convert = self._validator.quick
        if convert is None:
            return None
        return self.name, key, None if convert is text_as_is else convert

    def read(self, request: Request, values: Values, errors: Errors) -> None:
        raw = self._fetch(request)
        if raw is None or raw == []:
            _missing_or_default(self._parameter, self.loc, values, errors, self._default)
            return
        check = self._check
        if check is None:
            values[self.name] = raw
            return
        try:
            values[self.name] = check(raw)
        except Invalid as exc:
            errors.extend(exc.errors)


class ChoiceReader(ScalarReader):
    """A query, header or cookie value that may come by any of several names (pydantic's
    ``AliasChoices``): read by the first the request has, and its errors named by it."""

    __slots__ = ("_fetches",)

    def __init__(self, parameter: Parameter) -> None:
        super().__init__(parameter)
        many = parameter.many
        self._fetches = [(name, _fetcher(self.source, name, many)) for name in parameter.choices]

    def read(self, request: Request, values: Values, errors: Errors) -> None:
        found = next(
            ((name, raw) for name, fetch in self._fetches if (raw := fetch(request)) not in _NONE),
            None,
        )
        if found is None:
            _missing_or_default(self._parameter, self.loc, values, errors, self._default)
            return
        name, raw = found
        check = self._check
        if check is None:
            values[self.name] = raw
            return
        try:
            values[self.name] = check(raw)
        except Invalid as exc:
            for error in exc.errors:  # located by the name read, where the first is
                error["loc"] = (self.source, name, *error["loc"][2:])
            errors.extend(exc.errors)


# What a lookup gives for a name the request does not have.
_NONE: Final[tuple[Any, ...]] = (None, [])


def _as_is(value: Any) -> Any:
    return value


def _fetcher(source: str, alias: str, many: bool) -> Callable[[Request], Any]:
    if source == "path":
        return lambda request: request.path_params.get(alias)
    if source == "query":
        if many:
            return lambda request: request.query.get_all(alias)
        return lambda request: request.query.get(alias)
    if source == "header":
        if many:
            return lambda request: request.headers.get_all(alias)
        # perf: the adapter's lookup of one name (Granian's, in Rust) rather than every
        # header indexed into ``request.headers``, the first value as ``headers.get``; called
        # without a frame of ours.
        return operator.methodcaller("_app_header", alias.lower())
    return lambda request: request.cookies.get(alias)


class ModelReader(Reader):
    """A parameter model: the query, headers, cookies or form as one model's fields
    (``Annotated[Filters, Query()]``), extra names given to the model to judge."""

    __slots__ = ("_model", "_parameter", "_validator", "source")

    def __init__(self, parameter: Parameter) -> None:
        super().__init__(parameter.name)
        self._parameter = parameter
        self.source = "body" if parameter.source == "form" else parameter.source
        self._model = FlatModel(parameter)
        self._validator = ValueValidator(self._model.parameter, (self.source,), lax=True)

    def read(self, request: Request, values: Values, errors: Errors) -> None:
        self.read_from(_source_of(request, self.source), values, errors)

    def read_from(self, found: Any, values: Values, errors: Errors) -> None:
        data, renamed = self._model.gather(found)
        if data is None:
            default = _default_check(self._parameter, self._validator)
            _missing_or_default(self._parameter, (self.source,), values, errors, default)
            return
        try:
            values[self.name] = self._validator.validate(data)
        except Invalid as exc:
            errors.extend(self._model.relocate(exc.errors, renamed))


def _source_of(request: Request, source: str) -> Any:
    if source == "query":
        return request._query_params()  # perf: the property's frame less
    if source == "header":
        return request.headers
    return request.cookies


_decode_any = msgspec.json.Decoder().decode


class BodyDecoder:
    """Reads and decodes a JSON body once per request, as FastAPI does before any body
    parameter is read: JSON where the content type says so (``application/json``,
    ``+json``), the bytes otherwise (the model then refuses them), UNDEFINED when empty.

    Malformed JSON is a 422 at once (``json_invalid``, located at the character).
    """

    __slots__ = ("_decode",)

    def __init__(self) -> None:
        self._decode = _decode_any

    async def decode(self, request: Request) -> Any:
        body = await request.body()
        if not body:
            return UNDEFINED
        content_type = request._header("content-type")
        # perf: the usual Content-Type is taken as it is, without parsing it.
        if content_type != "application/json" and not _is_json(
            content_type, request.context.strict_content_type
        ):
            return body
        try:
            return decode_json(self._decode, body, request.context)
        except msgspec.ValidationError as exc:  # valid JSON msgspec cannot hold: a huge int
            raise HTTPError(400, f"Malformed JSON body: {exc}") from None
        except MalformedJSON:
            # What Python's json module cannot parse either is FastAPI's 422 (json_invalid);
            # what only msgspec refuses (a lone surrogate escape) stays a 400 that says why.
            invalid = _json_invalid(body)
            if invalid is None:
                raise
            raise RequestValidationError([invalid], body=body) from None


def _is_json(content_type: str | None, strict: bool) -> bool:
    if not content_type:
        return not strict  # FastAPI's strict_content_type: no content type, no JSON
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _json_invalid(body: bytes) -> dict[str, Any] | None:
    """FastAPI's entry for malformed JSON: where, and what, as Python's json module says;
    None where Python's json module takes the body (then it is not malformed to FastAPI)."""
    try:
        json.loads(body)
    except json.JSONDecodeError as exc:
        return entry("json_invalid", ("body", exc.pos), "JSON decode error", {}, {"error": exc.msg})
    except ValueError:
        return None
    return None


class BodyField:
    """One body parameter, read from the decoded body: the whole of it, or (``embedded``)
    the member named after it (the first of its ``AliasChoices`` the body has, ``null``
    included, by which its errors are then located, as FastAPI reads it)."""

    __slots__ = ("_embedded", "_names", "_parameter", "_validator", "name")

    def __init__(self, parameter: Parameter, embedded: bool) -> None:
        self.name = parameter.name
        self._parameter = parameter
        self._embedded = embedded
        self._names = parameter.choices or (parameter.alias,)
        loc: Loc = ("body", parameter.alias) if embedded else ("body",)
        self._validator = ValueValidator(parameter, loc, lax=False)

    def typed_decoder(self) -> Callable[[bytes], Any] | None:
        """A JSON decoder straight into this parameter's type, where that is exactly what
        decoding and then validating the whole body would give: where msgspec validates it,
        one C call for the usual body; where pydantic does, the body decoded as
        ``BodyDecoder`` decodes it and validated at once (raising a ValueError: pydantic's
        ValidationError). None for a member of the body."""
        if self._embedded:
            return None
        if msgspec_validates(self._parameter):
            return msgspec.json.Decoder(self._parameter.validated_type).decode
        try:
            validate = pydantic_validate_python(self._parameter)
        except Exception as exc:  # a type pydantic refuses: msgspec validates it (see ``validate``)
            if type(exc).__module__.split(".")[0] != "pydantic":
                raise
            return None

        def decode_and_validate(body: bytes) -> Any:
            return validate(_decode_any(body), from_attributes=True)

        return decode_and_validate

    def read_from(self, body: Any, values: Values, errors: Errors) -> None:
        loc = self._validator.loc
        value = body
        name = self._parameter.alias
        if self._embedded and body is not UNDEFINED:
            if isinstance(body, bytes) or not hasattr(body, "get"):
                errors.append(missing(loc))  # members need an object
                return
            for name in self._names:
                value = body.get(name, UNDEFINED)
                if value is not UNDEFINED:
                    break
        if value is UNDEFINED:
            default = _default_check(self._parameter, self._validator)
            _missing_or_default(self._parameter, loc, values, errors, default)
            return
        try:
            values[self.name] = self._validator.validate(value)
        except Invalid as exc:
            if name != self._parameter.alias:  # located by the name read
                for error in exc.errors:
                    error["loc"] = ("body", name, *error["loc"][2:])
            errors.extend(exc.errors)


class FormDecoder:
    """Parses a form body once per request, within the app's form limits; any other body
    reads as an empty form (its required fields are then missing, as in FastAPI)."""

    __slots__ = ()

    async def decode(self, request: Request) -> FormData:
        if request.content_type not in FORM_MEDIA_TYPES:
            return FormData([])
        return await request.form()


class FormField:
    """One form or file parameter, read from the parsed form as FastAPI reads it: by the
    first of its names with a value (an empty field or file is none), the last value for one
    value, every value for a list (its empty text items kept), a file as its bytes if asked."""

    __slots__ = (
        "_bytes",
        "_check",
        "_default",
        "_file",
        "_many",
        "_names",
        "_parameter",
        "loc",
        "name",
    )

    def __init__(self, parameter: Parameter) -> None:
        self.name = parameter.name
        self._parameter = parameter
        self._names = parameter.choices or (parameter.alias,)
        self.loc: Loc = ("body", parameter.alias)
        self._many = parameter.many
        self._file = _holds_upload(parameter.annotation) or (
            parameter.source == "file" and is_file_type(parameter.annotation)
        )
        self._bytes = self._file and _holds_bytes(parameter.annotation)
        self._check = TextValidator(parameter, self.loc).check if not self._file else _as_is
        self._default = _default_check(parameter, ValueValidator(parameter, self.loc, lax=True))

    async def read_from(self, form: FormData, values: Values, errors: Errors) -> None:
        found = next(
            ((name, raw) for name in self._names if (raw := self._value(form, name)) is not None),
            None,
        )
        if found is None:
            _missing_or_default(self._parameter, self.loc, values, errors, self._default)
            return
        name, raw = found
        items = raw if self._many else [raw]
        if self._file:
            if not self._bytes and (wrong := self._not_files(name, items)):
                errors.extend(wrong)
                return
            files: list[Any] = items
            if self._bytes:  # text sent for bytes is its UTF-8 bytes, as pydantic takes it
                files = [
                    await _bytes_of(item) if isinstance(item, UploadFile) else item.encode()
                    for item in items
                ]
            values[self.name] = files if self._many else files[-1]
            return
        if any(isinstance(item, UploadFile) for item in items):
            errors.append(
                entry("string_type", ("body", name), "Input should be a valid string", raw)
            )
            return
        try:
            values[self.name] = self._check(raw)
        except Invalid as exc:
            if name != self.loc[1]:  # located by the name read, where the first is
                for error in exc.errors:
                    error["loc"] = ("body", name, *error["loc"][2:])
            errors.extend(exc.errors)

    def _not_files(self, name: str, items: list[Any]) -> Errors:
        """An entry for each item that is no file (each of a list's at its index; only the
        first with ``fail_fast``)."""
        wrong = [
            _expected_file(("body", name, index) if self._many else ("body", name), item)
            for index, item in enumerate(items)
            if not isinstance(item, UploadFile)
        ]
        marker = self._parameter.marker
        return wrong[:1] if marker is not None and marker.fail_fast else wrong

    def _value(self, form: FormData, name: str) -> Any:
        """The value by ``name``: every value but empty files for a list, else the last
        value; None for none (an empty list, an empty field or file)."""
        found = form.get_all(name)
        if self._many:
            items = [item for item in found if not _empty_file(item)]
            return items or None
        if not found or found[-1] == "" or _empty_file(found[-1]):
            return None
        return found[-1]


def _empty_file(item: Any) -> bool:
    # Browsers send a file without name nor content for nothing chosen.
    return isinstance(item, UploadFile) and item.filename == "" and item.size == 0


def _expected_file(loc: Loc, value: Any) -> dict[str, Any]:
    # FastAPI's ctx holds the ValueError its validator raised: {} once written as JSON.
    message = f"Value error, Expected UploadFile, received: {type(value)}"
    return entry("value_error", loc, message, value, {"error": {}})


async def _bytes_of(upload: UploadFile) -> bytes:
    # The file may be read by another parameter too: leave it where it was.
    position = upload.file.tell()
    try:
        return await upload.read()
    finally:
        await upload.seek(position)


def _holds_upload(annotation: Any) -> bool:
    return any(isinstance(m, type) and issubclass(m, UploadFile) for m in members(annotation))


def _holds_bytes(annotation: Any) -> bool:
    return any(member is bytes for member in members(annotation))


def reader_for(parameter: Parameter, path_type: type | None = None) -> Reader:
    """The reader of a path, query, header or cookie parameter (or parameter model)."""
    if parameter.models:
        return ModelReader(parameter)
    if parameter.choices:
        return ChoiceReader(parameter)
    return ScalarReader(parameter, path_type)
