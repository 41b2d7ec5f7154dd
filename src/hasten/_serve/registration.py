"""Registration checks: what FastAPI refuses of a handler when its route is declared
(``app.get``, ``APIRoute(...)``), and where the handler is defined, said with the error."""

from __future__ import annotations

import contextlib
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from hasten._http.errors import FastAPIError, PydanticV1NotSupportedError
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._params.descriptions import defined_at, describe_handler
from hasten._params.endpoints import Endpoint
from hasten._params.models import describable, pydantic_v1_model

__all__ = ["check_connection_types", "check_response_model", "registering"]


def check_response_model(endpoint: Endpoint) -> None:
    """FastAPI's refusals at registration: a response model (or a ``responses=`` entry's
    ``model``) that holds a pydantic v1 model, a Response among other types, or that nothing
    can describe."""
    declared_models = [("response model", endpoint.response_model)]
    declared_models += [
        ("responses=", extra.get("model")) for extra in endpoint.options.responses.values()
    ]
    for where, declared in declared_models:
        v1_model = pydantic_v1_model(declared)
        if v1_model is not None:
            raise PydanticV1NotSupportedError(
                f"{endpoint.name}: its {where} holds a pydantic v1 model "
                f"({v1_model.__qualname__}); hasten sends pydantic v2 models only, as FastAPI "
                "does: declare it with `from pydantic import BaseModel`, not `from pydantic.v1 "
                "import BaseModel`"
            )
    model = endpoint.response_model
    if (
        endpoint.options.response_model is not None
        and endpoint.stream_item is None
        and not (isinstance(model, type) and issubclass(model, Response))
        and (_holds_a_response(model) or not describable(model))
    ):
        raise FastAPIError(_invalid_response_model(endpoint.name, model))
    for declared in endpoint.options.responses.values():
        if "model" in declared and not describable(declared["model"]):
            raise FastAPIError(_invalid_response_model(endpoint.name, declared["model"]))


def _invalid_response_model(where: str, model: Any) -> str:
    return (
        f"{where}: invalid args for response field! Hint: check that {model} is a valid "
        "Pydantic field type. If you are using a return type annotation that is not a valid "
        "Pydantic field (e.g. Union[Response, dict, None]) you can disable generating the "
        "response model from the type annotation with the path operation decorator parameter "
        "response_model=None. Read more: https://fastapi.tiangolo.com/tutorial/response-model/"
    )


def _holds_a_response(model: Any) -> bool:
    """Whether ``model`` is a union with a Response class in it (``Response | dict``): no
    response model, as FastAPI refuses it at registration. A Response class alone is the
    result as it is."""
    if typing.get_origin(model) not in (typing.Union, types.UnionType):
        return False
    return any(
        isinstance(member, type) and issubclass(member, Response)
        for member in typing.get_args(model)
    )


def check_connection_types(endpoint: Endpoint, *, websocket: bool) -> None:
    """An HTTP handler takes the Request, a WebSocket handler the WebSocket, and no body."""
    from hasten._http.websockets import WebSocket

    wanted, other = (WebSocket, Request) if websocket else (Request, WebSocket)
    for parameter in endpoint.parameters:
        annotation = parameter.annotation
        if parameter.source == "request" and _names(annotation, other):
            raise TypeError(
                f"{endpoint.name}: parameter {parameter.name!r} is a {other.__name__}, but this "
                f"is {'a WebSocket' if websocket else 'an HTTP'} route: take a {wanted.__name__}"
            )
        if websocket and parameter.source == "body":
            raise TypeError(
                f"{endpoint.name}: a WebSocket handler has no request body to read "
                f"{parameter.name!r} from; receive it with websocket.receive_json()"
            )


def _names(annotation: Any, kind: type) -> bool:
    members = typing.get_args(annotation) or (annotation,)
    return any(isinstance(member, type) and issubclass(member, kind) for member in members)


@contextlib.contextmanager
def registering(func: Callable[..., Any], route: str) -> Iterator[None]:
    """An error raised while ``func`` is registered says where ``func`` is defined: the
    traceback's last lines are hasten's, and a route registered in a loop or by a helper is
    not where the mistake is."""
    try:
        yield
    except Exception as exc:
        where = defined_at(func)
        if where is not None:
            exc.add_note(f"registering {route}: {describe_handler(func)} is defined at {where}")
        raise
