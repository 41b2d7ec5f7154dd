"""The contracts hasten's core speaks: ``async (Request) -> Response``, the Target a matched
request is handed to, and what the protocol adapters serve; and ASGI's, by Starlette's names
(``Scope``, ``Message``, ``Receive``, ``Send``, ``ASGIApp``), for ASGI middleware and mounts.

The public names; the code is in ``hasten._flow.contracts``, and ``Served``, what the
protocol adapters serve, in ``hasten._serve.protocols``."""

from hasten._flow.contracts import (
    ASGIApp,
    CallNext,
    Handler,
    Hook,
    Instrumentation,
    Invoke,
    Message,
    Middleware,
    Receive,
    Scope,
    Send,
    Target,
)
from hasten._serve.protocols import Served

__all__ = [
    "ASGIApp",
    "CallNext",
    "Handler",
    "Hook",
    "Instrumentation",
    "Invoke",
    "Message",
    "Middleware",
    "Receive",
    "Scope",
    "Send",
    "Served",
    "Target",
]
