"""alembic's environment: the app's own URL and metadata, migrations run on its async driver."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from alembic.runtime.environment import NameFilterParentNames, NameFilterType
from sqlalchemy import Connection, pool
from sqlalchemy.ext.asyncio import create_async_engine

from examples.recipes.notes import models  # noqa: F401  (its tables join Base's metadata)
from examples.recipes.notes.db import DATABASE_URL, Base

if context.config.config_file_name is not None:
    fileConfig(context.config.config_file_name)
target_metadata = Base.metadata


def owned(name: str | None, kind: NameFilterType, parents: NameFilterParentNames) -> bool:
    """Only the app's own tables: in a database shared with other apps, autogenerate and
    ``alembic check`` leave theirs alone rather than offer to drop them."""
    return kind != "table" or name in target_metadata.tables


def run_offline() -> None:
    """``--sql``: the migrations as SQL to read or hand to a DBA, without a connection."""
    context.configure(url=DATABASE_URL, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def migrate(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, include_name=owned)
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    engine = create_async_engine(DATABASE_URL, poolclass=pool.NullPool)
    async with engine.connect() as connection:
        await connection.run_sync(migrate)
    await engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    asyncio.run(run_online())
