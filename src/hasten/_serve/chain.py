"""The middleware chain, linked once at startup: function middleware as plain calls, and the
header middleware (CORS) whose two steps the serve step runs itself, without a Response object
where none is needed."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from types import FunctionType, MethodType
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn, TypeVar, cast

from hasten._params.descriptions import describe_handler
from hasten._serve.routes import Mount

if TYPE_CHECKING:
    from hasten._flow.contracts import CallNext, Handler
    from hasten._flow.contracts import Middleware as MiddlewareFunction
    from hasten._http.requests import Request
    from hasten._http.responses import Response
    from hasten._http.wire import HeaderList

__all__ = [
    "EVERY_METHOD",
    "ChainMiddleware",
    "HeaderMiddleware",
    "HeaderSteps",
    "build_chain",
    "finish_response",
    "hastens_call",
    "header_steps",
    "keeps_its_call",
    "not_a_response",
    "served_through",
]


class ChainMiddleware:
    """A middleware class of hasten's chain (``async (request, call_next) -> Response``),
    added with ``app.add_middleware(Cls, **options)``. Called as Starlette's middleware is
    called to wrap an ASGI app, ``Cls(app, **options)``, it gives that app served through
    it instead: an app of one mount at ``/``, with this middleware (the wrapped app started
    and stopped with it)."""

    __slots__ = ()

    def __new__(cls, *args: Any, **options: Any) -> Any:
        if "app" in options:
            return served_through(options.pop("app"), (cls, args, options))
        if args and _is_asgi_app(args[0]):
            return served_through(args[0], (cls, args[1:], options))
        return super().__new__(cls)


def _is_asgi_app(candidate: Any) -> bool:
    """Whether ``candidate`` is an ASGI app (``async (scope, receive, send)``), not an
    option a middleware takes first, such as a callback."""
    if not callable(candidate):
        return False
    plain = inspect.isfunction(candidate) or inspect.ismethod(candidate)
    call = candidate if plain else candidate.__call__
    if not inspect.iscoroutinefunction(call):
        return False
    try:
        inspect.signature(call).bind(None, None, None)  # (scope, receive, send)
    except (TypeError, ValueError):
        return False
    return True


def served_through(app: Any, middleware: tuple[type, tuple[Any, ...], dict[str, Any]]) -> Any:
    """``app`` (any ASGI app) served through one middleware entry (its class, arguments and
    keywords): an app of one mount at ``/`` with that middleware."""
    assert Mount.app_of_routes is not None, "hasten.app sets it when it is imported"
    return Mount.app_of_routes([Mount("/", app=app)], [middleware], None)


class HeaderMiddleware(ChainMiddleware):
    """A middleware that may answer a request itself before the app does (``answer``) and
    otherwise only changes the headers of the app's response (``finish``), as CORS does.

    ``__call__`` is its meaning as any middleware. When every middleware of an app is one of
    these (and none overrides ``__call__``), the serve step calls the two steps itself and
    keeps its fast path: a handler's plain data goes out without a Response object, whose
    building costs more than the middleware's work (see hasten._serve.steps).
    """

    # The methods ``answer`` may answer (None: any): it is not asked about the others.
    answers_methods: frozenset[str] | None = None

    def answer(self, request: Request) -> Response | None:
        """A response of the middleware's own for ``request`` (the app is not called), or
        None to let the app answer."""
        return None

    def finish(self, request: Request, headers: HeaderList) -> None:
        """Change the app's response headers in place: (name, value) pairs, names lower-case,
        as they go on the wire; each value set must be one a header can carry (no CR, LF or
        NUL: check it when the middleware is made, or where it comes from)."""

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        methods = self.answers_methods
        if methods is None or request.method in methods:
            early = self.answer(request)
            if early is not None:
                return early
        response = await call_next(request)
        finish_response((self.finish,), request, response)
        return response


Finish = Callable[["Request", "HeaderList"], None]


class _EveryMethod(frozenset[str]):
    """The methods of a middleware that may answer any request."""

    def __contains__(self, method: object) -> bool:
        return True


EVERY_METHOD = _EveryMethod()


class HeaderSteps(NamedTuple):
    """Header middlewares' steps, as the serve step runs them."""

    answering: tuple[HeaderMiddleware, ...]  # all, outermost first; none if none answers
    answer_methods: frozenset[str]  # the methods any of them may answer
    finishing: tuple[Finish, ...]  # innermost first


def header_steps(middlewares: Sequence[object]) -> HeaderSteps | None:
    """When every middleware is a HeaderMiddleware that keeps its ``__call__``, their steps;
    otherwise None."""
    if not middlewares or not all(
        isinstance(middleware, HeaderMiddleware)
        and hastens_call(type(middleware)) is HeaderMiddleware.__call__
        for middleware in middlewares
    ):
        return None
    ours = cast("Sequence[HeaderMiddleware]", middlewares)
    answering = [m for m in ours if type(m).answer is not HeaderMiddleware.answer]
    methods: frozenset[str] = frozenset()
    for middleware in answering:
        if middleware.answers_methods is None:
            methods = EVERY_METHOD
            break
        methods |= middleware.answers_methods
    return HeaderSteps(
        tuple(ours) if answering else (),
        methods,
        tuple(middleware.finish for middleware in reversed(ours)),
    )


def finish_response(finishing: Sequence[Finish], request: Request, response: Response) -> None:
    """Each finishing step, in order, on ``response``'s own headers."""
    headers = response.headers  # the response's own list from here on
    for finish in finishing:
        finish(request, headers._items)
    headers._lookup = None  # its index, if it had one, is stale


def build_chain(middlewares: Sequence[MiddlewareFunction], innermost: Handler) -> Handler:
    """Wrap ``innermost`` so that the first middleware registered runs first: each is handed
    the rest of the chain as its ``call_next``.

    perf: each link is a plain function that hands back the middleware's own coroutine, so
    a layer costs the middleware's call and nothing of ours beside it (a coroutine per link
    cost about 3,000 instructions, as much as the middleware's own). What the chain returns
    is checked once, by the serve step (see ``not_a_response``).
    """
    handler = innermost
    for middleware in reversed(middlewares):
        handler = _link(_callable(middleware), handler)
    return handler


def _link(middleware: MiddlewareFunction, call_next: Handler) -> Handler:
    def link(request: Request) -> Awaitable[Response]:
        return middleware(request, call_next)

    return link


def _callable(middleware: MiddlewareFunction) -> MiddlewareFunction:
    """A middleware as it is cheapest to call: a function itself, an instance (a built-in
    middleware) by its bound ``__call__`` (perf: an instance's call from Python goes through
    its type's slot, a bound method's does not)."""
    call = inspect.getattr_static(middleware, "__call__", None)
    if isinstance(call, FunctionType):
        call = hastens_call(type(middleware)) or call
        return cast("MiddlewareFunction", MethodType(call, middleware))
    return middleware


# hasten's middleware classes' ``__call__``, as written (see ``keeps_its_call``).
_WRITTEN_CALLS: dict[type, Any] = {}

T = TypeVar("T", bound=type)


def keeps_its_call(cls: T) -> T:
    """Note the ``__call__`` of one of hasten's middleware classes as written, for
    ``hastens_call`` to find where code has put another in its place."""
    _WRITTEN_CALLS[cls] = cls.__dict__["__call__"]
    return cls


def hastens_call(cls: type) -> Any:
    """The ``__call__`` hasten calls an instance of middleware class ``cls`` by: its own or
    a base's. One that code put in its place taking ASGI's ``(scope, receive, send)``
    (sentry-sdk wraps the class of every Starlette ``Middleware`` entry in a span so) is
    passed over for the class's as written, else the nearest base's: hasten's middleware is
    called with the request, not over ASGI (the wrapper's span is not made)."""
    for kind in cls.__mro__:
        call = kind.__dict__.get("__call__")
        if isinstance(call, FunctionType) and _takes_asgi(call):
            call = _WRITTEN_CALLS.get(kind)
        if call is not None:
            return call
    return None


def _takes_asgi(call: FunctionType) -> bool:
    names = call.__code__.co_varnames[: call.__code__.co_argcount]
    return names[-3:] == ("scope", "receive", "send")


def not_a_response(response: Any, middlewares: Sequence[MiddlewareFunction]) -> NoReturn:
    """The middleware chain returned ``response``, not a Response (a middleware that forgot
    to ``return`` gives None)."""
    names = ", ".join(describe_handler(middleware) for middleware in middlewares)
    which = names if len(middlewares) == 1 else f"chain {names}"
    raise TypeError(
        f"Middleware {which} returned {type(response).__name__} {response!r:.80}, not a "
        "Response: does each middleware end with `return await call_next(request)`?"
    )
