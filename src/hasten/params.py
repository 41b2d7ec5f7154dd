"""Parameter descriptions: where each argument of a handler comes from, and what it must be.

The public names; the code is in ``hasten._params.descriptions``."""

from hasten._params.descriptions import Parameter, defined_at, describe, describe_handler, unwrap
from hasten._params.markers import (
    MISSING,
    REQUEST_SOURCES,
    Body,
    Cookie,
    Dependency,
    Depends,
    File,
    Form,
    Header,
    Marker,
    MarkerOptions,
    Param,
    ParamTypes,
    Path,
    Query,
    Source,
)

__all__ = [
    "MISSING",
    "REQUEST_SOURCES",
    "Body",
    "Cookie",
    "Dependency",
    "Depends",
    "File",
    "Form",
    "Header",
    "Marker",
    "MarkerOptions",
    "Param",
    "ParamTypes",
    "Parameter",
    "Path",
    "Query",
    "Source",
    "defined_at",
    "describe",
    "describe_handler",
    "unwrap",
]
