"""The app the bench tests load: a plain route, a path parameter, a body echo, a route that
counts its requests (read with /count), and one that spends its time computing, for profiles."""

from __future__ import annotations

from collections import Counter

from hasten import App, Request, Response

app = App()
hits: Counter[str] = Counter()


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/items/{item_id}")
async def item(item_id: int) -> dict[str, int]:
    return {"id": item_id}


@app.post("/echo")
async def echo(request: Request) -> Response:
    return Response(await request.body(), media_type="application/octet-stream")


@app.get("/counted")
async def counted() -> dict[str, int]:
    hits["counted"] += 1
    return {"count": hits["counted"]}


@app.get("/count")
async def count() -> dict[str, int]:
    return {"count": hits["counted"]}


@app.get("/spin")
async def spin() -> dict[str, int]:
    return {"sum": sum(number * number for number in range(20_000))}
