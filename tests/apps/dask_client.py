"""The README's Dask example: a Client made when the module is imported, its executor given
to a route. The scheduler's address comes from the environment (a LocalCluster the test
starts); the handler is in a module the cluster's workers can import."""

from __future__ import annotations

import os

from distributed import Client

from hasten import App
from tests import offload_handlers as handlers

# distributed's Client is not annotated.
client = Client(os.environ["HASTEN_TEST_SCHEDULER"])  # type: ignore[no-untyped-call]
cluster = client.get_executor()  # type: ignore[no-untyped-call]

app = App()
app.add_api_route("/fibo/{n}", handlers.compute, executor=cluster)
