"""Where each of FastAPI's tests belongs: its group, and whether it is a test of FastAPI's
private code.

A test's node id is its module's dotted name and its function, as pytest's JUnit report writes
them (``tests.test_query::test_query_int[x]``). The tutorial tests are grouped by tutorial area,
the others by the topic their module's name starts with; a module that imports a private part of
FastAPI or Starlette (a module or name starting with ``_``, or ``fastapi.dependencies.utils`` or
``.models``) is private, by that rule alone, so that no test is put aside by hand.
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["TUTORIAL", "group_of", "is_tutorial", "module_of", "private_modules", "schema_tests"]

TUTORIAL = "tests.test_tutorial."
# The topics of FastAPI's own tests, by the words their module names start with; the first
# that matches names the group, and a module that matches none is in "other".
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("telemetry", ("test_telemetry",)),
    ("security", ("test_security", "test_webhooks_security", "test_top_level_security")),
    ("dependencies", ("test_dependency", "test_dependencies", "test_depends", "test_async_dep")),
    ("dependencies", ("test_generic_parameterless", "test_stringified_annotation_dependency")),
    ("forms and files", ("test_form", "test_file", "test_optional_file", "test_list_bytes")),
    ("forms and files", ("test_union_form", "test_upload", "test_multipart")),
    ("parameters", ("test_query", "test_path", "test_header", "test_param", "test_request_param")),
    ("parameters", ("test_multi_query", "test_repeated", "test_regex", "test_invalid_")),
    ("parameters", ("test_ambiguous", "test_infer_param", "test_enforce_once", "test_tuples")),
    ("parameters", ("test_required_noneable", "test_multiple_parameter", "test_nested_annotated")),
    ("parameters", ("test_starlette_urlconvertors",)),
    ("bodies", ("test_body", "test_union_", "test_put_no_body", "test_multi_body", "test_get_req")),
    ("bodies", ("test_modules_same_name_body", "test_json_type", "test_strict_content_type")),
    ("bodies", ("test_request_body", "test_allow_inf_nan", "test_validation_error")),
    ("responses", ("test_response", "test_serialize_response", "test_validate_response")),
    ("responses", ("test_default_response", "test_orjson", "test_dump_json", "test_skip_def")),
    ("responses", ("test_return_none", "test_filter_pydantic", "test_read_with_orm")),
    ("responses", ("test_computed_fields", "test_jsonable_encoder", "test_datetime_custom")),
    ("streams", ("test_stream", "test_sse")),
    ("websockets", ("test_ws_",)),
    ("openapi and docs", ("test_openapi", "test_additional_", "test_swagger", "test_schema_")),
    ("openapi and docs", ("test_custom_swagger", "test_no_swagger", "test_local_docs")),
    ("openapi and docs", ("test_generate_unique_id", "test_duplicate_models", "test_get_model")),
    ("openapi and docs", ("test_deprecated_responses", "test_sub_callbacks", "test_no_schema")),
    ("openapi and docs", ("test_custom_schema", "test_repeated_dependency_schema")),
    ("routing", ("test_router", "test_route", "test_include_", "test_empty_router")),
    ("routing", ("test_extra_routes", "test_custom_route", "test_callable_endpoint")),
    ("routing", ("test_wrapped_method", "test_operations_signatures")),
    ("application", ("test_application", "test_exception", "test_custom_middleware", "test_main")),
    ("application", ("test_starlette_exception", "test_http_connection", "test_concurrency")),
    ("benchmarks", ("benchmarks", "memory_benchmarks")),
)


def module_of(node: str) -> str:
    """``tests.test_query::test_x[y]`` -> ``tests.test_query``."""
    return node.split("::", maxsplit=1)[0]


def is_tutorial(node: str) -> bool:
    return node.startswith(TUTORIAL)


def group_of(node: str) -> str:
    """The tutorial area of a tutorial test; the topic group of any other."""
    parts = module_of(node).split(".")
    if is_tutorial(node):
        return parts[2].removeprefix("test_")
    top = parts[1]
    for group, prefixes in GROUPS:
        if top.startswith(prefixes):
            return group
    return "other"


def private_modules(tree: Path) -> set[str]:
    """The test modules (dotted names) that import a private part of FastAPI or Starlette,
    read from the unported tree: directly, or through a helper module of the tests that does."""
    modules = {
        ".".join(path.relative_to(tree).with_suffix("").parts): path
        for path in (tree / "tests").rglob("*.py")
    }
    imports = {name: _imports(path, name) for name, path in modules.items()}
    private = {name for name, found in imports.items() if any(map(_is_private, found))}
    # A test module whose helper (``tests.utils``, a package's conftest) is private is, too.
    changed = True
    while changed:
        changed = False
        for name, found in imports.items():
            if name not in private and any(module in private for module in found):
                private.add(name)
                changed = True
    return private


def _imports(path: Path, name: str) -> set[str]:
    """Every module, and every ``module.name``, that the module ``name`` imports (at any
    depth)."""
    found: set[str] = set()
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return found
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.rsplit(".", node.level - 1)[0]
                module = f"{base}.{module}" if module else base
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


PRIVATE_MODULES = ("fastapi.dependencies.utils", "fastapi.dependencies.models")


def _is_private(imported: str) -> bool:
    parts = imported.split(".")
    if parts[0] not in ("fastapi", "starlette"):
        return False
    if any(part.startswith("_") for part in parts):
        return True
    return imported.startswith(PRIVATE_MODULES)


def schema_tests(tree: Path) -> set[str]:
    """The tutorial tests that compare a whole OpenAPI document as a literal: each test function
    whose body holds a dict literal with an ``"openapi"`` key, by ``module::function``."""
    found = set()
    for path in (tree / "tests" / "test_tutorial").rglob("test_*.py"):
        module = ".".join(path.relative_to(tree).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                isinstance(inner, ast.Dict)
                and any(
                    isinstance(key, ast.Constant) and key.value == "openapi" for key in inner.keys
                )
                for inner in ast.walk(node)
            ):
                found.add(f"{module}::{node.name}")
    return found
