"""OpenTelemetry for each request (FastAPI's built-in telemetry), through both adapters: the
SERVER span and its operation spans, the two metrics, the log records, the request's data
for processors, exclusion, WebSockets, mounts, and when it is on at all."""

# No `from __future__ import annotations`: the handlers here are local functions, which
# string annotations could not name.
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Any

import msgspec
import pytest
from opentelemetry import baggage, trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hasten import App, BackgroundTasks, Depends, HTTPException, WebSocket
from hasten._cli.servers import Interface
from hasten._observing import otlp
from hasten.telemetry import TelemetryConfig, TelemetryData, get_telemetry_data
from hasten.testing import TestClient
from tests.conftest import ClientFactory


@dataclass
class Recorded:
    """What one app's providers recorded: spans, metrics and log records."""

    config: TelemetryConfig
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    logs: InMemoryLogRecordExporter

    def server(self) -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.kind == trace.SpanKind.SERVER]

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans.get_finished_spans() if span.name == name]

    def points(self, name: str = "http.server.request.duration") -> list[Any]:
        data = self.metrics.get_metrics_data()
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    """Providers of the app's own (``telemetry={...}``): the global ones stay unset, so that
    other tests' apps keep the plain request path."""
    spans = InMemorySpanExporter()
    tracer = TracerProvider(shutdown_on_exit=False)
    tracer.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader], shutdown_on_exit=False)
    logs = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]  # the SDK's, untyped
    logger = LoggerProvider(shutdown_on_exit=False)
    logger.add_log_record_processor(SimpleLogRecordProcessor(logs))
    config: TelemetryConfig = {
        "tracer_provider": tracer,
        "meter_provider": meter,
        "logger_provider": logger,
    }
    yield Recorded(config, spans, reader, logs)
    tracer.shutdown()
    meter.shutdown()
    logger.shutdown()


class Item(msgspec.Struct):
    name: str


def items_app(recorded: Recorded, **telemetry: Any) -> App:
    # The keywords are TelemetryConfig's; mypy cannot tell from **telemetry.
    config: TelemetryConfig = {**recorded.config, **telemetry}  # type: ignore[typeddict-item]
    app = App(telemetry=config)

    async def token() -> str:
        return "secret-token"

    @app.get("/items/{item_id}")
    async def read(item_id: int, who: Annotated[str, Depends(token)]) -> dict[str, Any]:
        return {"item_id": item_id, "baggage": baggage.get_baggage("example")}

    @app.post("/items")
    def create(item: Item) -> Item:
        return item

    @app.get("/fail")
    async def fail() -> None:
        raise RuntimeError("boom")

    @app.get("/busy")
    async def busy() -> None:
        raise HTTPException(503, "busy")

    return app


def test_a_server_span_per_request_with_the_http_conventions(
    serve: ClientFactory, recorded: Recorded
) -> None:
    client = serve(items_app(recorded))
    response = client.get(
        "/items/42?tag=a&sig=secret",
        headers={"baggage": "example=value", "host": "api.example:8443"},
    )
    assert response.json() == {"item_id": 42, "baggage": "value"}
    [span] = recorded.server()
    assert span.name == "GET /items/{item_id}"
    assert dict(span.attributes or {}) == {
        "url.scheme": "http",
        "http.request.method": "GET",
        "network.protocol.version": "1.1",
        "server.address": "api.example",
        "server.port": 8443,
        "url.path": "/items/42",
        "url.query": "tag=a&sig=REDACTED",
        "http.route": "/items/{item_id}",
        "http.response.status_code": 200,
        "hasten.runs_on": "loop",
        "http.response.body.size": 32,
    }
    assert span.status.status_code == trace.StatusCode.UNSET


UPSTREAM_TRACE = 0x4BF92F3577B34DA6A3CE929D0E0E4736
UPSTREAM_SPAN = 0x00F067AA0BA902B7


@pytest.mark.parametrize(
    ("traceparent", "joined"),
    [
        (f"00-{UPSTREAM_TRACE:032x}-{UPSTREAM_SPAN:016x}-01", True),
        ("garbage", False),
        (f"00-{0:032x}-{UPSTREAM_SPAN:016x}-01", False),  # an all-zero trace id is invalid
    ],
)
def test_an_incoming_trace_context_makes_the_span_the_callers_child(
    serve: ClientFactory, recorded: Recorded, traceparent: str, joined: bool
) -> None:
    client = serve(items_app(recorded))
    assert client.get("/items/7", headers={"traceparent": traceparent}).status_code == 200
    [span] = recorded.server()
    if joined:
        assert span.context.trace_id == UPSTREAM_TRACE
        assert span.parent is not None
        assert (span.parent.span_id, span.parent.is_remote) == (UPSTREAM_SPAN, True)
    else:
        assert span.parent is None
        assert span.context.trace_id != UPSTREAM_TRACE


def test_operation_spans_are_the_server_spans_children_where_each_step_runs(
    serve: ClientFactory, recorded: Recorded
) -> None:
    app = App(telemetry=recorded.config)
    seen: dict[str, Any] = {}

    def dependency() -> str:
        seen["dependency"] = trace.get_current_span().get_span_context()
        return "value"

    @app.get("/sync")
    def sync(value: Annotated[str, Depends(dependency)]) -> dict[str, str]:
        seen["endpoint"] = (threading.get_ident(), trace.get_current_span().get_span_context())
        return {"value": value}

    client = serve(app)
    assert client.get("/sync").json() == {"value": "value"}
    [server] = recorded.server()
    children = [span for span in recorded.spans.get_finished_spans() if span is not server]
    assert sorted(span.name for span in children) == [
        "hasten.dependencies",
        "hasten.endpoint",
        "hasten.serialization",
    ]
    assert all(span.parent is not None for span in children)
    assert {span.parent.span_id for span in children if span.parent} == {server.context.span_id}
    [endpoint] = recorded.named("hasten.endpoint")
    [dependencies] = recorded.named("hasten.dependencies")
    assert seen["endpoint"][1] == endpoint.context  # current in its thread
    assert seen["endpoint"][0] != threading.get_ident()
    assert seen["dependency"] == dependencies.context
    assert str((endpoint.attributes or {})["code.function.name"]).endswith("<locals>.sync")


def test_operation_spans_can_be_turned_off(serve: ClientFactory, recorded: Recorded) -> None:
    client = serve(items_app(recorded, operation_spans=False))
    assert client.get("/items/1").status_code == 200
    assert [span.name for span in recorded.spans.get_finished_spans()] == ["GET /items/{item_id}"]


def test_failures_are_errors_on_the_span_the_metric_and_one_log_record(
    serve: ClientFactory, recorded: Recorded
) -> None:
    client = serve(items_app(recorded), raise_server_exceptions=False)
    assert client.get("/fail").status_code == 500
    failed = [span for span in recorded.spans.get_finished_spans() if not span.status.is_ok]
    assert {span.name for span in failed} == {"GET /fail", "hasten.endpoint"}
    assert {(span.attributes or {})["error.type"] for span in failed} == {"RuntimeError"}
    [data] = recorded.logs.get_finished_logs()
    record = data.log_record
    assert (record.event_name, record.severity_number) == (
        "http.server.request.exception",
        SeverityNumber.ERROR,
    )
    assert record.body == "Unhandled exception in FastAPI request"
    assert (record.attributes or {})["http.route"] == "/fail"
    assert (record.attributes or {})["exception.type"] == "RuntimeError"
    [server] = recorded.server()
    assert (record.trace_id, record.span_id) == (server.context.trace_id, server.context.span_id)
    [point] = recorded.points()
    assert point.attributes["error.type"] == "RuntimeError"


def test_an_http_exception_is_an_answer_not_a_failure(
    serve: ClientFactory, recorded: Recorded
) -> None:
    client = serve(items_app(recorded))
    assert client.get("/busy").status_code == 503
    assert recorded.logs.get_finished_logs() == ()
    [server] = recorded.server()
    assert server.status.status_code == trace.StatusCode.ERROR  # a 5xx
    assert (server.attributes or {})["error.type"] == "503"
    assert all(
        span.status.status_code == trace.StatusCode.UNSET
        for span in recorded.spans.get_finished_spans()
        if span is not server
    )


def test_metrics_name_requests_by_route_never_by_path(
    serve: ClientFactory, recorded: Recorded
) -> None:
    client = serve(items_app(recorded))
    for item_id in (1, 2):
        assert client.get(f"/items/{item_id}").status_code == 200
    [point] = recorded.points()
    assert point.count == 2
    assert dict(point.attributes) == {
        "url.scheme": "http",
        "http.request.method": "GET",
        "network.protocol.version": "1.1",
        "http.route": "/items/{item_id}",
        "http.response.status_code": 200,
    }
    [active] = recorded.points("http.server.active_requests")
    assert active.value == 0


def test_a_validation_failure_is_a_warning_and_its_data_is_for_processors(
    serve: ClientFactory, recorded: Recorded
) -> None:
    seen: list[TelemetryData | None] = []

    class Processor(SimpleLogRecordProcessor):
        def on_emit(self, log_record: Any) -> None:
            seen.append(get_telemetry_data(log_record.log_record.context))

    provider = recorded.config["logger_provider"]
    provider.add_log_record_processor(Processor(recorded.logs))
    client = serve(items_app(recorded))
    assert client.post("/items", content=b"{", headers={"content-type": "application/json"})
    [data] = recorded.logs.get_finished_logs()
    assert (data.log_record.event_name, data.log_record.severity_number) == (
        "fastapi.validation.failed",
        SeverityNumber.WARN,
    )
    assert data.log_record.attributes == {
        "http.route": "/items",
        "fastapi.validation.error_count": 1,
    }
    [found] = seen
    assert found is not None
    assert found.body == "{"
    assert found.errors is not None
    assert found.errors[0]["type"] == "json_invalid"
    assert get_telemetry_data(data.log_record.context) is None  # the request is over


def test_the_requests_data_while_it_is_served(serve: ClientFactory, recorded: Recorded) -> None:
    app = App(telemetry=recorded.config)
    seen: list[Any] = []

    def dependency() -> str:
        data = get_telemetry_data()
        assert data is not None
        seen.append((data.values, data.body))
        return "dep"

    @app.post("/items/{item_id}")
    async def create(item_id: int, item: Item, value: Annotated[str, Depends(dependency)]) -> Any:
        data = get_telemetry_data()
        assert data is not None
        assert data.request is not None
        seen.append((data.request.path, data.values, data.errors))
        return "ok"

    assert serve(app).post("/items/3", json={"name": "a"}).json() == "ok"
    assert seen == [
        (None, {"name": "a"}),
        ("/items/3", {"item_id": 3, "item": Item("a"), "value": "dep"}, []),
    ]
    assert get_telemetry_data() is None


def test_background_tasks_have_spans_after_the_servers(
    serve: ClientFactory, recorded: Recorded
) -> None:
    app = App(telemetry=recorded.config)
    ran: list[str] = []

    def task(value: str) -> None:
        ran.append(trace.get_current_span().name)  # type: ignore[attr-defined]

    @app.get("/")
    async def endpoint(background: BackgroundTasks) -> Any:
        background.add_task(task, "one")
        return "ok"

    assert serve(app).get("/").json() == "ok"
    assert ran == ["hasten.background_task"]
    [server] = recorded.server()
    [span] = recorded.named("hasten.background_task")
    assert span.parent is not None
    assert span.parent.span_id == server.context.span_id
    assert span.start_time is not None
    assert server.end_time is not None
    assert span.start_time >= server.end_time


def test_an_excluded_request_records_nothing(serve: ClientFactory, recorded: Recorded) -> None:
    app = items_app(recorded, exclude=lambda scope: scope["path"] == "/fail")
    client = serve(app, raise_server_exceptions=False)
    assert client.get("/fail").status_code == 500
    assert recorded.spans.get_finished_spans() == ()
    assert recorded.logs.get_finished_logs() == ()
    assert recorded.points() == []
    assert client.get("/items/1").status_code == 200
    assert [span.name for span in recorded.server()] == ["GET /items/{item_id}"]


def test_a_websocket_is_one_span_without_metrics(interface: Interface, recorded: Recorded) -> None:
    app = App(telemetry=recorded.config)

    @app.websocket("/rooms/{room}")
    async def room(websocket: WebSocket, room: int) -> None:
        data = get_telemetry_data()
        assert data is not None
        assert data.websocket is websocket
        await websocket.accept()
        await websocket.send_text(str(room))
        await websocket.close()

    with TestClient(app, interface=interface) as client, client.websocket_connect("/rooms/4") as ws:
        assert ws.receive_text() == "4"
    [span] = recorded.server()
    assert span.name == "WS /rooms/{room}"
    attributes = dict(span.attributes or {})
    assert attributes["network.protocol.name"] == "websocket"
    assert "http.request.method" not in attributes
    assert recorded.metrics.get_metrics_data() is None


def test_a_mounted_app_is_part_of_the_request_that_reaches_it(
    serve: ClientFactory, recorded: Recorded
) -> None:
    child = App(telemetry=recorded.config)

    @child.get("/{name}")
    async def named(name: str) -> Any:
        return name

    parent = App(telemetry=recorded.config)
    parent.mount("/child", child)
    assert serve(parent).get("/child/x").json() == "x"
    [span] = recorded.server()
    assert span.name == "GET /child/{name}"
    [point] = recorded.points()
    assert point.attributes["http.route"] == "/child/{name}"


def test_a_global_provider_set_by_startup_turns_it_on_and_is_followed(
    monkeypatch: pytest.MonkeyPatch, recorded: Recorded
) -> None:
    provider = recorded.config["tracer_provider"]
    plain = App()
    with TestClient(plain) as client:
        assert client.get("/").status_code == 404
        assert plain.runtime is not None
        assert plain.runtime.observer is None
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    app = App()
    with TestClient(app) as client:
        assert client.get("/").status_code == 404
        assert [span.name for span in recorded.server()] == ["GET"]
        other = InMemorySpanExporter()
        later = TracerProvider(shutdown_on_exit=False)
        later.add_span_processor(SimpleSpanProcessor(other))
        monkeypatch.setattr(trace, "get_tracer_provider", lambda: later)
        assert client.get("/").status_code == 404
        assert len(other.get_finished_spans()) == 1
    off = App(tracing=False)
    with TestClient(off) as client:
        assert client.get("/").status_code == 404
        assert off.runtime is not None
        assert off.runtime.observer is None


def test_telemetry_takes_fastapis_keys_only() -> None:
    with pytest.raises(
        ValueError, match=r"telemetry takes FastAPI's TelemetryConfig keys, not \{'traces'\}"
    ):
        App(telemetry={"traces": True})  # type: ignore[arg-type]  # refused, the point


@pytest.fixture
def collector() -> Iterator[tuple[str, list[str]]]:
    """An OTLP/HTTP collector on loopback: its URL, and the paths it was sent to."""
    received: list[str] = []

    class Collect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            received.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", received
    otlp.shutdown()  # the exporters made for the test send their last while it listens
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("asked", ["keyword", "environment"])
def test_auto_configure_exports_to_the_environments_otlp_endpoint(
    monkeypatch: pytest.MonkeyPatch,
    collector: tuple[str, list[str]],
    recorded: Recorded,  # after the collector: its providers stop while the collector runs
    asked: str,
) -> None:
    url, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url + "/")
    config = dict(recorded.config)
    if asked == "keyword":
        config["auto_configure"] = True
    else:
        monkeypatch.setenv("FASTAPI_OTEL_AUTO_CONFIGURE", "TRUE")
    app = App(telemetry=config)  # type: ignore[arg-type]  # TelemetryConfig's keys

    @app.get("/fail")
    async def fail() -> None:
        raise RuntimeError("exported")

    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/fail").status_code == 500
    # Flushed as the app stops: each signal at its own path.
    assert sorted(set(received)) == ["/v1/logs", "/v1/metrics", "/v1/traces"]


def test_a_configuration_it_cannot_honour_is_logged_and_the_app_starts(
    monkeypatch: pytest.MonkeyPatch, recorded: Recorded, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    app = App(telemetry={**recorded.config, "auto_configure": True})
    with TestClient(app) as client:
        assert client.get("/").status_code == 404
    [record] = [r for r in caplog.records if "Automatic telemetry" in r.getMessage()]
    assert "http/protobuf only" in record.getMessage()


def test_starlettes_middleware_makes_one_span_named_by_the_route_a_starlette_app_none(
    recorded: Recorded,
) -> None:
    from hasten._served_as.starlette.middleware.opentelemetry import OpenTelemetryMiddleware
    from hasten.app import Starlette
    from hasten.middleware import Middleware
    from hasten.responses import PlainTextResponse
    from hasten.routing import RequestRoute

    async def user(request: Any) -> PlainTextResponse:
        return PlainTextResponse(request.path_params["name"])

    tracer = recorded.config["tracer_provider"]
    app = Starlette(
        routes=[RequestRoute("/users/{name:str}", user)],
        middleware=[
            Middleware(OpenTelemetryMiddleware, tracer_provider=tracer),
            Middleware(OpenTelemetryMiddleware, tracer_provider=tracer),  # still one span
        ],
        telemetry=recorded.config,  # the app's own telemetry: off, as Starlette has none
    )
    with TestClient(app) as client:
        response = client.get("/users/ada?x=1", headers={"user-agent": "probe"})
    assert (response.status_code, response.text) == (200, "ada")
    (span,) = recorded.spans.get_finished_spans()
    assert (span.name, span.kind) == ("GET /users/{name}", trace.SpanKind.SERVER)
    assert dict(span.attributes or {}) == {
        "http.request.method": "GET",
        "url.path": "/users/ada",
        "url.scheme": "http",
        "url.query": "x=1",
        "server.address": "testserver",
        "server.port": 80,
        "network.protocol.version": "1.1",
        "client.address": "testclient",
        "user_agent.original": "probe",
        "http.response.status_code": 200,
        "http.route": "/users/{name}",
    }


def test_starlettes_middleware_names_a_hosted_apps_span_by_its_method_alone(
    recorded: Recorded,
) -> None:
    from hasten._served_as.starlette.middleware.opentelemetry import OpenTelemetryMiddleware
    from hasten.app import Starlette
    from hasten.middleware import Middleware
    from hasten.responses import PlainTextResponse
    from hasten.routing import Host

    tracer = recorded.config["tracer_provider"]
    app = Starlette(
        routes=[Host("testserver", app=PlainTextResponse("hosted"))],
        middleware=[Middleware(OpenTelemetryMiddleware, tracer_provider=tracer)],
        telemetry=recorded.config,
    )
    with TestClient(app) as client:
        response = client.get("/anything")
    assert (response.status_code, response.text) == (200, "hosted")
    (span,) = recorded.spans.get_finished_spans()
    # A host has no path: no route template is known, as in Starlette.
    assert (span.name, "http.route" in (span.attributes or {})) == ("GET", False)
