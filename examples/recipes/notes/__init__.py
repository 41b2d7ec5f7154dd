"""Notes in a database through SQLAlchemy 2's asyncio API: one engine per process, a session per
request (a ``yield`` dependency), the schema migrated by alembic (``migrations/``).

    NOTES_DATABASE_URL=sqlite+aiosqlite:///notes.db      # the default; postgresql+asyncpg://... too
    alembic -c examples/recipes/notes/alembic.ini upgrade head
    hasten run examples.recipes.notes.app:app
"""
