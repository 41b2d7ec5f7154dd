"""Renderers: how a handler's result becomes a Response, chosen once from its annotation."""

from __future__ import annotations

import types
import typing
from typing import Any

import msgspec

from .models import ResponseModel, encode_hook
from .responses import Response, build_response
from .wire import allows_body

__all__ = ["ModelRenderer", "Renderer", "renderer_for"]

# enc_hook is called only for what msgspec cannot encode itself (a pydantic model).
_json_encode = msgspec.json.Encoder(enc_hook=encode_hook).encode
_JSON = "application/json"


class Renderer:
    """Renders whatever the handler returned by its type: a Response as it is, str as text,
    bytes as octet-stream, anything else as JSON."""

    __slots__ = ("status",)

    def __init__(self, status: int) -> None:
        self.status = status

    def render(self, result: Any) -> Response:
        if isinstance(result, Response):
            return result
        if isinstance(result, str):
            return build_response(result.encode(), self.status, "text/plain")
        if isinstance(result, bytes):
            return build_response(result, self.status, "application/octet-stream")
        return build_response(_json_encode(result), self.status, _JSON)


class JSONRenderer(Renderer):
    """A handler annotated with a JSON type: its result is encoded by msgspec."""

    __slots__ = ()

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
    if returns is Any or typing.get_origin(returns) in (typing.Union, types.UnionType):
        return Renderer(status)
    if isinstance(returns, type) and issubclass(returns, Response):
        # Annotated as a Response but returning something else: render it by its type.
        return Renderer(status)
    return JSONRenderer(status)
