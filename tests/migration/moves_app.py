"""A FastAPI app written as FastAPI's users write it, with what moved badly before: field
aliases (``alias_generator=to_camel``), a path parameter in a router's prefix and one named
by ``Path(alias=)``, query and header parameter models, and a ``response: Response``
parameter. ``test_moves.py`` ports it with ``hasten._cli.port`` (imports only) and compares."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class CamelModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class CommentIn(CamelModel):
    body: str = Field(min_length=1)
    author_name: str


class Comment(CamelModel):
    id: int
    body: str
    author_name: str
    created_by_bot: bool = False


class Page(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(10, ge=1, le=50)
    offset: int = Field(0, ge=0)
    tags: list[str] = []


class Client(BaseModel):
    user_agent: str
    x_request_id: str | None = None


app = FastAPI()
comments: dict[str, list[Comment]] = {"hello": [Comment(id=1, body="First", author_name="ann")]}


def article_comments(slug: str) -> list[Comment]:
    found = comments.get(slug)
    if found is None:
        raise HTTPException(status_code=404, detail="Article not found")
    return found


Comments = Annotated[list[Comment], Depends(article_comments)]
router = APIRouter(prefix="/articles/{slug}/comments", tags=["comments"])


@router.get("", response_model=list[Comment])
async def list_comments(found: Comments, page: Annotated[Page, Query()]) -> list[Comment]:
    return found[page.offset : page.offset + page.limit]


@router.post("", response_model=Comment, status_code=201)
async def add_comment(
    slug: str, comment: CommentIn, found: Comments, response: Response
) -> Comment:
    made = Comment(id=len(found) + 1, body=comment.body, author_name=comment.author_name)
    found.append(made)
    response.headers["Location"] = f"/articles/{slug}/comments/{made.id}"
    response.set_cookie("last-comment", str(made.id))
    return made


@router.delete("/{commentId}", status_code=204)
async def delete_comment(
    found: Comments, comment_id: Annotated[int, Path(alias="commentId", ge=1)]
) -> None:
    for index, comment in enumerate(found):
        if comment.id == comment_id:
            del found[index]
            return
    raise HTTPException(status_code=404, detail="Comment not found")


app.include_router(router)


@app.get("/whoami")
async def whoami(client: Annotated[Client, Header()], response: Response) -> dict[str, str]:
    response.status_code = 203
    response.headers["x-seen"] = "1"
    return {"agent": client.user_agent, "request": client.x_request_id or "none"}
