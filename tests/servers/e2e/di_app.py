"""The e2e app of dependencies, forms and uploads: ``tests.servers.e2e.di_app:app``."""

import asyncio
import hashlib
from collections.abc import AsyncIterator
from typing import Annotated

from hasten import App, Depends, Form, UploadFile

app = App(max_body_size=8 * 1024 * 1024)
# Whether the client had the whole response when the cleanup of /after ran.
record: list[bool] = []
received: dict[str, asyncio.Event] = {}


def event() -> asyncio.Event:
    if "after" not in received:
        received["after"] = asyncio.Event()
    return received["after"]


async def waits_for_the_client() -> AsyncIterator[str]:
    event().clear()
    yield "body"
    # The client tells /received that it has the body; a cleanup that ran before the
    # response was sent would wait here in vain (the client would still be waiting for it).
    try:
        await asyncio.wait_for(event().wait(), 5)
        record.append(True)
    except TimeoutError:
        record.append(False)


@app.get("/ready")
async def ready() -> str:
    return "ready"


@app.get("/after")
async def after(body: Annotated[str, Depends(waits_for_the_client)]) -> str:
    return body


@app.get("/received")
async def got_it() -> str:
    event().set()
    return "ok"


@app.get("/record")
async def what_cleanup_saw() -> list[bool]:
    return record


@app.post("/upload")
async def upload(file: UploadFile, note: Annotated[str, Form()]) -> dict[str, object]:
    data = await file.read()
    return {
        "note": note,
        "filename": file.filename,
        "size": file.size,
        "sha256": hashlib.sha256(data).hexdigest(),
    }


@app.post("/form")
async def form(
    a: Annotated[str, Form()],
    b: Annotated[int, Form()],
    c: Annotated[float, Form()],
    d: Annotated[bool, Form()],
    e: Annotated[list[str], Form()],
) -> dict[str, object]:
    return {"a": a, "b": b, "c": c, "d": d, "e": e}
