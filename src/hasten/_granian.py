"""``hasten run --server granian``: Granian with hasten's limits, its workers tied to it.

Granian runs in this process and starts its workers from its main thread; each worker loads
the app through ``load_tied``, which first ties the worker to this process (see
``_lifeline``): killed outright, ``hasten run`` takes its workers, and through them their
process pools, down with it.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._lifeline import die_with_parent

if TYPE_CHECKING:
    from .cli import RunConfig

__all__ = ["load_tied", "serve"]


def load_tied(parent_pid: int, working_dir: Path, target: str) -> Any:
    """In a Granian worker: tie it to ``parent_pid``, then load the app as Granian would."""
    from granian._internal import load_target

    die_with_parent(parent_pid)
    return load_target(target, wd=working_dir)


def serve(config: RunConfig) -> None:
    """Serve ``config.target`` on Granian until it stops."""
    from granian import Granian
    from granian.constants import Interfaces
    from granian.http import HTTP1Settings

    working_dir = Path.cwd()
    Granian(
        config.target,
        address=config.host,
        port=config.port,
        interface=Interfaces(config.effective_interface),
        workers=config.workers,
        reload=config.reload,
        respawn_failed_workers=True,
        working_dir=working_dir,
        backlog=config.backlog,
        backpressure=config.max_connections,
        # Granian has one timer for both: the headers of a request, and an idle keep-alive
        # connection waiting for the next one.
        http1_settings=HTTP1Settings(header_read_timeout=round(config.header_timeout * 1000)),
    ).serve(target_loader=partial(load_tied, os.getpid(), working_dir))
