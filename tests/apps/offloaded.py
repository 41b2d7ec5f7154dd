"""An app whose handler runs in its process pool, from a module of its own."""

from __future__ import annotations

from hasten import App
from tests.apps import work

app = App(max_processes=2, process_threads=1)
app.add_api_route("/imported-at", work.imported_at, offload="process")
