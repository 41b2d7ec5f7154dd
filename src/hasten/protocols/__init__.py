"""The protocol adapters: the only code that speaks RSGI or ASGI, and the only code that
imports Granian's request-serving names."""

from granian.rsgi import ProtocolClosed

__all__ = ["CLIENT_GONE"]

# What writing to a client that has left raises: OSError from ASGI servers (ASGI 2.4),
# Granian's ProtocolClosed under RSGI.
CLIENT_GONE: tuple[type[BaseException], ...] = (OSError, ProtocolClosed)
