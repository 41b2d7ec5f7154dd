"""JSON bodies decoded within the app's limits: every failure that is the client's is a 400
that says what is wrong, and a value of the wrong shape is left to the caller (a 422)."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any

import msgspec

from .errors import HTTPError

__all__ = ["MalformedJSON", "decode_json"]


class MalformedJSON(HTTPError):
    """A 400: the body is not JSON (msgspec's reason in the detail)."""

    def __init__(self, reason: str) -> None:
        super().__init__(400, f"Malformed JSON body: {reason}")


# A JSON string, escapes and all: the brackets inside it do not nest anything.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# A high surrogate escape that no low surrogate escape follows (msgspec says "truncated").
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def decode_json(decode: Callable[[bytes], Any], body: bytes, max_depth: int) -> Any:
    """``decode(body)``, held to ``max_depth``; malformed JSON is an HTTPError(400).

    ``msgspec.ValidationError`` (valid JSON of the wrong shape) goes to the caller.
    """
    # perf: a document nested deeper than max_depth takes more than 2 * max_depth bytes, so
    # a small body (the usual one) costs one comparison.
    if len(body) > 2 * max_depth and _deeper_than(body, max_depth):
        raise HTTPError(400, f"JSON body nested deeper than {max_depth} levels")
    try:
        return decode(body)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError as exc:
        raise MalformedJSON(_reason(exc, body)) from None
    except UnicodeDecodeError:
        raise HTTPError(400, "Malformed JSON body: invalid UTF-8 in a string") from None
    except RecursionError:  # max_depth set past what the interpreter's stack allows
        raise HTTPError(400, "JSON body nested too deep to decode") from None


def _deeper_than(body: bytes, limit: int) -> bool:
    # perf: counting brackets in C settles almost every body; only one with more than
    # ``limit`` of them is measured, outside its strings, in one C-driven pass.
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def _reason(exc: msgspec.DecodeError, body: bytes) -> str:
    """msgspec's message, except where it misleads."""
    message = str(exc)
    if message == "Input data was truncated" and _LONE_SURROGATE.search(body):
        return "invalid surrogate escape"
    return message
