"""Headers and query parameters: case-insensitive, multi-valued, read-mostly; and the other
data structures Starlette's and FastAPI's modules of that name hold (``UploadFile``,
``Default``)."""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any, NamedTuple, Self, TypeVar, overload
from urllib.parse import SplitResult, unquote_plus, urlencode, urlsplit, urlunsplit

from hasten._http.errors import HTTPError
from hasten._http.hosts import authority, host_port

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
    "parse_query",
]

T = TypeVar("T")


class Address(NamedTuple):
    """The client's host and port."""

    host: str
    port: int


class Headers(Mapping[str, str]):
    """HTTP headers, as Starlette's: names are case-insensitive, ``headers["a"]`` is the first
    value, ``getlist`` every one; ``keys()``, ``values()``, ``items()`` and iteration list every
    pair in order (a name sent twice is there twice), ``raw`` as bytes.

    ``Headers({"a": "1"})``, ``Headers(raw=[(b"a", b"1")])`` or ``Headers(scope=scope)`` (an
    ASGI scope's or message's ``headers``); hasten itself passes its list of (name, value)
    text pairs, names lower-cased, as they are kept.
    """

    __slots__ = ("_items", "_lookup")

    def __init__(
        self,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        raw: Iterable[tuple[bytes, bytes]] | None = None,
        scope: Mapping[str, Any] | None = None,
    ) -> None:
        # perf: hasten's own form, a list of text pairs, is kept as it is.
        if type(headers) is list:
            self._items: list[tuple[str, str]] = headers
        elif isinstance(headers, Mapping):
            self._items = [(name.lower(), value) for name, value in headers.items()]
        elif headers is not None:  # pairs of text, as a server hands them over
            self._items = list(headers)
        elif raw is not None:
            self._items = _text(raw)
        elif scope is not None:
            self._items = _text(scope["headers"])
        else:
            self._items = []
        self._lookup: dict[str, str] | None = None

    def _index(self) -> dict[str, str]:
        if self._lookup is None:
            lookup: dict[str, str] = {}
            for name, value in self._items:
                lookup.setdefault(name, value)
            self._lookup = lookup
        return self._lookup

    def __getitem__(self, name: str) -> str:
        return self._index()[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index()

    @overload
    def get(self, name: str) -> str | None: ...

    @overload
    def get(self, name: str, default: str) -> str: ...

    @overload
    def get(self, name: str, default: T) -> str | T: ...

    def get(self, name: str, default: Any = None) -> Any:
        # perf: Mapping.get goes through __getitem__ and a KeyError for a missing name.
        return self._index().get(name.lower(), default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[str]:  # type: ignore[override]
        """Every name, in order, once per value."""
        return [name for name, _ in self._items]

    def values(self) -> list[str]:  # type: ignore[override]
        """Every value, in order."""
        return [value for _, value in self._items]

    def items(self) -> list[tuple[str, str]]:  # type: ignore[override]
        """Every (name, value) pair, in order."""
        return list(self._items)

    def get_all(self, name: str) -> list[str]:
        """Every value sent for ``name``, in order."""
        name = name.lower()
        return [value for key, value in self._items if key == name]

    getlist = get_all  # Starlette's name

    @property
    def raw(self) -> list[tuple[bytes, bytes]]:
        """The pairs as the ASGI scope carries them: bytes, names lower-cased."""
        return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in self._items]

    def mutablecopy(self) -> MutableHeaders:
        """A MutableHeaders with these pairs."""
        return MutableHeaders(list(self._items))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Headers) and sorted(self._items) == sorted(other._items)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        name = type(self).__name__
        as_dict = dict(self._items)
        if len(as_dict) == len(self._items):
            return f"{name}({as_dict!r})"
        return f"{name}(raw={self.raw!r})"


def _text(raw: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in raw]


class MutableHeaders(Headers):
    """Response headers: set, append and delete by case-insensitive name. A name or value
    with CR, LF or NUL raises ValueError as it is set (the wire cannot carry it).

    ``MutableHeaders(scope=message)`` changes the ``headers`` of that ASGI scope or message
    as it is changed (Starlette's way for an ASGI middleware to add a response header)."""

    __slots__ = ()

    def __new__(
        cls, *args: Any, scope: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> MutableHeaders:
        return object.__new__(_ScopeHeaders if scope is not None else cls)

    def __setitem__(self, name: str, value: str) -> None:
        # perf: ``check_header``'s first step written out: its call only for the rare rest.
        if not (name.isprintable() and value.isprintable()):
            check_header(name, value)
        name = name.lower()
        items = self._items
        # perf: the usual header is new; ``_replace``'s frame only for one that is not.
        for item in items:
            if item[0] == name:
                self._replace(name, value)
                break
        else:
            items.append((name, value))
        self._lookup = None

    def _replace(self, name: str, value: str) -> None:
        """``value`` in place of ``name``'s first, its others dropped (as Starlette's)."""
        items = self._items
        first = next(index for index, item in enumerate(items) if item[0] == name)
        self._remove(name)
        items.insert(first, (name, value))

    def __delitem__(self, name: str) -> None:
        name = name.lower()
        if not self._remove(name):
            raise KeyError(name)
        self._lookup = None

    def _remove(self, name: str) -> bool:
        """Drop every value of ``name`` in place; True if there was one."""
        # perf: a loop in place, not a comprehension: a middleware sets headers per request.
        items = self._items
        found = False
        for index in range(len(items) - 1, -1, -1):
            if items[index][0] == name:
                del items[index]
                found = True
        return found

    def append(self, name: str, value: str) -> None:
        """Add a value without replacing earlier ones (e.g. a second ``set-cookie``)."""
        if not (name.isprintable() and value.isprintable()):  # perf: as in __setitem__
            check_header(name, value)
        self._items.append((name.lower(), value))
        self._lookup = None

    def setdefault(self, name: str, value: str) -> str:
        """Set ``name`` unless it is present; return its value."""
        existing = self.get(name)
        if existing is not None:
            return existing
        self.append(name, value)
        return value

    def update(self, other: Mapping[str, str]) -> None:
        """Set each of ``other``'s headers (Starlette's)."""
        for name, value in other.items():
            self[name] = value

    def __ior__(self, other: Mapping[str, str]) -> Self:
        if not isinstance(other, Mapping):
            raise TypeError(f"Expected a mapping but got {type(other).__name__}")
        self.update(other)
        return self

    def __or__(self, other: Mapping[str, str]) -> MutableHeaders:
        if not isinstance(other, Mapping):
            raise TypeError(f"Expected a mapping but got {type(other).__name__}")
        merged = self.mutablecopy()
        merged.update(other)
        return merged

    def add_vary_header(self, vary: str) -> None:
        """Add ``vary`` to the Vary header's list (Starlette's)."""
        existing = self.get("vary")
        self["vary"] = vary if existing is None else ", ".join([existing, vary])


class _ScopeHeaders(MutableHeaders):
    """``MutableHeaders(scope=...)``: each change is written to the scope's ``headers``."""

    __slots__ = ("_scope",)

    def __init__(self, *, scope: MutableMapping[str, Any]) -> None:
        super().__init__(scope=scope)
        self._scope = scope
        scope["headers"] = self.raw

    def __setitem__(self, name: str, value: str) -> None:
        super().__setitem__(name, value)
        self._scope["headers"] = self.raw

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        self._scope["headers"] = self.raw

    def append(self, name: str, value: str) -> None:
        super().append(name, value)
        self._scope["headers"] = self.raw


def check_header(name: str, value: str) -> None:
    """Raise ValueError, naming the header, when its name or value holds CR, LF or NUL.

    A CR or LF would end the header line (a header injected, or the response split); no
    server sends one: Granian's RSGI drops the header without a word, uvicorn drops the
    connection. So it is refused where it is set, and the handler's error path answers.
    """
    # perf: one C call each for the usual header; the precise search only for the rest.
    if name.isprintable() and value.isprintable():
        return
    for part, text in (("name", name), ("value", value)):
        for character in ("\r", "\n", "\x00"):
            if character in text:
                raise ValueError(
                    f"Response header {name!r}: its {part} holds {character!r}, which no "
                    f"server can send (value {value!r})"
                )


def parse_query(query_string: str) -> list[tuple[str, str]]:
    """Split ``a=1&b=x+y`` into pairs, decoding only the parts that need it."""
    if "%" not in query_string and "+" not in query_string:
        # perf: nothing to decode (most queries): ``_decoded_pairs`` without its look at
        # each part for escapes (a loop of ``append``, which the interpreter specializes,
        # costs a tenth less than a comprehension slicing each partition); tests/
        # test_perf_copies.py holds the two equal.
        pairs: list[tuple[str, str]] = []
        for part in query_string.split("&"):
            if part:
                name, _, value = part.partition("=")
                pairs.append((name, value))
        return pairs
    return _decoded_pairs(query_string)


def _decoded_pairs(query_string: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for part in query_string.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        # perf: most names and values carry no escapes; unquote_plus costs ~0.5 us a call.
        if "%" in part or "+" in part:
            name, value = unquote_plus(name), unquote_plus(value)
        pairs.append((name, value))
    return pairs


V = TypeVar("V")


class ImmutableMultiDict(Mapping[str, V]):
    """Pairs in order, a name possibly given more than once: ``d["tag"]`` is the last value
    given (Starlette's rule), ``getlist`` every one, ``multi_items`` every pair.

    Made as Starlette's is: from another one, a mapping, a list of pairs, and keywords;
    hasten itself passes its list of pairs, kept as it is.
    """

    __slots__ = ("_last", "_pairs")

    def __init__(self, *args: Any, **kwargs: V) -> None:
        given = args[0] if args else []
        # perf: hasten's own form, a list of pairs, is kept as it is.
        if type(given) is list and not kwargs:
            pairs: list[tuple[str, V]] = given
        else:
            pairs = list(_pairs_of(given)) + list(kwargs.items())
        self._pairs = pairs
        self._last: dict[str, V] = dict(pairs)

    @classmethod
    def of_pairs(cls, pairs: list[tuple[str, V]]) -> Self:
        """One over ``pairs``, kept as they are (perf: without ``__init__``'s look at what it
        was given: a request's query is made so)."""
        made = cls.__new__(cls)
        made._pairs = pairs
        made._last = dict(pairs)
        return made

    def __getitem__(self, name: str) -> V:
        return self._last[name]

    def get(self, name: str, default: Any = None) -> Any:
        # perf: Mapping.get goes through __getitem__ and a KeyError for a missing name.
        return self._last.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._last)

    def __len__(self) -> int:
        return len(self._last)

    def __contains__(self, name: object) -> bool:
        return name in self._last

    def get_all(self, name: str) -> list[V]:
        """Every value given for ``name``, in order."""
        return [value for key, value in self._pairs if key == name]

    getlist = get_all  # Starlette's name

    def multi_items(self) -> list[tuple[str, V]]:
        """Every pair, in order."""
        return list(self._pairs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImmutableMultiDict):
            return False
        # As Starlette's: the same values for each key, in the same order; keys in any order.
        return sorted(self._pairs, key=_key) == sorted(other._pairs, key=_key)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._pairs!r})"


def _key(pair: tuple[str, Any]) -> str:
    return pair[0]


def _pairs_of(given: Any) -> Iterable[tuple[str, Any]]:
    if isinstance(given, ImmutableMultiDict):
        return given.multi_items()
    if isinstance(given, Mapping):
        return given.items()
    pairs: Iterable[tuple[str, Any]] = given  # pairs
    return pairs


class MultiDict(ImmutableMultiDict[V]):
    """A multi-dict that can change (Starlette's)."""

    __slots__ = ()

    def __setitem__(self, name: str, value: V) -> None:
        self.setlist(name, [value])

    def __delitem__(self, name: str) -> None:
        self._pairs = [pair for pair in self._pairs if pair[0] != name]
        del self._last[name]

    def pop(self, name: str, *default: Any) -> Any:
        self._pairs = [pair for pair in self._pairs if pair[0] != name]
        return self._last.pop(name, *default)

    def popitem(self) -> tuple[str, V]:
        name, value = self._last.popitem()
        self._pairs = [pair for pair in self._pairs if pair[0] != name]
        return name, value

    def poplist(self, name: str) -> list[V]:
        values = self.get_all(name)
        self.pop(name, None)
        return values

    def clear(self) -> None:
        self._pairs, self._last = [], {}

    def setdefault(self, name: str, default: Any = None) -> Any:
        if name not in self:
            self.append(name, default)
        return self[name]

    def setlist(self, name: str, values: list[V]) -> None:
        """``name``'s values, in place of the ones it had (none: it is removed)."""
        if not values:
            self.pop(name, None)
            return
        kept = [pair for pair in self._pairs if pair[0] != name]
        self._pairs = kept + [(name, value) for value in values]
        self._last[name] = values[-1]

    def append(self, name: str, value: V) -> None:
        self._pairs.append((name, value))
        self._last[name] = value

    def update(self, *args: Any, **kwargs: V) -> None:
        """Each name given replaces its values, as Starlette's."""
        given = MultiDict(*args, **kwargs)
        kept = [pair for pair in self._pairs if pair[0] not in given]
        self._pairs = kept + given.multi_items()
        self._last.update(given._last)


class QueryParams(ImmutableMultiDict[str]):
    """The query string's parameters (Starlette's ``QueryParams``): made from pairs, a
    mapping, or a query string (``QueryParams("a=1&a=2")``)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: str) -> None:
        given = args[0] if args else None
        if isinstance(given, bytes):
            given = given.decode("latin-1")
        if isinstance(given, str):
            super().__init__(parse_query(given), **kwargs)
        else:
            super().__init__(*args, **kwargs)

    def __str__(self) -> str:
        return urlencode(self._pairs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class URL(str):
    """A URL: the string itself, with its parts by Starlette's names (``url.path``).

    ``URL("https://example.org/a")``; as Starlette's, also ``URL(scope=scope)`` (the URL an
    ASGI scope was asked for) and ``URL(scheme="https", netloc="example.org", path="/a")``.
    """

    __slots__ = ()

    def __new__(
        cls, url: str = "", scope: Mapping[str, Any] | None = None, **components: str
    ) -> URL:
        if scope is not None:
            if url or components:
                raise ValueError("A URL is made of a string, a scope or components: one of them")
            url = _url_of_scope(scope)
        elif components:
            if url:
                raise ValueError("A URL is made of a string, a scope or components: one of them")
            url = urlunsplit(SplitResult("", "", "", "", "")._replace(**components))
        return super().__new__(cls, url)

    def __repr__(self) -> str:
        url = str.__str__(self)
        if self.password:  # not shown where the URL is logged
            parts = self._parts()
            hidden = parts.netloc.replace(f":{parts.password}@", ":********@", 1)
            url = urlunsplit(parts._replace(netloc=hidden))
        return f"{type(self).__name__}({url!r})"

    def _parts(self) -> SplitResult:
        return urlsplit(self)

    @property
    def scheme(self) -> str:
        return self._parts().scheme

    @property
    def netloc(self) -> str:
        return self._parts().netloc

    @property
    def hostname(self) -> str | None:
        return self._parts().hostname

    @property
    def port(self) -> int | None:
        return self._parts().port

    @property
    def username(self) -> str | None:
        return self._parts().username

    @property
    def password(self) -> str | None:
        return self._parts().password

    @property
    def path(self) -> str:
        return self._parts().path

    @property
    def query(self) -> str:
        return self._parts().query

    @property
    def fragment(self) -> str:
        return self._parts().fragment

    def replace(self, **parts: Any) -> URL:  # type: ignore[override]
        """This URL with some of its parts (``scheme``, ``netloc``, ``path``, ``query``,
        ``fragment``; or the netloc's ``username``, ``password``, ``hostname``, ``port``)
        replaced: ``request.url.replace(path="/login")``, as Starlette's."""
        current = self._parts()
        if parts.keys() & {"username", "password", "hostname", "port"}:
            parts["netloc"] = _netloc(
                parts.pop("username", current.username),
                parts.pop("password", current.password),
                parts.pop("hostname", current.hostname) or "",
                parts.pop("port", current.port),
            )
        return URL(urlunsplit(current._replace(**parts)))

    @property
    def is_secure(self) -> bool:
        return self.scheme in ("https", "wss")

    def include_query_params(self, **params: Any) -> URL:
        """This URL with ``params`` set in its query, each in place of the values it had."""
        query: MultiDict[str] = MultiDict(parse_query(self.query))
        query.update({str(name): str(value) for name, value in params.items()})
        return self.replace(query=urlencode(query.multi_items()))

    def replace_query_params(self, **params: Any) -> URL:
        """This URL with ``params`` as its whole query."""
        return self.replace(query=urlencode([(str(k), str(v)) for k, v in params.items()]))

    def remove_query_params(self, keys: str | Sequence[str]) -> URL:
        """This URL without ``keys`` in its query."""
        query: MultiDict[str] = MultiDict(parse_query(self.query))
        for key in [keys] if isinstance(keys, str) else keys:
            query.pop(key, None)
        return self.replace(query=urlencode(query.multi_items()))


def _netloc(username: str | None, password: str | None, host: str, port: int | None) -> str:
    netloc = authority(host, port)
    if username is None:
        return netloc
    return f"{username}{'' if password is None else ':' + password}@{netloc}"


def _not_an_authority(path: str) -> str:
    """``path``, its start never read as a host: a leading ``//`` encoded."""
    return "/%2F" + path[2:] if path.startswith("//") else path


def _url_of_scope(scope: Mapping[str, Any]) -> str:
    """The URL an ASGI scope was asked for: its Host header's authority where that is one,
    else its server's address; its path encoded so that no part of it reads as another."""
    scheme: str = scope.get("scheme", "http")
    path: str = scope["path"].replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
    query = scope.get("query_string", b"").decode("latin-1")
    host = next((value for key, value in scope["headers"] if key == b"host"), None)
    netloc = None
    if host is not None:
        with contextlib.suppress(HTTPError):  # not a host and port: the server's address
            host_port(host.decode("latin-1"))
            netloc = host.decode("latin-1")
    server = scope.get("server")
    if netloc is None and server is not None and server[1] is not None:  # not a Unix socket
        netloc = authority(server[0], server[1], scheme)
    if netloc is None:
        path = _not_an_authority(path)
        return f"{path}?{query}" if query else path
    return str(urlunsplit((scheme, netloc, path, query, "")))


class URLPath(str):
    """A route's path, as ``url_path_for`` gives it (Starlette's): a string, which
    ``make_absolute_url`` puts under a base URL."""

    __slots__ = ("host", "protocol")

    def __new__(cls, path: str, protocol: str = "", host: str = "") -> URLPath:
        # A backslash encoded, as a leading "//": a browser would read them as another host.
        return super().__new__(cls, _not_an_authority(path.replace("\\", "%5C")))

    def __init__(self, path: str, protocol: str = "", host: str = "") -> None:
        self.protocol = protocol  # "http" or "websocket": the scheme follows the base's
        self.host = host

    def make_absolute_url(self, base_url: str) -> URL:
        """This path under ``base_url`` (its scheme and host, its path as a prefix)."""
        base = URL(base_url)
        scheme = base.scheme
        if self.protocol == "http":
            scheme = "https" if base.is_secure else "http"
        elif self.protocol == "websocket":
            scheme = "wss" if base.is_secure else "ws"
        netloc = self.host or base.netloc
        return URL(urlunsplit((scheme, netloc, base.path.rstrip("/") + self, "", "")))


class State:
    """Attributes set freely: ``app.state.db = pool``, ``request.state.user = user``; also
    read and set by key (``state["db"]``), as Starlette's. ``State(values)`` keeps that very
    dict, so that what is set on it is set there."""

    def __init__(self, values: dict[str, Any] | None = None, /, **more: Any) -> None:
        if values is not None:
            self.__dict__ = values
        self.__dict__.update(more)

    def __getitem__(self, name: str) -> Any:
        return self.__dict__[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value

    def __delitem__(self, name: str) -> None:
        del self.__dict__[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dict__)

    def __len__(self) -> int:
        return len(self.__dict__)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"State has no attribute {name!r}; set it first")

    def __setattr__(self, name: str, value: Any) -> None:  # any name may be set
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        return f"State({self.__dict__!r})"


class DefaultPlaceholder:
    """A default that was not given but left as it is (FastAPI's ``Default(value)``): true and
    equal as its value is, so that code can tell "given" from "left at the default"."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DefaultPlaceholder) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Default({self.value!r})"


def Default(value: T) -> T:
    """``value``, marked as a default left as it is (see ``DefaultPlaceholder``)."""
    # Typed as the value, as FastAPI's, for the keywords it defaults.
    return typing.cast(T, DefaultPlaceholder(value))
