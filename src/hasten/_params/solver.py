"""The solver: a plan's tree of dependencies written out, when the app starts, as the source of
one coroutine, then compiled, so that a request runs only the steps its tree has.

It does what FastAPI's ``solve_dependencies`` does, in its order: each dependency, depth
first, has its own dependencies solved, then its request values read; it is called if no
value under it failed, once per request where ``use_cache`` asks it again, its ``yield`` kept
for after the response; then the handler's own values are read and one 422 names every
failure. What a tree does not have (a body, a cache, a failing value, a function-scoped
``yield``) is not written. The source is kept on the plan (``Plan.source``) and shows in
tracebacks, as Falcon shows its compiled router. A handler without dependencies has its
path, query, header and cookie values read by a function written the same way
(``written_values``), each value one lookup and at most one conversion.

Should an override change while a request is in its dependencies (an earlier dependency may
set one, as FastAPI lets it), the solver is retired: its next call raises ``Replanned``, and
the request goes on with a solver written with the overrides in force, which takes over what
this one had called (``resume_and_call``: ``Solver``, ``Plan._replan``).

For a handler taking ``user: str = Depends(get_user)``, where ``get_user`` takes
``token: str = Depends(get_token)`` and ``get_token`` reads a header (tests/params/test_solver.py
holds this example to what is written; the header is looked up in place, and its reader
called only when it is missing, for FastAPI's error)::

    async def solve_and_call(request):
        errors = []
        try:
            a2 = {}
            raw = request._app_header('x-token')
            if raw is None:
                read2(request, a2, errors)
            else:
                a2['x_token'] = raw
            if not errors:
                v2 = await call2(x_token=a2['x_token'])
            if not errors:
                v1 = await call1(token=v2)
            if errors:
                raise RequestValidationError(errors, body=None)
            result = await run(user=v1)
        except Replanned:
            return await replan(request, locals())
        except BaseException as exc:
            final = await unwound(request, exc)
            if final is exc:
                raise
            raise final from exc
        return result
"""

from __future__ import annotations

import hashlib
import itertools
import linecache
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from anyio.lowlevel import checkpoint_if_cancelled

from hasten._http.connection import cleanup_of, guard_of, unwound
from hasten._http.errors import RequestValidationError
from hasten._params.dependencies import ASYNC, ASYNC_GEN, ON_LOOP, SYNC
from hasten._params.extractors import (
    QUICK_SOURCES,
    UNDEFINED,
    FormField,
    ModelReader,
    Reader,
    ScalarReader,
)
from hasten._running.threads import (
    Exit,
    advance,
    close_exit,
    resume,
    sheltered,
    submit,
)

if TYPE_CHECKING:
    from hasten._http.connection import Connection
    from hasten._params.extractors import BodyDecoder, FormDecoder
    from hasten._params.plan import Node
    from hasten._params.validation import Errors

__all__ = [
    "Quick",
    "Replanned",
    "Solver",
    "by_name",
    "keyword_call",
    "quick_of",
    "the_connection",
    "written_invoke",
    "written_one_value",
    "written_solver",
    "written_values",
]


def the_connection(connection: Connection) -> Connection:
    """What a parameter annotated with Request (or WebSocket) is given: the connection."""
    return connection


class Replanned(Exception):
    """Raised in place of a dependency's call by a solver retired while a request was in it
    (``Solver.retire``): the request goes on with a plan made with the overrides now in
    force, from the dependency it was about to call."""


class Solver:
    """A plan's tree written out (see the module's docstring), as ``invoke`` runs it, or, made
    ``resuming``, as ``invoke(request, done, cache, function_exits)`` takes a request over
    from a retired solver: what that one had called (``done``, by ``taken_over``'s keys) is
    not called again."""

    def __init__(self, writer: _Writer, invoke: Callable[..., Awaitable[Any]], source: str):
        self.invoke = invoke
        self.source = source
        # Each called dependency's value, by its name in the source: its place in the tree
        # and the function called there, for a solver that takes a request over.
        self.taken_over = writer.values
        self._calls = writer.calls

    def retire(self) -> None:
        """From now on, a request this solver has not yet called a dependency for goes on
        elsewhere at its next one (an override changed): each call raises ``Replanned``."""
        namespace = self.invoke.__globals__
        for name in self._calls:
            namespace[name] = _replanned

    def done(self, state: Mapping[str, Any]) -> dict[Any, Any]:
        """What a request had called, from the solver's locals where it stopped."""
        return {key: state[name] for name, key in self.taken_over.items() if name in state}


def _replanned(*args: Any, **kwargs: Any) -> Any:
    raise Replanned


class _Writer:
    """Writes one tree's solver: its lines, and the objects its names stand for."""

    def __init__(self, root: Node, resuming: bool) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self._slots = itertools.count()
        # Cache keys asked for more than once in the tree: only their values are kept.
        self.again = _asked_again(root)
        self.function_scoped = _any_node(root, lambda node: node.scope == "function")
        self.handler_arguments = ""
        # Taking a request over, from values a retired solver had called (``done``).
        self.resuming = resuming
        # Whether no value read so far may have failed: ``errors`` is still empty.
        self.clean = True
        self.values: dict[str, tuple[tuple[int, ...], Any]] = {}
        self.calls: list[str] = []  # the names the dependencies are called by

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def name(self, prefix: str, slot: int, value: Any) -> str:
        """A name for ``value`` in the source, by the dependant it belongs to."""
        name = self.free(prefix, slot)
        self.names[name] = value
        return name

    def free(self, prefix: str, slot: int) -> str:
        """A name not taken yet, by the dependant it is for."""
        name = base = f"{prefix}{slot}"
        number = itertools.count(1)
        while name in self.names:
            name = f"{base}_{next(number)}"
        return name

    def dependant(
        self, node: Node, depth: int, solved: set[Any], place: tuple[int, ...] = ()
    ) -> tuple[str, bool]:
        """Write ``node``'s turn (its dependencies' first) at ``depth``: the name its value
        has where it was called, and whether a value under it may fail. ``place``: where it
        is in the tree, each dependant's index among its parent's."""
        slot = next(self._slots)
        if node.func is not None:
            taken = self.values[f"v{slot}"] = (place, node.declared)
            if self.resuming:  # called before the request was taken over: its value
                done = self.name("done", slot, taken)
                self.emit(depth, f"if {done} in done:")
                self.emit(depth + 1, f"v{slot} = done[{done}]")
                self.emit(depth, "else:")
                depth += 1
        key = node.cache_key
        if key is not None and key in solved:  # asked for again: its cached value, if any
            cached = self.name("key", slot, key)
            value = f"v{slot}"
            self.emit(depth, f"if {cached} in cache:")
            self.emit(depth + 1, f"{value} = cache[{cached}]")
            self.emit(depth, "else:")  # a dependency always writes its call under it
            _, may_fail = self._solved(node, slot, depth + 1, solved, place)
            return value, may_fail
        return self._solved(node, slot, depth, solved, place)

    def _solved(
        self, node: Node, slot: int, depth: int, solved: set[Any], place: tuple[int, ...]
    ) -> tuple[str, bool]:
        may_fail = bool(node.readers or node.bodies)
        clean = self.clean  # nothing can have failed before this dependant's turn
        count = f"n{slot}"
        start = len(self.lines)
        # Keyword arguments by the parameters' names: identifiers, as inspect.Parameter holds.
        arguments: list[str] = []
        for index, (argument, child) in enumerate(node.children):
            value, child_fails = self.dependant(child, depth, solved, (*place, index))
            may_fail = may_fail or child_fails
            if argument is not None:
                arguments.append(f"{argument}={value}")
        values = self._read(node, slot, depth)
        if values is not None:
            # Called only where none of its values failed, so each reader wrote its own.
            arguments[:0] = by_name(_value_names(node), values)
        for argument, make in node.args:  # what hasten gives: the request, background tasks
            # perf: the request itself is passed as it is, without a call.
            given = (
                "request" if make is the_connection else f"{self.name('make', slot, make)}(request)"
            )
            arguments.append(f"{argument}={given}")
        called = ", ".join(arguments)
        if node.func is None:  # the handler: the plan's last step
            self.handler_arguments = called
            return "", may_fail
        inner = depth
        if may_fail:  # called only if no value under it failed
            if clean:
                self.emit(depth, "if not errors:")
            else:
                self.lines.insert(start, "    " * depth + f"{count} = len(errors)")
                self.emit(depth, f"if len(errors) == {count}:")
            inner += 1
        value = f"v{slot}"
        self._call(node, slot, value, called, inner)
        if node.cache_key is not None and node.cache_key in self.again:
            self.emit(inner, f"cache[{self.name('key', slot, node.cache_key)}] = {value}")
            solved.add(node.cache_key)
        return value, may_fail

    def _read(self, node: Node, slot: int, depth: int) -> str | None:
        """Write the reading of ``node``'s request values into a dict: its name."""
        if not (node.readers or node.bodies):
            return None
        self.clean = False
        values = f"a{slot}"
        self.emit(depth, f"{values} = {{}}")
        for reader in node.readers:
            quick = quick_of(reader)  # a path, query or header value looked up here
            if quick is None:
                read = self.name("read", slot, reader.read)
                self.emit(depth, f"{read}(request, {values}, errors)")
                continue
            suffix = self.free("read", slot).removeprefix("read")
            self.lines += _quick_lines(
                quick, suffix, values, names=self.names, lookups=_LOOKUPS, depth=depth
            )
        for body in node.bodies:
            read = self.name("body", slot, body.read_from)
            wait = "await " if isinstance(body, FormField) else ""
            self.emit(depth, f"{wait}{read}(body, {values}, errors)")
        return values

    def _call(self, node: Node, slot: int, value: str, arguments: str, depth: int) -> None:
        if node.app_value is not None:
            self.emit(depth, f"{value} = {self.name('app_value', slot, node.app_value)}()")
            return
        func = self.name("call", slot, node.func)
        self.calls.append(func)
        if node.kind == ASYNC:
            self.emit(depth, f"{value} = await {func}({arguments})")
        elif node.kind == ON_LOOP:
            self.emit(depth, f"{value} = {func}({arguments})")
        elif node.kind == SYNC:
            separator = ", " if arguments else ""
            self.emit(depth, f"{value} = await submit(threads, {func}{separator}{arguments})")
        else:
            started = f"g{slot}"
            name = self.name("name", slot, node.name)
            self.emit(depth, f"{started} = {func}({arguments})")
            # perf: the first step of ``lifecycle.advance``, the generator's kind known here;
            # tests/params/test_dependencies.py runs both kinds, as requests and as function scoped.
            self.emit(depth, "try:")
            if node.kind == ASYNC_GEN:
                self.emit(depth + 1, f"{value} = await {started}.__anext__()")
            else:
                self.emit(depth + 1, f"{value} = await resume(threads, {started})")
            self.emit(depth, "except StopAsyncIteration:")
            self.emit(depth + 1, f"raise did_not_yield({name}) from None")
            exits = "function_exits" if node.scope == "function" else "cleanup_of(request).exits"
            self.emit(depth, f"{exits}.append(({started}, {node.kind == ASYNC_GEN}, {name}))")


def by_name(names: Sequence[str], values: str) -> list[str]:
    """Each of ``names`` passed by keyword from the dict ``values``. perf: ``f(**values)``
    makes the call unpack a dict, about 1,600 instructions more than ``f(id=values['id'])``."""
    return [f"{name}={values}[{name!r}]" for name in names]


def _value_names(node: Node) -> list[str]:
    """The names a dependant's request values are read under (its readers' and bodies')."""
    return [reader.name for reader in node.readers] + [body.name for body in node.bodies]


def written_solver(
    root: Node,
    body: BodyDecoder | FormDecoder | None,
    threads: Executor | None,
    run: Callable[..., Awaitable[Any]],
    label: str,
    *,
    replan: Callable[[Any, Mapping[str, Any]], Awaitable[Any]],
    guarded: bool = False,
    resuming: bool = False,
) -> Solver:
    """The solver of ``root``'s tree; ``guarded``: the request's guard is entered before its
    dependencies (see hasten._params.cleanup_guard); ``replan``: where a request goes on,
    with the solver's locals, once the solver is retired; ``resuming``: a solver that takes
    a request over from a retired one (see ``Solver``)."""
    writer = _Writer(root, resuming)
    _, may_fail = writer.dependant(root, 2, set())
    # A request taken over brings its cached values and its function-scoped exits; the
    # values that failed are read again (what failed fails again: one error each).
    function_scoped = writer.function_scoped or resuming
    if resuming:
        head = ["async def resume_and_call(request, done, cache, function_exits):"]
    else:
        head = ["async def solve_and_call(request):"]
        if writer.again:
            head.append("    cache = {}")
        if function_scoped:
            head.append("    function_exits = []")
    if may_fail:
        head.insert(1, "    errors = []")
    if body is not None:
        head.append("    body = await decode_body(request)")
    if guarded:
        head.append("    guard = guard_of(request)")
    elif function_scoped:
        head.append("    guard = None")
    head.append("    try:")
    tail = []
    if may_fail:
        failed_body = "None if body is UNDEFINED else body" if body is not None else "None"
        tail.append("        if errors:")
        tail.append(f"            raise RequestValidationError(errors, body={failed_body})")
    tail.append(f"        result = await run({writer.handler_arguments})")
    closed, failed = _function_scoped_ends(guarded) if function_scoped else ([], [])
    tail += [*closed, "    except Replanned:", "        return await replan(request, locals())"]
    tail += ["    except BaseException as exc:", *failed]
    tail += [
        f"        final = await unwound(request, {'left' if failed else 'exc'})",
        "        if final is exc:",
        "            raise",
        "        raise final from exc",
        "    return result",
    ]
    source_lines = [*head, *writer.lines, *tail]
    namespace: dict[str, Any] = {
        **writer.names,
        "RequestValidationError": RequestValidationError,
        "UNDEFINED": UNDEFINED,
        "Replanned": Replanned,
        "replan": replan,
        "resume": resume,
        "cleanup_of": cleanup_of,
        "submit": submit,
        "unwound": unwound,
        "close_function_scoped": close_function_scoped,
        "sheltered": sheltered,
        "checkpoint_if_cancelled": checkpoint_if_cancelled,
        "guard_of": guard_of,
        "did_not_yield": _did_not_yield,
        "decode_body": None if body is None else body.decode,
        "threads": threads,
        "run": run,
    }
    name = "resume_and_call" if resuming else "solve_and_call"
    invoke, source = _compiled(source_lines, namespace, name, f"solver of {label}")
    return Solver(writer, invoke, source)


def _function_scoped_ends(guarded: bool) -> tuple[list[str], list[str]]:
    """The lines that end ``scope="function"`` dependencies: after the handler returned
    (inside the try: what their code after ``yield`` raises is thrown into the request's
    generators, as FastAPI's exit stacks do), and after it failed (the exception ``left``)."""
    closing = "close_function_scoped(function_exits, threads)"
    closed = [
        "        if function_exits:",
        f"            await {f'sheltered({closing}, guard)' if guarded else closing}",
    ]
    if guarded:  # a cancellation the guard held off comes now (Cleanup._leave)
        closed.append("            await checkpoint_if_cancelled()")
    failed = [
        "        left = await sheltered(close_function_scoped(function_exits, threads, exc), guard)"
    ]
    return closed, failed


def written_values(
    quick: Sequence[Quick],
    readers: Sequence[Reader],
    label: str,
) -> Callable[[Any], tuple[dict[str, Any], Errors]]:
    """A handler's path, query, header and cookie values read, without dependencies:
    ``quick`` are the values read here, one lookup and at most one conversion (one C call)
    each; the rest, and any value that is missing or does not convert at once, go to their
    reader (which gives the default, or FastAPI's error)."""
    lines, names = _reading_lines(quick, readers, "read_values")
    lines.append("    return values, errors")
    function: Callable[[Any], tuple[dict[str, Any], Errors]]
    function, _ = _compiled(lines, names, "read_values", f"values of {label}")
    return function


def written_invoke(
    quick: Sequence[Quick],
    readers: Sequence[Reader],
    run: Callable[..., Awaitable[Any]],
    label: str,
) -> Callable[[Any], Awaitable[Any]]:
    """``written_values`` and the handler's call in one function, the plan's fast form
    where it reads only these values: ``run`` called by keyword (``by_name``), or, where a
    value failed, one 422 naming them all."""
    lines, names = _reading_lines(quick, readers, "invoke_with_values")
    read = [value[0] for value in quick] + [reader.name for reader in readers]
    arguments = by_name(read, "values")
    lines += [
        "    if errors:",
        "        raise RequestValidationError(errors)",
        f"    return run({', '.join(arguments)})",
    ]
    names.update(run=run, RequestValidationError=RequestValidationError)
    function: Callable[[Any], Awaitable[Any]]
    function, _ = _compiled(lines, names, "invoke_with_values", f"values of {label}")
    return function


def _reading_lines(
    quick: Sequence[Quick], readers: Sequence[Reader], function: str
) -> tuple[list[str], dict[str, Any]]:
    """The head of ``function(request)`` that reads ``quick`` and ``readers`` into
    ``values`` (failures into ``errors``), and the names its lines use."""
    lines = [f"def {function}(request):", "    values = {}", "    errors = []"]
    lookups = dict(_LOOKUPS)
    for source, mapping in _MAPPINGS.items():  # each looked up once, into a local
        if any(key is not None and where == source for _, key, _, where, _ in quick):
            lines.append(f"    {source} = {mapping}")
            lookups[source] = f"{source}.get({{key!r}})"
    names: dict[str, Any] = {}
    for number, value in enumerate(quick):
        lines += _quick_lines(value, str(number), "values", names=names, lookups=lookups, depth=1)
    for number, reader in enumerate(readers, len(quick)):
        names[f"read{number}"] = reader.read
        lines.append(f"    read{number}(request, values, errors)")
    return lines, names


def written_one_value(
    only: Quick,
    invoke: Callable[[Any], Awaitable[Any]],
    run: Callable[..., Awaitable[Any]],
    label: str,
) -> Callable[[Any], Awaitable[Any]]:
    """The plan's fast form for a handler that reads one path or query value
    (``/items/{id}``): read and converted at once and ``run`` called with it by keyword,
    else left to ``invoke``, which says what is wrong."""
    name, key, convert, source, _ = only
    found = (
        f"request._query_params()._last.get({key!r})"
        if source == "query"
        else f"request.path_params.get({key!r})"
    )
    lines = ["def invoke_with_one_value(request):", f"    raw = {found}", "    if raw is not None:"]
    if convert is None:
        lines.append(f"        return run({name}=raw)")
    else:
        lines += [
            "        try:",
            "            value = convert(raw)",
            "        except ValueError:",
            "            pass",
            "        else:",
            f"            return run({name}=value)",
        ]
    lines.append("    return invoke(request)")
    names = {"run": run, "convert": convert, "invoke": invoke}
    function: Callable[[Any], Awaitable[Any]]
    function, _ = _compiled(lines, names, "invoke_with_one_value", f"value of {label}")
    return function


def keyword_call(run: Callable[..., Any], name: str, label: str) -> Callable[[Any], Any]:
    """``run`` called with one value as its argument ``name``: ``lambda value: run(name=value)``,
    written out (``by_name``'s reason)."""
    lines = ["def call(value):", f"    return run({name}=value)"]
    function: Callable[[Any], Any]
    function, _ = _compiled(lines, {"run": run}, "call", f"call of {label}")
    return function


# (name, key, converter, source, reader): a value the written source reads itself, by its
# key in its source (key None: by its reader, in its turn).
Quick = tuple[str, str | None, Callable[[str], Any] | None, str, Reader]


def quick_of(reader: Reader) -> Quick | None:
    """How the written source reads ``reader``'s value: None where it is not a path, query
    or header value (a cookie)."""
    if not isinstance(reader, ScalarReader | ModelReader) or reader.source not in QUICK_SOURCES:
        return None
    quick = reader.quick() if isinstance(reader, ScalarReader) else None
    name, key, convert = (reader.name, None, None) if quick is None else quick
    return name, key, convert, reader.source, reader


# The dicts path and query values are looked up in (the query's as QueryParams.get reads
# it), and how the written source looks up a value by its key, in each source.
_MAPPINGS = {"path": "request.path_params", "query": "request._query_params()._last"}
_LOOKUPS = {
    **{source: f"{mapping}.get({{key!r}})" for source, mapping in _MAPPINGS.items()},
    "header": "request._app_header({key!r})",
}


def _quick_lines(
    quick: Quick,
    suffix: str,
    values: str,
    *,
    names: dict[str, Any],
    lookups: dict[str, str],
    depth: int,
) -> list[str]:
    """The lines that read one value into the dict ``values``, at ``depth``: looked up and
    converted in place, else by its reader (``read{suffix}``, put in ``names``)."""
    name, key, convert, source, reader = quick
    read = f"read{suffix}"
    names[read] = reader.read
    indent = "    " * depth
    if key is None:
        return [f"{indent}{read}(request, {values}, errors)"]
    lines = [
        f"{indent}raw = {lookups[source].format(key=key)}",
        f"{indent}if raw is None:",
        f"{indent}    {read}(request, {values}, errors)",
    ]
    if convert is None:
        return [*lines, f"{indent}else:", f"{indent}    {values}[{name!r}] = raw"]
    converter = f"convert{suffix}"
    names[converter] = convert
    return [
        *lines,
        f"{indent}else:",
        f"{indent}    try:",
        f"{indent}        {values}[{name!r}] = {converter}(raw)",
        f"{indent}    except ValueError:",
        f"{indent}        {read}(request, {values}, errors)",
    ]


def _compiled(
    lines: list[str], names: dict[str, Any], function: str, label: str
) -> tuple[Any, str]:
    """``function`` from the source ``lines``, its names taken from ``names``; the source."""
    source = "\n".join(lines) + "\n"
    # Named by its content too: an app built again (tests, changed overrides) reuses it.
    digest = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()[:8]
    filename = f"<hasten {label} {digest}>"
    # The source shows in tracebacks, as a file's would.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # Only names of ours are in the source: every object it uses is in ``names``.
    exec(compile(source, filename, "exec"), names)
    return names[function], source


def _asked_again(root: Node) -> set[Any]:
    seen: set[Any] = set()
    again: set[Any] = set()

    def visit(node: Node) -> None:
        if node.cache_key is not None:
            (again if node.cache_key in seen else seen).add(node.cache_key)
        for _, child in node.children:
            visit(child)

    visit(root)
    return again


def _any_node(root: Node, test: Callable[[Node], bool]) -> bool:
    return test(root) or any(_any_node(child, test) for _, child in root.children)


def _did_not_yield(name: str) -> RuntimeError:
    return RuntimeError(f"Dependency {name} did not yield a value")


async def close_function_scoped(
    exits: list[Exit], threads: Executor | None, exc: BaseException | None = None
) -> BaseException | None:
    """``scope="function"`` dependencies end when the handler returns, or fails with
    ``exc``, which is thrown into each (last first): the exception left, as one may raise
    another, which those before it get (FastAPI's exit stack). Where the handler returned,
    one that a generator raises is raised once they have all ended."""
    left = exc
    while exits:
        done = exits.pop()
        try:
            await advance(done, threads, left)
        except StopAsyncIteration:
            continue
        except BaseException as raised:
            left = raised
            continue
        await close_exit(done, threads)
    if exc is None and left is not None:
        raise left
    return left
