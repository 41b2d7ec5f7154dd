"""Importing this module turns hasten's switch on: from then on, ``fastapi`` and
``starlette`` are hasten's modules for the whole process, so an unmodified FastAPI app and the
extensions it installs run on hasten.

    import hasten.as_fastapi  # first thing, before anything imports fastapi or starlette

``hasten run --as-fastapi`` and pytest's ``--as-fastapi`` do the same (``hasten._switch``).
"""

from __future__ import annotations

import logging

from hasten._switch import turn_on

turn_on()
logging.getLogger("hasten").info("hasten serves the fastapi and starlette modules (as_fastapi)")
