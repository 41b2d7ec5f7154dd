"""``fastapi.param_functions``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import Body, Cookie, Depends, File, Form, Header, Path, Query, Security

__all__ = ["Body", "Cookie", "Depends", "File", "Form", "Header", "Path", "Query", "Security"]
