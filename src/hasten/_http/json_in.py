"""JSON bodies decoded within the app's limits: every failure that is the client's is a 400
that says what is wrong (413 past ``max_json_size``), and a value of the wrong shape is left to
the caller (a 422).

Decoding runs on the event loop and cannot be moved off it: msgspec holds the GIL while it
builds the document, so on a thread it holds every other request just the same (measured: a
million keys stall the loop 0.67 s from a thread, 0.5 s in place). What bounds the stall is the
size of what is decoded: ``max_json_size``.
"""

from __future__ import annotations

import functools
import gc
import re
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from hasten._http.errors import HTTPError

__all__ = ["JSONLimits", "MalformedJSON", "decode_json", "prepare_depth_check"]


class JSONLimits(Protocol):
    """The limits a JSON body is held to (a started app's ServeContext)."""

    @property
    def max_json_depth(self) -> int: ...

    @property
    def max_json_size(self) -> int: ...


class MalformedJSON(HTTPError):
    """A 400: the body is not JSON (msgspec's reason in the detail)."""

    def __init__(self, reason: str) -> None:
        super().__init__(400, f"Malformed JSON body: {reason}")


# A body this large may hold enough arrays and objects to start the garbage collector.
_UNCOLLECTED_PAST = 65_536
# A high surrogate escape that no low surrogate escape follows (msgspec says "truncated").
# Linear: the possessive run of escaped backslashes never backtracks.
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*+\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def decode_json(decode: Callable[[bytes], Any], body: bytes, limits: JSONLimits) -> Any:
    """``decode(body)``, held to ``limits``: a body over ``max_json_size`` is an
    HTTPError(413), one nested past ``max_json_depth`` or malformed an HTTPError(400).

    ``msgspec.ValidationError`` (valid JSON of the wrong shape) goes to the caller.
    """
    if len(body) > limits.max_json_size:
        raise HTTPError(413, f"JSON body exceeds {limits.max_json_size} bytes (max_json_size)")
    max_depth = limits.max_json_depth
    # perf: a document nested deeper than max_depth takes more than 2 * max_depth bytes, so
    # a small body (the usual one) costs one comparison.
    if len(body) > 2 * max_depth:
        if _deeper_than(body, max_depth):
            raise HTTPError(400, f"JSON body nested deeper than {max_depth} levels")
        if len(body) > _UNCOLLECTED_PAST:
            decode = functools.partial(_uncollected, decode)
    try:
        return decode(body)
    except msgspec.ValidationError:
        raise
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise MalformedJSON(_reason(exc, body)) from None


def _uncollected(decode: Callable[[bytes], Any], body: bytes) -> Any:
    """``decode(body)`` with the cyclic garbage collector paused: a large body of many small
    arrays otherwise starts collections of the whole heap as it is decoded, each as long as
    the app's heap is large (a 1 MiB body of empty arrays: 70 ms of CPU instead of 33 ms, in a
    test process's small heap). msgspec holds the GIL until it is done, so no other thread
    runs meanwhile; the new objects are looked at once, by the next collection."""
    if not gc.isenabled():  # the app's own choice
        return decode(body)
    gc.disable()
    try:
        return decode(body)
    finally:
        gc.enable()


def _deeper_than(body: bytes, limit: int) -> bool:
    """Whether ``body`` nests deeper than ``limit``, in time linear in its size."""
    # perf: counting brackets in C settles almost every body.
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    if _nested_at_most(limit).fullmatch(body):
        return False
    # Deeper, or not JSON at all (an unterminated string, an unclosed bracket): only a decode
    # tells which, and a body that is not JSON gets the decoder's own reason instead.
    try:
        _uncollected(msgspec.json.decode, body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return False
    except RecursionError:
        return True
    return True


def prepare_depth_check(limit: int) -> None:
    """Compile the depth check for ``limit`` (about 9 ms for 64 levels) at startup, rather
    than on the event loop when the first body that needs it comes."""
    _nested_at_most(limit)


@functools.lru_cache(maxsize=4)
def _nested_at_most(limit: int) -> re.Pattern[bytes]:
    """A pattern that a JSON text nested at most ``limit`` deep matches whole.

    Each level is the one below wrapped in a bracket pair; every repetition is possessive and
    every alternative starts with a different byte, so the match never backtracks: one pass
    over the body, whatever it holds (strings are skipped whole, so a bracket inside one is
    not counted; an unterminated string fails the match at its end).
    """
    string = rb'"(?:[^"\\]++|\\.)*+"'
    level = rb'(?:[^\[\]{}"]++|' + string + rb")*+"
    for _ in range(limit):
        level = rb'(?:[^\[\]{}"]++|' + string + rb"|[\[{]" + level + rb"[\]}])*+"
    return re.compile(level, re.DOTALL)


def _reason(exc: Exception, body: bytes) -> str:
    """Why ``body`` is not JSON: what the body itself shows first (decided from its bytes,
    never from the decoder's message, whose words change between msgspec's releases), else
    msgspec's own words."""
    try:
        body.decode()
    except UnicodeDecodeError:
        return "invalid UTF-8"
    if _LONE_SURROGATE.search(body):
        return "invalid surrogate escape"
    return str(exc)
