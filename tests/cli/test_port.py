"""hasten._cli.port: a FastAPI app's imports rewritten to hasten's, nothing else touched."""

from __future__ import annotations

from typing import Any

import pytest

from hasten._cli.port import MODULES, hasten_module, port_source
from hasten.routing import BaseRoute


def test_names_keep_their_fastapi_spelling() -> None:
    source = "from fastapi import FastAPI, APIRouter as R, Depends\n"
    assert port_source(source) == "from hasten import App as FastAPI, Router as R, Depends\n"


def test_a_statement_over_several_lines_keeps_the_line_numbers_after_it() -> None:
    source = "from fastapi import (\n    FastAPI,\n    Query,\n)\nx = 1\n"
    ported = port_source(source)
    assert ported == "from hasten import App as FastAPI, Query\n\n\n\nx = 1\n"
    assert ported.splitlines()[4] == "x = 1"


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("fastapi.testclient", "hasten.testing"),
        ("starlette.responses", "hasten.responses"),
        ("fastapi.middleware.cors", "hasten.middleware"),
        ("starlette.middleware.base", "hasten.middleware.base"),
        ("fastapi.openapi.models", "hasten.openapi.models"),  # not listed: by its prefix
        ("fastapi_users", None),
        ("pydantic", None),
    ],
)
def test_modules_map_by_the_table_else_by_their_prefix(module: str, expected: str | None) -> None:
    assert hasten_module(module) == expected


def test_every_mapped_module_is_hastens() -> None:
    assert all(target.split(".")[0] == "hasten" for target in MODULES.values())


def test_plain_imports_keep_the_name_they_bind() -> None:
    assert port_source("import fastapi, os\n") == "import hasten as fastapi, os\n"
    # ``import fastapi.routing`` binds the package, its submodule loaded.
    assert port_source("import fastapi.routing\n") == ("import hasten.routing, hasten as fastapi\n")
    assert port_source("import fastapi.routing as r\n") == "import hasten.routing as r\n"
    namespace: dict[str, Any] = {}
    exec(port_source("import fastapi.routing\nimport starlette.status\n"), namespace)
    assert namespace["fastapi"].routing.BaseRoute is BaseRoute
    assert namespace["starlette"].status.HTTP_200_OK == 200


def test_dotted_names_in_strings_follow_only_where_the_module_is_known() -> None:
    source = (
        '@mark("ignore::fastapi.exceptions.FastAPIError")\n'
        'def f(): return "https://fastapi.tiangolo.com", f"{x} fastapi.responses.X"\n'
    )
    assert port_source(source) == (
        "@mark('ignore::hasten.errors.FastAPIError')\n"
        'def f(): return "https://fastapi.tiangolo.com", f"{x} fastapi.responses.X"\n'
    )


def test_other_code_is_untouched() -> None:
    source = "from pydantic import BaseModel\nfrom .local import fastapi\nprint('fastapi')\n"
    assert port_source(source) == source


def test_fastapis_pydantic_version_check_ports() -> None:
    import pydantic

    namespace: dict[str, object] = {}
    exec(port_source("from fastapi._compat import PYDANTIC_VERSION_MINOR_TUPLE\n"), namespace)
    major, minor = pydantic.VERSION.split(".")[:2]
    assert namespace["PYDANTIC_VERSION_MINOR_TUPLE"] == (int(major), int(minor))
