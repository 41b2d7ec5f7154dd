"""The notes API: each handler takes a session from the ``Session`` dependency."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from examples.recipes.notes.db import Session, engine
from examples.recipes.notes.models import Note
from hasten import FastAPI, HTTPException, Query


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    await engine.dispose()  # the pool's connections, closed with the app


app = FastAPI(title="Notes", lifespan=lifespan)


class NewNote(BaseModel):
    text: Annotated[str, Field(min_length=1, max_length=500)]


class NoteOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # read from a Note row's attributes

    id: int
    text: str


@app.post("/notes", status_code=201, response_model=NoteOut)
async def create_note(note: NewNote, session: Session) -> Note:
    row = Note(text=note.text)
    session.add(row)
    await session.commit()  # before the response: the client is told only what was kept
    return row


@app.get("/notes", response_model=list[NoteOut])
async def list_notes(
    session: Session, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> list[Note]:
    rows = await session.scalars(select(Note).order_by(Note.id).limit(limit))
    return list(rows)


@app.get("/notes/{note_id}", response_model=NoteOut)
async def get_note(note_id: int, session: Session) -> Note:
    row = await session.get(Note, note_id)
    if row is None:
        raise HTTPException(status_code=404, detail="Note not found")
    return row
