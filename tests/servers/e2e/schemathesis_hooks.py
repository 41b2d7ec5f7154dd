"""Schemathesis hooks for the runs against ``examples.api`` and ``examples.conduit``: places
where what it sends cannot mean what it thinks it means, or where hasten's parsing is
stricter than any document can say, so its verdict would be about the wire, not the app.

Loaded by ``SCHEMATHESIS_HOOKS=tests.servers.e2e.schemathesis_hooks``.
"""

from __future__ import annotations

from typing import Any

import schemathesis

# Integral floats up to this size are exact, and read back as the same integer.
EXACT = 2**53


def integral(value: Any) -> Any:
    """``value`` with each integral float as an int: JSON Schema counts ``2.0`` as an
    integer, but hasten's JSON decoding is strict (msgspec reads ``2.0`` as a float, and a
    float is not an int). A gap of the core, reported; not one of the document."""
    if isinstance(value, float) and value.is_integer() and abs(value) < EXACT:
        return int(value)
    if isinstance(value, dict):
        return {key: integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral(item) for item in value]
    return value


@schemathesis.hook
def map_body(context: schemathesis.HookContext, body: Any) -> Any:
    return integral(body)


@schemathesis.hook
def filter_query(context: schemathesis.HookContext, query: Any) -> bool:
    # A single value for the array parameter ``tag`` goes on the wire as ``?tag=false``:
    # exactly a one-item list, which the schema allows; Schemathesis counts it as invalid.
    return not (isinstance(query, dict) and "tag" in query and not isinstance(query["tag"], list))


@schemathesis.hook
def filter_body(context: schemathesis.HookContext, body: Any) -> bool:
    # Raw bytes that are not UTF-8 get 400, as in FastAPI ("There was an error parsing the
    # body": its json.loads cannot decode them), whose document lists no 400 either: it is
    # the server's answer to bytes that are not text, not the operation's. Bytes that are
    # text but not JSON get FastAPI's documented 422, and stay in.
    if isinstance(body, bytes | bytearray):
        return _text(body)
    # A form body may hold fields the document does not name, and Schemathesis adds some,
    # named "" too: hasten's parser refuses a part named "" (400, "a part has no name"),
    # where FastAPI ignores it (200). A gap of hasten's forms, reported; not of the document.
    # Every part of a multipart body is text or bytes on the wire: a boolean or a number sent
    # as a file is the file "true" or "1", which a file field rightly accepts.
    scalars = isinstance(body, dict) and any(
        isinstance(value, bool | int | float) for value in body.values()
    )
    if scalars and _multipart(context):
        return False
    return not (isinstance(body, dict) and "" in body)


def _text(body: bytes | bytearray) -> bool:
    try:
        body.decode()
    except UnicodeDecodeError:
        return False
    return True


def _multipart(context: schemathesis.HookContext) -> bool:
    operation = context.operation
    media = [item.media_type for item in operation.body] if operation is not None else []
    return bool(media) and all(kind == "multipart/form-data" for kind in media)
