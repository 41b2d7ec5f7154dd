"""A frontend build served beside the API: ``app.frontend("/", directory="dist")``
(FastAPI's ``frontend()``).

Its files are found only after every route, the 405s and the trailing-slash redirects of the
app's routes: a route always wins over a file of the same path. A path with no file gets the
fallback page: ``404.html`` (status 404), or ``index.html`` (200) for a browser's navigation
(an ``Accept`` that takes HTML), so that a single-page app's client-side routes load it.
"""

from __future__ import annotations

import contextlib
import email.message
import os
import warnings
from collections.abc import Iterator
from typing import Literal

from hasten._http.errors import HTTPError
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._http.static_files import StaticFiles
from hasten._serve.matcher import FALLBACK_PATH

__all__ = ["Fallback", "Frontend", "frontend_path"]

Fallback = Literal["auto", "index.html", "404.html"] | None
_FALLBACKS = ("auto", "index.html", "404.html", None)
_HTML = frozenset({"text/html", "application/xhtml+xml"})


def frontend_path(path: str) -> str:
    """``path`` as a frontend's path: it starts with ``/`` and ends without one."""
    if not path:
        raise AssertionError("A frontend path cannot be empty")
    if not path.startswith("/"):
        raise AssertionError("A frontend path must start with '/'")
    return path if path == "/" else path.rstrip("/")


class Frontend:
    """A frontend build's directory, served by ``respond``: its path under the frontend is
    given by the matcher (``FALLBACK_PATH``). Set up with FastAPI's errors where it is wrong,
    at once where ``check_dir`` says so (by default, unless ``FASTAPI_ENV`` is
    ``development``)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        fallback: Fallback,
        check_dir: bool | Literal["auto"],
    ) -> None:
        if fallback not in _FALLBACKS:
            raise AssertionError("fallback must be 'auto', 'index.html', '404.html', or None")
        self.directory = directory
        self.fallback = fallback
        self.files = StaticFiles(directory, html=True, check_dir=False)
        self.checked = _checks(directory, check_dir)
        if self.checked:
            _check_directory(directory)
            if fallback in ("index.html", "404.html"):
                self._page(fallback)

    async def respond(self, request: Request) -> Response:
        """The file the request's path names, else the fallback page, else a 404."""
        if not self.checked:  # checked when asked for, as FastAPI's
            _check_directory(self.directory)
        found = self.files.resource(request.path_params.get(FALLBACK_PATH, ""))
        if request.method not in ("GET", "HEAD"):
            raise HTTPError(405 if found is not None else 404)
        if found is None:
            return self._fallback(request)
        file, info, index = found
        if index and not request.path.endswith("/"):
            return self.files.to_directory(request)
        return self.files.file(file, info)

    def _fallback(self, request: Request) -> Response:
        fallback, files = self.fallback, self.files
        if fallback == "404.html" or (fallback == "auto" and files.page("404.html")):
            return files.file(*self._page("404.html"), status=404)
        index = fallback == "index.html" or (
            fallback == "auto" and files.page("index.html") is not None
        )
        if index and _navigation(request):
            return files.file(*self._page("index.html"))
        raise HTTPError(404)

    def _page(self, name: str) -> tuple[str, os.stat_result]:
        found = self.files.page(name)
        if found is None:
            raise RuntimeError(
                f"Frontend fallback file '{name}' does not exist in directory "
                f"'{os.fspath(self.directory)}'. Resolved absolute directory: "
                f"'{self.files.directory}'"
            )
        return found


def _checks(directory: str | os.PathLike[str], check_dir: bool | Literal["auto"]) -> bool:
    """Whether the directory is checked now: ``check_dir``, or with ``"auto"`` unless
    ``FASTAPI_ENV`` is ``development`` (``fastapi dev``'s), where a missing one warns."""
    if check_dir != "auto":
        return check_dir
    if os.environ.get("FASTAPI_ENV") != "development":
        return True
    if not os.path.isdir(directory):
        warnings.warn(
            f"Frontend directory '{os.fspath(directory)}' does not exist. "
            f"Resolved absolute path: '{os.path.realpath(directory)}'",
            stacklevel=4,  # the user's frontend() call
        )
    return False


def _check_directory(directory: str | os.PathLike[str]) -> None:
    if not os.path.isdir(directory):
        raise RuntimeError(
            f"Frontend directory '{os.fspath(directory)}' does not exist. "
            f"Resolved absolute path: '{os.path.realpath(directory)}'"
        )


def _navigation(request: Request) -> bool:
    """Whether the request is a browser's navigation: its ``Accept`` takes HTML (a q of 0
    refuses it, a wildcard does not count)."""
    return any(
        media_type in _HTML and quality != 0
        for media_type, quality in _accepted(request.headers.get("accept", ""))
    )


def _accepted(accept: str) -> Iterator[tuple[str, float]]:
    """Each media type of an ``Accept`` header with its quality (1 unless a valid ``q``)."""
    for item in accept.split(","):
        message = email.message.Message()
        message["content-type"] = item.strip()
        quality = 1.0
        given = message.get_param("q")
        if isinstance(given, str):
            with contextlib.suppress(ValueError):  # a q that is no number: 1, as FastAPI's
                quality = float(given)
        yield message.get_content_type(), quality
