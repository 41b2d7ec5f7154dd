"""BaseHTTPMiddleware: Starlette's class for a middleware whose ``dispatch(request,
call_next)`` wraps every request; hasten runs it as ``@app.middleware("http")`` runs a
function (FastAPI's ``@app.middleware("http")`` is this class in Starlette)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, TypeAlias

from hasten._flow.contracts import CallNext
from hasten._flow.contracts import Middleware as DispatchFunction
from hasten._http.background import BackgroundTask
from hasten._running.event_loop import on_asyncio
from hasten._serve.chain import served_through

__all__ = ["BaseHTTPMiddleware", "DispatchFunction", "RequestResponseEndpoint"]

# Starlette's names for ``call_next`` and for ``dispatch``.
RequestResponseEndpoint: TypeAlias = CallNext


class BaseHTTPMiddleware:
    """Subclass it and write ``async def dispatch(self, request, call_next) -> Response``, or
    give ``dispatch=``: ``app.add_middleware(Timing, header="X-Time")`` builds
    ``Timing(app, header="X-Time")`` once and runs its ``dispatch`` for every request, in
    the order of the other middleware (``app`` is the hasten App it is added to)."""

    # The app that serves ``app`` through ``dispatch`` when called over ASGI, made then.
    _served: Any = None

    def __init__(self, app: Any, dispatch: DispatchFunction | None = None) -> None:
        self.app = app
        self._dispatch = self.dispatch if dispatch is None else dispatch
        self.dispatch_func: DispatchFunction = _tasks_in_context(self._dispatch)

    async def dispatch(self, request: Any, call_next: RequestResponseEndpoint) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no dispatch() of its own")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Starlette's use of the class as an ASGI app around ``app``
        (``BaseHTTPMiddleware(app, dispatch=...)``): ``app`` served through ``dispatch``, by
        an app of one mount at ``/`` made at the first call."""
        if self._served is None:
            entry = (BaseHTTPMiddleware, (), {"dispatch": self._dispatch})
            self._served = served_through(self.app, entry)
        await self._served(scope, receive, send)


def _tasks_in_context(dispatch: DispatchFunction) -> DispatchFunction:
    """``dispatch``, the background tasks of the responses its ``call_next`` returns run in
    the context ``call_next`` returned in, as under Starlette, whose ``call_next`` runs the
    app and its tasks in a task of their own: what the middleware set around ``call_next``
    (starlette-context's request context, a ContextVar) the tasks see."""

    async def dispatch_then_tasks(request: Any, call_next: CallNext) -> Any:
        async def call_next_here(request: Any) -> Any:
            response = await call_next(request)
            if response.background is not None:
                response.background = _InContext(response.background, contextvars.copy_context())
            return response

        return await dispatch(request, call_next_here)

    return dispatch_then_tasks


class _InContext(BackgroundTask):
    """Background ``tasks`` run in ``context``."""

    __slots__ = ("context", "inner")

    def __init__(self, tasks: BackgroundTask, context: contextvars.Context) -> None:
        super().__init__(tasks)
        self.inner = tasks
        self.context = context

    async def __call__(self) -> None:
        if on_asyncio():
            await asyncio.create_task(self.inner(), context=self.context)
        else:  # trio runs no task in a given context: the tasks run in the request's
            await self.inner()
