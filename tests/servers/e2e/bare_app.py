"""An app without middleware, so that responses reach the server as the core builds them:
``tests/servers/e2e/test_sending.py`` checks what each server then puts on the wire."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from hasten import App, FileResponse, Request, Response, StreamingResponse

app = App()
FILE_BODY = b"0123456789" * 1000
_folder = tempfile.mkdtemp(prefix="hasten-e2e-")
FILE_PATH = Path(_folder) / "data.bin"
FILE_PATH.write_bytes(FILE_BODY)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/no-content", status=204)
async def no_content() -> None: ...


@app.get("/not-modified")
async def not_modified() -> Response:
    return Response(b"", 304, {"etag": '"v1"', "content-length": "0"})


@app.get("/length/{declared:int}")
async def length_by_hand(declared: int) -> Response:
    return Response(b"abc", headers={"content-length": str(declared)})


@app.get("/stream")
async def stream() -> StreamingResponse:
    async def chunks() -> AsyncIterator[bytes]:
        for chunk in (b"one ", b"two ", b"three"):
            yield chunk

    return StreamingResponse(chunks(), media_type="text/plain")


@app.get("/file")
async def file() -> FileResponse:
    return FileResponse(FILE_PATH)


@app.post("/stream-then-body")
async def stream_then_body(request: Request) -> int:
    size = sum([len(chunk) async for chunk in request.stream()])
    await request.body()
    return size
