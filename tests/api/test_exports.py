import hasten


def test_public_api_is_pinned() -> None:
    assert hasten.__all__ == [
        "APIKeyCookie",
        "APIKeyHeader",
        "APIKeyQuery",
        "APIRoute",
        "APIRouter",
        "Address",
        "App",
        "BackgroundTasks",
        "Body",
        "Connection",
        "Cookie",
        "Depends",
        "EventSourceResponse",
        "FastAPI",
        "File",
        "FileResponse",
        "Form",
        "FormData",
        "HTMLResponse",
        "HTTPAuthorizationCredentials",
        "HTTPBasic",
        "HTTPBasicCredentials",
        "HTTPBearer",
        "HTTPError",
        "HTTPException",
        "Header",
        "Headers",
        "JSONResponse",
        "MutableHeaders",
        "OAuth2PasswordBearer",
        "OAuth2PasswordRequestForm",
        "Param",
        "Parameter",
        "Path",
        "PlainTextResponse",
        "Query",
        "QueryParams",
        "RedirectResponse",
        "Request",
        "RequestValidationError",
        "Response",
        "Route",
        "RouteInfo",
        "Router",
        "Security",
        "ServerSentEvent",
        "Settings",
        "State",
        "StaticFiles",
        "StreamingResponse",
        "UploadFile",
        "WebSocket",
        "WebSocketDisconnect",
        "WebSocketException",
        "__version__",
        "status",
    ]


def test_every_exported_name_exists() -> None:
    for name in hasten.__all__:
        assert getattr(hasten, name) is not None


def test_fastapis_names_are_the_same_classes() -> None:
    assert hasten.FastAPI is hasten.App
    assert hasten.APIRouter is hasten.Router
    assert hasten.APIRoute is hasten.Route
