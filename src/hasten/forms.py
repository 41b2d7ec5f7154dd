"""Forms: urlencoded and multipart bodies, parsed as they stream in, within the app's limits.

Multipart is parsed by ``multipart`` (defnull's streaming parser: sans-io, strict limits, and
about 3x faster than python-multipart on fields). Every limit is a setting and every refusal
names it: ``max_body_size`` for the whole body, ``max_form_parts``, ``max_form_field_size``
for a field that is not a file, ``max_file_size`` for a file; uploads stay in memory up to
``form_spool_size`` and move to a temporary file (unnamed on disk) past it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import msgspec
import msgspec.inspect as mi
import multipart

from .datastructures import Headers, parse_query
from .errors import HTTPError, validation_error
from .extractors import Errors, _converter, _message
from .models import is_pydantic_model, pydantic_adapter, pydantic_errors
from .params import MISSING, Parameter
from .uploads import UploadFile, spooled_file

if TYPE_CHECKING:
    from .context import FormLimits
    from .requests import Request

__all__ = ["FormData", "FormReader", "read_form"]

FORM_MEDIA_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
FormValue = str | UploadFile


class FormData(Mapping[str, FormValue]):
    """A parsed form: ``form["name"]`` is the first value, ``form.get_all("name")`` every one;
    a file is an UploadFile, any other field a str."""

    __slots__ = ("_first", "_pairs")

    def __init__(self, pairs: list[tuple[str, FormValue]]) -> None:
        self._pairs = pairs
        self._first: dict[str, FormValue] = {}
        for key, value in pairs:
            self._first.setdefault(key, value)

    def __getitem__(self, name: str) -> FormValue:
        return self._first[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._first)

    def __len__(self) -> int:
        return len(self._first)

    def get_all(self, name: str) -> list[FormValue]:
        return [value for key, value in self._pairs if key == name]

    def multi_items(self) -> list[tuple[str, FormValue]]:
        return list(self._pairs)

    @property
    def has_files(self) -> bool:
        return any(isinstance(value, UploadFile) for _, value in self._pairs)

    async def close(self) -> None:
        """Close every uploaded file."""
        for _, value in self._pairs:
            if isinstance(value, UploadFile):
                await value.close()

    def __repr__(self) -> str:
        return f"FormData({self._pairs!r})"


async def read_form(request: Request, limits: FormLimits) -> FormData:
    """The request's form, urlencoded or multipart; any other body is a 415."""
    header = request._header("content-type") or ""
    media_type, _, options = header.partition(";")
    media_type = media_type.strip().lower()
    if media_type == "application/x-www-form-urlencoded":
        return _urlencoded(await request.body(), limits)
    if media_type == "multipart/form-data":
        boundary = _boundary(options)
        return await _multipart(request, boundary, limits)
    raise HTTPError(
        415,
        "Expected a form body (Content-Type: multipart/form-data or "
        f"application/x-www-form-urlencoded), got {media_type or 'none'!r}",
    )


def _boundary(options: str) -> str:
    for option in options.split(";"):
        name, _, value = option.partition("=")
        if name.strip().lower() == "boundary":
            value = value.strip().strip('"')
            if value:
                return value
    raise HTTPError(400, "Malformed multipart body: the Content-Type has no boundary")


def _urlencoded(body: bytes, limits: FormLimits) -> FormData:
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise HTTPError(400, "Malformed form body: not UTF-8") from None
    pairs = parse_query(text)
    if len(pairs) > limits.max_parts:
        raise _too_many_parts(limits)
    limit = limits.max_field_size
    for name, value in pairs:
        if len(value) > limit:
            raise _field_too_large(name, limits)
    return FormData(list(pairs))


def _too_many_parts(limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"The form has more than {limits.max_parts} parts (max_form_parts)")


def _field_too_large(name: str, limits: FormLimits) -> HTTPError:
    return HTTPError(
        413,
        f"Form field {name!r} exceeds {limits.max_field_size} bytes (max_form_field_size)",
    )


def _file_too_large(name: str, limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"File {name!r} exceeds {limits.max_file_size} bytes (max_file_size)")


async def _multipart(request: Request, boundary: str, limits: FormLimits) -> FormData:
    parser = multipart.PushMultipartParser(boundary, max_segment_count=limits.max_parts)
    pairs: list[tuple[str, FormValue]] = []
    part = _Part(limits)
    try:
        await _parse(request, parser, part, pairs, limits)
    except BaseException:
        await FormData(pairs).close()
        part.discard()
        raise
    return FormData(pairs)


async def _parse(
    request: Request,
    parser: Any,
    part: _Part,
    pairs: list[tuple[str, FormValue]],
    limits: FormLimits,
) -> None:
    try:
        async for chunk in request.stream():
            for event in parser.parse(chunk):
                part.take(event, pairs)
        for event in parser.parse(b""):
            part.take(event, pairs)
    except multipart.ParserLimitReached as exc:
        if "count" in str(exc) and "header" not in str(exc):
            raise _too_many_parts(limits) from None
        raise HTTPError(413, f"Malformed multipart body: {exc}") from None
    except multipart.MultipartError as exc:
        raise HTTPError(400, f"Malformed multipart body: {exc}") from None


class _Part:
    """The part being received: a field's bytes (held to ``max_form_field_size``) or a
    file's (spooled, held to ``max_file_size``)."""

    __slots__ = ("_chunks", "_file", "_limits", "_received", "_segment")

    def __init__(self, limits: FormLimits) -> None:
        self._limits = limits
        self._segment: Any = None
        self._chunks: list[bytes] = []
        self._file: UploadFile | None = None
        self._received = 0

    def take(self, event: Any, pairs: list[tuple[str, FormValue]]) -> None:
        if isinstance(event, multipart.MultipartSegment):
            self._start(event)
        elif event is None:
            self._finish(pairs)
        else:
            self._received += len(event)
            if self._file is not None:
                if self._received > self._limits.max_file_size:
                    raise _file_too_large(self._segment.filename, self._limits)
                self._file.file.write(event)
            else:
                if self._received > self._limits.max_field_size:
                    raise _field_too_large(self._segment.name, self._limits)
                self._chunks.append(event)

    def _start(self, segment: Any) -> None:
        if not segment.name:
            raise HTTPError(400, "Malformed multipart body: a part has no name")
        self._segment = segment
        self._received = 0
        self._chunks = []
        declared = segment.header("Content-Length")
        limit = (
            self._limits.max_file_size
            if segment.filename is not None
            else self._limits.max_field_size
        )
        if declared is not None and declared.isdigit() and int(declared) > limit:
            if segment.filename is not None:
                raise _file_too_large(segment.filename, self._limits)
            raise _field_too_large(segment.name, self._limits)
        if segment.filename is not None:
            headers = Headers([(name.lower(), value) for name, value in segment.headerlist])
            self._file = UploadFile(
                spooled_file(self._limits.spool_size),
                size=0,
                filename=segment.filename,
                headers=headers,
            )
        else:
            self._file = None

    def _finish(self, pairs: list[tuple[str, FormValue]]) -> None:
        segment = self._segment
        if self._file is not None:
            self._file.size = self._received
            self._file.file.seek(0)
            pairs.append((segment.name, self._file))
            self._file = None
            return
        data = b"".join(self._chunks)
        try:
            text = data.decode(segment.charset or "utf-8")
        except (UnicodeDecodeError, LookupError):
            raise HTTPError(
                400, f"Malformed multipart body: field {segment.name!r} is not text"
            ) from None
        pairs.append((segment.name, text))

    def discard(self) -> None:
        if self._file is not None:
            self._file.file.close()
            self._file = None


class FormReader:
    """Every form and file parameter of a plan, read from one parsed form."""

    __slots__ = ("_readers",)

    def __init__(self, parameters: list[Parameter]) -> None:
        self._readers = [(parameter.name, _field_reader(parameter)) for parameter in parameters]

    async def read(self, request: Request, errors: Errors) -> dict[str, Any]:
        form = await request.form()
        values = {}
        for name, read in self._readers:
            values[name] = await read(form, errors)
        return values


def _field_reader(parameter: Parameter) -> Any:
    if parameter.source == "file":
        return functools.partial(_read_file, parameter, _many(parameter.annotation))
    if parameter.shape == "structured" or is_pydantic_model(parameter.annotation):
        return functools.partial(_read_model, parameter, _model_converter(parameter))
    convert = _converter(parameter)
    many = parameter.shape == "sequence"
    return functools.partial(_read_field, parameter, convert, many)


def _many(annotation: Any) -> bool:
    """``list[UploadFile]`` (or ``| None``): every file of that name."""
    if getattr(annotation, "__origin__", None) in (list, tuple, set, frozenset):
        return True
    return any(_many(arg) for arg in getattr(annotation, "__args__", ()) if arg is not type(None))


async def _read_field(
    parameter: Parameter, convert: Any, many: bool, form: FormData, errors: Errors
) -> Any:
    alias = parameter.alias
    raw: Any = form.get_all(alias) if many else form.get(alias)
    if many and raw and any(isinstance(item, UploadFile) for item in raw):
        raw = None
    if isinstance(raw, UploadFile):
        raw = None
    if raw is None or raw == "" or (many and not raw):  # an empty field is absent, as in FastAPI
        if parameter.default is MISSING:
            errors.append(validation_error(("body", alias), "Field required", "missing"))
        return parameter.default
    try:
        return convert(raw)
    except msgspec.ValidationError as exc:
        message, location, kind = _message(exc)
        errors.append(validation_error(("body", alias, *location), message, kind))
        return None


async def _read_file(parameter: Parameter, many: bool, form: FormData, errors: Errors) -> Any:
    alias = parameter.alias
    found = [item for item in form.get_all(alias) if isinstance(item, UploadFile)]
    if not found:
        if parameter.default is MISSING:
            errors.append(validation_error(("body", alias), "Field required", "missing"))
        return parameter.default
    wants_bytes = _wants_bytes(parameter.annotation)
    values: list[Any] = []
    for upload in found:
        values.append(await upload.read() if wants_bytes else upload)
    return values if many else values[0]


def _wants_bytes(annotation: Any) -> bool:
    if annotation is bytes:
        return True
    return any(_wants_bytes(arg) for arg in getattr(annotation, "__args__", ()))


def _model_converter(parameter: Parameter) -> Any:
    if is_pydantic_model(parameter.annotation):
        adapter = pydantic_adapter(parameter.annotation)
        return ("pydantic", adapter)
    return ("msgspec", parameter.validated_type)


async def _read_model(parameter: Parameter, converter: Any, form: FormData, errors: Errors) -> Any:
    """A form field model: every field of the form, as the model (lists where it has them)."""
    data: dict[str, Any] = {}
    for key in form:
        values = [value for value in form.get_all(key) if isinstance(value, str)]
        if values:
            data[key] = values if len(values) > 1 or _list_field(parameter, key) else values[0]
    kind, target = converter
    if kind == "pydantic":
        try:
            return target.validate_python(data)
        except Exception as exc:
            errors.extend(pydantic_errors(exc, ("body",)))
            return None
    try:
        return msgspec.convert(data, target, strict=False)
    except msgspec.ValidationError as exc:
        message, location, kind_ = _message(exc)
        errors.append(validation_error(("body", *location), message, kind_))
        return None


_SEQUENCE_TYPES = (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)


@functools.cache
def _list_fields(annotation: Any) -> frozenset[str]:
    """The fields of a form model that hold lists: a form repeats their name."""
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return frozenset()
    names = set()
    for field in getattr(info, "fields", ()):
        kind = field.type
        members = kind.types if isinstance(kind, mi.UnionType) else (kind,)
        if any(isinstance(member, _SEQUENCE_TYPES) for member in members):
            names.add(field.encode_name)
    return frozenset(names)


def _list_field(parameter: Parameter, key: str) -> bool:
    annotation = parameter.annotation
    if is_pydantic_model(annotation):
        field = annotation.model_fields.get(key)
        return field is not None and getattr(field.annotation, "__origin__", None) is list
    return key in _list_fields(annotation)
