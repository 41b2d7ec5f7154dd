"""bare_app's app, whose module starts a thread at import that never ends and is not a daemon
(as some clients' and schedulers' background threads are): ``tests/servers/test_lifeline.py`` checks
that such a thread keeps no worker alive once ``hasten run`` is gone."""

from __future__ import annotations

import threading

from tests.servers.e2e.bare_app import app

__all__ = ["app"]

_never = threading.Event()
threading.Thread(target=_never.wait, name="started-at-import").start()
