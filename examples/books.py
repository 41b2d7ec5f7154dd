"""Books in a SQL database with SQLModel (pydantic models that are also SQLAlchemy tables):
docs/tutorial/sql.md. SQLite by default, in ./books.db; any database SQLAlchemy reaches by the
URL in BOOKS_DATABASE_URL.

    pip install sqlmodel
    hasten run examples.books:app
"""

import os
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated

from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from hasten import Depends, FastAPI, HTTPException, Query

DATABASE_URL = os.environ.get("BOOKS_DATABASE_URL", "sqlite:///books.db")
# One engine per process: `hasten run` imports the app in each worker. The handlers are plain
# defs, run on the thread pool, so a SQLite connection may serve another thread than its own.
engine = create_engine(DATABASE_URL, connect_args={"check_same_thread": False})


class BookBase(SQLModel):
    title: str = Field(min_length=1, max_length=200)
    author: str
    year: int | None = None


class Book(BookBase, table=True):  # the table
    id: int | None = Field(default=None, primary_key=True)


class BookCreate(BookBase):  # what a client sends: no id
    pass


class BookPublic(BookBase):  # what a client gets: the id, always
    id: int


def get_session() -> Iterator[Session]:
    with Session(engine) as session:
        yield session  # closed once the response is sent


SessionDep = Annotated[Session, Depends(get_session)]


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    SQLModel.metadata.create_all(engine)  # a real schema evolves by migrations: alembic
    yield
    engine.dispose()


app = FastAPI(title="Books", lifespan=lifespan)


@app.post("/books/", status_code=201, response_model=BookPublic)
def create_book(book: BookCreate, session: SessionDep) -> Book:
    row = Book.model_validate(book)
    session.add(row)
    session.commit()  # before the response: the client is told only what was kept
    session.refresh(row)
    return row


@app.get("/books/", response_model=list[BookPublic])
def list_books(
    session: SessionDep, offset: int = 0, limit: Annotated[int, Query(le=100)] = 100
) -> Sequence[Book]:
    return session.exec(select(Book).order_by(col(Book.id)).offset(offset).limit(limit)).all()


@app.get("/books/{book_id}", response_model=BookPublic)
def read_book(book_id: int, session: SessionDep) -> Book:
    book = session.get(Book, book_id)
    if book is None:
        raise HTTPException(status_code=404, detail="Book not found")
    return book


@app.delete("/books/{book_id}", status_code=204)
def delete_book(book_id: int, session: SessionDep) -> None:
    book = session.get(Book, book_id)
    if book is None:
        raise HTTPException(status_code=404, detail="Book not found")
    session.delete(book)
    session.commit()
