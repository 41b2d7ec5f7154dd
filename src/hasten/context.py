"""ServeContext: what a started app's requests read, decided once at startup and frozen.

Requests, extractors, forms and responses read their limits, the body timeout's bookkeeping
and the app's thread pool from here, never from the App: the App is for users (``request.app``)
and for ``app.py``.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .body_wait import BodyWait
from .overload import InFlight
from .settings import Settings

if TYPE_CHECKING:
    from .dependencies import AppDependencies

__all__ = ["UNSERVED", "FormLimits", "ServeContext"]


@dataclass(frozen=True, slots=True)
class FormLimits:
    """How large a form may be (each an App setting of the same name)."""

    max_parts: int
    max_field_size: int
    max_file_size: int
    spool_size: int


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
    debug: bool
    body_wait: BodyWait
    # The app's thread pool (None: asyncio's default, for a request made outside an app).
    threads: Executor | None
    dependencies: AppDependencies | None = None  # overrides and app-scoped values

    @classmethod
    def of(
        cls,
        settings: Settings,
        body_wait: BodyWait,
        threads: Executor | None,
        dependencies: AppDependencies | None = None,
    ) -> ServeContext:
        """The context of an app with ``settings``."""
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
            ),
            debug=settings.debug,
            body_wait=body_wait,
            threads=threads,
            dependencies=dependencies,
        )


# A request made outside a started app (one a test builds, or one answered before startup):
# the default settings, and a body wait nothing sweeps.
UNSERVED = ServeContext.of(Settings(), BodyWait(InFlight(1), None), None)
