"""BaseHTTPMiddleware: Starlette's class for a middleware whose ``dispatch(request,
call_next)`` wraps every request; hasten runs it as ``@app.middleware("http")`` runs a
function (FastAPI's ``@app.middleware("http")`` is this class in Starlette)."""

from __future__ import annotations

from typing import Any, TypeAlias

from hasten._http.contracts import CallNext
from hasten._http.contracts import Middleware as DispatchFunction

__all__ = ["BaseHTTPMiddleware", "DispatchFunction", "RequestResponseEndpoint"]

# Starlette's names for ``call_next`` and for ``dispatch``.
RequestResponseEndpoint: TypeAlias = CallNext


class BaseHTTPMiddleware:
    """Subclass it and write ``async def dispatch(self, request, call_next) -> Response``, or
    give ``dispatch=``: ``app.add_middleware(Timing, header="X-Time")`` builds
    ``Timing(app, header="X-Time")`` once and runs its ``dispatch`` for every request, in
    the order of the other middleware (``app`` is the hasten App it is added to)."""

    def __init__(self, app: Any, dispatch: DispatchFunction | None = None) -> None:
        self.app = app
        self.dispatch_func: DispatchFunction = self.dispatch if dispatch is None else dispatch

    async def dispatch(self, request: Any, call_next: RequestResponseEndpoint) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no dispatch() of its own")
