"""A small FastAPI app, written as FastAPI's tutorial writes one. Its hasten twin is this file
with only the import lines rewritten (tests/migration/test_port.py): nothing else changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import (
    APIRouter,
    BackgroundTasks,
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    status,
)
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

app = FastAPI(title="Todos")


class TodoIn(BaseModel):
    title: str
    done: bool = False


class Todo(TodoIn):
    id: int
    owner_email: str = "ann@example.com"


class TodoPublic(BaseModel):
    id: int
    title: str
    done: bool


class TodoLocked(Exception):
    def __init__(self, todo_id: int) -> None:
        self.todo_id = todo_id


todos: dict[int, Todo] = {1: Todo(id=1, title="Port the app")}
log: list[str] = []
labels: list[str] = ["home"]


def get_todos() -> dict[int, Todo]:
    return todos


Store = Annotated[dict[int, Todo], Depends(get_todos)]


async def api_key(x_api_key: Annotated[str, Header()]) -> str:
    if x_api_key != "secret":
        raise HTTPException(401, "Bad API key")
    return x_api_key


@app.middleware("http")
async def name_the_app(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    response = await call_next(request)
    response.headers["x-app"] = "todos"
    return response


@app.exception_handler(TodoLocked)
async def locked(request: Request, exc: TodoLocked) -> JSONResponse:
    return JSONResponse({"detail": f"Todo {exc.todo_id} is locked"}, status_code=423)


@app.get("/todos")
async def list_todos(
    store: Store,
    done: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> list[TodoPublic]:
    found = [todo for todo in store.values() if done is None or todo.done == done]
    return [TodoPublic(id=t.id, title=t.title, done=t.done) for t in found[:limit]]


@app.get("/todos/{todo_id}", response_model=TodoPublic)
async def get_todo(todo_id: int, store: Store) -> Todo:
    if todo_id not in store:
        raise HTTPException(status_code=404, detail=f"Todo {todo_id} not found")
    return store[todo_id]


@app.post(
    "/todos",
    response_model=TodoPublic,
    status_code=status.HTTP_201_CREATED,
    dependencies=[Depends(api_key)],
)
async def create_todo(todo: TodoIn, store: Store, tasks: BackgroundTasks) -> Todo:
    number = max(store) + 1
    created = store[number] = Todo(id=number, **todo.model_dump())
    tasks.add_task(log.append, f"created {created.id}")
    return created


@app.put("/todos/{todo_id}/lock")
def lock(todo_id: int) -> None:
    raise TodoLocked(todo_id)


@app.get("/stats")
def stats(store: Store) -> dict[str, int]:
    return {"total": len(store), "done": sum(todo.done for todo in store.values())}


labels_router = APIRouter(prefix="/labels")


@labels_router.get("")
async def list_labels() -> list[str]:
    return labels


@labels_router.post("", status_code=201)
async def add_label(name: str) -> list[str]:
    if name in labels:
        raise HTTPException(status_code=status.HTTP_409_CONFLICT, detail=f"Label {name} exists")
    labels.append(name)
    return labels


app.include_router(labels_router, prefix="/v1", tags=["labels"])


class Profile(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    user_name: str
    bio: str | None = None
    image_url: str | None = None


@app.get("/profiles/{name}", response_model=Profile, response_model_exclude_unset=True)
async def get_profile(name: str, response: Response) -> Profile:
    response.headers["x-profile"] = name
    response.set_cookie("seen", name, httponly=True)
    if name == "new":
        response.status_code = status.HTTP_201_CREATED
    return Profile(user_name=name, bio="Ported")


@app.get("/welcome", response_class=HTMLResponse)
async def welcome() -> str:
    return "<h1>Todos</h1>"


@app.get("/old-todos")
async def old_todos() -> RedirectResponse:
    return RedirectResponse(url="/todos")


@app.get("/todos.jsonl")
async def todo_lines(store: Store) -> AsyncIterator[TodoPublic]:
    for todo in store.values():
        yield TodoPublic(id=todo.id, title=todo.title, done=todo.done)
