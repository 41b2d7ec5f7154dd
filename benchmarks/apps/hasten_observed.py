"""``benchmarks.apps.hasten_app``'s routes with observability on, for benchmarks/observability.py.

- ``app_metrics``: Prometheus metrics at /metrics (``metrics_url``)
- ``app_all``: metrics, the live stats (``stats_token``) and the JSON access log, its logger
  left at WARNING so that lines are built for nothing but their check (as in production
  with the access log turned off in logging config)
"""

from __future__ import annotations

from benchmarks.apps.hasten_app import api
from hasten import App

app_metrics = App(metrics_url="/metrics")
app_metrics.include(api)

app_all = App(metrics_url="/metrics", stats_token="bench", access_log="json")
app_all.include(api)
