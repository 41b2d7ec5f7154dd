"""Conduit: a small RealWorld-style API (users, articles, comments) that uses what a FastAPI
app uses, the hasten way. The guide from FastAPI is docs/from-fastapi.md.

Serve it with ``hasten run examples.conduit:app`` and open http://127.0.0.1:8000/docs: sign
up with ``POST /users``, then "Authorize" with that username and password (the OAuth2
password form of ``POST /users/login``). Everything lives in memory, in a ``Store`` created
when the app starts and closed when it stops (an app-scoped dependency).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, Literal

import msgspec

from hasten import (
    App,
    BackgroundTasks,
    Cookie,
    Depends,
    EventSourceResponse,
    Header,
    HTTPError,
    JSONResponse,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
    Path,
    Query,
    Request,
    RequestValidationError,
    Response,
    Router,
    ServerSentEvent,
    UploadFile,
    WebSocket,
)
from hasten.middleware import CORSMiddleware

Username = Annotated[str, msgspec.Meta(min_length=3, max_length=30, pattern="^[a-z0-9_]+$")]
Password = Annotated[str, msgspec.Meta(min_length=8, max_length=100)]
Slug = Annotated[str, Path(pattern="^[a-z0-9-]+$", max_length=80, description="The article.")]
Text = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]


# Models: what goes over the wire. RealWorld wraps each in a member named after it.
class NewUser(msgspec.Struct, forbid_unknown_fields=True):
    username: Username
    email: Annotated[str, msgspec.Meta(pattern="^[^@ ]+@[^@ ]+$", max_length=100)]
    password: Password


class Registration(msgspec.Struct, forbid_unknown_fields=True):
    """A new account."""

    user: NewUser


class UserInDB(msgspec.Struct):
    """An account as the store holds it: the password hash never leaves (see User)."""

    username: str
    email: str
    password_hash: str
    bio: str = ""
    image: str | None = None


class User(msgspec.Struct):
    """An account as clients see it."""

    username: str
    email: str
    bio: str
    image: str | None


class UserEnvelope(msgspec.Struct):
    user: User


class Token(msgspec.Struct):
    """What the OAuth2 password flow answers."""

    access_token: str
    token_type: str = "bearer"


class NewArticle(msgspec.Struct, forbid_unknown_fields=True):
    title: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    body: Text
    tags: Annotated[list[Annotated[str, msgspec.Meta(max_length=20)]], msgspec.Meta(max_length=5)]


class ArticleInput(msgspec.Struct, forbid_unknown_fields=True):
    """An article to publish."""

    article: NewArticle


class Article(msgspec.Struct):
    """A published article."""

    slug: str
    title: str
    body: str
    tags: list[str]
    author: str
    created: float


class ArticleEnvelope(msgspec.Struct):
    article: Article


class ArticleList(msgspec.Struct):
    articles: list[Article]
    count: int


class Comment(msgspec.Struct):
    id: int
    body: str
    author: str


class Errors(msgspec.Struct):
    body: list[str]


class ErrorBody(msgspec.Struct):
    """RealWorld's error shape: ``{"errors": {"body": ["..."]}}``."""

    errors: Errors


class Store:
    """The in-memory database: one per running app."""

    def __init__(self) -> None:
        self.users: dict[str, UserInDB] = {}
        self.tokens: dict[str, str] = {}  # token -> username
        self.articles: dict[str, Article] = {}
        self.comments: dict[str, list[Comment]] = {}
        self.outbox: list[str] = []  # mails "sent" by background tasks
        self.closed = False

    def close(self) -> None:
        self.closed = True


def password_hash(password: str) -> str:
    # An example only: a real app uses a slow hash (argon2, bcrypt, scrypt) with a salt.
    return hashlib.sha256(password.encode()).hexdigest()


def slugify(title: str) -> str:
    words = "".join(c if c.isascii() and c.isalnum() else " " for c in title.lower()).split()
    return "-".join(words)[:60] or "article"


# Errors in RealWorld's shape, for every error hasten or a handler raises.
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 413, 415, 422)
}


def error_body(*messages: str) -> dict[str, Any]:
    return {"errors": {"body": list(messages)}}


async def http_error(request: Request, exc: HTTPError) -> JSONResponse:
    return JSONResponse(error_body(str(exc.detail)), exc.status, exc.headers)


async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    messages = [".".join(map(str, e["loc"])) + ": " + e["msg"] for e in exc.errors()]
    return JSONResponse(error_body(*messages), 422)


# Dependencies.
async def open_store() -> AsyncIterator[Store]:
    """The store: created when the app starts, closed when it stops (scope="app")."""
    store = Store()
    yield store
    store.close()


StoreDep = Annotated[Store, Depends(open_store, scope="app")]
oauth2 = OAuth2PasswordBearer(tokenUrl="/users/login")


async def current_user(token: Annotated[str, Depends(oauth2)], store: StoreDep) -> UserInDB:
    username = store.tokens.get(token)
    if username is None:
        raise HTTPError(401, "Invalid token", {"WWW-Authenticate": "Bearer"})
    return store.users[username]


CurrentUser = Annotated[UserInDB, Depends(current_user)]


def welcome(store: Store, email: str) -> None:
    store.outbox.append(f"Welcome to Conduit, {email}")


app = App(
    title="Conduit",
    version="1.0.0",
    description="A RealWorld-style API: users, articles and comments, in memory.",
    openapi_tags=[
        {"name": "users", "description": "Sign up, log in, and your own account."},
        {"name": "articles", "description": "What users write."},
    ],
    exception_handlers={HTTPError: http_error, RequestValidationError: invalid},
)
app.add_middleware(
    CORSMiddleware,
    allow_origins=["https://conduit.example.com"],
    allow_methods=["*"],
    allow_headers=["authorization", "content-type"],
)


@app.middleware
async def request_id(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Echo the client's X-Request-Id, so that its logs and ours can be matched."""
    response = await call_next(request)
    given = request.headers.get("x-request-id")
    if given is not None:
        response.headers["x-request-id"] = given[:64]
    return response


users = Router(tags=["users"])
# Every route of /user needs a signed-in user; handlers that take CurrentUser share its value.
account = Router(prefix="/user", tags=["users"], dependencies=[Depends(current_user)])
articles = Router(prefix="/articles", tags=["articles"])


@users.post("/users", status=201, summary="Sign up", response_model=UserEnvelope, responses=ERRORS)
async def register(body: Registration, store: StoreDep, tasks: BackgroundTasks) -> dict[str, Any]:
    """Create an account; a welcome mail goes out after the response."""
    new = body.user
    if new.username in store.users:
        raise HTTPError(409, f"Username {new.username} is taken")
    user = store.users[new.username] = UserInDB(
        new.username, new.email, password_hash(new.password)
    )
    tasks.add_task(welcome, store, new.email)
    return {"user": user}  # filtered by UserEnvelope: no password_hash


@users.post("/users/login", summary="Log in", responses=ERRORS)
async def login(form: Annotated[OAuth2PasswordRequestForm, Depends()], store: StoreDep) -> Token:
    """OAuth2's password flow: a form with the username and password gives a bearer token."""
    user = store.users.get(form.username)
    if user is None or not secrets.compare_digest(user.password_hash, password_hash(form.password)):
        raise HTTPError(400, "Incorrect username or password")
    token = secrets.token_urlsafe(16)
    store.tokens[token] = user.username
    return Token(token)


@users.get("/user", summary="Who I am", response_model=UserEnvelope, responses=ERRORS)
async def me(user: CurrentUser) -> dict[str, Any]:
    return {"user": user}


@account.put("/image", summary="Upload my picture", response_model=UserEnvelope, responses=ERRORS)
async def upload_image(user: CurrentUser, image: UploadFile) -> dict[str, Any]:
    """A picture for the profile (kept as its digest: the store holds no files)."""
    data = await image.read()
    user.image = f"/images/{hashlib.sha256(data).hexdigest()[:16]}"
    return {"user": user}


@app.get("/articles", tags=["articles"], summary="List articles", responses=ERRORS)
async def list_articles(
    store: StoreDep,
    author: Annotated[str | None, Query(max_length=30)] = None,
    tag: Annotated[str | None, Query(max_length=20)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=10_000)] = 0,
) -> ArticleList:
    """Newest first, filtered by author or tag, a page at a time."""
    found = [
        article
        for article in reversed(store.articles.values())
        if (author is None or article.author == author) and (tag is None or tag in article.tags)
    ]
    return ArticleList(found[offset : offset + limit], len(found))


@app.post(
    "/articles", tags=["articles"], status=201, summary="Publish an article", responses=ERRORS
)
async def publish(body: ArticleInput, user: CurrentUser, store: StoreDep) -> ArticleEnvelope:
    new = body.article
    slug = base = slugify(new.title)
    number = 1
    while slug in store.articles:
        number += 1
        slug = f"{base}-{number}"
    article = Article(slug, new.title, new.body, new.tags, user.username, time.time())
    store.articles[slug] = article
    store.comments[slug] = []
    return ArticleEnvelope(article)


def find(store: Store, slug: str) -> Article:
    article = store.articles.get(slug)
    if article is None:
        raise HTTPError(404, f"Article {slug} not found")
    return article


@app.get("/feed", tags=["articles"], summary="Follow new articles", responses=ERRORS)
async def feed(
    store: StoreDep,
    last_event_id: Annotated[int, Header(ge=0, le=1_000_000)] = 0,
) -> EventSourceResponse:
    """Server-Sent Events: each article published so far after ``Last-Event-ID``, then the
    stream ends (a browser's EventSource reconnects, sending the last id it saw)."""
    published = list(store.articles.values())[last_event_id:]

    async def events() -> AsyncIterator[ServerSentEvent]:
        for number, article in enumerate(published, start=last_event_id + 1):
            yield ServerSentEvent(article, id=str(number), event="article")

    return EventSourceResponse(events(), ping=None)


@articles.get("/{slug}", summary="Read an article", responses=ERRORS)
async def read_article(
    slug: Slug,
    store: StoreDep,
    lang: Annotated[Literal["en", "fr"], Cookie()] = "en",
) -> ArticleEnvelope:
    """One article; the ``lang`` cookie would pick a translation (there is only English)."""
    return ArticleEnvelope(find(store, slug))


@articles.delete("/{slug}", status=204, summary="Delete an article", responses=ERRORS)
async def delete_article(slug: Slug, user: CurrentUser, store: StoreDep) -> None:
    article = find(store, slug)
    if article.author != user.username:
        raise HTTPError(403, "Only its author may delete an article")
    del store.articles[slug]


@articles.get("/{slug}/comments", summary="Read the comments", responses=ERRORS)
async def comments(slug: Slug, store: StoreDep) -> list[Comment]:
    find(store, slug)
    return store.comments[slug]


@articles.websocket("/{slug}/live")
async def live(
    websocket: WebSocket, slug: Slug, token: Annotated[str, Query()], store: StoreDep
) -> None:
    """Comment live: each text received is posted as a comment and sent back as JSON. The
    token goes in the query string, as browsers cannot set headers on a WebSocket."""
    username = store.tokens.get(token)
    if username is None:
        raise HTTPError(403, "Invalid token")  # before accept(): the handshake is refused
    find(store, slug)
    await websocket.accept()
    async for text in websocket.iter_text():
        thread = store.comments[slug]
        comment = Comment(len(thread) + 1, text, username)
        thread.append(comment)
        await websocket.send_json(comment)


app.include(users)
app.include(account)
app.include(articles)
