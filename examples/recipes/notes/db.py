"""The database: one engine for the process, made when the module is imported, and one session
per request, given by a ``yield`` dependency that closes it after the response."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Annotated

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase

from hasten import Depends

DATABASE_URL = os.environ.get("NOTES_DATABASE_URL", "sqlite+aiosqlite:///notes.db")

# `hasten run` imports the app in each worker process, so an engine made here (its pool, its
# threads) belongs to the worker that uses it.
engine = create_async_engine(DATABASE_URL)
sessions = async_sessionmaker(engine, expire_on_commit=False)


class Base(DeclarativeBase):
    """What every table's class derives from: its metadata is what alembic compares."""


async def get_session() -> AsyncIterator[AsyncSession]:
    async with sessions() as session:
        yield session  # a handler commits what it wants kept; the rest is rolled back on close


Session = Annotated[AsyncSession, Depends(get_session)]
