"""The HTTP objects: what a handler receives (Request, WebSocket, forms, uploads) and answers
(responses, errors, JSON in and out). How a request flows through the server is ``_flow``,
beside it in its layer. It may import ``_flow``, ``_running`` and below."""
