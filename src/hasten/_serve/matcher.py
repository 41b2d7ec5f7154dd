"""The compiled router: a dict for static paths, a segment trie for the rest. No regex scan."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hasten._flow.contracts import Target
from hasten._http.connection import NO_PATH_PARAMS, PathParams
from hasten._http.errors import HTTPError
from hasten._http.paths import NO_MATCH, Param, PathTemplate, encode_path
from hasten._http.requests import Request
from hasten._http.responses import RedirectResponse
from hasten._params.renderers import Renderer

__all__ = ["ANY_METHOD", "FALLBACK_PATH", "CompiledRoute", "Matcher", "RouteConflict"]

# The path parameter a low-priority route (a frontend) gets: the path under its prefix.
FALLBACK_PATH = "frontend_path"

_Entry = tuple[Target, tuple[str, ...]]  # the target and its path parameters' names
_RENDER_AS_IS = Renderer(200).render
_WEBSOCKET = frozenset({"WEBSOCKET"})
# What a route that answers any method is registered under (an ASGI app's, which answers
# each method itself): tried only after the method asked has no route at the path.
ANY_METHOD = "*"


class RouteConflict(ValueError):
    """A route the app adds (a health or metrics URL) would catch an app route's requests."""


@dataclass(frozen=True, slots=True)
class CompiledRoute:
    """What the matcher needs of a route: its template, methods, handler and a name for errors."""

    template: PathTemplate
    methods: frozenset[str]
    target: Target
    label: str
    # Tried only for a path no route serves (after its 405 and slash redirect), by its
    # template as a prefix, the longest first: a frontend's files (see hasten._serve.frontend).
    low_priority: bool = False


@dataclass(slots=True)
class _Node:
    """One segment position. A segment is tried as: a static child, typed parameters by
    priority (int, float, uuid), any non-empty segment (str), then the rest of the path."""

    static: dict[str, _Node] = field(default_factory=dict)
    # Each parameter child by its order (with text around it first: ``{name}.json``, then
    # typed ones by their converter's priority), its function and its node.
    params: list[tuple[tuple[Any, ...], Callable[[str], Any], _Node]] = field(default_factory=list)
    # perf: ``{name}`` (str) is the usual parameter: its own child, so no converter is called.
    any_segment: _Node | None = None
    catch_all: _Node | None = None
    targets: dict[str, _Entry] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    def child(self, segment: str | Param) -> _Node:
        if isinstance(segment, str):
            return self.static.setdefault(segment, _Node())
        converter = segment.converter
        if converter.name == "path":
            if self.catch_all is None:
                self.catch_all = _Node()
            return self.catch_all
        if converter.name == "str" and not segment.affixed:
            if self.any_segment is None:
                self.any_segment = _Node()
            return self.any_segment
        order = (
            not segment.affixed,
            converter.priority,
            converter.name,
            segment.prefix,
            segment.suffix,
        )
        for known, _, node in self.params:
            if known == order:
                return node
        convert = segment.convert if segment.affixed else converter.convert
        assert convert is not None
        node = _Node()
        self.params.append((order, convert, node))
        self.params.sort(key=lambda entry: entry[0])
        return node


def _not_allowed(methods: Iterable[str]) -> Target:
    allow = ", ".join(sorted(methods))

    async def method_not_allowed(request: Request) -> Any:
        # Starlette's and FastAPI's words; Allow says what the path takes.
        raise HTTPError(405, "Method Not Allowed", {"allow": allow})

    return Target("method not allowed", method_not_allowed, _RENDER_AS_IS)


async def _raise_not_found(request: Request) -> Any:
    raise HTTPError(404, "Not Found")


_NOT_FOUND = Target("not found", _raise_not_found, _RENDER_AS_IS)


class Matcher:
    """Maps (method, path) to a target and its path parameters, at a cost independent of the
    number of routes. Unknown paths get a 404 target, known paths with another method a 405
    target carrying ``Allow``."""

    __slots__ = (
        "_low_priority",
        "_not_allowed",
        "_parents",
        "_redirect_slashes",
        "_static",
        "_tree",
        "guarded",
        "shadowed",
        "static_targets",
    )

    def __init__(self, routes: Sequence[CompiledRoute], *, redirect_slashes: bool = True) -> None:
        # A path that matches with its trailing slash added or removed is redirected there.
        self._redirect_slashes = redirect_slashes
        # Where a route catches requests an earlier one catches already: it never serves them.
        self.shadowed: list[str] = []
        self._static: dict[str, _Node] = {}
        self._tree = _Node()
        self._not_allowed: dict[frozenset[str], Target] = {}
        self._low_priority: list[tuple[str, Target]] = []  # (prefix, target), longest first
        # Whether a route's requests enter a guard (hasten._params.cleanup_guard).
        self.guarded = any(route.target.guarded for route in routes)
        for route in routes:
            if route.low_priority:
                self._low_priority.append((route.template.path.rstrip("/"), route.target))
            else:
                self._add(route)
        self._low_priority.sort(key=lambda entry: -len(entry[0]))
        for node in (*self._static.values(), *_walk(self._tree)):
            if "GET" in node.targets and "HEAD" not in node.targets:
                node.targets["HEAD"] = node.targets["GET"]  # every GET route answers HEAD
        # The tree's nodes that static segments alone lead to, by their path ("/items"), whose
        # next segment may be any one ``{name}``: where ``match_dynamic`` takes a path whose
        # last segment alone is a parameter. Each as its static children (which a segment
        # takes first) and, by method, the target and parameter name of its ``{name}``.
        self._parents = {
            path: (node.static, _last_targets(node.any_segment))
            for path, node in _static_chains(self._tree, "")
            if node.any_segment is not None and not node.params
        }
        # The targets of parameterless paths by path, then method: what match() finds first.
        self.static_targets: dict[str, dict[str, Target]] = {
            path: {method: entry[0] for method, entry in node.targets.items()}
            for path, node in self._static.items()
        }

    def _add(self, route: CompiledRoute) -> None:
        template = route.template
        if template.is_static:
            node = self._static.setdefault(template.path, _Node())
        else:
            node = self._tree
            for segment in template.segments:
                node = node.child(segment)
        names = tuple(param.name for param in template.params)
        for method in sorted(route.methods):
            if method in node.labels:
                # The first registered serves, as Starlette's first match does.
                self.shadowed.append(
                    f"Routes {node.labels[method]} and {route.label} both catch {method} "
                    f"requests to {template.path!r}: the first one serves them"
                )
                continue
            node.targets[method] = (route.target, names)
            node.labels[method] = route.label

    def match(self, method: str, path: str) -> tuple[Target, PathParams]:
        """The target for this request, and the path parameters it was matched with."""
        static = self._static.get(path)
        if static is not None:
            entry = static.targets.get(method)
            if entry is not None:
                return entry[0], NO_PATH_PARAMS
        return self.match_dynamic(method, path)

    def match_dynamic(self, method: str, path: str) -> tuple[Target, PathParams]:
        """``match`` for a path known not to be a static route's."""
        head, _, last = path.rpartition("/")
        parent = self._parents.get(head)
        if parent is not None and last and last not in parent[0]:
            # perf: ``/items/{id}``, the usual dynamic route, in a few lookups: the step
            # ``_walk_greedy`` takes last, from the node the static head leads it to.
            entry = parent[1].get(method)
            if entry is not None:
                return entry[0], {entry[1]: last}
        segments = path.split("/")
        values: list[Any] = []
        node = _walk_greedy(self._tree, segments, method, values)
        if node is None:
            values.clear()
            node = _search(self._tree, segments, 1, method, values)
        if node is None:
            return self._miss(method, path)
        target, names = node.targets[method]
        if len(names) == 1:  # perf: the usual route; dict(zip()) costs four times as much
            return target, {names[0]: values[0]}
        return target, dict(zip(names, values))  # noqa: B905 - same length by construction

    def _miss(self, method: str, path: str) -> tuple[Target, PathParams]:
        # Off the hot path: only requests that match no route come here. A WebSocket route
        # does not make its path known to HTTP (404, as in Starlette), nor HTTP ones to it.
        allowed = self.allowed_methods(path) - _WEBSOCKET
        if ANY_METHOD in allowed:
            if method not in (ANY_METHOD, "WEBSOCKET"):
                return self.match(ANY_METHOD, path)  # an ASGI app's route: it answers
            allowed -= {ANY_METHOD}
        if allowed:
            target = self._not_allowed.get(allowed)
            if target is None:
                target = self._not_allowed[allowed] = _not_allowed(allowed)
            return target, NO_PATH_PARAMS
        alternative = path[:-1] if path.endswith("/") else path + "/"
        if (
            self._redirect_slashes
            and path != "/"
            and self.allowed_methods(alternative) - _WEBSOCKET
        ):
            return _redirect(alternative), NO_PATH_PARAMS
        if method != "WEBSOCKET":
            for prefix, target in self._low_priority:
                if not prefix:  # "/": every path
                    return target, {FALLBACK_PATH: path.lstrip("/")}
                if path == prefix or path.startswith(prefix + "/"):
                    return target, {FALLBACK_PATH: path[len(prefix) + 1 :]}
        return _NOT_FOUND, NO_PATH_PARAMS

    def allowed_methods(self, path: str) -> frozenset[str]:
        """Every method some route serves at ``path``."""
        nodes = list(_every_match(self._tree, path.split("/"), 1))
        static = self._static.get(path)
        if static is not None:
            nodes.append(static)
        return frozenset(method for node in nodes for method in node.targets)


def _redirect(path: str) -> Target:
    # The path came percent-decoded: encode it again, or an encoded "?" would start a query.
    location = encode_path(path)

    async def redirect_slash(request: Request) -> Any:
        # A full URL, as Starlette's (the query kept).
        return RedirectResponse(request.url_with_path(location))

    return Target("trailing slash redirect", redirect_slash, _RENDER_AS_IS)


def _walk_greedy(node: _Node, segments: list[str], method: str, values: list[Any]) -> _Node | None:
    """The first path ``_search`` would try, without backtracking: what almost every request
    takes. When it dead-ends, ``_search`` explores the alternatives."""
    # perf: a loop instead of a recursive call per segment; half the cost of _search.
    for index in range(1, len(segments)):
        segment = segments[index]
        child = node.static.get(segment)
        if child is None:
            for _, convert, param_node in node.params:
                value = convert(segment)
                if value is not NO_MATCH:
                    values.append(value)
                    child = param_node
                    break
            else:
                if segment and node.any_segment is not None:
                    values.append(segment)
                    child = node.any_segment
                elif node.catch_all is not None:
                    tail = node.catch_all
                    if tail.static or tail.params or tail.any_segment is not None:
                        return None  # a ':path' with more after it: _search tries its runs
                    values.append("/".join(segments[index:]))
                    node = tail
                    break
                else:
                    return None
        node = child
    return node if method in node.targets else None


def _search(
    node: _Node, segments: list[str], index: int, method: str, values: list[Any]
) -> _Node | None:
    """Depth-first: static child first, then parameters by priority, then ``:path``."""
    if index == len(segments):
        return node if method in node.targets else None
    segment = segments[index]
    child = node.static.get(segment)
    if child is not None:
        found = _search(child, segments, index + 1, method, values)
        if found is not None:
            return found
    for value, param_node in _parameter_children(node, segment):
        values.append(value)
        found = _search(param_node, segments, index + 1, method, values)
        if found is not None:
            return found
        values.pop()
    tail = node.catch_all
    if tail is None:
        return None
    if tail.static or tail.params or tail.any_segment is not None:
        found = _search_after_path(tail, segments, index, method, values)
        if found is not None:
            return found
    if method not in tail.targets:
        return None
    values.append("/".join(segments[index:]))
    return tail


def _search_after_path(
    tail: _Node, segments: list[str], index: int, method: str, values: list[Any]
) -> _Node | None:
    """A ':path' parameter with more of the path after it (Starlette's, a regex's greedy
    '.*'): the longest run of segments from ``index`` that lets the rest match. A route has
    one such parameter, and what follows it a fixed number of segments: linear in the path."""
    position = len(values)
    values.append(None)
    for end in range(len(segments) - 1, index, -1):
        found = _search(tail, segments, end, method, values)
        if found is not None:
            values[position] = "/".join(segments[index:end])
            return found
        del values[position + 1 :]
    values.pop()
    return None


def _every_match(node: _Node, segments: list[str], index: int) -> Iterator[_Node]:
    """Every node whose path matches, whatever its methods (to build a 405's Allow)."""
    if index == len(segments):
        if node.targets:
            yield node
        return
    segment = segments[index]
    child = node.static.get(segment)
    if child is not None:
        yield from _every_match(child, segments, index + 1)
    for _, param_node in _parameter_children(node, segment):
        yield from _every_match(param_node, segments, index + 1)
    tail = node.catch_all
    if tail is not None:
        if tail.static or tail.params or tail.any_segment is not None:
            for end in range(index + 1, len(segments)):
                yield from _every_match(tail, segments, end)
        if tail.targets:
            yield tail


def _parameter_children(node: _Node, segment: str) -> Iterator[tuple[Any, _Node]]:
    """The parameter children ``segment`` may go to, in priority order, with its value there."""
    for _, convert, child in node.params:
        value = convert(segment)
        if value is not NO_MATCH:
            yield value, child
    if segment and node.any_segment is not None:
        yield segment, node.any_segment


def _last_targets(node: _Node) -> dict[str, tuple[Target, str]]:
    """A last segment's targets by method, each with its parameter's name (a route whose
    path is static up to it has that one parameter)."""
    return {method: (target, names[-1]) for method, (target, names) in node.targets.items()}


def _static_chains(node: _Node, path: str) -> Iterator[tuple[str, _Node]]:
    """``node`` and the nodes its static children lead to, each with its path."""
    yield path, node
    for segment, child in node.static.items():
        yield from _static_chains(child, f"{path}/{segment}")


def _walk(node: _Node) -> list[_Node]:
    nodes = [node]
    for child in node.static.values():
        nodes.extend(_walk(child))
    for _, _, child in node.params:
        nodes.extend(_walk(child))
    if node.any_segment is not None:
        nodes.extend(_walk(node.any_segment))
    if node.catch_all is not None:
        nodes.extend(_walk(node.catch_all))
    return nodes
