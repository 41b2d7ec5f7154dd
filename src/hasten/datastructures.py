"""Headers and query parameters: case-insensitive, multi-valued, read-mostly; and the other
data structures Starlette's and FastAPI's modules of that name hold (``UploadFile``,
``Default``).

The public names; the code is in ``hasten._http.datastructures``, and
Starlette's ``UploadFile`` in ``hasten._http.uploads``."""

from hasten._http.datastructures import (
    URL,
    Address,
    Default,
    DefaultPlaceholder,
    Headers,
    ImmutableMultiDict,
    MultiDict,
    MutableHeaders,
    QueryParams,
    State,
    URLPath,
    parse_query,
)
from hasten._http.uploads import UploadFile

__all__ = [
    "URL",
    "Address",
    "Default",
    "DefaultPlaceholder",
    "Headers",
    "ImmutableMultiDict",
    "MultiDict",
    "MutableHeaders",
    "QueryParams",
    "State",
    "URLPath",
    "UploadFile",
    "parse_query",
]
