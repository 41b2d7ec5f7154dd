"""``fastapi.params``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import Security
from hasten.errors import FastAPIDeprecationWarning
from hasten.params import Body, Cookie, Depends, File, Form, Header, Param, ParamTypes, Path, Query

__all__ = [
    "Body",
    "Cookie",
    "Depends",
    "FastAPIDeprecationWarning",
    "File",
    "Form",
    "Header",
    "Param",
    "ParamTypes",
    "Path",
    "Query",
    "Security",
]
