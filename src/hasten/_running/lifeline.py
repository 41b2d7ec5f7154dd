"""Tie a child process's life to its parent's, so that no process outlives the server.

``hasten run`` is the parent of the server's workers (Granian's, uvicorn's), and each worker is
the parent of its app's process-pool workers. Were a parent killed outright (``kill -9``, the
OOM killer), its children would live on, orphaned, still holding the listening socket. So each
child asks the kernel, as it starts, for a signal when its parent dies (``PR_SET_PDEATHSIG``):
no polling, no thread, and it works whatever the server's process model is.

Two rules of the kernel shape how it is used:
- the signal comes when the *thread* that started the child ends, not the process: a child
  must be started from a thread that lives as long as its parent does (the main thread, or a
  pool's keeper thread);
- the request does not survive ``exec``, and a parent that dies before the child asks is never
  seen: so the child checks, right after asking, that its parent is still the one it expects.

A server worker asks for ``STARTING_SIGNAL`` (SIGKILL) until its app has started, then for
SIGTERM: Granian and uvicorn take a stop asked for during the app's startup only once the
startup is over (a worker starting its process pool held on for 15 s and more), and a worker
still starting has nothing in flight to finish. A Granian worker stopped because its parent
died ends once its app has shut down, without waiting for threads the app left running
(``end_if_orphaned``; uvicorn's workers end without).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading

__all__ = ["STARTING_SIGNAL", "die_with_parent", "end_if_orphaned"]

_PR_SET_PDEATHSIG = 1
STARTING_SIGNAL = signal.SIGKILL  # a server worker's, until its app has started (see above)


def die_with_parent(parent_pid: int, signum: int = signal.SIGTERM) -> None:
    """In a child process: get ``signum`` when the process ``parent_pid`` (our parent) dies.

    SIGTERM by default: the child then stops as it would on a normal shutdown (a server worker
    lets its requests in flight finish, a pool worker ends). Linux only; elsewhere a no-op.
    """
    if sys.platform != "linux":  # pragma: no cover
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os.kill(os.getpid(), signum)


def end_if_orphaned(parent_pid: int) -> None:
    """In a server worker: when it ends with ``parent_pid`` gone, end at once after the app's
    shutdown, rather than wait for the threads the app left running. A thread that never
    returns (started at import by the app or a library, not a daemon) would keep the orphan
    alive for good, the listening socket with it: no parent is left to kill it."""

    def end() -> None:
        if os.getppid() != parent_pid:
            logging.shutdown()  # what the interpreter's exit would flush
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    # Called as the interpreter (or multiprocessing's process) ends, before it joins the
    # threads left: CPython's hook for this, which concurrent.futures uses too.
    threading._register_atexit(end)  # type: ignore[attr-defined]
