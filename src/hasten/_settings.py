"""App settings, defined once: the App's keyword arguments and their documentation."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypedDict

__all__ = [
    "FormLimitsKeywords",
    "Settings",
    "SettingsKeywords",
    "TelemetryKeywords",
    "check_body_size",
    "check_form_limits",
]

DEFAULT_MAX_BODY_SIZE = 1_048_576
DEFAULT_MAX_THREADS = 128
DEFAULT_MAX_PROCESSES = os.cpu_count() or 1
DEFAULT_PROCESS_THREADS = 4
DEFAULT_MAX_IN_FLIGHT = 1000
DEFAULT_SHUTDOWN_TIMEOUT = 30.0
DEFAULT_BLOCK_THRESHOLD = 0.1
DEFAULT_MAX_FORM_PARTS = 2000  # form_limits' 1,000 fields and 1,000 files
DEFAULT_MAX_FORM_FIELD_SIZE = 1_048_576
DEFAULT_MAX_FILE_SIZE = 104_857_600
DEFAULT_FORM_SPOOL_SIZE = 1_048_576
DEFAULT_WEBSOCKET_MAX_SIZE = 1_048_576
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_QUERY_PARAMS = 1000
DEFAULT_MAX_HEADERS = 100  # Granian's own limit: the app holds ASGI servers to it too
DEFAULT_MAX_JSON_DEPTH = 64
# msgspec decodes no deeper than Python's recursion limit (1,000 frames, the stack already in
# use counted), and the depth check's pattern is compiled with a frame or three per level.
MAX_JSON_DEPTH_CEILING = 256
# Decoding holds the event loop (msgspec holds the GIL: a thread does not help): about 25 ms
# for the costliest 1 MiB measured (100,000 keys in one object), 0.5 s for 10 MiB of them.
DEFAULT_MAX_JSON_SIZE = 1_048_576
DEFAULT_STATS_URL = "/_hasten/stats"
STATS_TOKEN_ENV = "HASTEN_STATS_TOKEN"
# prometheus-client's multiprocess mode: the directory every worker writes its metrics to.
METRICS_DIRECTORY_ENV = "PROMETHEUS_MULTIPROC_DIR"
# The directory every worker writes its live stats to, for stats_url to sum them.
STATS_DIRECTORY_ENV = "HASTEN_STATS_DIR"

AccessLogFormat = Literal["json", "keyvalue"]


class FormLimitsKeywords(TypedDict, total=False):
    """FastAPI's ``form_limits={...}``: each key given bounds the forms of the app, router or
    route it is given to; each key left out keeps the enclosing value."""

    max_fields: int  # fields that are not files
    max_files: int
    max_part_size: int  # bytes of a field that is not a file: max_form_field_size


def check_form_limits(limits: Mapping[str, Any] | None, where: str) -> dict[str, int]:
    """``form_limits`` checked as FastAPI checks it: its keys only, each an int >= 0."""
    checked: dict[str, int] = {}
    for key, value in (limits or {}).items():
        if key not in FormLimitsKeywords.__optional_keys__:
            raise ValueError(
                f"{where}: form_limits takes max_fields, max_files and max_part_size, not {key!r}"
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(
                f"{where}: form_limits[{key!r}] must be a non-negative integer, not {value!r}"
            )
        checked[key] = value
    return checked


class TelemetryKeywords(TypedDict, total=False):
    """FastAPI's ``telemetry={...}`` (its TelemetryConfig's keys)."""

    tracer_provider: Any  # an opentelemetry TracerProvider (None: the global one)
    tracing: bool
    operation_spans: bool
    meter_provider: Any
    logger_provider: Any
    metrics: bool
    logs: bool
    auto_configure: bool
    exclude: Any


def check_body_size(value: int | None, where: str) -> int | None:
    """``max_body_size`` checked as FastAPI checks it: None (the enclosing limit) or an
    int >= 0 (0 allows an empty body only)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(
            f"{where}: max_body_size must be a non-negative integer or None, not {value!r}"
        )
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """What an App is configured with. Each field is an ``App(...)`` keyword argument."""

    debug: bool = field(
        default=False,
        metadata={"help": "Put the exception and traceback of a 500 in its response body."},
    )
    max_body_size: int = field(
        default=DEFAULT_MAX_BODY_SIZE,
        metadata={
            "help": "Largest request body in bytes; a larger one gets 413. A router or a route "
            "may give its own (FastAPI's max_body_size= on APIRouter and the decorators)."
        },
    )
    max_threads: int = field(
        default=DEFAULT_MAX_THREADS,
        metadata={"help": "Threads in the pool that runs plain `def` handlers."},
    )

    max_processes: int = field(
        default=DEFAULT_MAX_PROCESSES,
        metadata={
            "help": "Worker processes for offload='process' routes (default: the CPU count).",
            "default": "os.cpu_count()",
        },
    )
    process_threads: int = field(
        default=DEFAULT_PROCESS_THREADS,
        metadata={
            "help": "Handlers each worker process runs at once, so that their blocking parts "
            "overlap (their CPU-bound parts share the process's core)."
        },
    )
    max_in_flight: int = field(
        default=DEFAULT_MAX_IN_FLIGHT,
        metadata={"help": "Requests served at once; past it a request gets 503 + Retry-After."},
    )
    body_timeout: float | None = field(
        default=DEFAULT_BODY_TIMEOUT,
        metadata={
            "help": "Seconds a request body may take to arrive, from the app's first read; "
            "then 408. While the app waits for body bytes the request does not count in "
            "max_in_flight (None: no limit)."
        },
    )
    max_query_params: int = field(
        default=DEFAULT_MAX_QUERY_PARAMS,
        metadata={"help": "Query parameters the app will parse; more gets 414."},
    )
    max_headers: int = field(
        default=DEFAULT_MAX_HEADERS,
        metadata={"help": "Request headers the app will look at; more gets 431."},
    )
    max_json_depth: int = field(
        default=DEFAULT_MAX_JSON_DEPTH,
        metadata={
            "help": "Deepest nesting of arrays and objects in a JSON body; deeper gets 400 "
            f"(at most {MAX_JSON_DEPTH_CEILING})."
        },
    )
    max_json_size: int = field(
        default=DEFAULT_MAX_JSON_SIZE,
        metadata={
            "help": "Largest JSON body in bytes the app decodes; a larger one gets 413. "
            "Decoding holds the event loop (about 25 ms for the costliest MiB), so this stays "
            "small when max_body_size is raised for uploads."
        },
    )
    strict_content_type: bool = field(
        default=True,
        metadata={
            "help": "A body without a Content-Type is not read as JSON (FastAPI's default: a "
            "browser's cross-site form post cannot reach a JSON handler); False reads it as "
            "JSON. A router or a route may give its own."
        },
    )
    redirect_slashes: bool = field(
        default=True,
        metadata={
            "help": "A request whose path matches no route, but would with its trailing slash "
            "added or removed, is redirected there (307); False: 404."
        },
    )
    shutdown_timeout: float = field(
        default=DEFAULT_SHUTDOWN_TIMEOUT,
        metadata={
            "help": "Seconds a stop (from SIGTERM, else from the server's shutdown) waits for "
            "requests and WebSockets in flight; then what is left is cut, logged by route, and "
            "the shutdown hooks run."
        },
    )
    block_threshold: float | None = field(
        default=DEFAULT_BLOCK_THRESHOLD,
        metadata={
            "help": "Seconds the event loop may stall before the route is reported "
            "(None turns the monitor off)."
        },
    )
    websocket_max_size: int = field(
        default=DEFAULT_WEBSOCKET_MAX_SIZE,
        metadata={
            "help": "Largest WebSocket message in bytes (characters for text) a handler "
            "receives; a larger one closes the socket with 1009."
        },
    )
    websocket_idle_timeout: float | None = field(
        default=None,
        metadata={
            "help": "Seconds a WebSocket handler waits in receive before the socket is "
            "closed with 1001 (None: it waits as long as the client stays)."
        },
    )
    websocket_allowed_origins: list[str] | None = field(
        default=None,
        metadata={
            "help": "The origins ('https://app.example.com') whose pages may open the app's "
            "WebSockets; a browser's handshake from any other gets 403 at accept(), which "
            "stops cross-site WebSocket hijacking. Clients that send no Origin (not browsers) "
            "are let in (None: any origin, as in Starlette)."
        },
    )

    # Forms and uploads.
    max_form_parts: int = field(
        default=DEFAULT_MAX_FORM_PARTS,
        metadata={"help": "Fields and files a form may have; more gets 413."},
    )
    max_form_field_size: int = field(
        default=DEFAULT_MAX_FORM_FIELD_SIZE,
        metadata={
            "help": "Largest form field that is not a file, in bytes (FastAPI's "
            "max_part_size); a larger one gets 400, as in FastAPI."
        },
    )
    max_file_size: int = field(
        default=DEFAULT_MAX_FILE_SIZE,
        metadata={
            "help": "Largest uploaded file in bytes; a larger one gets 413 (the whole body is "
            "also held to max_body_size)."
        },
    )
    form_limits: FormLimitsKeywords | None = field(
        default=None,
        metadata={
            "help": "FastAPI's form limits, over the settings above: max_fields and max_files "
            "(each kind of part, 1000 by default as in Starlette, within max_form_parts), "
            "max_part_size (max_form_field_size); over one is a 400 in Starlette's words. A "
            "router or a route may give its own, key by key."
        },
    )
    form_spool_size: int = field(
        default=DEFAULT_FORM_SPOOL_SIZE,
        metadata={
            "help": "Bytes of an uploaded file kept in memory; past it the file moves to a "
            "temporary file on disk."
        },
    )
    # Observability: all off by default; the request path is the plain one while they are.
    metrics_url: str | None = field(
        default=None,
        metadata={
            "help": "Where Prometheus metrics are served, e.g. '/metrics' (None: no metrics). "
            "Needs prometheus-client: pip install 'hasten[metrics]'."
        },
    )
    tracing: bool = field(
        default=True,
        metadata={
            "help": "OpenTelemetry for each request, as FastAPI's telemetry: spans, metrics "
            "and logs, each where its provider is given in `telemetry` or set globally by "
            "startup (none: the plain request path). False: none at all. Needs "
            "opentelemetry-api: pip install 'hasten[otel]'."
        },
    )
    telemetry: TelemetryKeywords | None = field(
        default=None,
        metadata={
            "help": "FastAPI's telemetry={...} (its TelemetryConfig): the providers to use "
            "rather than the global ones, which signals are on ('tracing', 'metrics', "
            "'logs', 'operation_spans'), 'exclude' (a function of the ASGI scope: True "
            "leaves that request untraced), 'auto_configure' (OTLP exporters from the "
            "environment at startup; default: $FASTAPI_OTEL_AUTO_CONFIGURE). Exporting "
            "needs pip install 'hasten[otel,otlp]'."
        },
    )
    access_log: AccessLogFormat | None = field(
        default=None,
        metadata={
            "help": "One line per request on the `hasten.access` logger: 'json' or "
            "'keyvalue' (None: off)."
        },
    )
    health_url: str | None = field(
        default=None,
        metadata={"help": "Where liveness is answered, e.g. '/healthz' (None: nowhere)."},
    )
    ready_url: str | None = field(
        default=None,
        metadata={
            "help": "Where readiness is answered, e.g. '/readyz': 503 once shutdown begins "
            "(None: nowhere)."
        },
    )
    stats_url: str = field(
        default=DEFAULT_STATS_URL,
        metadata={"help": "Where `hasten routes --live` reads per-route counts and stalls."},
    )
    stats_token: str | None = field(
        default_factory=lambda: os.environ.get(STATS_TOKEN_ENV) or None,
        metadata={
            "help": "The bearer token stats_url asks for; without one it is not served.",
            "default": f"${STATS_TOKEN_ENV}",
        },
    )
    # OpenAPI and the docs page (FastAPI's names).
    # FastAPI's default: a moved app keeps its document (docs/from-fastapi.md says why).
    title: str = field(default="FastAPI", metadata={"help": "The API's title in OpenAPI."})
    version: str = field(default="0.1.0", metadata={"help": "The API's version in OpenAPI."})
    summary: str | None = field(
        default=None, metadata={"help": "A one-line summary of the API (OpenAPI 3.1 only)."}
    )
    description: str | None = field(
        default=None, metadata={"help": "The API's description in OpenAPI (Markdown)."}
    )
    openapi_version: str = field(
        default="3.1.0",
        metadata={"help": "The OpenAPI version served: 3.1.x, or 3.0.x for older clients."},
    )
    openapi_url: str | None = field(
        default="/openapi.json",
        metadata={"help": "Where the OpenAPI document is served (None: nowhere, and no docs)."},
    )
    docs_url: str | None = field(
        default="/docs",
        metadata={"help": "Where Swagger UI is served, offline (None: nowhere)."},
    )
    redoc_url: str | None = field(
        default=None,
        metadata={
            "help": "Where FastAPI's ReDoc page is served (None: nowhere); it loads ReDoc "
            "from a CDN, so it is served only when asked for."
        },
    )
    swagger_ui_oauth2_redirect_url: str | None = field(
        default="/docs/oauth2-redirect",
        metadata={"help": "Where Swagger UI's OAuth2 flows return to (None: nowhere)."},
    )
    servers: list[dict[str, Any]] | None = field(
        default=None, metadata={"help": "OpenAPI Server Objects: where the API is served."}
    )
    openapi_tags: list[dict[str, Any]] | None = field(
        default=None, metadata={"help": "OpenAPI Tag Objects: tag descriptions and order."}
    )
    terms_of_service: str | None = field(
        default=None, metadata={"help": "A URL to the API's terms of service."}
    )
    contact: dict[str, Any] | None = field(
        default=None, metadata={"help": "OpenAPI Contact Object: name, url, email."}
    )
    license_info: dict[str, Any] | None = field(
        default=None, metadata={"help": "OpenAPI License Object: name, and url or identifier."}
    )
    openapi_external_docs: dict[str, Any] | None = field(
        default=None,
        metadata={"help": "OpenAPI External Documentation Object: url, and a description."},
    )
    separate_input_output_schemas: bool = field(
        default=True,
        metadata={
            "help": "A pydantic model whose input and output differ is two schemas "
            "(Item-Input, Item-Output); False: one, the input's."
        },
    )
    swagger_ui_parameters: dict[str, Any] | None = field(
        default=None, metadata={"help": "Swagger UI's configuration, over hasten's defaults."}
    )
    swagger_ui_init_oauth: dict[str, Any] | None = field(
        default=None,
        metadata={"help": "Swagger UI's initOAuth options (clientId, scopes, ...) for /docs."},
    )

    def _check_urls(self) -> None:
        for name in (
            "openapi_url",
            "docs_url",
            "redoc_url",
            "swagger_ui_oauth2_redirect_url",
            "metrics_url",
            "health_url",
            "ready_url",
            "stats_url",
        ):
            url = getattr(self, name)
            if url == "":  # FastAPI's way to turn one off (openapi_url="" from an env var)
                object.__setattr__(self, name, None)
            elif url is not None and (
                not url.startswith("/") or (url.endswith("/") and url != "/")
            ):
                raise ValueError(
                    f"{name} must be '/' or start with '/' and not end with it, got {url!r}"
                )

    def __post_init__(self) -> None:
        _check_body_limits(self)
        for name in (
            "max_query_params",
            "max_headers",
            "max_json_depth",
            "max_json_size",
            "max_form_parts",
            "max_form_field_size",
            "max_file_size",
            "form_spool_size",
            "websocket_max_size",
            "max_threads",
            "max_processes",
            "process_threads",
            "max_in_flight",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_json_depth > MAX_JSON_DEPTH_CEILING:
            ceiling, given = MAX_JSON_DEPTH_CEILING, self.max_json_depth
            raise ValueError(f"max_json_depth must be at most {ceiling}, got {given}")
        if self.shutdown_timeout < 0:
            raise ValueError(f"shutdown_timeout cannot be negative, got {self.shutdown_timeout}")
        for name in ("body_timeout", "block_threshold", "websocket_idle_timeout"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        self._check_urls()
        _check_origins(self.websocket_allowed_origins or ())
        if not self.openapi_version.startswith(("3.0.", "3.1.")):
            raise ValueError(
                f"openapi_version must be 3.0.x or 3.1.x, got {self.openapi_version!r}"
            )
        if self.access_log not in (None, "json", "keyvalue"):
            raise ValueError(
                f"access_log must be 'json', 'keyvalue' or None, not {self.access_log!r}"
            )

    @property
    def exports_telemetry(self) -> bool:
        """Whether the app adds OTLP exporters from the environment when it starts (_ops.otlp):
        FastAPI's ``telemetry={"auto_configure": True}``, else ``FASTAPI_OTEL_AUTO_CONFIGURE=true``
        (FastAPI's name, so that a moved deployment keeps its setting)."""
        if not self.tracing:
            return False
        given = (self.telemetry or {}).get("auto_configure")
        if given is not None:
            return bool(given)
        return os.getenv("FASTAPI_OTEL_AUTO_CONFIGURE", "").lower() == "true"

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """(name, default, help) for every setting: the README table is generated from this."""
        return [
            (
                item.name,
                str(item.metadata.get("default", repr(item.default))),
                str(item.metadata.get("help", "")),
            )
            for item in fields(cls)
        ]


def _check_body_limits(settings: Settings) -> None:
    # None, FastAPI's unlimited, is not taken: an app limits every body.
    if check_body_size(settings.max_body_size, "App") is None:
        raise ValueError(
            "App: max_body_size must be a non-negative integer, not None: hasten limits every "
            "body (docs/from-fastapi.md); give the largest body the app takes"
        )
    if settings.form_limits is not None:
        # A copy: the caller's dict changed afterwards changes nothing (FastAPI's).
        limits = check_form_limits(settings.form_limits, "App")
        object.__setattr__(settings, "form_limits", limits)
    unknown = set(settings.telemetry or ()) - TelemetryKeywords.__optional_keys__
    if unknown:
        raise ValueError(f"App: telemetry takes FastAPI's TelemetryConfig keys, not {unknown}")


def _check_origins(origins: list[str] | tuple[()]) -> None:
    for origin in origins:
        if "://" not in origin or origin.rstrip("/").count("/") != 2:
            raise ValueError(
                "websocket_allowed_origins takes origins, scheme://host[:port] (None allows "
                f"any), got {origin!r}"
            )


class SettingsKeywords(TypedDict, total=False):
    """``App(**settings)`` for type checkers; a test holds it to Settings' fields."""

    debug: bool
    max_body_size: int
    max_threads: int
    max_processes: int
    process_threads: int
    max_in_flight: int
    body_timeout: float | None
    max_query_params: int
    max_headers: int
    max_json_depth: int
    max_json_size: int
    strict_content_type: bool
    redirect_slashes: bool
    shutdown_timeout: float
    block_threshold: float | None
    websocket_max_size: int
    websocket_idle_timeout: float | None
    websocket_allowed_origins: list[str] | None
    max_form_parts: int
    max_form_field_size: int
    max_file_size: int
    form_limits: FormLimitsKeywords | None
    form_spool_size: int
    metrics_url: str | None
    tracing: bool
    telemetry: TelemetryKeywords | None
    access_log: AccessLogFormat | None
    health_url: str | None
    ready_url: str | None
    stats_url: str
    stats_token: str | None
    title: str
    version: str
    summary: str | None
    description: str | None
    openapi_version: str
    openapi_url: str | None
    docs_url: str | None
    redoc_url: str | None
    swagger_ui_oauth2_redirect_url: str | None
    servers: list[dict[str, Any]] | None
    openapi_tags: list[dict[str, Any]] | None
    terms_of_service: str | None
    contact: dict[str, Any] | None
    license_info: dict[str, Any] | None
    openapi_external_docs: dict[str, Any] | None
    separate_input_output_schemas: bool
    swagger_ui_parameters: dict[str, Any] | None
    swagger_ui_init_oauth: dict[str, Any] | None
