"""``benchmarks.tfb.app``'s routes with the blocking monitor on, as every app has it by default:
what the monitor costs on the TFB tests (``benchmarks/observability.py``)."""

from __future__ import annotations

from benchmarks.tfb.app import app as unmonitored
from hasten import App

app = App(openapi_url=None, docs_url=None)
app.include(unmonitored)
