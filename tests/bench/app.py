"""The app the bench tests load: a plain route, a path parameter, and a body echo."""

from __future__ import annotations

from hasten import App, Request, Response

app = App()


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/items/{item_id}")
async def item(item_id: int) -> dict[str, int]:
    return {"id": item_id}


@app.post("/echo")
async def echo(request: Request) -> Response:
    return Response(await request.body(), media_type="application/octet-stream")
