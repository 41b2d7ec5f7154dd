import hasten


def test_public_api_is_pinned() -> None:
    assert hasten.__all__ == [
        "Address",
        "App",
        "Body",
        "Connection",
        "Cookie",
        "EventSourceResponse",
        "FileResponse",
        "HTMLResponse",
        "HTTPError",
        "Header",
        "Headers",
        "JSONResponse",
        "MutableHeaders",
        "Parameter",
        "Path",
        "PlainTextResponse",
        "Query",
        "QueryParams",
        "RedirectResponse",
        "Request",
        "Response",
        "Route",
        "RouteInfo",
        "Router",
        "ServerSentEvent",
        "Settings",
        "State",
        "StaticFiles",
        "StreamingResponse",
        "WebSocket",
        "WebSocketDisconnect",
        "__version__",
    ]


def test_every_exported_name_exists() -> None:
    for name in hasten.__all__:
        assert getattr(hasten, name) is not None
