"""``fastapi.datastructures``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import FormData
from hasten.datastructures import (
    URL,
    Address,
    Default,
    DefaultPlaceholder,
    Headers,
    QueryParams,
    State,
    UploadFile,
)
from hasten.datastructures import (
    UploadFile as StarletteUploadFile,
)

__all__ = [
    "URL",
    "Address",
    "Default",
    "DefaultPlaceholder",
    "FormData",
    "Headers",
    "QueryParams",
    "StarletteUploadFile",
    "State",
    "UploadFile",
]
