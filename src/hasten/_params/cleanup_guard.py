"""Which ``yield`` dependencies need their request's cleanup guard, read once from their code.

An async generator dependency's code after ``yield`` must run to its end even when the request
is cancelled (FastAPI's rule), and must leave the cancel scopes and task groups it entered
before its ``yield`` in the order it entered them, in its own task. A cancel scope shielding
only its cleanup would be entered after (inside) those, so their exits would break AnyIO's
nesting; FastAPI therefore enters one cancel scope per request before the first such
dependency and shields it while each one cleans up. That scope costs about 15 µs a request on
asyncio (AnyIO's bookkeeping), twice what the rest of a request with a ``yield`` dependency
costs hasten, so hasten enters it (``connection.guard_of``) only on routes that need it: those
with an async generator dependency that

- holds a context across a ``yield`` (a ``with`` or ``async with`` around it: a cancel scope,
  a task group, a pool's connection), or
- may wait from its first ``yield`` on (an ``await``, ``async with`` or ``async for`` in or
  after the statement that yields), so that a cancellation could arrive mid-cleanup.

Any other (``yield value``, or a ``try``/``finally`` whose cleanup does not wait) cannot be
interrupted once resumed: it runs to its end in one step. A generator whose source cannot be
read counts as needing the guard.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["needs_guard"]

_verdicts: dict[Any, bool] = {}

_YIELDS = (ast.Yield, ast.YieldFrom)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def needs_guard(generator_function: Callable[..., Any]) -> bool:
    """Whether the async generator function ``generator_function`` may wait, or holds a
    context, from its first ``yield`` on (see the module's docstring). Read once per code."""
    key = getattr(generator_function, "__code__", generator_function)
    found = _verdicts.get(key)
    if found is None:
        found = _verdicts[key] = _reads_as_needing(generator_function)
    return found


def _reads_as_needing(function: Callable[..., Any]) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):  # no source (made by exec, a REPL's, ...)
        return True
    definition = next(
        (node for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef)), None
    )
    if definition is None or definition.name != getattr(function, "__name__", None):
        return True
    yielded = False
    for statement in definition.body:
        if isinstance(statement, _SCOPES):  # a function it defines runs elsewhere
            continue
        yields = _holds(statement, _YIELDS)
        if (yielded or yields) and _may_wait(statement):
            return True
        if yields and _yield_in_with(statement):
            return True
        yielded = yielded or yields
    return False


def _nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it holds, without the functions and classes defined in it."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _SCOPES):
            yield from _nodes(child)


def _holds(node: ast.AST, kinds: tuple[type[ast.AST], ...]) -> bool:
    return any(isinstance(found, kinds) for found in _nodes(node))


def _may_wait(node: ast.AST) -> bool:
    return any(
        isinstance(found, ast.Await | ast.AsyncWith | ast.AsyncFor)
        or (isinstance(found, ast.comprehension) and found.is_async)
        for found in _nodes(node)
    )


def _yield_in_with(node: ast.AST) -> bool:
    return any(
        isinstance(found, ast.With) and any(_holds(inner, _YIELDS) for inner in found.body)
        for found in _nodes(node)
    )
