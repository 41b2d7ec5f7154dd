"""ServeContext: what a started app's requests read, decided once at startup and frozen.

Requests, extractors, forms and responses read their limits, the body timeout's bookkeeping
and the app's thread pool from here, never from the App: the App is for users (``request.app``)
and for ``app.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hasten._flow.body_wait import BodyWait
from hasten._flow.in_flight import InFlight
from hasten._http.forms import FormLimits
from hasten._http.json_in import prepare_depth_check
from hasten._settings import Settings

if TYPE_CHECKING:
    from hasten._flow.contracts import Instrumentation

__all__ = ["UNSERVED", "ServeContext"]


@dataclass(frozen=True, slots=True)
class ServeContext:
    """The limits and shared parts of one started app, as its requests see them."""

    body_limit: int  # max_body_size
    max_headers: int
    max_query_params: int
    max_json_depth: int
    max_json_size: int
    websocket_max_size: int
    websocket_idle_timeout: float | None
    form: FormLimits
    # Whether a body without a Content-Type stays bytes (FastAPI's strict_content_type),
    # rather than being read as JSON.
    strict_content_type: bool
    debug: bool
    body_wait: BodyWait
    # The app's thread pool (None: asyncio's default, for a request made outside an app).
    threads: Executor | None
    # What wraps a route's steps in the request's OpenTelemetry spans
    # (hasten._observing.tracing), when the app has telemetry on; None: its routes are bound
    # as they are.
    telemetry: Instrumentation | None = None
    # What the app's lifespans yielded (Starlette's lifespan state): each connection's
    # ``state`` starts as a copy of it. Filled once they have entered, at startup.
    state: dict[str, Any] = field(default_factory=dict)
    # Whether asyncio's loop runs the app (else trio's, through AnyIO): decided at startup.
    on_asyncio: bool = True

    @classmethod
    def of(
        cls,
        settings: Settings,
        body_wait: BodyWait,
        threads: Executor | None,
        state: dict[str, Any] | None = None,
        *,
        telemetry: Instrumentation | None = None,
        on_asyncio: bool = True,
    ) -> ServeContext:
        """The context of an app with ``settings`` (``state``: its lifespan state, filled
        when its lifespans have entered; ``telemetry``: what traces its routes' steps)."""
        prepare_depth_check(settings.max_json_depth)
        return cls(
            body_limit=settings.max_body_size,
            max_headers=settings.max_headers,
            max_query_params=settings.max_query_params,
            max_json_depth=settings.max_json_depth,
            max_json_size=settings.max_json_size,
            websocket_max_size=settings.websocket_max_size,
            websocket_idle_timeout=settings.websocket_idle_timeout,
            form=FormLimits(
                settings.max_form_parts,
                settings.max_form_field_size,
                settings.max_file_size,
                settings.form_spool_size,
            ).given(settings.form_limits or {}),
            strict_content_type=settings.strict_content_type,
            debug=settings.debug,
            body_wait=body_wait,
            threads=threads,
            state={} if state is None else state,
            telemetry=telemetry,
            on_asyncio=on_asyncio,
        )

    def of_route(
        self,
        max_body_size: int | None,
        form_limits: Mapping[str, Any],
        strict_content_type: bool | None,
    ) -> ServeContext:
        """This context for a route given its own limits (a route's, its routers' keywords:
        None and empty keep the app's); the same object when they change nothing."""
        changes: dict[str, Any] = {}
        if max_body_size is not None:
            changes["body_limit"] = max_body_size
        if form_limits:
            changes["form"] = self.form.given(form_limits)
        if strict_content_type is not None:
            changes["strict_content_type"] = strict_content_type
        return dataclasses.replace(self, **changes) if changes else self


# A request made outside a started app (one a test builds, or one answered before startup):
# the default settings, and a body wait nothing sweeps.
UNSERVED = ServeContext.of(Settings(), BodyWait(InFlight(1), None), None)
