"""hasten's benchmark app with the blocking monitor off: measures what the monitor costs."""

from __future__ import annotations

from benchmarks.apps.hasten_app import api
from hasten import App

app = App(block_threshold=None)
app.include(api)
