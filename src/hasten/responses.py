"""Response kinds, each sending itself through an Outbound transport: a whole body, or a
stream.

The public names; the code is in ``hasten._http.responses``, and Starlette's ``FileResponse``
and FastAPI's ``EventSourceResponse`` in ``hasten._http.files`` and ``hasten._http.sse``."""

from hasten._http.files import FileResponse
from hasten._http.responses import (
    HTMLResponse,
    JSONResponse,
    ORJSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
    UJSONResponse,
)
from hasten._http.sse import EventSourceResponse

__all__ = [
    "EventSourceResponse",
    "FileResponse",
    "HTMLResponse",
    "JSONResponse",
    "ORJSONResponse",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "StreamingResponse",
    "UJSONResponse",
]
