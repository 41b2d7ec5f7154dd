"""The app the hostile suite attacks: a few routes of each kind a client can reach.

Served as ``tests.servers.hostile.app:app`` by ``hasten run`` on Granian (RSGI, ASGI) and uvicorn;
``benchmarks/apps/fastapi_hostile.py`` is the same app in FastAPI, for the red-team table.
"""

from __future__ import annotations

import msgspec

from hasten import App, Header, Request

# Large enough for the bodies whose parsing is the attack (a million JSON keys).
MAX_BODY_SIZE = 16 * 1024 * 1024

app = App(max_body_size=MAX_BODY_SIZE)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/names/{name}")
async def name(name: str) -> dict[str, str]:
    return {"name": name}


@app.get("/items/{item_id}")
async def item(item_id: int) -> dict[str, int]:
    return {"id": item_id}


@app.get("/search")
async def search(q: str = "", limit: int = 10) -> dict[str, object]:
    return {"q": len(q), "limit": limit}


@app.get("/query")
async def query(request: Request) -> dict[str, int]:
    return {"parameters": len(request.query_params)}


@app.get("/agent")
async def agent(user_agent: str = Header("")) -> dict[str, str]:
    return {"agent": user_agent}


@app.get("/files/{path:path}")
async def files(path: str) -> dict[str, str]:
    return {"path": path}


class Order(msgspec.Struct):
    id: int
    name: str


@app.post("/orders", status=201)
async def create(order: Order) -> Order:
    return order


@app.post("/echo")
async def echo(request: Request) -> dict[str, str]:
    document = await request.json()
    return {"type": type(document).__name__}


@app.post("/count")
async def count(request: Request) -> dict[str, int]:
    return {"bytes": len(await request.body())}
