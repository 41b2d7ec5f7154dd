"""The serve step, one per app shape, chosen when the app starts (as a route's solver is):

    Bare     no middleware: match → invoke → send, a plain result as bytes (no Response)
    Headed   header middleware only (CORS): Bare, with their answer before and headers after
    Chained  any other middleware: the chain, whose innermost link is ``dispatch``

With metrics, tracing, the access log or the live stats on, the adapters call the Observer's
``serve`` instead: the same step, its response through an Exchange that notes what is sent,
which the step ends with the request (``Observer.end``).

Each step is one coroutine over a ``__slots__`` object holding only what it reads; a field
added is a slot added. perf: a coroutine of ours costs about 1,500 instructions, as much as a
handler's, so each step awaits only what it must (the handler, the send, the cleanup) and
writes out what every step does alike (the in-flight gate, the cleanup after the response, a
cut at the end of a stop, the observer's end); what they share beyond that, and every rare
branch, is a plain call of ``Step``'s. ``Runtime`` builds the step and calls ``use`` with each
new matcher.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol

from hasten._http.background import run_tasks
from hasten._http.connection import guard_of, unhandled
from hasten._http.error_responses import error_response
from hasten._http.errors import HTTPError
from hasten._http.responses import SEND_WHOLE, Response
from hasten._observing.observe import Exchange
from hasten._running.threads import being_cancelled, shielded
from hasten._serve import stopping
from hasten._serve.chain import build_chain, finish_response, not_a_response

if TYPE_CHECKING:
    from hasten._flow.context import ServeContext
    from hasten._flow.contracts import Middleware, Target
    from hasten._flow.in_flight import InFlight
    from hasten._flow.transport import Outbound
    from hasten._http.requests import Request
    from hasten._http.wire import HeaderList
    from hasten._observing.observe import Observer
    from hasten._serve.chain import HeaderSteps
    from hasten._serve.matcher import Matcher

__all__ = ["Bare", "Chained", "Headed", "Step", "StepParts"]

# A path without parameters has no entry: its lookup goes on to the dynamic routes.
NO_TARGETS: dict[str, Target] = {}


class StepParts(Protocol):
    """What a step takes from the app that built it (the Runtime)."""

    @property
    def in_flight(self) -> InFlight: ...
    @property
    def context(self) -> ServeContext: ...
    @property
    def observer(self) -> Observer | None: ...
    async def error_response(self, request: Request, exc: Exception) -> Response: ...


class Step:
    """What every serve step reads, and what they do alike."""

    __slots__ = ("error_response", "gate", "matcher", "observer", "static_targets", "threads")

    def __init__(self, app: StepParts, matcher: Matcher) -> None:
        self.gate = app.in_flight
        self.error_response = app.error_response  # the app's exception handlers (Runtime's)
        self.threads = app.context.threads  # where a Response's background tasks run
        self.observer = app.observer
        self.use(matcher)

    def use(self, matcher: Matcher) -> None:
        """Match with ``matcher`` from the next request on (routes added, overrides changed)."""
        self.matcher = matcher
        self.static_targets = matcher.static_targets

    async def serve(self, request: Request, outbound: Outbound, started: float = 0.0) -> None:
        """Serve one request: the adapters' only call into the core. Never raises, unless
        sending itself fails (the server then drops the connection). ``started``: when the
        observer began timing it (observed apps only)."""
        raise NotImplementedError

    async def dispatch(self, request: Request) -> Response:
        """Route, run the handler, render: the innermost link of the middleware chain.
        Middleware sees a handler's error as the response it becomes on the wire."""
        try:
            # perf: Matcher.match's first step, a parameterless path, without its frame; its
            # second at once where the first finds nothing. tests/project/test_perf_copies.py holds
            # this and the Bare step's copy equal.
            target = self.static_targets.get(request.path, NO_TARGETS).get(request.method)
            if target is None:
                target, request.path_params = self.matcher.match_dynamic(
                    request.method, request.path
                )
            request._target = target
            # perf: a slot's function read as an attribute, then called: called as a method
            # it is looked up unspecialized (3.11), about 120 instructions more.
            call, invoke = target.call, target.invoke
            return rendered(request, target, await (invoke(request) if call is None else call()))
        except Exception as exc:
            return await self.error_response(request, exc)

    def respond(
        self, request: Request, response: Response, outbound: Outbound
    ) -> Awaitable[None] | None:
        """``response`` on its way to the client: what is left to await, if anything. A whole
        body goes out without the coroutine of Response.send (perf), anything else through
        ``send``."""
        request._status = response.status
        if type(response).send is SEND_WHOLE and response.background is None:
            return response.send_whole(outbound, request)
        return self.send(request, response, outbound)

    async def failed(self, request: Request, exc: Exception, outbound: Outbound) -> None:
        """The response for ``exc``, sent."""
        sent = self.respond(request, await self.error_response(request, exc), outbound)
        if sent is not None:
            await sent

    async def refuse(self, request: Request, outbound: Outbound, started: float) -> None:
        """Past ``max_in_flight``: the 503, named by the route the request would have had."""
        request._target = self.matcher.match(request.method, request.path)[0]
        refusal = error_response(self.gate.refuse())
        request._status = refusal.status
        try:
            await refusal.send(outbound, request)
        finally:
            if self.observer is not None:
                self.observer.end(request, outbound, started)

    async def send(self, request: Request, response: Response, outbound: Outbound) -> None:
        """Send a response that is not a whole body alone (a stream, a file, one with a
        background task), then run its task."""
        noted = outbound
        if self.observer is not None and type(outbound) is not Exchange:
            # A file or a mounted app decides its status as it sends: an Exchange notes it.
            noted = Exchange(outbound, request.method)
        try:
            await response.send(noted, request)
        except HTTPError as exc:
            # A response that reads the request as it is sent (a file, its range and
            # conditional headers) found it malformed, before any byte went out: the error
            # path answers. (Past the first byte, sending again fails too.)
            response = await self.error_response(request, exc)
            request._status = response.status
            await response.send(noted, request)
        if type(noted) is Exchange:
            request._status = noted.status
            noted.complete()  # the tracer's span ends before the task runs
        if response.background is not None:  # Response(background=...)
            failed = await run_tasks(response.background, self.threads)
            if failed is not None:
                unhandled(request, failed)


class Bare(Step):
    """An app without middleware: no Response is made for a result of the route's plain
    types (see Target), and a handler that reads nothing is called bare."""

    __slots__ = ()

    async def serve(self, request: Request, outbound: Outbound, started: float = 0.0) -> None:
        gate = self.gate
        if gate.count >= gate.limit:
            await self.refuse(request, outbound, started)
            return
        gate.count += 1
        try:
            try:
                try:
                    # perf: ``dispatch`` written out; tests/project/test_perf_copies.py holds
                    # them equal.
                    target = self.static_targets.get(request.path, NO_TARGETS).get(request.method)
                    if target is None:
                        target, request.path_params = self.matcher.match_dynamic(
                            request.method, request.path
                        )
                    request._target = target
                    call, invoke = target.call, target.invoke
                    result = await (invoke(request) if call is None else call())
                    if (
                        type(result) in target.plain
                        and request._sub_response is None
                        and request.method != "HEAD"
                    ):
                        encode = target.encode
                        body = encode(result)  # type: ignore[misc]
                        status = request._status = target.status
                        headers = target.headers
                        response = None
                    else:
                        response = rendered(request, target, result)
                except Exception as exc:
                    response = await self.error_response(request, exc)
                # Sent outside the handler's try: a client gone as its response is sent is
                # no error of the app's.
                sent = (
                    outbound.response_bytes(status, headers, body)
                    if response is None
                    else self.respond(request, response, outbound)
                )
                if sent is not None:
                    await sent
            finally:
                # What the request left for after its response (yield dependencies' exits,
                # background tasks, uploaded files), with its slot in the gate still held.
                # perf: written out in each step, as the cleanup's own coroutine is all it
                # awaits (another would cost about 1,500 instructions); the same in each.
                cleanup = request._cleanup
                if cleanup is not None:
                    request._cleanup = None
                    done = cleanup.after_response()
                    # Only a request left by an exception can be a cancelled one: the task is
                    # checked (1,600 instructions) for those alone. A guarded one's cleanup
                    # shields itself, under its guard.
                    cancelled = (
                        sys.exception() is not None and cleanup.guard is None and being_cancelled()
                    )
                    # What failed, for the ASGI server (Connection._unhandled).
                    unhandled(request, await (shielded(done) if cancelled else done))
        except asyncio.CancelledError as exc:
            await _answer_cut(request, outbound, exc)
        finally:
            gate.count -= 1
            if self.observer is not None:
                self.observer.end(request, outbound, started)


class Headed(Step):
    """An app whose middleware are header middleware alone (CORS): their two steps run here,
    ``answer`` before the app and ``finish`` on its headers after, and a plain result still
    goes out without a Response (see HeaderMiddleware)."""

    __slots__ = ("answer_methods", "answering", "finishing")

    def __init__(self, app: StepParts, matcher: Matcher, steps: HeaderSteps) -> None:
        super().__init__(app, matcher)
        # The middlewares that may answer, the methods any of them answers, and every
        # middleware's ``finish``, innermost first.
        self.answering, self.answer_methods, self.finishing = steps

    async def serve(self, request: Request, outbound: Outbound, started: float = 0.0) -> None:
        gate = self.gate
        if gate.count >= gate.limit:
            await self.refuse(request, outbound, started)
            return
        gate.count += 1
        try:
            try:
                if request.method in self.answer_methods and await self.answered(request, outbound):
                    return
                try:
                    # perf: ``dispatch`` written out; tests/project/test_perf_copies.py holds
                    # them equal.
                    target = self.static_targets.get(request.path, NO_TARGETS).get(request.method)
                    if target is None:
                        target, request.path_params = self.matcher.match_dynamic(
                            request.method, request.path
                        )
                    request._target = target
                    call, invoke = target.call, target.invoke
                    result = await (invoke(request) if call is None else call())
                    if (
                        type(result) in target.plain
                        and request._sub_response is None
                        and request.method != "HEAD"
                    ):
                        encode = target.encode
                        body = encode(result)  # type: ignore[misc]
                        status = request._status = target.status
                        headers = self.finished_headers(request, target)
                        response = None
                    else:
                        response = rendered(request, target, result)
                except Exception as exc:  # the handler's, or a middleware's finish
                    response = await self.error_response(request, exc)
                sent = (
                    outbound.response_bytes(status, headers, body)
                    if response is None
                    else self.finished(request, response, outbound)
                )
                if sent is not None:
                    await sent
            finally:
                # What the request left for after its response (yield dependencies' exits,
                # background tasks, uploaded files), with its slot in the gate still held.
                # perf: written out in each step, as the cleanup's own coroutine is all it
                # awaits (another would cost about 1,500 instructions); the same in each.
                cleanup = request._cleanup
                if cleanup is not None:
                    request._cleanup = None
                    done = cleanup.after_response()
                    # Only a request left by an exception can be a cancelled one: the task is
                    # checked (1,600 instructions) for those alone. A guarded one's cleanup
                    # shields itself, under its guard.
                    cancelled = (
                        sys.exception() is not None and cleanup.guard is None and being_cancelled()
                    )
                    # What failed, for the ASGI server (Connection._unhandled).
                    unhandled(request, await (shielded(done) if cancelled else done))
        except asyncio.CancelledError as exc:
            await _answer_cut(request, outbound, exc)
        finally:
            gate.count -= 1
            if self.observer is not None:
                self.observer.end(request, outbound, started)

    async def answered(self, request: Request, outbound: Outbound) -> bool:
        """Whether a header middleware answered ``request`` itself (a CORS preflight), its
        answer finished by those outside it as the chain would, and sent. Neither the app nor
        a middleware inside the one that answers runs."""
        finishing = self.finishing
        sent: Awaitable[None] | None = None
        try:
            for index, middleware in enumerate(self.answering):
                methods = middleware.answers_methods
                if methods is not None and request.method not in methods:
                    continue
                response = middleware.answer(request)
                if response is not None:
                    outer = finishing[len(finishing) - index :]
                    if outer:
                        finish_response(outer, request, response)
                    sent = self.respond(request, response, outbound)
                    break
            else:
                return False
        except Exception as exc:
            sent = self.failed(request, exc, outbound)
        if sent is not None:
            await sent
        return True

    def finished_headers(self, request: Request, target: Target) -> HeaderList:
        """The route's headers for plain data, with every middleware's."""
        headers = target.headers.copy()  # the target's own is shared
        for finish in self.finishing:
            finish(request, headers)
        return headers

    def finished(
        self, request: Request, response: Response, outbound: Outbound
    ) -> Awaitable[None] | None:
        """``response`` with every middleware's headers, on its way to the client."""
        try:
            finish_response(self.finishing, request, response)
        except Exception as exc:  # a middleware's: none finishes its answer
            return self.failed(request, exc, outbound)
        return self.respond(request, response, outbound)


class Chained(Step):
    """An app with middleware that is not header middleware alone: the chain, the first
    registered outermost and ``dispatch`` innermost, answers each request."""

    __slots__ = ("chained", "guarded", "handle")

    def __init__(self, app: StepParts, matcher: Matcher, chained: tuple[Middleware, ...]) -> None:
        super().__init__(app, matcher)
        self.chained = chained
        self.handle = build_chain(chained, self.dispatch)

    def use(self, matcher: Matcher) -> None:
        super().use(matcher)
        # Where a route's requests enter a guard (hasten._params.cleanup_guard), behind
        # middleware every request enters it before the chain, so that it encloses whatever
        # scope a middleware holds around ``call_next`` (the generators' exits come after
        # the chain).
        self.guarded = matcher.guarded

    async def serve(self, request: Request, outbound: Outbound, started: float = 0.0) -> None:
        gate = self.gate
        if gate.count >= gate.limit:
            await self.refuse(request, outbound, started)
            return
        gate.count += 1
        try:
            try:
                if self.guarded:
                    guard_of(request)
                try:
                    response = await self.handle(request)
                    if not isinstance(response, Response):
                        not_a_response(response, self.chained)
                except Exception as exc:  # from a middleware: dispatch answers its own
                    response = await self.error_response(request, exc)
                # perf: ``respond`` written out, as every request here has a Response.
                request._status = response.status
                if type(response).send is SEND_WHOLE and response.background is None:
                    sent = response.send_whole(outbound, request)
                else:
                    sent = self.send(request, response, outbound)
                if sent is not None:
                    await sent
            finally:
                # What the request left for after its response (yield dependencies' exits,
                # background tasks, uploaded files), with its slot in the gate still held.
                # perf: written out in each step, as the cleanup's own coroutine is all it
                # awaits (another would cost about 1,500 instructions); the same in each.
                cleanup = request._cleanup
                if cleanup is not None:
                    request._cleanup = None
                    done = cleanup.after_response()
                    # Only a request left by an exception can be a cancelled one: the task is
                    # checked (1,600 instructions) for those alone. A guarded one's cleanup
                    # shields itself, under its guard.
                    cancelled = (
                        sys.exception() is not None and cleanup.guard is None and being_cancelled()
                    )
                    # What failed, for the ASGI server (Connection._unhandled).
                    unhandled(request, await (shielded(done) if cancelled else done))
        except asyncio.CancelledError as exc:
            await _answer_cut(request, outbound, exc)
        finally:
            gate.count -= 1
            if self.observer is not None:
                self.observer.end(request, outbound, started)


async def _answer_cut(request: Request, outbound: Outbound, cancelled: BaseException) -> None:
    """A cancellation: the stop's cut is answered (see stopping.py); any other goes on."""
    if not stopping.was_cut(cancelled):
        raise cancelled
    await stopping.answer_cut(request, outbound)


def rendered(request: Request, target: Target, result: object) -> Response:
    """The handler's ``result`` as its route's Response, with what the handler set on the
    Response it took (headers, cookies, a status), as FastAPI does."""
    response: Response = target.render(result)
    if request._sub_response is not None:
        merge(request._sub_response, response)
    return response


def merge(sub_response: Response, response: Response) -> None:
    """What a handler set on the Response it took (headers, cookies, a status) goes on the
    one sent, as FastAPI does; not when it returned a Response of its own."""
    if response is sub_response:
        return
    extra = sub_response.wire_headers
    if extra:
        headers = response.headers
        for name, value in extra:
            headers.append(name, value)
    if sub_response.status:
        response.status = sub_response.status
