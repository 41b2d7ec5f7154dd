"""Each tutorial app's OpenAPI document, as this Python's framework (FastAPI or hasten) makes it.

    python compat/documents.py OUT.json [AREA ...]

Run by ``compat/run.py`` inside a tutorial tree: every module of ``docs_src`` is imported, and
the document of its ``app`` (any object with an ``openapi()`` method) is written to OUT.json
by module name; a module that fails to import or has no app is written as the reason.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
import warnings
from pathlib import Path


def main() -> int:
    out = Path(sys.argv[1])
    areas = sys.argv[2:]
    documents: dict[str, object] = {}
    for path in sorted(Path("docs_src").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        parts = path.with_suffix("").parts
        if areas and parts[1].rstrip("_") not in areas:
            continue
        module = ".".join(parts)
        documents[module] = document(module)
    out.write_text(json.dumps(documents, indent=1, sort_keys=True, default=str))
    return 0


def document(module: str) -> object:
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            loaded = importlib.import_module(module)
            app = getattr(loaded, "app", None)
            if app is None or not callable(getattr(app, "openapi", None)):
                return "no app"
            return app.openapi()
    except BaseException as exc:  # every failure is a reason, reported
        return f"{type(exc).__name__}: {exc}"[:300]


if __name__ == "__main__":
    raise SystemExit(main())
