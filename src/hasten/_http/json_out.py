"""JSON as FastAPI sends it: msgspec's encoding, with bytes sent as their UTF-8 text.

msgspec writes bytes as base64; FastAPI (its ``jsonable_encoder``, pydantic's JSON mode) writes
their text, so that a form's bytes sent back read as they were sent (``"foo"``, not ``"Zm9v"``).
msgspec cannot be told otherwise, so a result that may hold bytes is looked over before it is
encoded. Which routes' results may is decided once, at startup (``encoder_for``): where the
return annotation names bytes, where there is none (an unannotated handler), and where the
route reads bytes or files from the request and its annotation has ``Any`` parts
(``dict[str, Any]``), which could be them sent back; elsewhere an annotation's ``Any`` parts
are taken to hold no bytes, so that the usual JSON route pays nothing for a look (perf: a look
at a five-key dict costs a tenth of the request).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import math
import uuid
from collections.abc import Callable
from typing import Any, Final

import msgspec
import msgspec.inspect as mi

__all__ = [
    "encode_hook",
    "encode_json",
    "encode_msgspec",
    "encode_untyped",
    "encoder_for",
    "holds_bytes",
    "may_hold_bytes",
    "refuse_non_finite",
    "text_of_bytes",
]


def encode_hook(value: Any) -> Any:
    """What msgspec cannot encode by itself: a pydantic model, as its JSON-mode dump; a
    ``str`` subclass (a ``URL``), or what passes for a UUID (asyncpg's), as its text; an
    ``int`` or ``float`` subclass as its number; any other object as its attributes, as
    FastAPI's jsonable_encoder does (``vars``), less SQLAlchemy's state (``_sa_*``: a mapped
    instance sent as its columns)."""
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True)  # FastAPI's jsonable_encoder dumps by alias
    if isinstance(value, str | uuid.UUID):
        return str(value)
    if isinstance(value, int | float):  # a subclass (pydantic's ByteSize): the number itself
        return int(value) if isinstance(value, int) else float(value)
    if hasattr(value, "__dict__") and not callable(value) and not isinstance(value, type):
        return {
            key: item
            for key, item in vars(value).items()
            if not (isinstance(key, str) and key.startswith("_sa"))
        }
    raise NotImplementedError(f"Objects of type {type(value).__name__} are not JSON encodable")


# enc_hook is called only for what msgspec cannot encode itself (a pydantic model).
encode_msgspec: Final = msgspec.json.Encoder(enc_hook=encode_hook).encode
_BYTES: Final = (bytes, bytearray, memoryview)
# What holds no bytes, whatever its value: a look at a container's item types stops here.
_LEAVES: Final = frozenset(
    {
        str,
        int,
        float,
        bool,
        type(None),
        datetime.datetime,
        datetime.date,
        datetime.time,
        datetime.timedelta,
        uuid.UUID,
        decimal.Decimal,
    }
)
_BYTES_INFO: Final = (mi.BytesType, mi.ByteArrayType, mi.MemoryViewType)


def encode_untyped(value: Any) -> bytes:
    """A result with no declared type as JSON, as FastAPI sends one (``json.dumps`` with
    ``allow_nan=False``): a NaN or an infinity in it is an error (a 500), where msgspec would
    write ``null``; declared, it is sent as pydantic writes it (``null``)."""
    return refuse_non_finite(encode_json(value), value)


def refuse_non_finite(body: bytes, value: Any) -> bytes:
    """``body``, the JSON of ``value``, unless ``value`` holds a NaN or an infinity (which
    msgspec writes ``null``): then the ValueError ``json.dumps`` raises."""
    # perf: looked for only when the JSON holds a null, which a non-finite float became.
    if b"null" in body and _non_finite(value):
        raise ValueError("Out of range float values are not JSON compliant")
    return body


def _non_finite(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is dict:
        return any(map(_non_finite, value.values()))
    if kind in (list, tuple, set, frozenset):
        return any(map(_non_finite, value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_non_finite(getattr(value, field.name)) for field in dataclasses.fields(value))
    return False


def encode_json(value: Any) -> bytes:
    """``value`` as JSON, bytes anywhere in it as their text (see the module doc)."""
    if holds_bytes(value):
        value = text_of_bytes(
            msgspec.to_builtins(value, builtin_types=_BYTES, enc_hook=encode_hook)
        )
    return encode_msgspec(value)


def encoder_for(annotation: Any, reads_bytes: bool = False) -> Callable[[Any], bytes]:
    """The encoder of a route's results of ``annotation`` (see the module doc; ``reads_bytes``:
    the route reads bytes or files from the request): ``encode_json`` where they may hold
    bytes, msgspec's own elsewhere."""
    if annotation is Any:
        return encode_json
    return encode_json if may_hold_bytes(annotation, any_may=reads_bytes) else encode_msgspec


def holds_bytes(value: Any) -> bool:
    """Whether bytes are anywhere in ``value`` (a pydantic model dumps its own as text)."""
    kind = type(value)
    if kind in _LEAVES:
        return False
    if kind is dict:
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return _class_holds_bytes(kind)
    # perf: the usual container, of leaves only, is settled in C: no Python step per item.
    if set(map(type, items)) <= _LEAVES:
        return False
    return any(map(holds_bytes, items))


_CLASSES: dict[type, bool] = {}


def _class_holds_bytes(kind: type) -> bool:
    found = _CLASSES.get(kind)
    if found is None:
        found = _CLASSES[kind] = issubclass(kind, _BYTES) or may_hold_bytes(kind)
    return found


def may_hold_bytes(annotation: Any, *, any_may: bool = True) -> bool:
    """Whether a value of ``annotation`` may hold bytes: a type msgspec cannot describe may,
    and ``Any`` may where ``any_may``."""
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return True
    return _info_holds_bytes(info, set(), any_may)


def _info_holds_bytes(info: mi.Type, seen: set[int], any_may: bool) -> bool:
    if id(info) in seen:  # a type that holds itself: its other parts decide
        return False
    seen.add(id(info))
    if isinstance(info, mi.AnyType):
        return any_may
    if isinstance(info, _BYTES_INFO):
        return True
    if isinstance(info, mi.CustomType):  # a pydantic model dumps its bytes as text itself
        return not hasattr(info.cls, "model_dump")
    if isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType | mi.NamedTupleType):
        return any(_info_holds_bytes(field.type, seen, any_may) for field in info.fields)
    if isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        return _info_holds_bytes(info.item_type, seen, any_may)
    if isinstance(info, mi.TupleType):
        return any(_info_holds_bytes(item, seen, any_may) for item in info.item_types)
    if isinstance(info, mi.DictType):
        return _info_holds_bytes(info.key_type, seen, any_may) or _info_holds_bytes(
            info.value_type, seen, any_may
        )
    if isinstance(info, mi.UnionType):
        return any(_info_holds_bytes(member, seen, any_may) for member in info.types)
    return False


def text_of_bytes(value: Any) -> Any:
    """Builtins with every bytes value as its UTF-8 text, as FastAPI sends them (bytes that
    are not UTF-8 raise UnicodeDecodeError, a 500, as in FastAPI)."""
    if isinstance(value, _BYTES):
        return bytes(value).decode()
    if type(value) is dict:
        return {key: text_of_bytes(item) for key, item in value.items()}
    if type(value) is list:
        return [text_of_bytes(item) for item in value]
    return value
