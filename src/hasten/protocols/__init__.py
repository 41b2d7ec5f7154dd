"""The protocol adapters: the only code that speaks RSGI or ASGI."""
