"""An app whose module takes seconds to import in a Granian worker (a large app, a slow
client): a stop asked for meanwhile must stop the worker."""

from __future__ import annotations

import multiprocessing
import time

from hasten import App

if multiprocessing.current_process().name == "granian-worker":
    time.sleep(5)

app = App()
