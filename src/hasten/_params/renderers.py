"""Renderers: how a handler's result becomes a Response, chosen once from its annotation."""

from __future__ import annotations

import types
import typing
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from hasten._http.json_out import encode_json, encode_untyped, encoder_for
from hasten._http.jsonable import jsonable_encoder
from hasten._http.responses import (
    HTMLResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
    build_response,
    content_type_headers,
    declared_media_type,
)
from hasten._http.sse import EventSourceResponse, ServerSentEvent
from hasten._http.wire import allows_body
from hasten._params.models import PydanticResponseModel, ResponseModel

__all__ = ["ClassRenderer", "ModelRenderer", "Renderer", "StreamRenderer", "renderer_for"]

_JSON = "application/json"
Encode = Callable[[Any], bytes]
# What every JSON renderer sends as ``encode(result)``: a Target's ``plain`` types.
_JSON_DATA = frozenset({dict, list, tuple, str, int, float, bool, type(None)})


class Renderer:
    """Renders whatever the handler returned: a Response as it is, anything else as JSON, as
    FastAPI sends it (a str as a JSON string, bytes as their text: ``encode``, by default
    ``encode_untyped``, which looks each result over)."""

    __slots__ = ("encode", "plain", "status")

    media_type = _JSON

    def __init__(self, status: int, encode: Encode = encode_untyped) -> None:
        self.status = status
        # The result types that ``render`` sends as ``encode(result)`` with ``status`` and
        # ``headers``, and nothing more: the serve step sends those without a Response. A
        # subclass names its own (none, unless it says).
        self.plain: frozenset[type] = frozenset()
        self.encode: Encode | None = None
        if type(self) is Renderer:
            self.encode = encode
            self.plain = _JSON_DATA | {bytes}

    @property
    def headers(self) -> list[tuple[str, str]]:
        """The headers ``plain`` results are sent with (shared: never mutated)."""
        return content_type_headers(self.media_type)

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        assert self.encode is not None
        return build_response(self.encode(result), self.status, _JSON)


class JSONRenderer(Renderer):
    """A handler annotated with a JSON type: its result is encoded by msgspec (bytes as their
    text, where the type may hold any: ``encoder_for``, with ``reads_bytes``)."""

    __slots__ = ()

    def __init__(self, status: int, returns: Any = None, reads_bytes: bool = False) -> None:
        super().__init__(status)
        self.encode = encoder_for(returns, reads_bytes)
        annotated = {returns} if _is_data_class(returns) else set()
        self.plain = frozenset(_JSON_DATA | annotated)


class ModelRenderer(JSONRenderer):
    """A route with a response model: only the model's fields are sent (validated too, if the
    route asks); a result of exactly the model's class, with no model inside, as it is. A
    pydantic model validates and dumps the result to JSON itself, in pydantic-core."""

    __slots__ = ("_dumps", "_exact", "_model")

    def __init__(self, status: int, model: ResponseModel, reads_bytes: bool = False) -> None:
        super().__init__(status, model.model, reads_bytes)
        self._model = model
        self._exact = model.exact
        self._dumps = isinstance(model, PydanticResponseModel)
        if isinstance(model, PydanticResponseModel):
            # Every result but a Response is dumped by the model: the serve step sends the
            # usual ones (data, or the model's own instances) without a Response object.
            self.encode = model.encoder
            models = {model.model} if isinstance(model.model, type) else set()
            self.plain = frozenset(_JSON_DATA | models)
            return
        # Only a result of exactly the model's class is sent as it is.
        exact = model.exact
        self.plain = (
            frozenset({exact}) if exact is not None and _is_data_class(exact) else frozenset()
        )

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        assert self.encode is not None
        if not self._dumps and type(result) is not self._exact:
            result = self._model.prepare(result)
        return build_response(self.encode(result), self.status, _JSON)


class TypedRenderer(JSONRenderer):
    """A handler annotated ``-> str`` or ``-> bytes``: a JSON string, as FastAPI sends it;
    anything else it returns is a bug."""

    __slots__ = ("_kind", "_where")

    def __init__(self, status: int, kind: type[str] | type[bytes], where: str) -> None:
        super().__init__(status, kind)
        self._kind = kind
        self._where = where
        self.plain = frozenset({kind})

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        if not isinstance(result, self._kind):
            raise TypeError(
                f"{self._where} is annotated -> {self._kind.__name__} but returned "
                f"{type(result).__name__} {result!r:.80}"
            )
        return super().render(result)


class EmptyRenderer(Renderer):
    """A status without a body (204, 304): the result's JSON is left out on the wire (as the
    status says), but sent should the handler set another status on its ``response``, as
    FastAPI does."""

    __slots__ = ()

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return build_response(encode_json(result), self.status, _JSON)


def renderer_for(
    returns: Any, status: int, where: str, reads_bytes: bool = False, *, declared: bool = True
) -> Renderer:
    """The renderer for a handler annotated ``-> returns`` that answers ``status`` (and reads
    bytes or files from the request: ``reads_bytes``; ``declared``: the handler has a return
    annotation, ``Any`` a type like any other, as in FastAPI)."""
    if not allows_body(status):
        return EmptyRenderer(status)
    if returns is str or returns is bytes:
        return TypedRenderer(status, returns, where)
    if typing.get_origin(returns) in (typing.Union, types.UnionType):
        # A union may hold a Response, sent as it is.
        return Renderer(status, encoder_for(returns, reads_bytes))
    if returns is Any and declared:
        return Renderer(status, encode_json)  # FastAPI's response model of Any: null for NaN
    if returns is Any or (isinstance(returns, type) and issubclass(returns, Response)):
        # No annotation, or a Response but returning something else: rendered by its type.
        return Renderer(status)
    return JSONRenderer(status, returns, reads_bytes)


def _is_data_class(returns: Any) -> bool:
    """A class whose instances ``encode`` sends as they are (a Struct, a dataclass):
    not a Response, nor a pydantic model (encoded through ``encode_hook``, as it is too)."""
    return isinstance(returns, type) and not issubclass(returns, Response)


Prepare = Callable[[Any], Any]
# The classes whose body is a str's UTF-8 bytes and whose headers are only their media type.
_TEXT_CLASSES = (PlainTextResponse, HTMLResponse)


class ClassRenderer(Renderer):
    """A route with ``response_class=`` (or a default one): the result, made JSON-compatible
    (by the response model, if any), is what the class is built from, as FastAPI does:
    ``HTMLResponse(result)``, ``RedirectResponse(url)``, ``FileResponse(path)``.

    The class's own default status (a redirect's 307) holds unless the route gives one.
    """

    __slots__ = ("_prepare", "_response_class", "_status")

    def __init__(
        self,
        status: int | None,
        response_class: type[Response],
        prepare: Prepare | None,
        *,
        str_as_is: bool = False,
    ) -> None:
        super().__init__(status or 200)
        self._status = status
        self._response_class = response_class
        self._prepare = prepare or jsonable_encoder
        if response_class in _TEXT_CLASSES and (prepare is None or str_as_is):
            # perf: a str for PlainTextResponse or HTMLResponse is sent as its UTF-8 bytes
            # without a Response, as the class would send it (what TechEmpower's plaintext
            # test measures). ``str_as_is``: ``prepare`` gives a str back unchanged (a
            # response model of ``str``, FastAPI's for ``-> str``, or of ``str | None``).
            self.plain = frozenset({str})
            self.encode = str.encode

    @property
    def headers(self) -> list[tuple[str, str]]:
        return content_type_headers(declared_media_type(self._response_class) or _JSON)

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        content = self._prepare(result)
        if self._status is None:
            response = self._response_class(content)
        else:
            response = self._response_class(content, status_code=self._status)
        if not allows_body(response.status):
            response.body = b""
        return response


class StreamRenderer(Renderer):
    """A generator handler (sync or async): what it yields is streamed as it comes.

    With a ``response_class`` (a StreamingResponse), the chunks go out as they are; by default
    each item is one line of JSON (JSON Lines, ``application/jsonl``), as FastAPI does.
    """

    __slots__ = ("_encode", "_response_class")

    def __init__(
        self, status: int, response_class: type[Response] | None, encode: Encode = encode_json
    ) -> None:
        super().__init__(status)
        self._response_class = response_class
        self._encode = encode  # one item as JSON

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        response_class = self._response_class
        if response_class is not None:
            if issubclass(response_class, EventSourceResponse):
                # Each item an event's JSON data, as FastAPI sends them; events as they are.
                events = _async_events if hasattr(result, "__aiter__") else _events
                result = events(result, self._encode)
            return response_class(content=result, status_code=self.status)
        lines = _async_lines if hasattr(result, "__aiter__") else _lines
        return StreamingResponse(
            lines(result, self._encode), self.status, media_type="application/jsonl"
        )


async def _async_lines(items: Any, encode: Callable[[Any], bytes]) -> AsyncIterator[bytes]:
    try:
        async for item in items:
            yield encode(item) + b"\n"
    finally:
        await items.aclose()  # closed with the stream: the handler's ``finally`` runs


async def _async_events(items: Any, encode: Callable[[Any], bytes]) -> AsyncIterator[Any]:
    try:
        async for item in items:
            yield _event(item, encode)
    finally:
        await items.aclose()


def _events(items: Any, encode: Callable[[Any], bytes]) -> Iterator[Any]:
    try:
        for item in items:
            yield _event(item, encode)
    finally:
        items.close()


def _event(item: Any, encode: Callable[[Any], bytes]) -> ServerSentEvent:
    if isinstance(item, ServerSentEvent):
        return item
    return ServerSentEvent(raw_data=encode(item).decode())


def _lines(items: Any, encode: Callable[[Any], bytes]) -> Iterator[bytes]:
    try:
        for item in items:
            yield encode(item) + b"\n"
    finally:
        items.close()
