"""``hasten run --server uvicorn``: uvicorn with hasten's limits, its workers tied to it.

Imported only to serve on uvicorn (it imports uvicorn). With one worker uvicorn serves in this
process; with several (or ``--reload``) it spawns them, and each loads the app through
``TiedConfig.load``, which first ties the worker to this process (see ``_lifeline``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import uvicorn
from uvicorn.supervisors import ChangeReload, Multiprocess

from hasten._running.lifeline import STARTING_SIGNAL, die_with_parent
from hasten._switch import turn_on_if_asked

if TYPE_CHECKING:
    from hasten._cli.main import RunConfig

__all__ = ["STARTUP_FAILURE", "TiedConfig", "serve"]

# uvicorn's exit status when its app did not start (3 in every release; recent ones name it in
# uvicorn.config).
STARTUP_FAILURE = 3


class TiedConfig(uvicorn.Config):
    """uvicorn's configuration; a worker process that loads it dies with the process that made
    it. It travels to each worker by pickle, so it lives at module level."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parent_pid = os.getpid()

    def load(self) -> None:
        tied = os.getpid() != self.parent_pid  # in a worker that uvicorn spawned
        if tied:
            die_with_parent(self.parent_pid, STARTING_SIGNAL)  # until the app has started
        turn_on_if_asked()  # hasten run --as-fastapi: before the app imports fastapi
        super().load()
        if tied:
            self.lifespan_class = _gently_once_started(self.lifespan_class, self.parent_pid)


def _gently_once_started(lifespan: type[Any], parent_pid: int) -> type[Any]:
    """uvicorn's lifespan class, whose startup, once over, has the parent's death send
    SIGTERM: the worker then stops as on a normal shutdown, its requests in flight finished."""

    class GentleOnceStarted(lifespan):  # type: ignore[misc]  # a class found at run time
        async def startup(self) -> None:
            await super().startup()
            die_with_parent(parent_pid)

    return GentleOnceStarted


def serve(config: RunConfig) -> None:
    """Serve ``config.target`` on uvicorn until it stops: what ``uvicorn.run`` does, with a
    configuration whose workers cannot outlive this process."""
    settings = TiedConfig(
        config.target,
        host=config.host,
        port=config.port,
        workers=config.workers,
        reload=config.reload,
        reload_dirs=list(config.reload_dir) or None,
        reload_includes=list(config.reload_include) or None,
        reload_excludes=list(config.reload_exclude) or None,
        loop=config.loop,
        backlog=config.backlog,
        limit_concurrency=config.max_connections,
        timeout_keep_alive=config.keep_alive_timeout,
        # As on Granian: no access log. uvicorn's writes each URL whole (a line of 100 KB for
        # a 100 KB URL).
        access_log=False,
        # As on Granian: the app decides whom to take X-Forwarded-* from
        # (ProxyHeadersMiddleware). uvicorn's own trusts 127.0.0.1 by default, so a request
        # from there set request.client whatever the app's trusted_hosts said.
        proxy_headers=False,
    )
    server = uvicorn.Server(settings)
    if settings.should_reload:
        ChangeReload(settings, target=server.run, sockets=[settings.bind_socket()]).run()
    elif settings.workers > 1:
        Multiprocess(settings, sockets=[settings.bind_socket()]).run()
    else:
        server.run()
        if not server.started:
            sys.exit(STARTUP_FAILURE)
