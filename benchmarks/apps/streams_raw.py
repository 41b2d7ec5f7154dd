"""The floor of the WebSocket echo benchmark: a hand-written ASGI app (``asgi``) and RSGI app
(``rsgi``) echoing every text message, with no framework at all."""

from __future__ import annotations

from typing import Any


async def asgi(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        await send({"type": "websocket.send", "text": message["text"]})


class RSGI:
    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.proto == "http":
            proto.response_bytes(200, [], b"ok")
            return
        transport = await proto.accept()
        while True:
            message = await transport.receive()
            if message.kind == 0:
                proto.close(1000)
                return
            await transport.send_str(message.data)


rsgi = RSGI()
