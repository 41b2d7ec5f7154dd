"""What every TFB implementation here shares, so that they differ only by framework: the
database address, the pool, the SQL, the rules for ``queries``/``count``, the extra fortune.

Every app reads World rows the same way: one prepared ``SELECT`` per row (asyncpg prepares each
statement once per connection and keeps it), the rows of one request pipelined on one
connection (``fetchmany``: one query per row, all sent before the first answer is read, which
is how TFB's own Granian implementation reads them); updates are one prepared ``UPDATE`` per
row, pipelined the same way (``executemany``), ids sorted so that concurrent updates cannot
deadlock.
"""

from __future__ import annotations

import os
import random
from typing import Any

import asyncpg

DEFAULT_DATABASE_URL = "postgresql://benchmarkdbuser:benchmarkdbpass@127.0.0.1:5432/hello_world"
# Connections per worker process, as TFB's own Granian implementation has them: on a 2-core
# machine that runs PostgreSQL, the server and the load generator at once, 2 workers x 4
# connections keep PostgreSQL as busy as its share of the cores allows (TFB_POOL_SIZE to try).
DEFAULT_POOL_SIZE = 4
MAX_QUERIES = 500
WORLD_ROWS = 10_000

READ_ROW = "SELECT id, randomnumber FROM world WHERE id = $1"
WRITE_ROW = "UPDATE world SET randomnumber = $2 WHERE id = $1"
ALL_WORLDS = "SELECT id, randomnumber FROM world"
ALL_FORTUNES = "SELECT id, message FROM fortune"
EXTRA_FORTUNE = (0, "Additional fortune added at request time.")


def database_url() -> str:
    """``DATABASE_URL``, or TFB's address on this machine."""
    return os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)


def pool_size() -> int:
    """``TFB_POOL_SIZE``: connections per worker process."""
    return int(os.environ.get("TFB_POOL_SIZE", DEFAULT_POOL_SIZE))


async def _keep_session(connection: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is: these apps change no session state, so
    asyncpg's reset (``RESET ALL`` and more, one round trip per request) has nothing to undo."""


async def create_pool() -> asyncpg.Pool:
    """The worker's pool: ``pool_size()`` connections, opened at once."""
    size = pool_size()
    return await asyncpg.create_pool(
        database_url(), min_size=size, max_size=size, reset=_keep_session
    )


async def world_cache(pool: asyncpg.Pool) -> dict[int, dict[str, int]]:
    """The cached-queries test's cache: every World row by id, read once per worker."""
    async with pool.acquire() as connection:
        rows = await connection.fetch(ALL_WORLDS)
    return {row[0]: {"id": row[0], "randomNumber": row[1]} for row in rows}


def clamp(value: str | None) -> int:
    """TFB's ``queries`` (and ``count``): a number from 1 to 500; missing or not a number: 1."""
    try:
        count = int(value)  # type: ignore[arg-type]  # None is "missing": TypeError below
    except (TypeError, ValueError):
        return 1
    return 1 if count < 1 else min(count, MAX_QUERIES)


def random_id() -> int:
    """A World id, 1 to 10,000."""
    return random.randint(1, WORLD_ROWS)


def random_ids(count: int) -> list[tuple[int]]:
    """``count`` distinct World ids, each as the one argument of ``READ_ROW``."""
    return [(row_id,) for row_id in random.sample(range(1, WORLD_ROWS + 1), count)]


def random_number() -> int:
    """A new randomNumber, 1 to 10,000."""
    return random.randint(1, WORLD_ROWS)


async def read_world(connection: Any) -> dict[str, int]:
    """One random row: ``{"id": ..., "randomNumber": ...}``."""
    row = await connection.fetchrow(READ_ROW, random_id())
    return {"id": row[0], "randomNumber": row[1]}


async def read_fortunes(connection: Any) -> list[Any]:
    """Every fortune and the one added at request time, sorted by message."""
    rows: list[Any] = await connection.fetch(ALL_FORTUNES)
    rows.append(EXTRA_FORTUNE)
    rows.sort(key=_message)
    return rows


def _message(fortune: Any) -> str:
    message: str = fortune[1]
    return message


async def read_worlds(connection: Any, ids: list[tuple[int]]) -> list[dict[str, int]]:
    """One query per id, pipelined: ``[{"id": ..., "randomNumber": ...}, ...]``."""
    rows = await connection.fetchmany(READ_ROW, ids)
    return [{"id": row[0], "randomNumber": row[1]} for row in rows]


async def update_worlds(connection: Any, count: int) -> list[dict[str, int]]:
    """Read ``count`` random rows (one query each), give each a new random number, write
    them back (one ``UPDATE`` each, in id order); the updated rows."""
    ids = random_ids(count)
    ids.sort()
    rows = await connection.fetchmany(READ_ROW, ids)
    worlds = []
    changes = []
    for row in rows:
        number = random_number()
        worlds.append({"id": row[0], "randomNumber": number})
        changes.append((row[0], number))
    await connection.executemany(WRITE_ROW, changes)
    return worlds
