"""The app: a client of the cluster, made when the module is imported, and a route whose
handler runs on the cluster's workers."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from distributed import Client

from examples.recipes.cluster import work
from hasten import FastAPI
from hasten.concurrency import run_in_threadpool

# Made at import, as FastAPI apps make their clients: `hasten run` imports the app in each of
# its worker processes, so each has a client of its own.
client = Client(os.environ.get("DASK_SCHEDULER", "tcp://127.0.0.1:8786"))


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    await run_in_threadpool(client.close)  # at shutdown; it blocks, so not on the loop


app = FastAPI(lifespan=lifespan)
app.add_api_route("/primes/{below}", work.primes, executor=client.get_executor())
