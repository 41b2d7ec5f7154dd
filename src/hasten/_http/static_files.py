"""StaticFiles: a directory served under a prefix, ``app.mount("/static", StaticFiles(...))``.

Files go out as ``FileResponse`` (Granian's own file sending under RSGI, with ETag,
Last-Modified, 304 and ranges). The request's path is taken as the server decoded it, once,
and never decoded again: a segment ``..`` (however it was encoded on the wire), a backslash,
a NUL, or a symlink leading out of the directory (unless ``follow_symlinks``) finds nothing.
"""

from __future__ import annotations

import importlib.util
import os
import stat
from collections.abc import Mapping, Sequence
from typing import Any

from hasten._flow.contracts import Receive, Scope, Send
from hasten._http.datastructures import URL
from hasten._http.errors import HTTPError
from hasten._http.files import FileResponse
from hasten._http.paths import encode_path, under_root
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, RedirectResponse, Response

__all__ = ["StaticFiles"]


class StaticFiles:
    """Serve the files under ``directory``.

    ``html=True``: a directory serves its ``index.html`` (a path to it without the trailing
    slash is redirected to it), and a missing file the directory's ``404.html`` if there is
    one. ``follow_symlinks=True`` serves symlinks that lead out of the directory.
    ``headers`` are added to every file (``{"cache-control": "public, max-age=3600"}``).
    Only GET and HEAD are served (405 otherwise).
    """

    methods = frozenset({"GET", "HEAD"})
    # Whether the directory was found to be one, at the first request (where check_dir=False
    # left it until then; with check_dir, it was checked when made, and is once more then).
    config_checked = False

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        packages: Sequence[str | tuple[str, str]] | None = None,
        html: bool = False,
        follow_symlinks: bool = False,
        check_dir: bool = True,
        headers: Mapping[str, str] | None = None,
        follow_symlink: bool = False,  # Starlette's name
    ) -> None:
        # The folders looked in, in order: ``directory``, then each package's ``statics``
        # folder (or the folder a (package, folder) pair names), as Starlette's.
        folders = [] if directory is None else [os.fspath(directory)]
        folders += [_package_folder(package) for package in packages or ()]
        if not folders:
            raise ValueError("StaticFiles needs a directory or packages")
        self.directories = [os.path.realpath(folder) for folder in folders]
        self.directory = self.directories[0]
        self.html = html
        self.follow_symlinks = follow_symlinks or follow_symlink
        self.headers = dict(headers or {})
        self._given = None if directory is None else os.fspath(directory)
        self._own_response = type(self).get_response is not StaticFiles.get_response
        if check_dir and directory is not None and not os.path.isdir(self.directory):
            raise RuntimeError(f"StaticFiles directory {os.fspath(directory)!r} does not exist")

    def __repr__(self) -> str:
        return f"StaticFiles({self.directory!r})"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve as an ASGI app of its own, as Starlette's StaticFiles is one (mounted in an
        app, it is served without ASGI: ``respond``). A file that is not there is a plain
        404, where Starlette's raises it to the server, which makes it a 500."""
        if scope["type"] == "lifespan":  # nothing to start: the server is told so
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] == "websocket":  # refused with a close, as Starlette's (a 403)
            await send({"type": "websocket.close", "code": 1000, "reason": ""})
            return
        if scope["type"] != "http":
            raise RuntimeError(f"StaticFiles serves HTTP, not {scope['type']!r}")
        if not self.config_checked:
            await self.check_config()
        try:
            response = await self.get_response(self.get_path(scope), scope)
        except HTTPError as refused:
            response = PlainTextResponse(str(refused.detail), refused.status, refused.headers)
        await response(scope, receive, send)

    async def respond(self, request: Request, path: str) -> Response:
        """The response for ``path``, the part of the request's path after the mount."""
        if not self.config_checked:
            await self.check_config()
        if self._own_response:
            # A subclass's get_response (a single-page app's index for any missing file,
            # as Starlette's docs write one) answers mounted too.
            return await self.get_response(path, request.scope)
        found = self.resource(path)
        if found is None:
            return self._not_found()
        file, info, index = found
        if index and not request.path.endswith("/"):
            return self.to_directory(request)
        return self.file(file, info)

    async def check_config(self) -> None:
        """Check that the directory is one (Starlette's; once, at the first request, where
        ``check_dir=False`` left it until then)."""
        if self._given is not None:
            try:
                info = os.stat(self.directory)
            except FileNotFoundError:
                raise RuntimeError(
                    f"StaticFiles directory '{self._given}' does not exist."
                ) from None
            if not stat.S_ISDIR(info.st_mode):
                raise RuntimeError(f"StaticFiles path '{self._given}' is not a directory.")
        self.config_checked = True

    def get_path(self, scope: Scope) -> str:
        """The path looked for: the request's, under the path the files are served at."""
        return under_root(scope["path"], scope.get("root_path", ""))

    async def get_response(self, path: str, scope: Mapping[str, Any]) -> Response:
        """The response for ``path`` to a request over ``scope`` (Starlette's): a file, a
        directory's index (redirected to with a slash), or the 404 raised."""
        if scope["method"] not in self.methods:
            raise HTTPError(405, headers={"allow": "GET, HEAD"})
        found = self.resource(path)
        if found is None:
            return self._not_found()
        file, info, index = found
        if index and not scope["path"].endswith("/"):
            url = URL(scope=scope)
            return RedirectResponse(url.replace(path=url.path + "/"), status=307)
        return self.file(file, info)

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        """The file or directory ``path`` names under the directories, and its stat; ``("",
        None)`` where there is none, or where the path would leave them (Starlette's)."""
        found = self._find(path)
        return ("", None) if found is None else found

    def resource(self, path: str) -> tuple[str, os.stat_result, bool] | None:
        """The file ``path`` names under the directory (with ``html``, a directory's
        ``index.html``), its stat, and whether it is such an index; None when there is none."""
        file, info = self.lookup_path(path)
        if info is None:
            return None
        if stat.S_ISREG(info.st_mode):
            return file, info, False
        if self.html and stat.S_ISDIR(info.st_mode):
            index = self.page(os.path.join(path, "index.html"))
            if index is not None:
                return (*index, True)
        return None

    def page(self, path: str) -> tuple[str, os.stat_result] | None:
        """The regular file ``path`` names under the directory, and its stat, if there is one."""
        file, info = self.lookup_path(path)
        if info is None or not stat.S_ISREG(info.st_mode):
            return None
        return file, info

    def file(self, path: str, info: os.stat_result, status: int = 200) -> FileResponse:
        """A file found under the directory, as this StaticFiles sends it."""
        return FileResponse(path, status, self.headers or None, stat_result=info)

    def _find(self, path: str) -> tuple[str, os.stat_result] | None:
        """The file or directory at ``path`` under the first directory that has it, and its
        (followed) stat; None when there is none, or when the path tries to leave them."""
        if "\\" in path or "\0" in path:
            return None
        parts = [part for part in path.split("/") if part]
        if any(part in ("..", ".") for part in parts):
            return None
        for directory in self.directories:
            found = self._find_in(directory, parts)
            if found is not None:
                return found
        return None

    def _find_in(self, directory: str, parts: list[str]) -> tuple[str, os.stat_result] | None:
        current = directory
        if not parts:
            info = self._stat(current)
            return (current, info) if info is not None else None
        # perf: one lstat per component under the directory (realpath() would lstat every
        # component from /), resolving a symlink only where there is one.
        info = None
        for part in parts:
            current = f"{current}{os.sep}{part}"
            try:
                info = os.lstat(current)
            except (OSError, ValueError):
                return None
            if stat.S_ISLNK(info.st_mode):
                real = os.path.realpath(current)
                inside = real == directory or real.startswith(directory + os.sep)
                if not self.follow_symlinks and not inside:
                    return None  # a symlink leading out of the directory
                followed = self._stat(current)
                if followed is None:
                    return None
                info = followed
        assert info is not None  # there was a part
        return current, info

    @staticmethod
    def _stat(path: str) -> os.stat_result | None:
        try:
            return os.stat(path)
        except (OSError, ValueError):
            return None

    def to_directory(self, request: Request) -> Response:
        """A redirect to the request's path with a slash after it (a directory's index)."""
        location = request.url_with_path(encode_path(request.path) + "/")
        return RedirectResponse(location, status=307)

    def _not_found(self) -> FileResponse:
        page = self.page("404.html") if self.html else None
        if page is not None:
            return self.file(*page, status=404)
        # The app's answer to a 404 (its handler's, if it has one), as Starlette's raises it.
        raise HTTPError(404, "Not Found")


def _package_folder(package: str | tuple[str, str]) -> str:
    """The folder of static files a package holds: ``statics``, or the one named."""
    name, folder = (package, "statics") if isinstance(package, str) else package
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"Package {name!r} could not be found.")
    found = os.path.join(os.path.dirname(spec.origin), folder)
    if not os.path.isdir(found):
        raise RuntimeError(f"Directory {folder!r} in package {name!r} could not be found.")
    return found
