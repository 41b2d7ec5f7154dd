"""Connection: what an HTTP request and a WebSocket share, whichever protocol carried them."""

from __future__ import annotations

import re
from collections.abc import (
    Awaitable,
    Callable,
    ItemsView,
    Iterator,
    KeysView,
    Mapping,
    MutableMapping,
    ValuesView,
)
from contextvars import ContextVar
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, overload

import anyio

from hasten._flow.context import ServeContext
from hasten._flow.lifecycle import Cleanup
from hasten._http.background import BackgroundTasks
from hasten._http.datastructures import (
    URL,
    Address,
    Headers,
    QueryParams,
    State,
    URLPath,
    parse_query,
)
from hasten._http.errors import HTTPError
from hasten._http.hosts import origin_of
from hasten._http.scopes import ConnectionScope
from hasten._running.threads import sheltered

if TYPE_CHECKING:
    from hasten._flow.contracts import Target
    from hasten._http.responses import Response

__all__ = [
    "MOUNT_PATH",
    "NO_PATH_PARAMS",
    "Connection",
    "PathParams",
    "background_of",
    "cleanup_of",
    "guard_of",
    "mounting",
    "unhandled",
    "unwound",
]

PathParams = Mapping[str, Any]
_Message: TypeAlias = MutableMapping[str, Any]
ASGICallable: TypeAlias = Callable[
    [_Message, Callable[[], Awaitable[_Message]], Callable[[_Message], Awaitable[None]]],
    Awaitable[None],
]
_new = object.__new__
# perf: a route without parameters shares this one, instead of a new dict per request.
NO_PATH_PARAMS: PathParams = MappingProxyType({})


class Connection:
    """The scope of a request or WebSocket: path, query, headers, cookies, client, state.

    It holds the server's own objects (``scope``, and ``channel``: what the request's body or
    the socket's messages come through) and reads each part from them on first use, then keeps
    it. The protocol adapters subclass it to say where each part is in their server's objects;
    nothing else knows which protocol carried the connection.
    """

    # Parsed on first use, per connection: until then these class defaults stand.
    path_params: PathParams = NO_PATH_PARAMS
    _headers: Headers | None = None
    _query: QueryParams | None = None
    _cookies: dict[str, str] | None = None
    _state: State | None = None
    _forwarded: tuple[Address | None, str] | None = None
    _scope_view: ConnectionScope | None = None
    # What runs once the connection is answered (yield dependencies, background tasks,
    # uploaded files): set only where there is any; the serve step checks it.
    _cleanup: Cleanup | None = None
    # The Response a handler or dependency takes to set headers, cookies or the status on.
    _sub_response: Response | None = None
    _target: Target | None = None  # the route's, once matched
    # The status its response went out with (0 until one does), noted by the serve step for
    # observation (hasten._observing.observe).
    _status = 0
    # The first exception the app did not handle while serving it (a 500, a failed cleanup
    # or background task): the ASGI adapter raises it to the server once the response is
    # sent, as Starlette's ServerErrorMiddleware does (``unhandled``).
    _unhandled: BaseException | None = None
    # Starlette's ``Request(scope, receive)`` and ``WebSocket(scope, receive, send)`` in an ASGI
    # middleware, by the class asked for: the ASGI adapter, which sits above this layer,
    # registers how it makes one over an ASGI scope when it is imported (with the App, always).
    made_over_asgi: ClassVar[dict[type, Callable[..., Connection]]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if not args and type(kwargs.get("scope")) is dict:  # WebSocket(scope=..., ...)
            args, kwargs = (kwargs["scope"],), {k: v for k, v in kwargs.items() if k != "scope"}
        if args and type(args[0]) is dict and cls in Connection.made_over_asgi:
            connection = Connection.made_over_asgi[cls](*args, **kwargs)
            assert isinstance(connection, cls)
            return connection
        return object.__new__(cls)

    @overload
    def __init__(
        self,
        scope: ConnectionScope | MutableMapping[str, Any],
        /,
        *,
        receive: Any = None,
        send: Any = None,
    ) -> None: ...

    @overload
    def __init__(
        self,
        *,
        scope: ConnectionScope | MutableMapping[str, Any],
        receive: Any = None,
        send: Any = None,
    ) -> None: ...

    @overload
    def __init__(
        self,
        scope: ConnectionScope | MutableMapping[str, Any],
        receive: Any = None,
        send: Any = None,
        /,
    ) -> None:
        """An app's Request subclass over a request, as Starlette's: ``cls(request.scope,
        request.receive)`` (see ``Request.__init_subclass__``); or, in an ASGI middleware,
        ``Request(scope, receive)`` and ``WebSocket(scope, receive, send)`` over its ASGI
        scope (``made_over_asgi``)."""

    @overload
    def __init__(
        self, context: ServeContext, app: Any, scope: Any, channel: Any, method: str, path: str, /
    ) -> None: ...

    def __init__(  # noqa: PLR0917 - perf: made per request by the adapters, positionally
        self,
        context: Any = None,
        app: Any = None,
        scope: Any = None,
        channel: Any = None,
        method: str = "GET",
        path: str = "/",
        *,
        receive: Any = None,  # Starlette's keywords, for __new__ (over an ASGI scope)
        send: Any = None,
    ) -> None:
        if context is None or type(context) is dict:  # over an ASGI scope: __new__ made it
            return
        self.context = context
        self.app = app  # for the handler's own use (``request.app.state``), and url_for
        self.method = method  # a WebSocket's is its handshake's: GET
        self.path = path  # percent-decoded; what the app routes on, without the root path
        self._scope = scope
        self._channel = channel
        # perf: set, though None is the class default, so that the serve step reads them
        # as instance values (an attribute the instance lacks is looked up unspecialized,
        # about 120 instructions a read under 3.11).
        self._cleanup = None
        self._sub_response = None

    @property
    def query_string(self) -> str:
        """The query string as sent, without the ``?``."""
        return self._query_string()

    # The protocol adapters implement these.
    def _query_string(self) -> str:
        raise NotImplementedError

    def _raw_headers(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def _headers_of(self, items: list[tuple[str, str]]) -> Headers:
        """``headers`` made of the raw ones (an adapter may say more of them)."""
        return Headers(items)

    def _header(self, name: str) -> str | None:
        """The first value of one header (``name`` lower-case); an adapter whose server can
        look it up does so without building ``headers``."""
        return self.headers.get(name)

    def _app_header(self, name: str) -> str | None:
        """One header's first value, read for the app (a Header parameter): past
        ``max_headers`` a 431, as ``headers`` answers."""
        return self.headers.get(name)

    def _peer(self) -> Address | None:
        raise NotImplementedError

    def _asgi_scope(self) -> Mapping[str, Any]:
        """The ASGI scope: the server's under ASGI, one built from the server's under RSGI."""
        raise NotImplementedError

    def _scheme(self) -> str:
        raise NotImplementedError

    @property
    def client(self) -> Address | None:
        """The peer's address, when the server knows it (the original client's, behind a
        trusted proxy, with ``ProxyHeadersMiddleware``)."""
        if self._forwarded is not None:
            return self._forwarded[0]
        return self._peer()

    @property
    def scheme(self) -> str:
        """``http`` or ``https`` (``ws`` or ``wss`` for a WebSocket)."""
        if self._forwarded is not None:
            return self._forwarded[1]
        return self._scheme()

    def forwarded(self, client: Address | None, scheme: str, host: str | None) -> None:
        """Take the client, scheme and host a trusted proxy says the request came with."""
        self._forwarded = (client, scheme)
        if host is not None:
            items = [item for item in self.headers.items() if item[0] != "host"]
            items.append(("host", host))
            self._headers = Headers(items)

    @property
    def root_path(self) -> str:
        """The prefix the app is mounted under ('' when it is not); ``path`` comes after it."""
        return str(self.app.root_path)

    @property
    def scope(self) -> ConnectionScope:
        """The connection's ASGI scope, read-only (Starlette's ``request.scope``): built on
        first use under RSGI, from Granian's scope."""
        if self._scope_view is None:
            self._scope_view = ConnectionScope(self)
        return self._scope_view

    # What ASGI middleware put in the scope, under Starlette's names.
    @property
    def session(self) -> dict[str, Any]:
        """The session SessionMiddleware keeps (Starlette's ``request.session``)."""
        scope = self.scope
        assert "session" in scope, "SessionMiddleware must be installed to access request.session"
        session: dict[str, Any] = scope["session"]
        mark_accessed = getattr(session, "mark_accessed", None)  # another middleware's dict
        if mark_accessed is not None:
            mark_accessed()
        return session

    @property
    def auth(self) -> Any:
        """The credentials AuthenticationMiddleware found (Starlette's ``request.auth``)."""
        assert "auth" in self.scope, (
            "AuthenticationMiddleware must be installed to access request.auth"
        )
        return self.scope["auth"]

    @property
    def user(self) -> Any:
        """The user AuthenticationMiddleware found (Starlette's ``request.user``)."""
        assert "user" in self.scope, (
            "AuthenticationMiddleware must be installed to access request.user"
        )
        return self.scope["user"]

    # A connection reads as a mapping over its scope, as Starlette's HTTPConnection does
    # (``request["path"]``, ``request.get("endpoint")``): extensions read it so.
    def __getitem__(self, key: str) -> Any:
        return self.scope[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.scope)

    def __len__(self) -> int:
        return len(self.scope)

    def get(self, key: str, default: Any = None) -> Any:
        """``scope[key]``, or ``default``."""
        return self.scope.get(key, default)

    def keys(self) -> KeysView[str]:
        return self.scope.keys()

    def values(self) -> ValuesView[Any]:
        return self.scope.values()

    def items(self) -> ItemsView[str, Any]:
        return self.scope.items()

    # Mapping's equality would compare scopes: two connections are equal only when one.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @property
    def headers(self) -> Headers:
        """The request headers, looked up case-insensitively; more than ``max_headers`` of
        them is a 431."""
        if self._headers is None:
            items = self._raw_headers()
            limit = self.context.max_headers
            if len(items) > limit:
                raise HTTPError(431, f"The request has more than {limit} headers")
            self._headers = self._headers_of(items)
        return self._headers

    def _query_params(self) -> QueryParams:
        if self._query is None:
            query_string = self._query_string()
            limit = self.context.max_query_params
            # perf: a count in C rules out almost every query before any split.
            if query_string.count("&") >= limit and _parameters(query_string) > limit:
                raise HTTPError(414, f"The query string has more than {limit} parameters")
            self._query = QueryParams.of_pairs(parse_query(query_string))
        return self._query

    if TYPE_CHECKING:

        @property
        def query(self) -> QueryParams:
            """The parsed query string; more than ``max_query_params`` parameters is a 414."""

    else:
        # perf: the plans call ``_query_params`` themselves, as a method: reading a property
        # costs a call from C into an interpreter frame of its own (about 1,000
        # instructions).
        query = property(
            _query_params,
            doc="The parsed query string; more than ``max_query_params`` parameters is a 414.",
        )
    query_params = query  # Starlette's name for it

    @property
    def cookies(self) -> dict[str, str]:
        """Cookies from the ``Cookie`` header."""
        if self._cookies is None:
            self._cookies = _parse_cookies(self.headers.get_all("cookie"))
        return self._cookies

    @property
    def state(self) -> State:
        """Attributes for this connection only: ``request.state.user = user``; it starts
        with what the app's lifespan yielded (a copy of it), as Starlette's."""
        if self._state is None:
            self._state = State(**self.context.state)
        return self._state

    @property
    def url(self) -> URL:
        """The full URL as the client asked for it."""
        return self.url_with_path(self.path)

    def url_with_path(self, path: str) -> URL:
        """The full URL with ``path`` (under the root path) for the path, the query kept:
        where a redirect sends the client, as Starlette's."""
        query = self.query_string
        return URL(f"{self._origin()}{self.root_path}{path}{'?' if query else ''}{query}")

    @property
    def base_url(self) -> URL:
        """The URL of the app's root: where the app is mounted, with a ``/`` after it."""
        return URL(f"{self._origin()}{self.root_path}/")

    def url_for(self, name: str, /, **path_params: Any) -> URL:
        """The full URL of the app's route (or mount) called ``name``, its path parameters
        given (``Router.url_path_for``). In a mounted app, a name its app lacks is looked up
        from the app it is mounted in, as Starlette's routes from the outermost router
        (``url_for("admin:statics", path=...)``)."""
        if self.app is None:  # Starlette's Request(scope) in an ASGI app no app serves
            raise RuntimeError(
                "The `url_for` method can only be used inside a Starlette application or "
                "with a router."
            )
        try:
            path = self.app.url_path_for(name, **path_params)
        except LookupError:
            outer = mounting.get()
            if outer is None or outer is self:
                raise
            return outer.url_for(name, **path_params)
        if isinstance(path, URLPath) and (path.host or path.protocol == "websocket"):
            return path.make_absolute_url(self.base_url)  # another host, or ws:// (wss://)
        return URL(f"{self._origin()}{self.root_path.rstrip('/')}{path}")

    def _origin(self) -> str:
        host = self._header("host")
        return origin_of(self.scheme, host, None if host else self.scope.get("server"))

    def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]], outbound: Any
    ) -> Awaitable[None]:
        """Hand this connection to the ASGI ``app``, mounted at ``root_path``; its response
        goes out through ``outbound`` with ``headers`` added (what middleware set on it)."""
        raise NotImplementedError


def _parameters(query_string: str) -> int:
    parts = query_string.split("&")
    return len(parts) - parts.count("")


def _parse_cookies(headers: list[str]) -> dict[str, str]:
    """The cookies of Cookie headers, read as browsers send them and Starlette reads them:
    a pair without ``=`` is a value of the empty name, a quoted value is unquoted by Python's
    rules (``"Hello\\054 you"`` is ``Hello, you``, as ``set_cookie`` quotes it)."""
    cookies: dict[str, str] = {}
    for header in headers:
        for part in header.split(";"):
            name, sep, value = part.partition("=")
            if not sep:
                name, value = "", name
            name, value = name.strip(), value.strip()
            if name or value:
                cookies[name] = _unquoted(value)
    return cookies


# A backslash escape in a quoted cookie value: three octal digits (``\\054``), or any one
# character.
_COOKIE_ESCAPE = re.compile(r"\\(?:([0-3][0-7]{2})|(.))")


def _unquoted(value: str) -> str:
    """A cookie value as Python's ``http.cookies`` reads it: a quoted one without its quotes
    and escapes. One pass of a regular expression: ``http.cookies._unquote`` takes time
    quadratic in the backslashes before Python 3.11.10 (CVE-2024-7592)."""
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return value
    inner = value[1:-1]
    if "\\" not in inner:
        return inner
    return _COOKIE_ESCAPE.sub(_escaped, inner)


def _escaped(match: re.Match[str]) -> str:
    octal = match[1]
    return chr(int(octal, 8)) if octal else match[2]


# The connection a mount is handing to the app mounted there, while it does: a mounted
# hasten app serves it as part of it (one request, one span), not as a request of its own.
mounting: ContextVar[Connection | None] = ContextVar("hasten_mounting", default=None)

# The name of the catch-all path parameter of a mount's routes: what follows the prefix.
MOUNT_PATH = "mount_path"


async def unwound(connection: Connection, exc: BaseException) -> BaseException:
    """What a request that failed with ``exc`` raises: ``exc``, or what its yield
    dependencies made of it (no task nor generator is left after it). The generators run
    to their end even when the request is cancelled."""
    cleanup = connection._cleanup
    if cleanup is None:
        return exc
    return await sheltered(cleanup.unwind(exc), cleanup.guard)


def unhandled(connection: Connection, exc: BaseException | None) -> None:
    """Note ``exc``, which the app did not handle while serving ``connection``, unless one
    came before it (None: nothing failed)."""
    if exc is not None and connection._unhandled is None:
        connection._unhandled = exc


def guard_of(connection: Connection) -> anyio.CancelScope:
    """The request's guard, entered on first use: a cancel scope around its dependencies,
    shielded while their code after ``yield`` runs (``sheltered``), left when its cleanup
    ends (``Cleanup.after_response``). Only routes that need one enter it (see
    hasten._params.cleanup_guard); it is entered before their first dependency, in the
    request's task, so that the scopes a dependency holds across its ``yield`` nest inside
    it."""
    cleanup = cleanup_of(connection)
    guard = cleanup.guard
    if guard is None:
        guard = cleanup.guard = anyio.CancelScope()
        guard.__enter__()
    return guard


def background_of(connection: Connection) -> BackgroundTasks:
    """The connection's BackgroundTasks (a parameter's), made on first use."""
    cleanup = connection._cleanup
    if cleanup is None:
        cleanup = cleanup_of(connection)
    tasks = cleanup.tasks
    if tasks is None:
        # perf: ``BackgroundTasks()`` without its __init__'s frame.
        tasks = cleanup.tasks = _new(BackgroundTasks)
        tasks.tasks = []
    return tasks


def cleanup_of(connection: Connection) -> Cleanup:
    """The connection's Cleanup, made on first use."""
    cleanup = connection._cleanup
    if cleanup is None:
        # perf: made here only, without an __init__: its frame would cost more than the
        # rest of the making (a request with a yield dependency makes one).
        cleanup = connection._cleanup = _new(Cleanup)
        cleanup.threads = connection.context.threads
        cleanup.exits = []
        cleanup.tasks = None
        cleanup.form = None
        cleanup.guard = None
    return cleanup
