"""Falcon's implementation of TFB's json and plaintext (see ``app.py`` for the test types).

Written as Falcon's ASGI docs show: a ``falcon.asgi.App`` with one resource class per route,
``on_get`` responders that set ``resp.media`` (serialised by Falcon's JSON handler, per request)
or ``resp.text`` with its content type; served by Granian's ASGI. Only json and plaintext: the
database tests are not what this peer is here for (Falcon has no database layer of its own).
"""

from __future__ import annotations

import falcon
import falcon.asgi


class JSONResource:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.media = {"message": "Hello, World!"}


class PlaintextResource:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.content_type = falcon.MEDIA_TEXT
        resp.text = "Hello, World!"


app = falcon.asgi.App()
app.add_route("/json", JSONResource())
app.add_route("/plaintext", PlaintextResource())
