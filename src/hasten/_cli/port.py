"""Port a FastAPI app by rewriting its imports: ``hasten port``.

Moving a FastAPI (or Starlette) app to hasten is meant to be a change of imports and nothing
else. This module is that change, written down once: each FastAPI and Starlette module maps to
the hasten module that has the same names, and the two names that differ (``FastAPI``,
``APIRouter``) are imported under their FastAPI names, so the rest of the code is untouched.
FastAPI's own tutorial tests are ported by exactly this rule (``compat/``).
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["MODULES", "NAMES", "port_paths", "port_source"]

# Each FastAPI or Starlette module, and the hasten module with its names. A module not listed
# maps by its prefix (``fastapi.x`` -> ``hasten.x``), so that a missing one fails by its name.
MODULES: dict[str, str] = {
    "fastapi": "hasten",
    "fastapi.applications": "hasten",
    "fastapi.param_functions": "hasten",
    "fastapi.params": "hasten",
    "fastapi.background": "hasten.background",
    "fastapi.concurrency": "hasten.concurrency",
    "fastapi.datastructures": "hasten.datastructures",
    "fastapi.encoders": "hasten.encoders",
    "fastapi.exception_handlers": "hasten.errors",
    "fastapi.exceptions": "hasten.errors",
    "fastapi.middleware": "hasten.middleware",
    "fastapi.middleware.cors": "hasten.middleware",
    "fastapi.middleware.gzip": "hasten.middleware",
    "fastapi.middleware.httpsredirect": "hasten.middleware",
    "fastapi.middleware.trustedhost": "hasten.middleware",
    "fastapi.openapi.docs": "hasten.openapi.docs",
    "fastapi.openapi.utils": "hasten.openapi",
    "fastapi.utils": "hasten.openapi",
    "fastapi.requests": "hasten.requests",
    "fastapi.responses": "hasten.responses",
    "fastapi.routing": "hasten.routing",
    "fastapi.security": "hasten.security",
    "fastapi.sse": "hasten.sse",
    "fastapi.staticfiles": "hasten.staticfiles",
    "fastapi.status": "hasten.status",
    "fastapi.templating": "hasten.templating",
    "fastapi.testclient": "hasten.testing",
    "fastapi.websockets": "hasten.websockets",
    "starlette": "hasten",
    "starlette.background": "hasten.background",
    "starlette.concurrency": "hasten.concurrency",
    "starlette.datastructures": "hasten.datastructures",
    "starlette.exceptions": "hasten.errors",
    "starlette.middleware.cors": "hasten.middleware",
    "starlette.middleware.gzip": "hasten.middleware",
    "starlette.middleware.httpsredirect": "hasten.middleware",
    "starlette.middleware.trustedhost": "hasten.middleware",
    "starlette.requests": "hasten.requests",
    "starlette.responses": "hasten.responses",
    "starlette.routing": "hasten.routing",
    "starlette.staticfiles": "hasten.staticfiles",
    "starlette.status": "hasten.status",
    "starlette.templating": "hasten.templating",
    "starlette.testclient": "hasten.testing",
    "starlette.websockets": "hasten.websockets",
}
# FastAPI's names that hasten spells otherwise; each is imported under its FastAPI name.
NAMES: dict[str, str] = {"FastAPI": "App", "APIRouter": "Router", "APIRoute": "Route"}
_ROOTS = ("fastapi", "starlette")
# A dotted name of a FastAPI or Starlette object in a string (a warnings filter, say).
_DOTTED = re.compile(r"\b(?:fastapi|starlette)(?:\.[A-Za-z_]\w*)+")


def hasten_module(module: str) -> str | None:
    """The hasten module for a FastAPI or Starlette one; None for any other module."""
    if module.split(".", maxsplit=1)[0] not in _ROOTS:
        return None
    found = MODULES.get(module)
    if found is not None:
        return found
    return "hasten" + module[module.index(".") :] if "." in module else "hasten"


def port_source(source: str) -> str:
    """``source`` with each FastAPI and Starlette import rewritten to hasten's; nothing else
    changes, and every other line keeps its number."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    # Replaced from the last statement up, so earlier positions stay valid.
    found = sorted(_replacements(tree), key=lambda item: (item[0].lineno, item[0].col_offset))
    for node, text in reversed(found):
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        start = lines[first][: node.col_offset]
        end = lines[last][node.end_col_offset or 0 :]
        # The statement's other lines stay as blank lines: the line numbers after it hold.
        lines[first : last + 1] = [start + text + end, *("\n" * (last - first))]
    return "".join(lines)


def port_paths(paths: Iterable[Path], *, write: bool) -> list[str]:
    """Port every ``.py`` file in ``paths`` (files, or folders searched recursively): each
    changed file rewritten when ``write``; a unified diff of each change, in order."""
    diffs = []
    for path in paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            before = file.read_text(encoding="utf-8")
            after = port_source(before)
            if after == before:
                continue
            if write:
                file.write_text(after, encoding="utf-8")
            name = str(file)
            lines = difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True), name, name
            )
            diffs.append("".join(lines))
    return diffs


def _replacements(tree: ast.AST) -> Iterator[tuple[ast.expr | ast.stmt, str]]:
    # The parts of an f-string are not strings of their own.
    formatted = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in formatted
        ):
            ported = _DOTTED.sub(_dotted, node.value)
            if ported != node.value:
                yield node, repr(ported)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = hasten_module(node.module)
            if module is not None:
                names = ", ".join(_alias(alias.name, alias.asname) for alias in node.names)
                yield node, f"from {module} import {names}"
        elif isinstance(node, ast.Import) and any(
            hasten_module(alias.name) for alias in node.names
        ):
            parts = []
            for alias in node.names:
                module = hasten_module(alias.name)
                if module is None:
                    parts.append(_alias(alias.name, alias.asname))
                elif alias.asname is None and "." in alias.name:
                    # ``import fastapi.routing`` binds ``fastapi``, the package, and loads
                    # its submodule: hasten's package takes the name once that is loaded
                    # (``fastapi.routing.APIRoute`` reads hasten.routing's).
                    package = hasten_module(alias.name.split(".")[0])
                    parts.append(f"{module}, {package} as {alias.name.split('.')[0]}")
                else:
                    # ``import fastapi`` binds ``fastapi``: the hasten module takes that name.
                    parts.append(f"{module} as {alias.asname or alias.name}")
            yield node, "import " + ", ".join(parts)


def _dotted(found: re.Match[str]) -> str:
    """``fastapi.exceptions.Name`` as hasten's, when its module is one of MODULES."""
    module, _, name = found.group(0).rpartition(".")
    if module not in MODULES:
        return found.group(0)
    return f"{MODULES[module]}.{NAMES.get(name, name)}"


def _alias(name: str, asname: str | None) -> str:
    target = NAMES.get(name, name)
    bound = asname or name
    return target if target == bound else f"{target} as {bound}"
