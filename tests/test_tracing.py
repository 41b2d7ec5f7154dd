"""OpenTelemetry spans, one per request, through both adapters."""

from __future__ import annotations

import time
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hasten import App
from hasten.testing import TestClient
from tests.conftest import ClientFactory

EXPORTER = InMemorySpanExporter()


@pytest.fixture(autouse=True)
def spans() -> InMemorySpanExporter:
    # The API's provider can be set once per process: this module's, exported to memory.
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    return EXPORTER


def build_app() -> App:
    app = App(tracing=True, max_threads=1)
    tracer = trace.get_tracer("tests")

    @app.get("/items/{id}")
    async def item(id: int) -> dict[str, int]:
        with tracer.start_as_current_span("load item"):
            return {"id": id}

    @app.get("/sync")
    def sync() -> str:
        with tracer.start_as_current_span("on a thread"):
            time.sleep(0.01)
        return "ok"

    @app.get("/fail")
    async def fail() -> None:
        raise RuntimeError("boom")

    return app


def server_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.kind == trace.SpanKind.SERVER]


def test_a_span_per_request_named_by_its_route(
    serve: ClientFactory, spans: InMemorySpanExporter
) -> None:
    client = serve(build_app())
    assert client.get("/items/42").json() == {"id": 42}
    [span] = server_spans(spans)
    assert span.name == "GET /items/{id}"
    assert dict(span.attributes or {}) == {
        "http.request.method": "GET",
        "http.route": "/items/{id}",
        "url.path": "/items/42",
        "hasten.runs_on": "loop",
        "http.response.status_code": 200,
        "http.response.body.size": 9,
    }
    [child] = [item for item in spans.get_finished_spans() if item.name == "load item"]
    assert child.parent is not None
    assert child.parent.span_id == span.context.span_id


def test_a_thread_handler_is_a_child_and_its_wait_is_recorded(
    serve: ClientFactory, spans: InMemorySpanExporter
) -> None:
    client = serve(build_app())
    assert client.get("/sync").json() == "ok"
    [span] = server_spans(spans)
    attributes = dict(span.attributes or {})
    assert attributes["hasten.runs_on"] == "thread"
    assert isinstance(attributes["hasten.queue.duration"], float)
    [child] = [item for item in spans.get_finished_spans() if item.name == "on a thread"]
    assert child.parent is not None
    assert child.parent.span_id == span.context.span_id


UPSTREAM_TRACE = 0x4BF92F3577B34DA6A3CE929D0E0E4736
UPSTREAM_SPAN = 0x00F067AA0BA902B7


def test_an_incoming_traceparent_makes_the_span_a_child_of_the_callers(
    serve: ClientFactory, spans: InMemorySpanExporter
) -> None:
    traceparent = f"00-{UPSTREAM_TRACE:032x}-{UPSTREAM_SPAN:016x}-01"
    client = serve(build_app())
    assert client.get("/items/7", headers={"traceparent": traceparent}).status_code == 200
    [span] = server_spans(spans)
    assert span.context.trace_id == UPSTREAM_TRACE
    assert span.parent is not None
    assert (span.parent.span_id, span.parent.is_remote) == (UPSTREAM_SPAN, True)
    [child] = [item for item in spans.get_finished_spans() if item.name == "load item"]
    assert child.context.trace_id == UPSTREAM_TRACE  # the handler's own spans join it too


@pytest.mark.parametrize(
    "traceparent",
    [
        "garbage",
        f"00-{0:032x}-{UPSTREAM_SPAN:016x}-01",  # an all-zero trace id is invalid
        f"00-{UPSTREAM_TRACE:032x}-{UPSTREAM_SPAN:016x}-01-" + "x" * 10_000,
    ],
)
def test_a_malformed_traceparent_starts_a_trace_of_its_own(
    serve: ClientFactory, spans: InMemorySpanExporter, traceparent: str
) -> None:
    client = serve(build_app())
    assert client.get("/items/7", headers={"traceparent": traceparent}).status_code == 200
    [span] = server_spans(spans)
    assert span.parent is None
    assert span.context.trace_id != UPSTREAM_TRACE


def test_errors_and_unmatched_requests(serve: ClientFactory, spans: InMemorySpanExporter) -> None:
    client = serve(build_app(), raise_server_exceptions=False)
    assert client.get("/fail").status_code == 500
    assert client.get("/nowhere").status_code == 404
    failed, missing = server_spans(spans)
    assert failed.name == "GET /fail"
    assert failed.status.status_code == trace.StatusCode.ERROR
    assert missing.name == "GET"  # no route: the method alone, as the conventions say
    assert "http.route" not in (missing.attributes or {})
    assert (missing.attributes or {})["http.response.status_code"] == 404
    assert missing.status.status_code == trace.StatusCode.UNSET


def test_without_a_tracer_provider_the_request_path_is_the_plain_one(
    monkeypatch: pytest.MonkeyPatch, spans: InMemorySpanExporter
) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", trace.ProxyTracerProvider)
    app = build_app()
    with TestClient(app) as client:
        assert client.get("/items/1").status_code == 200
        assert app.runtime is not None
        assert app.runtime.observer is None
    assert server_spans(spans) == []


def items_app(**settings: Any) -> App:
    app = App(**settings)

    @app.get("/items/{item_id}")
    async def read_item(item_id: int) -> dict[str, int]:
        return {"item_id": item_id}

    return app


def test_fastapis_telemetry_traces_with_its_tracer_provider(
    serve: ClientFactory, spans: InMemorySpanExporter
) -> None:
    own = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(own))
    client = serve(items_app(telemetry={"tracer_provider": provider, "operation_spans": False}))
    response = client.get("/items/2")
    assert (response.status_code, response.content) == (200, b'{"item_id":2}')
    [span] = own.get_finished_spans()
    assert (span.name, span.kind) == ("GET /items/{item_id}", trace.SpanKind.SERVER)
    assert (span.attributes or {})["http.route"] == "/items/{item_id}"
    assert spans.get_finished_spans() == ()  # not the global provider's


@pytest.mark.parametrize(
    ("telemetry", "traced"), [({}, True), ({"tracing": False}, False), (None, False)]
)
def test_telemetry_turns_tracing_on_unless_it_says_not_to(
    serve: ClientFactory, spans: InMemorySpanExporter, telemetry: Any, traced: bool
) -> None:
    response = serve(items_app(telemetry=telemetry)).get("/items/3")
    assert (response.status_code, response.content) == (200, b'{"item_id":3}')
    assert [span.name for span in server_spans(spans)] == (
        ["GET /items/{item_id}"] if traced else []
    )


def test_telemetry_takes_fastapis_keys_only() -> None:
    with pytest.raises(
        ValueError, match=r"telemetry takes FastAPI's TelemetryConfig keys, not \{'traces'\}"
    ):
        App(telemetry={"traces": True})  # type: ignore[arg-type]
