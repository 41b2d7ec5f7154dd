"""Renderers: how a handler's result becomes a Response, chosen once from its annotation."""

from __future__ import annotations

import types
import typing
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import msgspec

from .encoders import jsonable_encoder
from .models import ResponseModel, encode_hook
from .responses import Response, StreamingResponse, build_response, content_type_headers
from .sse import EventSourceResponse, ServerSentEvent
from .wire import allows_body

__all__ = ["ClassRenderer", "ModelRenderer", "Renderer", "StreamRenderer", "renderer_for"]

# enc_hook is called only for what msgspec cannot encode itself (a pydantic model).
_json_encode = msgspec.json.Encoder(enc_hook=encode_hook).encode
_JSON = "application/json"
# What every JSON renderer sends as ``_json_encode(result)``: a Target's ``plain`` types.
_JSON_DATA = frozenset({dict, list, tuple, int, float, bool, type(None)})


class Renderer:
    """Renders whatever the handler returned by its type: a Response as it is, str as text
    (``text=True``: the annotation names ``str``), bytes as octet-stream, anything else (a str
    of an unannotated handler too, as FastAPI sends it) as JSON."""

    __slots__ = ("encode", "plain", "status", "text")

    media_type = _JSON

    def __init__(self, status: int, *, text: bool = True) -> None:
        self.status = status
        self.text = text
        # The result types that ``render`` sends as ``encode(result)`` with ``status`` and
        # ``headers``, and nothing more: the serve step sends those without a Response. A
        # subclass names its own (none, unless it says).
        self.plain: frozenset[type] = frozenset()
        self.encode: Callable[[Any], bytes] | None = None
        if type(self) is Renderer:
            self.encode = _json_encode
            self.plain = _JSON_DATA if text else _JSON_DATA | {str}

    @property
    def headers(self) -> list[tuple[str, str]]:
        """The headers ``plain`` results are sent with (shared: never mutated)."""
        return content_type_headers(self.media_type)

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        if isinstance(result, str) and self.text:
            return build_response(result.encode(), self.status, "text/plain")
        if isinstance(result, bytes):
            return build_response(result, self.status, "application/octet-stream")
        return build_response(_json_encode(result), self.status, _JSON)


class JSONRenderer(Renderer):
    """A handler annotated with a JSON type: its result is encoded by msgspec."""

    __slots__ = ()

    def __init__(self, status: int, returns: Any = None) -> None:
        super().__init__(status)
        self.encode = _json_encode
        annotated = {returns} if _is_data_class(returns) else set()
        self.plain = frozenset(_JSON_DATA | {str} | annotated)

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return build_response(_json_encode(result), self.status, _JSON)


class ModelRenderer(JSONRenderer):
    """A route with a response model: only the model's fields are sent (validated too, if the
    route asks); a result of exactly the model's class, with no model inside, as it is."""

    __slots__ = ("_exact", "_model")

    def __init__(self, status: int, model: ResponseModel) -> None:
        super().__init__(status)
        self._model = model
        self._exact = model.exact
        # Only a result of exactly the model's class is sent as it is.
        exact = model.exact
        self.plain = (
            frozenset({exact}) if exact is not None and _is_data_class(exact) else frozenset()
        )

    def _encode(self, result: Any) -> bytes:
        if type(result) is self._exact:
            return _json_encode(result)
        return _json_encode(self._model.prepare(result))

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return build_response(self._encode(result), self.status, _JSON)


class TypedRenderer(Renderer):
    """A handler annotated ``-> str`` or ``-> bytes``: anything else it returns is a bug."""

    __slots__ = ("_kind", "_media_type", "_where")

    def __init__(
        self, status: int, kind: type[str] | type[bytes], media_type: str, where: str
    ) -> None:
        super().__init__(status)
        self._kind = kind
        self._media_type = media_type
        self._where = where
        self.plain = frozenset({kind})
        self.encode = str.encode if kind is str else bytes

    @property
    def headers(self) -> list[tuple[str, str]]:
        return content_type_headers(self._media_type)

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        if not isinstance(result, self._kind):
            raise TypeError(
                f"{self._where} is annotated -> {self._kind.__name__} but returned "
                f"{type(result).__name__} {result!r:.80}"
            )
        body = result.encode() if isinstance(result, str) else result
        return build_response(body, self.status, self._media_type)


class EmptyRenderer(Renderer):
    """A status without a body (204, 304): only a Response returned as such is sent as it is."""

    __slots__ = ()

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return Response(b"", self.status)


def renderer_for(returns: Any, status: int, where: str) -> Renderer:
    """The renderer for a handler annotated ``-> returns`` that answers ``status``."""
    if not allows_body(status):
        return EmptyRenderer(status)
    if returns is str:
        return TypedRenderer(status, str, "text/plain", where)
    if returns is bytes:
        return TypedRenderer(status, bytes, "application/octet-stream", where)
    if returns is Any:  # no annotation: FastAPI's JSON, for a str too
        return Renderer(status, text=False)
    if typing.get_origin(returns) in (typing.Union, types.UnionType):
        return Renderer(status, text=str in typing.get_args(returns))
    if isinstance(returns, type) and issubclass(returns, Response):
        # Annotated as a Response but returning something else: render it by its type.
        return Renderer(status)
    return JSONRenderer(status, returns)


def _is_data_class(returns: Any) -> bool:
    """A class whose instances ``_json_encode`` sends as they are (a Struct, a dataclass):
    not a Response, nor a pydantic model (encoded through ``encode_hook``, as it is too)."""
    return isinstance(returns, type) and not issubclass(returns, Response)


Prepare = Callable[[Any], Any]


class ClassRenderer(Renderer):
    """A route with ``response_class=`` (or a default one): the result, made JSON-compatible
    (by the response model, if any), is what the class is built from, as FastAPI does:
    ``HTMLResponse(result)``, ``RedirectResponse(url)``, ``FileResponse(path)``.

    The class's own default status (a redirect's 307) holds unless the route gives one.
    """

    __slots__ = ("_prepare", "_response_class", "_status")

    def __init__(
        self, status: int | None, response_class: type[Response], prepare: Prepare | None
    ) -> None:
        super().__init__(status or 200)
        self._status = status
        self._response_class = response_class
        self._prepare = prepare or jsonable_encoder

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
        self, status: int, response_class: type[Response] | None, prepare: Prepare | None
    ) -> None:
        super().__init__(status)
        self._response_class = response_class
        if prepare is None:
            self._encode: Callable[[Any], bytes] = _json_encode
        else:
            self._encode = lambda item: _json_encode(prepare(item))

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
