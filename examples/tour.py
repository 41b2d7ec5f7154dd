"""hasten's tour, in FastAPI's words: save it as tour.py, then `hasten run tour:app`."""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated

import msgspec

from hasten import (
    APIRouter,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    Response,
    StreamingResponse,
)

USERS: dict[int, str] = {}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    USERS.update({1: "ada", 2: "grace"})  # at startup: open pools, load data
    yield
    USERS.clear()  # at shutdown: close them


# FastAPI is hasten's App, the same class: App(title=...) is the short form.
app = FastAPI(title="Tour", lifespan=lifespan)  # also debug=, max_body_size=1_048_576, ...


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}  # dict / list / model / dataclass -> JSON


@app.get("/items/{item_id}")  # the annotation gives the path value's type
async def item(item_id: int, q: str | None = None, limit: int = 10) -> dict[str, object]:
    return {"id": item_id, "q": q, "limit": limit}  # q and limit come from the query string


@app.get("/search")  # constraints hold wherever a value comes from
async def search(
    term: Annotated[str, Query(min_length=2)],
    size: Annotated[int, Query(ge=1, le=100)] = 10,
    user_agent: Annotated[str | None, Header()] = None,  # reads User-Agent
) -> dict[str, object]:
    return {"term": term, "size": size, "user_agent": user_agent}


@app.get("/typed/{n:int}")  # converters: str, int, float, uuid, path
async def typed(n: int) -> dict[str, int]:
    return {"n": n, "double": n * 2}


@app.get("/files/{path:path}")  # a JSON string, as in FastAPI
async def files(path: str) -> str:  # (plain text: response_class=PlainTextResponse)
    return f"file: {path}"


class Order(msgspec.Struct):  # or a pydantic BaseModel, a dataclass, a TypedDict
    id: int
    name: str
    tags: list[str] = []


@app.post("/orders", status_code=201)  # status=201 is hasten's short form
async def create(order: Order) -> Order:  # the model is the JSON body
    return order


@app.get("/wait")
def wait() -> dict[str, float]:  # a plain def runs on the app's thread pool
    time.sleep(0.05)
    return {"duration": 0.05}


@app.middleware("http")  # or @app.middleware
async def process_time(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    start = time.perf_counter()
    response = await call_next(request)
    response.headers["x-process-time"] = f"{time.perf_counter() - start:.6f}"
    return response


api = APIRouter(prefix="/api")  # APIRouter is hasten's Router


@api.get("/users/{user_id}")
async def user(user_id: int) -> dict[str, object]:
    if user_id not in USERS:  # HTTPException is hasten's HTTPError
        raise HTTPException(status_code=404, detail="No such user")
    return {"id": user_id, "name": USERS[user_id]}


app.include_router(api)  # app.include(api) for short


@app.get("/raw")
async def raw() -> Response:
    headers = {"x-custom": "1"}
    return Response(b"raw-body", status_code=202, media_type="text/plain", headers=headers)


@app.get("/tokens")  # also FileResponse, HTMLResponse, PlainTextResponse
async def tokens() -> StreamingResponse:
    async def generate() -> AsyncIterator[str]:
        for word in ("one", "two", "three"):
            yield word + "\n"

    return StreamingResponse(generate(), media_type="text/plain")
