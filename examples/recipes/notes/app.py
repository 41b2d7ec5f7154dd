"""The notes API: each handler takes a session from the ``Session`` dependency."""

from __future__ import annotations

from typing import Annotated

import msgspec
from sqlalchemy import select

from examples.recipes.notes.db import Session, engine
from examples.recipes.notes.models import Note
from hasten import App, HTTPError, Query

app = App(title="Notes")


class NewNote(msgspec.Struct):
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class NoteOut(msgspec.Struct):
    id: int
    text: str


@app.post("/notes", status=201)
async def create_note(note: NewNote, session: Session) -> NoteOut:
    row = Note(text=note.text)
    session.add(row)
    await session.commit()  # before the response: the client is told only what was kept
    return NoteOut(id=row.id, text=row.text)


@app.get("/notes")
async def list_notes(
    session: Session, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> list[NoteOut]:
    rows = await session.scalars(select(Note).order_by(Note.id).limit(limit))
    return [NoteOut(id=row.id, text=row.text) for row in rows]


@app.get("/notes/{note_id}")
async def get_note(note_id: int, session: Session) -> NoteOut:
    row = await session.get(Note, note_id)
    if row is None:
        raise HTTPError(404, "Note not found")
    return NoteOut(id=row.id, text=row.text)


@app.on_shutdown
async def close_the_pool() -> None:
    await engine.dispose()
