"""FastAPI's side of the red-team table: ``tests/servers/hostile/app.py``'s routes, as FastAPI's
tutorial writes them. Served by ``benchmarks/redteam.py`` on uvicorn, from .venv-peers."""

from __future__ import annotations

from fastapi import FastAPI, Header, Request
from pydantic import BaseModel

app = FastAPI()


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


class Order(BaseModel):
    id: int
    name: str


@app.post("/orders", status_code=201)
async def create(order: Order) -> Order:
    return order


@app.post("/echo")
async def echo(request: Request) -> dict[str, str]:
    document = await request.json()
    return {"type": type(document).__name__}


@app.post("/count")
async def count(request: Request) -> dict[str, int]:
    return {"bytes": len(await request.body())}
