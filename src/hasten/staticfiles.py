"""StaticFiles: a directory served under a prefix, ``app.mount("/static", StaticFiles(...))``.

The public names; the code is in ``hasten._http.static_files``."""

from hasten._http.static_files import StaticFiles

__all__ = ["StaticFiles"]
