"""Settings from the environment (or a ``.env`` file) with pydantic-settings: read and checked once,
when the app starts, and given to handlers by a dependency that a test can override.

    SHOP_NAME="Corner shop" SHOP_ITEMS_PER_USER=10 hasten run examples.recipes.settings:app
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Annotated

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from hasten import Depends, FastAPI


class Settings(BaseSettings):
    """Each field is read from SHOP_<NAME> (any case), else .env, else its default."""

    model_config = SettingsConfigDict(env_prefix="SHOP_", env_file=".env", extra="ignore")

    name: str = "Shop"
    admin_email: str = "admin@example.com"
    items_per_user: Annotated[int, Field(ge=1)] = 50


@lru_cache
def get_settings() -> Settings:
    return Settings()


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    get_settings()  # a bad environment stops the start, with pydantic's message, not a request
    yield


app = FastAPI(lifespan=lifespan)


@app.get("/info")
async def info(settings: Annotated[Settings, Depends(get_settings)]) -> dict[str, object]:
    return {
        "name": settings.name,
        "admin_email": settings.admin_email,
        "items_per_user": settings.items_per_user,
    }
