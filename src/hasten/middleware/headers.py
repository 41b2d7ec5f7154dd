"""What the built-in middleware share: the header steps, and ``HeaderMiddleware``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

from hasten.datastructures import MutableHeaders

if TYPE_CHECKING:
    from hasten.requests import Request
    from hasten.responses import Response
    from hasten.types import CallNext
    from hasten.wire import HeaderList

__all__ = [
    "EVERY_METHOD",
    "NO_HEADER_STEPS",
    "HeaderMiddleware",
    "HeaderSteps",
    "add_vary",
    "finish_response",
    "header_steps",
    "set_header",
    "vary",
]


class HeaderMiddleware:
    """A middleware that may answer a request itself before the app does (``answer``) and
    otherwise only changes the headers of the app's response (``finish``), as CORS does.

    ``__call__`` is its meaning as any middleware. When every middleware of an app is one of
    these (and none overrides ``__call__``), the serve step calls the two steps itself and
    keeps its fast path: a handler's plain data goes out without a Response object, whose
    building costs more than the middleware's work (see Runtime.serve).
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


NO_HEADER_STEPS = HeaderSteps((), frozenset(), ())


def header_steps(middlewares: Sequence[object]) -> HeaderSteps | None:
    """When every middleware is a HeaderMiddleware that keeps its ``__call__``, their steps;
    otherwise None."""
    if not middlewares or not all(
        isinstance(middleware, HeaderMiddleware)
        and type(middleware).__call__ is HeaderMiddleware.__call__
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


def set_header(headers: HeaderList, name: str, value: str) -> None:
    """Set ``name`` (lower-case) to ``value`` alone in a header list, in place."""
    # perf: the usual header is new: one pass, and a removal only for one that is not.
    for item in headers:
        if item[0] == name:
            headers[:] = [kept for kept in headers if kept[0] != name]
            break
    headers.append((name, value))


def vary(headers: HeaderList, name: str) -> None:
    """Add ``name`` to the ``Vary`` of a header list (once), in place."""
    for key, current in headers:
        if key == "vary":  # the first Vary found, as Headers.get finds it
            if name.lower() not in {item.strip().lower() for item in current.split(",")}:
                set_header(headers, "vary", f"{current}, {name}")
            return
    headers.append(("vary", name))


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add ``name`` to the response's ``Vary`` (once)."""
    vary(headers._items, name)
    headers._lookup = None
