"""The switch: ``fastapi`` and ``starlette`` imported from anywhere are hasten's modules.

With it on, an import of ``fastapi``, ``starlette`` or any module under them, by the app, its
tests or an installed extension, gets the module of the same name under
``hasten._served_as``, whose names are hasten's own objects: ``fastapi.FastAPI`` is
``hasten.App``, ``starlette.requests.Request`` is ``hasten.Request``, so ``isinstance`` and
``is`` answer as the extension expects. The real packages, if pip installed them as some
extension's dependency, are never imported.

Turned on by ``hasten run --as-fastapi``, pytest's ``--as-fastapi`` (hasten's plugin), the
environment variable ``HASTEN_AS_FASTAPI=1`` where hasten loads the app, or
``import hasten.as_fastapi`` first thing in any other program. It costs nothing per request:
only imports go through it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence

__all__ = ["ENVIRONMENT_VARIABLE", "ROOTS", "SwitchError", "is_on", "turn_on", "turn_on_if_asked"]

ROOTS = ("fastapi", "starlette")
# Set by `hasten run --as-fastapi` for its workers; read where hasten loads an app.
ENVIRONMENT_VARIABLE = "HASTEN_AS_FASTAPI"
# Where the served modules are: `starlette.routing` is `hasten._served_as.starlette.routing`,
# except a module that is one of hasten's whole, served as it is.
SERVED = "hasten._served_as"
ALIASES = {
    "fastapi.openapi.models": "hasten.openapi.models",
    "fastapi.responses": "hasten.responses",
    "fastapi.security": "hasten.security",
    "fastapi.security.api_key": "hasten.security.api_key",
    "fastapi.security.base": "hasten.security.base",
    "fastapi.security.http": "hasten.security.http",
    "fastapi.security.oauth2": "hasten.security.oauth2",
    "fastapi.security.open_id_connect_url": "hasten.security.open_id_connect_url",
    "fastapi.security.utils": "hasten.security.utils",
    "fastapi.staticfiles": "hasten.staticfiles",
    "fastapi.status": "hasten.status",
    "fastapi.telemetry": "hasten.telemetry",
    "fastapi.templating": "hasten.templating",
    "fastapi.testclient": "hasten.testing",
    "fastapi.types": "hasten.types",
    "starlette.config": "hasten.config",
}


class SwitchError(RuntimeError):
    """The switch cannot be turned on: the real FastAPI or Starlette is already imported."""


class _Served(importlib.abc.Loader):
    """Hands over a module hasten already imported, under the name asked for."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self._module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module ran when hasten imported it. The import machinery has
        put the served name's spec on it: it gets its own back (a reload finds its file)."""
        module.__spec__ = self._spec


class _Finder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: finds ``fastapi...`` and ``starlette...`` in hasten."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.startswith(f"{SERVED}."):
            # `from fastapi import responses` asks for the submodule under the package's own
            # name, hasten._served_as.fastapi.responses: an alias is one there too.
            name = fullname.removeprefix(f"{SERVED}.")
            if name not in ALIASES:
                return None  # a served module's file: the usual finders find it
        elif fullname.partition(".")[0] in ROOTS:
            name = fullname
        else:
            return None
        served = ALIASES.get(name) or f"{SERVED}.{name}"
        try:
            module = importlib.import_module(served)
        except ModuleNotFoundError as error:
            if error.name is None or not served.startswith(error.name):
                raise  # a module the served one imports is missing: its own error says which
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: hasten serves the public modules of FastAPI "
                "and Starlette (HASTEN_AS_FASTAPI), and this is not one of them",
                name=fullname,
            ) from None
        return importlib.util.spec_from_loader(
            fullname, _Served(module), is_package=hasattr(module, "__path__")
        )


_FINDER = _Finder()


def is_on() -> bool:
    """Whether ``fastapi`` and ``starlette`` are served by hasten in this process."""
    return _FINDER in sys.meta_path


def turn_on() -> None:
    """Serve ``fastapi`` and ``starlette`` from hasten from now on, in this process and (by the
    environment) in the processes it starts. Idempotent; a SwitchError if the real FastAPI or
    Starlette was imported before."""
    if is_on():
        return
    imported = sorted(name for name in sys.modules if name.partition(".")[0] in ROOTS)
    if imported:
        raise SwitchError(
            f"{', '.join(imported[:3])} {'was' if len(imported) == 1 else 'were'} imported "
            "before hasten's switch was turned on: turn it on first (import hasten.as_fastapi "
            "before anything imports fastapi or starlette)"
        )
    sys.meta_path.insert(0, _FINDER)
    os.environ[ENVIRONMENT_VARIABLE] = "1"


def turn_on_if_asked() -> bool:
    """Turn the switch on where the environment asks for it; whether it is on."""
    if os.environ.get(ENVIRONMENT_VARIABLE) == "1":
        turn_on()
    return is_on()
