"""hasten's pytest plugin: ``pytest --as-fastapi`` (or ``as_fastapi = true`` in the pytest
settings) runs a FastAPI app's tests, and an extension's, on hasten: ``fastapi`` and
``starlette`` are served by hasten before the first conftest is imported (``hasten._switch``).

Installed with hasten (the ``pytest11`` entry point); without the option it does nothing.
"""

from __future__ import annotations

import pytest

from hasten._switch import is_on, turn_on

__all__ = [
    "pytest_addoption",
    "pytest_load_initial_conftests",
    "pytest_report_header",
]

OPTION = "as_fastapi"
HELP = "serve the fastapi and starlette modules from hasten (an unmodified FastAPI app on hasten)"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("hasten").addoption(
        "--as-fastapi", action="store_true", dest=OPTION, default=False, help=HELP
    )
    parser.addini(OPTION, HELP, type="bool", default=False)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before the conftests, which import the app and its extensions."""
    if early_config.known_args_namespace.as_fastapi or early_config.getini(OPTION):
        turn_on()


def pytest_report_header() -> str | None:
    return "hasten: fastapi and starlette are served by hasten (--as-fastapi)" if is_on() else None
