"""The app: a client of the cluster, made when the module is imported, and a route whose
handler runs on the cluster's workers."""

from __future__ import annotations

import os

from distributed import Client

from examples.recipes.cluster import work
from hasten import App

# Made at import, as FastAPI apps make their clients: `hasten run` imports the app in each of
# its worker processes, so each has a client of its own.
client = Client(os.environ.get("DASK_SCHEDULER", "tcp://127.0.0.1:8786"))

app = App()
app.add_route("/primes/{below}", work.primes, executor=client.get_executor())


@app.on_shutdown
def close_the_client() -> None:
    client.close()
