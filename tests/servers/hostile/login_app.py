"""An app that refuses a WebSocket login with a close code of its own (4001, as real apps do),
and an HTTP-only app: what ``hasten run`` serves each over when no interface is asked for."""

from __future__ import annotations

from hasten import App, WebSocket

app = App()
http_only = App()


@app.get("/hello")
@http_only.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.websocket("/login")
async def login(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.close(4001, "bad token")
