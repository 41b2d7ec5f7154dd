import hasten


def test_public_api_is_pinned() -> None:
    assert hasten.__all__ == [
        "APIKeyCookie",
        "APIKeyHeader",
        "APIKeyQuery",
        "Address",
        "App",
        "BackgroundTasks",
        "Body",
        "Connection",
        "Cookie",
        "Depends",
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
        "Header",
        "Headers",
        "JSONResponse",
        "MutableHeaders",
        "OAuth2PasswordBearer",
        "OAuth2PasswordRequestForm",
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
        "Settings",
        "State",
        "StreamingResponse",
        "UploadFile",
        "__version__",
    ]


def test_every_exported_name_exists() -> None:
    for name in hasten.__all__:
        assert getattr(hasten, name) is not None
