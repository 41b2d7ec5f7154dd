"""Plan: one handler's parameters and dependencies, compiled once into how a request is read.

A plan is built when the app starts, from the handler's parameter descriptions and those of
its dependencies (the route's, its routers' and the app's run first), with the app's overrides
applied. Per request it only executes, in FastAPI's order and with FastAPI's answers:

1. the body is read and decoded once (malformed JSON is a 422 at once);
2. each dependency, depth first, has its own dependencies solved, then its request values
   read (path, query, headers, cookies, then body); it is called if none of its values
   failed (once per request with ``use_cache``), its ``yield`` kept for after the response;
3. the handler's own values are read; if any value anywhere failed, one 422 names them all;
4. the handler is called, where it runs (loop, threads, processes, an executor).

With dependencies, the steps are written out for the tree as one coroutine when the app
starts (``_values.solver``). A handler without dependencies gets a fast form of the same steps
(one that reads only path, query, header and cookie values is called without a coroutine of
ours; one that reads a single path or query value reads it at once; a JSON body is decoded
straight into its type). tests/project/test_perf_copies.py holds each fast form equal to the solver.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from hasten._http.connection import background_of
from hasten._http.errors import HTTPError, RequestValidationError
from hasten._http.json_in import decode_json
from hasten._params.cleanup_guard import needs_guard
from hasten._params.dependencies import (
    ASYNC,
    ASYNC_GEN,
    ON_LOOP,
    SYNC,
    AppDependencies,
    SecurityScopes,
    call_kind,
    describe_dependency,
    generator_function,
    limited,
    read_now,
    with_scopes,
)
from hasten._params.descriptions import Parameter, describe_handler
from hasten._params.extractors import (
    UNDEFINED,
    BodyDecoder,
    BodyField,
    FormDecoder,
    FormField,
    ModelReader,
    Reader,
    ScalarReader,
    reader_for,
)
from hasten._params.markers import Dependency
from hasten._params.solver import (
    Quick,
    Solver,
    keyword_call,
    quick_of,
    the_connection,
    written_invoke,
    written_one_value,
    written_solver,
    written_values,
)

if TYPE_CHECKING:
    from hasten._http.connection import Connection
    from hasten._http.responses import Response

__all__ = ["Plan", "Run", "should_embed"]

# Calls the handler with its arguments (by keyword), where it runs: an awaitable of its
# result. For a handler on the event loop, the handler itself.
Run = Callable[..., Awaitable[Any]]
Invoke = Callable[[Any], Awaitable[Any]]

_SCALAR_SOURCES = ("path", "query", "header", "cookie")
_BODY_SOURCES = ("body", "form", "file")


class Node:
    """One dependant: the handler (``func`` None: the root), or one dependency."""

    __slots__ = (
        "app_value",
        "args",
        "bodies",
        "body_parameters",
        "cache_key",
        "children",
        "declared",
        "func",
        "kind",
        "name",
        "readers",
        "scope",
        "uses_scopes",
    )

    def __init__(self, func: Callable[..., Any] | None, name: str) -> None:
        self.func = func  # what is called: the dependency (its override), or a wrapper of it
        self.declared = func  # the dependency the handler or a dependency asks for
        self.name = name
        self.kind = ASYNC if func is None else call_kind(func)
        self.children: list[tuple[str | None, Node]] = []  # (argument, dependency)
        self.readers: list[Reader] = []  # path, query, header, cookie values, in that order
        self.body_parameters: list[Parameter] = []
        self.bodies: list[BodyField | FormField | ModelReader] = []  # see ``_bind_bodies``
        # Arguments hasten makes per request: (argument, what).
        self.args: list[tuple[str, Callable[[Connection], Any]]] = []
        self.cache_key: Any = None  # set where ``use_cache``
        self.scope = "request"
        # Whether the scopes asked above it change what it returns (see ``_uses_scopes``).
        self.uses_scopes = False
        # A scope="app" dependency: its value, made at startup.
        self.app_value: Callable[[], Any] | None = None


class _Builder:
    """Walks a handler's tree once, turning each dependant into a Node."""

    def __init__(
        self,
        path_types: dict[str, type],
        app: AppDependencies,
        label: str,
        threads: Executor | None,
    ) -> None:
        self.label = label
        self.path_types = path_types
        self.path_names = frozenset(path_types)
        self.app = app
        self.threads = threads
        self.body_parameters: list[Parameter] = []
        self.has_dependencies = False
        # Whether an async generator in the tree needs the request's guard (cleanup_guard).
        self.needs_guard = False

    def root(self, parameters: Sequence[Parameter], dependencies: Iterable[Dependency]) -> Node:
        node = Node(None, "handler")
        for dependency in dependencies:
            node.children.append((None, self.dependency(dependency, (), ())))
        self.fill(node, parameters, (), ())
        return node

    def dependency(
        self, dependency: Dependency, chain: tuple[Any, ...], scopes: tuple[str, ...]
    ) -> Node:
        assert dependency.dependency is not None
        self.has_dependencies = True
        func = self.app.resolve(dependency.dependency)
        if func in chain:
            raise TypeError(f"Dependency cycle through {describe_handler(func)}")
        node = Node(func, describe_handler(func))
        node.declared = dependency.dependency
        node.scope = dependency.scope or "request"
        scopes = with_scopes(scopes, dependency.scopes)
        if dependency.scope == "app":
            self.app.register(func)
            values = self.app.values
            node.app_value = lambda: values[func]
            return node
        parameters = describe_dependency(func, self.path_names)
        self.fill(node, parameters, (*chain, func), scopes)
        node.uses_scopes = _uses_scopes(node, dependency, parameters)
        if dependency.use_cache:
            # One call per request for each set of scopes it sees, if they can change what it
            # returns; else one call whatever the scopes above it (FastAPI's cache key).
            # Another scope is another call, as in FastAPI's key: a generator's exit comes at
            # another time ("request" unless it says).
            security = tuple(sorted(scopes)) if node.uses_scopes else ()
            generator = node.kind not in (ASYNC, SYNC)
            scope = dependency.scope or ("request" if generator else "")
            node.cache_key = (func, security, scope)
        if dependency._concurrency is not None:  # Depends(max_concurrency=n)
            node.func = limited(func, dependency._concurrency)
            node.kind = call_kind(node.func)
        elif (read := read_now(func)) is not None:  # perf: a security scheme, read in place
            node.func, node.kind = read, ON_LOOP
        if node.kind == ASYNC_GEN and needs_guard(generator_function(node.func or func)):
            self.needs_guard = True
        return node

    def fill(
        self,
        node: Node,
        parameters: Sequence[Parameter],
        chain: tuple[Any, ...],
        scopes: tuple[str, ...],
    ) -> None:
        for parameter in parameters:
            source = parameter.source
            if source == "dependency":
                assert parameter.dependency is not None
                child = self.dependency(parameter.dependency, chain, scopes)
                node.children.append((parameter.name, child))
            elif source in _SCALAR_SOURCES:
                if source == "path" and parameter.alias not in self.path_names:
                    where = self.label if node.func is None else node.name
                    raise TypeError(
                        f"{where}: parameter {parameter.name!r} is declared Path() but the "
                        f"route has no path parameter {parameter.alias!r}"
                    )
                path_type = self.path_types.get(parameter.alias)
                node.readers.append(reader_for(parameter, path_type))
            elif source in _BODY_SOURCES:
                # Read per dependant too, once every body parameter of the tree is known
                # (whether they are embedded depends on all of them): see ``_bind_bodies``.
                node.body_parameters.append(parameter)
                self.body_parameters.append(parameter)
            else:
                node.args.append((parameter.name, _special(parameter, scopes)))
        # FastAPI reads (and reports) path values first, then query, header, cookie.
        node.readers.sort(key=lambda reader: _SCALAR_SOURCES.index(_source(reader)))


def _uses_scopes(node: Node, dependency: Dependency, parameters: Sequence[Parameter]) -> bool:
    """Whether a dependency's value may depend on the scopes required down to it: it asks
    for scopes itself, takes ``SecurityScopes``, is a security scheme, or one of its own
    dependencies does."""
    return (
        bool(dependency.scopes)
        or hasattr(node.func, "security_scheme")
        or any(parameter.source == "security_scopes" for parameter in parameters)
        or any(child.uses_scopes for _, child in node.children)
    )


def _source(reader: Reader) -> str:
    assert isinstance(reader, ScalarReader | ModelReader)
    return reader.source


def _special(parameter: Parameter, scopes: tuple[str, ...]) -> Callable[[Connection], Any]:
    source = parameter.source
    if source == "request":
        return the_connection
    if source == "background":
        return background_of
    if source == "response":
        return _sub_response
    if source == "security_scopes":
        security = SecurityScopes(list(scopes))
        return lambda connection: security
    raise TypeError(f"Unknown parameter source {source!r}")  # pragma: no cover


def _sub_response(connection: Connection) -> Response:
    """The Response a handler or dependency takes to set headers, cookies or the status on
    the one sent (FastAPI's): one per request, merged into the response by ``dispatch``."""
    found = connection._sub_response
    if found is None:
        from hasten._http.responses import Response

        found = Response(status=0)  # 0: no status set
        connection._sub_response = found
    return found


def should_embed(parameters: Sequence[Parameter]) -> bool:
    """Whether body parameters are members of one JSON object (or fields of one form)
    rather than the whole body, as FastAPI decides: several of them, ``embed=True``, or a
    form field that is not a form model."""
    names = {parameter.name for parameter in parameters}
    if not parameters:
        return False
    if len(names) > 1:
        return True
    first = parameters[0]
    if first.embed:
        return True
    return first.source in ("form", "file") and not first.models


class Plan:
    """One endpoint's tree, compiled for one started app: ``invoke(request)`` reads every
    value, runs the dependencies and calls the handler; the awaitable's result is what the
    handler returned."""

    __slots__ = (
        "_app",
        "_body",
        "_dependencies",
        "_guard",
        "_label",
        "_parameters",
        "_path_types",
        "_root",
        "_run",
        "_solver",
        "_threads",
        "call",
        "guarded",
        "invoke",
        "source",
    )

    def __init__(
        self,
        parameters: Sequence[Parameter],
        dependencies: Iterable[Dependency],
        *,
        path_types: dict[str, type],
        app: AppDependencies,
        threads: Executor | None,
        run: Run,
        label: str = "",
        guard: bool = True,
        resuming: bool = False,
    ) -> None:
        # What it is made of, for the plan a request goes on with if an override changes
        # while the request is in its dependencies (``_replan``).
        self._parameters, self._dependencies = parameters, tuple(dependencies)
        self._path_types, self._app, self._guard = path_types, app, guard
        self._threads = threads
        self._run = run
        self._label = label
        self._solver: Solver | None = None
        builder = _Builder(path_types, app, label, threads)
        self._root = builder.root(parameters, self._dependencies)
        # The request's guard, where a dependency needs it and the route allows it (see
        # hasten._params.cleanup_guard; ``guard`` False: the plan runs where the scope could not
        # enclose the dependencies' exits, in a task or scope of a route timeout's own, or
        # for a WebSocket).
        self.guarded = guard and builder.needs_guard
        bodies = builder.body_parameters
        embed = should_embed(bodies)
        form = any(parameter.source in ("form", "file") for parameter in bodies)
        _bind_bodies(self._root, embed, form)
        self._body: BodyDecoder | FormDecoder | None = None
        if bodies:
            self._body = FormDecoder() if form else BodyDecoder()
        # The handler itself, when it reads nothing: the serve step calls it without a frame
        # of the plan's (``invoke`` does the same through one).
        self.call: Callable[[], Awaitable[Any]] | None = None
        # The solver's source, where the plan has no fast form (see hasten._params.solver).
        self.source: str | None = None
        if resuming:
            self.invoke = self._solved(resuming=True)
        else:
            self.invoke = self._fast_form(builder) or self._solved(resuming=False)

    def _solved(self, *, resuming: bool) -> Invoke:
        """The general form: the tree written out as one coroutine (hasten._params.solver),
        retired by the app if an override changes (``AppDependencies.use``)."""
        solver = self._solver = written_solver(
            self._root,
            self._body,
            self._threads,
            self._run,
            self._label,
            replan=self._replan,
            guarded=self.guarded,
            resuming=resuming,
        )
        self._app.solving(solver)
        self.source = solver.source
        return solver.invoke

    async def _replan(self, request: Connection, state: Mapping[str, Any]) -> Any:
        """Go on with a request whose dependencies this plan's solver was in when it was
        retired (an earlier dependency changed an override, as FastAPI lets it): on a plan
        made now with the overrides in force, which calls only what was not called yet,
        given the request's ``state`` (the retired solver's locals) as FastAPI would see it."""
        assert self._solver is not None
        successor = Plan(
            self._parameters,
            self._dependencies,
            path_types=self._path_types,
            app=self._app,
            threads=self._threads,
            run=self._run,
            label=self._label,
            guard=self._guard,
            resuming=True,
        )
        assert successor._solver is not None
        return await successor._solver.invoke(
            request,
            self._solver.done(state),
            state.get("cache", {}),
            state.get("function_exits", []),
        )

    def _fast_form(self, builder: _Builder) -> Invoke | None:
        """The plan without dependencies, for the shapes most handlers have: the same
        steps, without the solver's state. A value that does not read at once is left to
        its reader, which says what is wrong (or gives the default)."""
        root = self._root
        if builder.has_dependencies or root.args:
            return None
        run = self._run
        if not root.readers and self._body is None:
            self.call = run
            return lambda request: run()
        read = _ValueReading(root.readers, self._label)
        if self._body is None:
            # perf: plain functions handing back the handler's own coroutine, written for
            # its values (hasten._params.solver), each calling it by keyword.
            invoke = read.invoke(run)
            only = read.only_quick()
            return invoke if only is None else written_one_value(only, invoke, run, self._label)
        if not isinstance(self._body, BodyDecoder):
            return None
        bodies = tuple(body for body in root.bodies if isinstance(body, BodyField))
        return _invoke_with_body(self._body, bodies, read, run, self._label)


def _invoke_with_body(
    decoder: BodyDecoder,
    bodies: tuple[BodyField, ...],
    read: _ValueReading,
    run: Run,
    label: str,
) -> Invoke:
    """The fast form of a plan that reads a JSON body (and maybe path, query, header and
    cookie values), without dependencies."""
    only = bodies[0] if len(bodies) == 1 and read.is_empty() else None
    typed = only.typed_decoder() if only is not None else None
    name = bodies[0].name
    call_with_body = keyword_call(run, name, label)

    async def invoke_with_body(request: Any) -> Any:
        if typed is not None:
            # perf: the usual body decoded straight into its type (one C call, or two for
            # a pydantic type); a body that does not decode so is read again below, which
            # says what is wrong.
            whole = await request.body()
            if whole and request._header("content-type") == "application/json":
                try:
                    value = decode_json(typed, whole, request.context)
                except (ValueError, HTTPError):  # msgspec's or pydantic's ValidationError
                    pass
                else:
                    return await call_with_body(value)
        body = await decoder.decode(request)
        values, errors = read.values(request)
        for field in bodies:
            field.read_from(body, values, errors)
        if errors:
            raise RequestValidationError(errors, body=None if body is UNDEFINED else body)
        return await run(**values)

    return invoke_with_body


class _ValueReading:
    """A dependant's path, query, header and cookie values read for one request.

    Path, query and header values with a fast converter are read here, one lookup and at
    most one conversion (one C call) each; the rest, and any value that is missing or does
    not convert at once, by its reader (which gives the default, or FastAPI's error).
    """

    __slots__ = ("_label", "_quick", "_readers", "values")

    def __init__(self, readers: Sequence[Reader], label: str) -> None:
        self._quick: list[Quick] = []  # path values, then query values, then headers
        self._readers: list[Reader] = []  # cookies
        for reader in readers:  # in FastAPI's order: path, query, header, cookie
            quick = quick_of(reader)
            if quick is None:
                self._readers.append(reader)
            else:
                self._quick.append(quick)
        self._label = label
        # (request) -> (values, errors), written for these values (see hasten._params.solver).
        self.values = written_values(self._quick, self._readers, label)

    def invoke(self, run: Run) -> Invoke:
        """These values read and ``run`` called with them (or one 422), written as one
        function: the fast form of a plan that reads nothing else."""
        return written_invoke(self._quick, self._readers, run, self._label)

    def is_empty(self) -> bool:
        return not (self._quick or self._readers)

    def only_quick(self) -> Quick | None:
        """The one value read, where it is a path or query value the plan reads itself."""
        if len(self._quick) != 1 or self._readers:
            return None
        only = self._quick[0]
        _, key, _, source, _ = only
        return None if key is None or source == "header" else only


def _bind_bodies(node: Node, embed: bool, form: bool) -> None:
    """Make each body parameter's reader, now that the tree's body parameters are known."""
    made: list[BodyField | FormField | ModelReader] = []
    for parameter in node.body_parameters:
        if form:
            made.append(ModelReader(parameter) if parameter.models else FormField(parameter))
        else:
            made.append(BodyField(parameter, embed))
    node.bodies = made
    for _, child in node.children:
        _bind_bodies(child, embed, form)
