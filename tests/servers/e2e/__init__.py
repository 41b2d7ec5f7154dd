"""End-to-end tests: the app served by real servers (Granian RSGI and ASGI, uvicorn)."""
