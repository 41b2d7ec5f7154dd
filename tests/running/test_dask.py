"""executor= with a real Dask cluster: CPU-bound work moves to the cluster's workers."""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Iterator
from concurrent.futures import Executor
from pathlib import Path

import pytest

from hasten import App
from tests import offload_handlers as handlers
from tests.conftest import ClientFactory

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster_executor() -> Iterator[Executor]:
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    try:
        yield client.get_executor()
    finally:
        client.close()
        cluster.close()


def test_handler_runs_on_the_dask_cluster(serve: ClientFactory, cluster_executor: Executor) -> None:
    app = App()
    app.add_api_route("/fibo/{n}", handlers.compute, executor=cluster_executor)
    app.add_api_route("/fibo-async/{n}", handlers.compute_async, executor=cluster_executor)
    app.add_api_route("/crash/{code}", handlers.crash, executor=cluster_executor)
    client = serve(app, raise_server_exceptions=False)
    for path in ("/fibo/22", "/fibo-async/22"):
        body = client.get(path).json()
        assert body["fibo"] == 17711
        assert body["pid"] != os.getpid()  # a Dask worker process
    assert client.get("/crash/1").status_code == 500


def test_a_cluster_that_cannot_import_the_handler_stops_the_startup(
    cluster_executor: Executor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module only this process can import: the cluster's workers started without it.
    (tmp_path / "only_here.py").write_text("def work() -> int:\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    only_here = importlib.import_module("only_here")
    app = App()
    app.add_api_route("/work", only_here.work, executor=cluster_executor)

    with pytest.raises(RuntimeError) as raised:
        asyncio.run(app.startup())

    message = str(raised.value)
    assert message.startswith(
        "executor=: the executor's workers cannot import only_here (GET /work)"
    )
    assert "No module named 'only_here'" in message
    assert message.endswith(
        "A Dask cluster's workers run a handler by importing its module: give them the app's "
        "code and packages (the same image, or PYTHONPATH; client.upload_file for a single "
        "module)."
    )
    assert not app.started
