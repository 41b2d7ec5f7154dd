"""The README's Dask example: a Client made when the module is imported, its executor given
to a route. The scheduler's address comes from the environment (a LocalCluster the test
starts); the handler is in a module the cluster's workers can import."""

from __future__ import annotations

import os

from distributed import Client

from hasten import App
from tests import offload_handlers as handlers

cluster = Client(os.environ["HASTEN_TEST_SCHEDULER"]).get_executor()

app = App()
app.add_route("/fibo/{n}", handlers.compute, executor=cluster)
