"""The HTTP model: what a handler receives (Request, WebSocket, forms, uploads) and answers
(responses, errors, encoding), and a request's cleanup. It may import ``_running`` and below."""
