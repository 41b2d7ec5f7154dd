"""``starlette.datastructures``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import FormData
from hasten.concurrency import run_in_threadpool
from hasten.config import CommaSeparatedStrings, Secret
from hasten.datastructures import (
    URL,
    Address,
    Headers,
    ImmutableMultiDict,
    MultiDict,
    MutableHeaders,
    QueryParams,
    State,
    UploadFile,
)

__all__ = [
    "URL",
    "Address",
    "CommaSeparatedStrings",
    "FormData",
    "Headers",
    "ImmutableMultiDict",
    "MultiDict",
    "MutableHeaders",
    "QueryParams",
    "Secret",
    "State",
    "UploadFile",
    "run_in_threadpool",
]
